//===- Output.cpp - what pa-compile writes and prints ---------------------===//
#include "Output.h"

#include "pa/Runtime/ProgramArtifact.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

LogicalResult mlir::pa::writeOutput(StringRef path, StringRef contents) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file) {
    llvm::errs() << "pa-compile: " << error << "\n";
    return failure();
  }
  file->os() << contents;
  file->keep();
  return success();
}

LogicalResult mlir::pa::writeImage(StringRef output, bool asProgram,
                                   StringRef chip, StringRef format,
                                   StringRef image, StringRef metadataJson) {
  if (!asProgram)
    return success(succeeded(writeOutput(output, image)) &&
                   succeeded(writeOutput(output.str() + ".json",
                                         metadataJson)));
  ::pa::runtime::ProgramArtifact program;
  program.chip = chip.str();
  program.codeFormat = format.str();
  program.codeObject = image.str();
  program.metadataJson = metadataJson.str();
  std::string error;
  if (::pa::runtime::writeProgram(output.str(), program, error))
    return success();
  llvm::errs() << "pa-compile: " << error << "\n";
  return failure();
}

void mlir::pa::forEachMetadataKernel(
    StringRef metadataJson,
    function_ref<void(const llvm::json::Object &root)> onRoot,
    function_ref<void(const llvm::json::Object &kernel)> onKernel) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(metadataJson);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Array *kernels = root ? root->getArray("kernels") : nullptr;
  if (!kernels)
    return;
  onRoot(*root);
  for (const llvm::json::Value &value : *kernels)
    if (const llvm::json::Object *kernel = value.getAsObject())
      onKernel(*kernel);
}

int64_t mlir::pa::metadataNumber(const llvm::json::Object &kernel,
                                 StringRef key) {
  return kernel.getInteger(key).value_or(-1);
}
