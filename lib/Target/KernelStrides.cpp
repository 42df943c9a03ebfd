//===- KernelStrides.cpp - the strides a kernel reads at run time ---------===//
#include "pa/Target/KernelStrides.h"
#include "pa/IR/KernelAttributes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/JSON.h"

using namespace mlir;

std::string mlir::pa::kernelArgumentName(Operation *kernel, unsigned index) {
  if (auto names = kernel->getAttrOfType<ArrayAttr>(kArgNamesAttrName))
    if (index < names.size())
      if (auto named = dyn_cast<StringAttr>(names[index]))
        return named.str();
  return "arg" + std::to_string(index);
}

void mlir::pa::recordDynamicStrides(Operation *kernel,
                                    TypeRange argumentTypes) {
  MLIRContext *ctx = kernel->getContext();
  SmallVector<NamedAttribute> operands, layouts, shapes;
  for (auto [i, type] : llvm::enumerate(argumentTypes)) {
    // The sizes the type fixes are compiled in, whatever the layout.
    if (auto memref = dyn_cast<MemRefType>(type);
        memref && llvm::any_of(memref.getShape(), [](int64_t size) {
          return !ShapedType::isDynamic(size);
        }))
      shapes.push_back(NamedAttribute(
          StringAttr::get(ctx, kernelArgumentName(kernel, i)),
          DenseI64ArrayAttr::get(ctx, memref.getShape())));
    // An identity layout is row-major by definition (its strides follow
    // from the sizes, even dynamic ones): the caller's view must be too.
    auto memref = dyn_cast<MemRefType>(type);
    SmallVector<int64_t> strides, dims;
    int64_t offset;
    if (!memref || memref.getLayout().isIdentity() ||
        failed(memref.getStridesAndOffset(strides, offset)))
      continue;
    StringAttr name = StringAttr::get(ctx, kernelArgumentName(kernel, i));
    // The strides and offset the type fixes, which the kernel does not
    // read from the descriptor: the caller's view must have them.
    layouts.push_back(NamedAttribute(
        name, StridedLayoutAttr::get(ctx, offset, strides)));
    for (auto [dim, stride] : llvm::enumerate(strides))
      if (ShapedType::isDynamic(stride))
        dims.push_back(static_cast<int64_t>(dim));
    if (!dims.empty())
      operands.push_back(
          NamedAttribute(name, DenseI64ArrayAttr::get(ctx, dims)));
  }
  kernel->setAttr(kDynamicStridesAttrName,
                  DictionaryAttr::get(ctx, operands));
  kernel->setAttr(kStaticSizesAttrName, DictionaryAttr::get(ctx, shapes));
  if (layouts.empty())
    kernel->removeAttr(kStaticLayoutsAttrName);
  else
    kernel->setAttr(kStaticLayoutsAttrName, DictionaryAttr::get(ctx, layouts));
}

void mlir::pa::writeDynamicStrides(llvm::json::OStream &json,
                                   Operation *kernel) {
  json.attributeBegin("dynamic_strides");
  json.objectBegin();
  if (auto operands =
          kernel ? kernel->getAttrOfType<DictionaryAttr>(
                       kDynamicStridesAttrName)
                 : DictionaryAttr())
    for (NamedAttribute operand : operands)
      if (auto dims = dyn_cast<DenseI64ArrayAttr>(operand.getValue()))
        json.attributeArray(operand.getName().getValue(), [&] {
          for (int64_t dim : dims.asArrayRef())
            json.value(dim);
        });
  json.objectEnd();
  json.attributeEnd();

  auto layouts = kernel ? kernel->getAttrOfType<DictionaryAttr>(
                              kStaticLayoutsAttrName)
                        : DictionaryAttr();
  auto eachLayout = [&](auto &&write) {
    if (layouts)
      for (NamedAttribute operand : layouts)
        if (auto layout = dyn_cast<StridedLayoutAttr>(operand.getValue()))
          write(operand.getName().getValue(), layout);
  };
  json.attributeObject("static_strides", [&] {
    eachLayout([&](StringRef name, StridedLayoutAttr layout) {
      json.attributeObject(name, [&] {
        for (auto [dim, stride] : llvm::enumerate(layout.getStrides()))
          if (!ShapedType::isDynamic(stride))
            json.attribute(std::to_string(dim), stride);
      });
    });
  });
  json.attributeObject("static_offsets", [&] {
    eachLayout([&](StringRef name, StridedLayoutAttr layout) {
      if (!ShapedType::isDynamic(layout.getOffset()))
        json.attribute(name, layout.getOffset());
    });
  });

  json.attributeObject("static_sizes", [&] {
    if (auto shapes = kernel ? kernel->getAttrOfType<DictionaryAttr>(
                                   kStaticSizesAttrName)
                             : DictionaryAttr())
      for (NamedAttribute operand : shapes)
        if (auto shape = dyn_cast<DenseI64ArrayAttr>(operand.getValue()))
          json.attributeObject(operand.getName().getValue(), [&] {
            for (auto [dim, size] : llvm::enumerate(shape.asArrayRef()))
              if (!ShapedType::isDynamic(size))
                json.attribute(std::to_string(dim), size);
          });
  });
}

void mlir::pa::writeAccessAlignments(llvm::json::OStream &json,
                                     Operation *kernel) {
  json.attributeObject("alignments", [&] {
    if (auto operands = kernel ? kernel->getAttrOfType<DictionaryAttr>(
                                     kAccessAlignmentsAttrName)
                               : DictionaryAttr())
      for (NamedAttribute operand : operands)
        if (auto pair = dyn_cast<DenseI64ArrayAttr>(operand.getValue());
            pair && pair.size() == 2)
          json.attributeObject(operand.getName().getValue(), [&] {
            json.attribute("bytes", pair[0]);
            json.attribute("element_bytes", pair[1]);
          });
  });
}

void mlir::pa::writePlanLimits(llvm::json::OStream &json, Operation *kernel) {
  auto limits =
      kernel ? kernel->getAttrOfType<DenseI64ArrayAttr>(kPlanLimitsAttrName)
             : DenseI64ArrayAttr();
  if (!limits || limits.size() != 3)
    return;
  json.attributeObject("plan_limits", [&] {
    json.attribute("budget", limits[0]);
    json.attribute("max_partitions", limits[1]);
    json.attribute("kv_heads", limits[2]);
  });
}
