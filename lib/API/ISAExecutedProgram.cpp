//===- ISAExecutedProgram.cpp - decode on the instruction executor --------===//
#include "pa/API/ISAExecutedProgram.h"

#include "pa/API/Compile.h"

using namespace mlir;
using namespace mlir::pa;

ISAExecutedProgram::ISAExecutedProgram() = default;
ISAExecutedProgram::~ISAExecutedProgram() = default;

FailureOr<std::unique_ptr<ISAExecutedProgram>>
ISAExecutedProgram::compile(const DecodeConfig &config, std::string &error,
                            const CompileOptions &options) {
  FailureOr<CompiledKernels> compiled = compileDecode(config, options, error);
  if (failed(compiled))
    return failure();
  if (compiled->format != "hsaco") {
    error = "the instruction-level executor runs AMD code objects (gfx942, "
            "gfx950); chip '" +
            compiled->chip + "' compiles to " + compiled->format;
    return failure();
  }
  std::unique_ptr<ISAExecutedProgram> result(new ISAExecutedProgram());
  result->decodeConfig = config;
  result->loaded = ::pa::isa::ISAProgram::load(compiled->codeObject,
                                               compiled->metadataJson, error);
  if (!result->loaded)
    return failure();
  return result;
}

LogicalResult
ISAExecutedProgram::run(const HostBuffers &buffers, std::string &error,
                        std::map<std::string, ::pa::isa::Stats> *perKernel,
                        const ::pa::isa::LaunchConfig &launch) const {
  if (std::string problem = checkHostBuffers(decodeConfig, buffers);
      !problem.empty()) {
    error = problem;
    return failure();
  }
  std::vector<::pa::runtime::HostOperand> operands;
  for (const DecodeOperand &operand : decodeOperands(decodeConfig, buffers))
    operands.push_back(
        {operand.name, operand.data,
         std::vector<int64_t>(operand.sizes.begin(), operand.sizes.end()),
         operand.elementBytes, operand.readOnly,
         std::vector<int64_t>(operand.strides.begin(), operand.strides.end())});
  return success(loaded->run(operands, launch, error, perKernel));
}
