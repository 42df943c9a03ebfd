//===- Metadata.cpp - the AMDHSA metadata note of a code object as JSON ---===//
//
// The backend writes each kernel's resource usage and argument layout into
// the code object's NT_AMDGPU_METADATA note (msgpack). Reading it back from
// the linked .hsaco reports what the loader will see; the kernels' MLIR
// attributes add what only the compiler knows: the pa op operand behind each
// argument and the launch grid.
//
//===----------------------------------------------------------------------===//
#include "AMDTarget.h"
#include "pa/Target/AMD/CodeObject.h"
#include "pa/Target/KernelStrides.h"
#include "pa/IR/PaDialect.h"
#include "pa/Transforms/KernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::pa;
namespace msgpack = llvm::msgpack;

namespace {

/// The node under `key` of `map`, or null when absent.
msgpack::DocNode *lookup(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

std::optional<int64_t> integerField(msgpack::MapDocNode &map, StringRef key) {
  msgpack::DocNode *node = lookup(map, key);
  if (!node)
    return std::nullopt;
  if (node->getKind() == msgpack::Type::UInt)
    return static_cast<int64_t>(node->getUInt());
  if (node->getKind() == msgpack::Type::Int)
    return node->getInt();
  return std::nullopt;
}

std::optional<std::string> stringField(msgpack::MapDocNode &map,
                                       StringRef key) {
  msgpack::DocNode *node = lookup(map, key);
  if (!node || !node->isString())
    return std::nullopt;
  return node->getString().str();
}

/// `key` of `map` as JSON: integers, strings and arrays of integers as
/// such, anything absent as null.
llvm::json::Value jsonField(msgpack::MapDocNode &map, StringRef key) {
  msgpack::DocNode *node = lookup(map, key);
  if (!node)
    return nullptr;
  if (std::optional<int64_t> value = integerField(map, key))
    return *value;
  if (node->isString())
    return node->getString().str();
  if (node->isArray()) {
    llvm::json::Array values;
    for (msgpack::DocNode &element : node->getArray())
      if (element.getKind() == msgpack::Type::UInt)
        values.push_back(static_cast<int64_t>(element.getUInt()));
      else if (element.getKind() == msgpack::Type::Int)
        values.push_back(element.getInt());
    return values;
  }
  return nullptr;
}

/// "hidden_block_count_x" -> "runtime-provided: block count x".
std::string describeHiddenArgument(StringRef valueKind) {
  std::string what = valueKind.drop_front(strlen("hidden_")).str();
  std::replace(what.begin(), what.end(), '_', ' ');
  return "runtime-provided: " + what;
}

/// Writes one kernel's object: identity and launch shape first, then
/// resources, then the argument list.
void writeKernel(llvm::json::OStream &json, msgpack::MapDocNode &kernel,
                 const llvm::StringMap<KernelInterface> &known) {
  std::string name = stringField(kernel, ".name").value_or("");
  const KernelInterface *info = lookupKernelInterface(known, name);
  auto field = [&](StringRef key, StringRef metadataKey) {
    json.attribute(key, jsonField(kernel, metadataKey));
  };

  json.objectBegin();
  json.attribute("name", name);
  field("symbol", ".symbol");
  json.attribute("grid", info ? info->grid : std::string());
  field("workgroup_size", ".reqd_workgroup_size");
  field("max_flat_workgroup_size", ".max_flat_workgroup_size");
  field("wavefront_size", ".wavefront_size");
  field("lds_bytes", ".group_segment_fixed_size");
  field("scratch_bytes", ".private_segment_fixed_size");
  field("vgpr_count", ".vgpr_count");
  field("agpr_count", ".agpr_count");
  field("sgpr_count", ".sgpr_count");
  field("vgpr_spill_count", ".vgpr_spill_count");
  field("sgpr_spill_count", ".sgpr_spill_count");
  field("kernarg_segment_size", ".kernarg_segment_size");
  field("kernarg_segment_align", ".kernarg_segment_align");
  writeDynamicStrides(json, info ? info->kernel : nullptr);
  writePlanLimits(json, info ? info->kernel : nullptr);

  json.attributeBegin("args");
  json.arrayBegin();
  size_t explicitIndex = 0;
  msgpack::DocNode *list = lookup(kernel, ".args");
  if (list && list->isArray()) {
    for (msgpack::DocNode &node : list->getArray()) {
      if (!node.isMap())
        continue;
      msgpack::MapDocNode arg = node.getMap();
      std::string kind = stringField(arg, ".value_kind").value_or("");
      std::string meaning;
      if (StringRef(kind).starts_with("hidden_")) {
        meaning = describeHiddenArgument(kind);
      } else {
        if (info && explicitIndex < info->argumentFields.size())
          meaning = info->argumentFields[explicitIndex];
        ++explicitIndex;
      }
      json.objectBegin();
      json.attribute("offset", jsonField(arg, ".offset"));
      json.attribute("size", jsonField(arg, ".size"));
      json.attribute("value_kind", kind);
      if (std::optional<std::string> space = stringField(arg, ".address_space"))
        json.attribute("address_space", *space);
      json.attribute("meaning", meaning);
      json.objectEnd();
    }
  }
  json.arrayEnd();
  json.attributeEnd();
  json.objectEnd();
}

/// The NT_AMDGPU_METADATA note's payload, or an error message.
llvm::Expected<std::string> findMetadataNote(StringRef hsaco) {
  using ELF = llvm::object::ELF64LE;
  llvm::Expected<llvm::object::ELFFile<ELF>> file =
      llvm::object::ELFFile<ELF>::create(hsaco);
  if (!file)
    return file.takeError();
  auto sections = file->sections();
  if (!sections)
    return sections.takeError();
  for (const ELF::Shdr &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE)
      continue;
    llvm::Error error = llvm::Error::success();
    for (const ELF::Note &note : file->notes(section, error))
      if (note.getName() == "AMDGPU" &&
          note.getType() == llvm::ELF::NT_AMDGPU_METADATA)
        return note.getDescAsStringRef(section.sh_addralign).str();
    if (error)
      return std::move(error);
  }
  return llvm::createStringError("the code object has no AMDGPU metadata note");
}

} // namespace

FailureOr<std::string> mlir::pa::readCodeObjectMetadata(ModuleOp module,
                                                        StringRef hsaco) {
  llvm::Expected<std::string> note = findMetadataNote(hsaco);
  if (!note)
    return module.emitError() << "cannot read the code object metadata: "
                              << llvm::toString(note.takeError());
  msgpack::Document document;
  if (!document.readFromBlob(*note, /*Multi=*/false) ||
      !document.getRoot().isMap())
    return module.emitError() << "malformed AMDGPU metadata note";
  msgpack::MapDocNode root = document.getRoot().getMap();

  llvm::StringMap<KernelInterface> known = collectKernelInterfaces(module, kKernargFieldsAttrName);
  std::string text;
  llvm::raw_string_ostream os(text);
  {
    llvm::json::OStream json(os, /*IndentSize=*/2);
    json.objectBegin();
    json.attribute("target", jsonField(root, "amdhsa.target"));
    json.attribute("amdhsa_version", jsonField(root, "amdhsa.version"));
    json.attributeBegin("kernels");
    json.arrayBegin();
    msgpack::DocNode *list = lookup(root, "amdhsa.kernels");
    if (list && list->isArray())
      for (msgpack::DocNode &kernel : list->getArray())
        if (kernel.isMap()) {
          msgpack::MapDocNode map = kernel.getMap();
          writeKernel(json, map, known);
        }
    json.arrayEnd();
    json.attributeEnd();
    json.objectEnd();
  }
  os << "\n";
  return text;
}
