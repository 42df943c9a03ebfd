//===- ExecutorRunner.h - a compiled decode on the executor, for tests ----===//
//
// The DecodeRunner (OracleComparison.h) of an ISAProgram: the config's host
// buffers checked, then run on the instruction-level executor; per-kernel
// counts added to `perKernel`.
//
//===----------------------------------------------------------------------===//
#ifndef PA_UNITTESTS_ISAEMULATOR_EXECUTORRUNNER_H
#define PA_UNITTESTS_ISAEMULATOR_EXECUTORRUNNER_H

#include "../Numerics/OracleComparison.h"

#include "pa/API/HostProgram.h"
#include "pa/ISAEmulator/ISAProgram.h"

#include <map>
#include <string>
#include <vector>

namespace pa::numerics {

inline DecodeRunner
executorRunner(const isa::ISAProgram &program,
               const mlir::pa::DecodeConfig &config,
               std::map<std::string, isa::Stats> &perKernel) {
  return [&program, config, &perKernel](const mlir::pa::HostBuffers &buffers,
                                        std::string &message) {
    if (std::string problem = mlir::pa::checkHostBuffers(config, buffers);
        !problem.empty()) {
      message = problem;
      return mlir::failure();
    }
    std::vector<runtime::HostOperand> operands;
    for (const mlir::pa::DecodeOperand &operand :
         mlir::pa::decodeOperands(config, buffers))
      operands.push_back({operand.name, operand.data,
                          std::vector<int64_t>(operand.sizes.begin(),
                                               operand.sizes.end()),
                          operand.elementBytes, operand.readOnly});
    return mlir::success(
        program.run(operands, isa::LaunchConfig(), message, &perKernel));
  };
}

} // namespace pa::numerics

#endif // PA_UNITTESTS_ISAEMULATOR_EXECUTORRUNNER_H
