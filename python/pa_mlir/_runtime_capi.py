"""ctypes bindings of include/pa-c/Runtime.h and Cuda.h: libPARuntimeCAPI.so,
the runtime library without MLIR or LLVM.

The library is the environment variable PA_MLIR_RUNTIME_LIB, else the
libPARuntimeCAPI.so beside libPACAPI.so (_capi.library_path(), which is
not loaded for that). Nothing here loads libPACAPI.so, so programs compiled
elsewhere (the on-disk compile cache) run on a machine without MLIR.
"""

import ctypes
import os
from pathlib import Path

from . import _capi, _ffi
from ._ffi import PaString

_i64 = ctypes.c_int64
_i32 = ctypes.c_int32


class PaHostOperand(_ffi.CheckedStructure):
    _fields_ = [("name", ctypes.c_char_p), ("data", ctypes.c_void_p),
                ("rank", _i32), ("sizes", ctypes.POINTER(_i64)),
                ("elementBytes", _i64), ("readOnly", ctypes.c_bool)]


class PaDeviceOperand(_ffi.CheckedStructure):
    _fields_ = [("name", ctypes.c_char_p), ("address", ctypes.c_uint64),
                ("rank", _i32), ("sizes", ctypes.POINTER(_i64))]


class PaCudaProgram(_ffi.Handle):
    """A PaCudaProgram handle."""


_error = _ffi.PaStringPtr
_i32p = ctypes.POINTER(_i32)
_SIGNATURES = {
    "paDecodeCheckSequences": (
        [_i64, _i64, _i64, _i64, _i64, _i64, _i32p, _i32p, _error],
        ctypes.c_bool),
    "paCudaRuntimeAvailable": ([_error], ctypes.c_bool),
    "paCudaProgramLoad": ([ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
                           _error], PaCudaProgram),
    "paCudaProgramDestroy": ([PaCudaProgram], None),
    "paCudaProgramEnqueue": ([PaCudaProgram, ctypes.POINTER(PaDeviceOperand),
                              ctypes.c_size_t, ctypes.c_void_p, _error],
                             ctypes.c_bool),
    "paCudaProgramRun": ([PaCudaProgram, ctypes.POINTER(PaHostOperand),
                          ctypes.c_size_t, _error], ctypes.c_bool),
}


def library_path():
    """The libPARuntimeCAPI.so this package loads."""
    override = os.environ.get("PA_MLIR_RUNTIME_LIB")
    if override:
        return Path(override)
    return _capi.library_path().parent / "libPARuntimeCAPI.so"


_MISSING = ("pa_mlir: the runtime library {path} does not exist; build the "
            "project (make build) or set PA_MLIR_RUNTIME_LIB to "
            "libPARuntimeCAPI.so")

# library(): the loaded runtime C API; RuntimeError saying where it was
# looked for when it is not there.
library = _ffi.Once(lambda: _ffi.load(library_path(), _MISSING, _SIGNATURES))


def cuda_unavailable_reason():
    """None when CUDA programs can run here, else why not (no runtime
    library, no driver, no GPU)."""
    try:
        lib = library()
    except (RuntimeError, OSError) as error:
        return str(error)
    reason = PaString()
    if lib.paCudaRuntimeAvailable(ctypes.byref(reason)):
        return None
    # Freed by this library: libPACAPI.so may not be there.
    return _ffi.take_string(reason, lib) or "no CUDA driver"


def check_sequences(page_size, query_length, sliding_window, num_pages,
                    block_tables, context_lengths):
    """ValueError naming the first context length outside its block-table
    row or page id outside the pool that some query row would read
    (int32 numpy arrays, C-contiguous)."""
    _ffi.checked_call(
        library(), "paDecodeCheckSequences", page_size, query_length,
        sliding_window, context_lengths.shape[0], num_pages,
        block_tables.shape[1], context_lengths.ctypes.data_as(_i32p),
        block_tables.ctypes.data_as(_i32p))


def _sizes(shape):
    return _ffi.checked_array(_i64, shape, "an operand size")


class CudaProgram(_ffi.OwnedHandle):
    """A decode program loaded by the CUDA driver (owns its handle)."""

    _destroy = "paCudaProgramDestroy"

    def __init__(self, image, metadata_json):
        super().__init__(library(), "paCudaProgramLoad", image, len(image),
                         metadata_json.encode("utf-8"), exception=RuntimeError,
                         failure="pa_mlir: loading the CUDA program failed")

    def run(self, operands):
        """Host-buffer run: `operands` are (name, address, shape,
        element_bytes, read_only) of host memory; ValueError with the
        runtime's message."""
        keep = [_sizes(shape) for _, _, shape, _, _ in operands]
        array = (PaHostOperand * max(len(operands), 1))(*[
            PaHostOperand(name.encode("utf-8"), address, len(shape), sizes,
                          element_bytes, read_only)
            for (name, address, shape, element_bytes, read_only), sizes
            in zip(operands, keep)])
        self._checked_call("paCudaProgramRun", array, len(operands))

    def enqueue(self, operands, stream):
        """Launches on `stream` (a CUstream as an integer; 0: the default
        stream) over `operands`: (name, device address, shape)."""
        keep = [_sizes(shape) for _, _, shape in operands]
        array = (PaDeviceOperand * max(len(operands), 1))(*[
            PaDeviceOperand(name.encode("utf-8"), address, len(shape), sizes)
            for (name, address, shape), sizes in zip(operands, keep)])
        self._checked_call("paCudaProgramEnqueue", array, len(operands),
                           stream or None)
