/*===- pa-c/Support.h - C API: shared by both C libraries ---------*- C -*-===*\
|*                                                                            *|
|* The export macro, caller-owned strings and device operand descriptors,    *|
|* used by both C libraries: libPACAPI.so (the compiler, pa-c/Decode.h,      *|
|* Compile.h, ...) and libPARuntimeCAPI.so (the MLIR-free runtime,           *|
|* pa-c/Runtime.h, Hip.h, Cuda.h). Both export paStringDestroy, so a program *|
|* may link either or both.                                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PA_C_SUPPORT_H
#define PA_C_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define PA_CAPI_EXPORTED __declspec(dllexport)
#else
#define PA_CAPI_EXPORTED __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A string owned by the caller once returned: free it with paStringDestroy.
 * `data` is NUL-terminated; {NULL, 0} means "no string". */
typedef struct {
  char *data;
  size_t length;
} PaString;

PA_CAPI_EXPORTED void paStringDestroy(PaString string);

/* A string borrowed from its owner (valid while the owner lives). Strings
 * the libraries return have a NUL after `length` bytes, but code objects
 * contain NUL bytes: use `length`. Text handed in is exactly `length`
 * bytes. */
typedef struct {
  const char *data;
  size_t length;
} PaStringRef;

/* The PaStringRef of a NUL-terminated string (NULL: {NULL, 0}). */
static inline PaStringRef paStringRefFromCString(const char *string) {
  PaStringRef ref = {string, 0};
  if (string)
    while (string[ref.length])
      ++ref.length;
  return ref;
}

/* One operand in device memory: an array at `address` of `rank` sizes,
 * under its pa operand name ("query", "key_cache", "work_info", ...; the
 * argument names of pa-c/Decode.h's buffers in snake case). `strides`
 * (elements, `rank` of them) or NULL: row-major. The query may have any
 * row stride (dim 0: a view of a fused qkv tensor) and, when key_cache is
 * 4-D (nhd / hnd), K and V any page stride (dim 0: the halves of a
 * combined [N, 2, P, Hkv, D] cache); any other stride than the row-major
 * one is an error naming the operand (a dim of one element may have any). */
typedef struct {
  const char *name;
  uint64_t address;
  int32_t rank;
  const int64_t *sizes;
  const int64_t *strides;
} PaDeviceOperand;

#ifdef __cplusplus
}
#endif

#endif /* PA_C_SUPPORT_H */
