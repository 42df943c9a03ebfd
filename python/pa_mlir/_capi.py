"""ctypes bindings of include/pa-c/Decode.h (libPACAPI.so).

The library is found relative to the package (<repo>/build/lib/libPACAPI.so)
unless the environment variable PA_MLIR_LIB names it.
"""

import ctypes
import os
import threading
from pathlib import Path

# Enumerators of Decode.h.
KV_TYPES = {"e4m3fn": 0, "e4m3fnuz": 1, "bf16": 2}
QUERY_TYPES = {"bf16": 0, "f16": 1}
KEY_LAYOUTS = {"packed": 0, "unpacked": 1}
V_LAYOUTS = {"plain": 0, "transposed": 1}
SCALE_MODES = {"none": 0, "per_tensor": 1, "per_token": 2}
COMPUTE_DEFAULT = -1

_i64 = ctypes.c_int64
_i32 = ctypes.c_int32
_ptr = ctypes.c_void_p


class PaString(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


class PaDecodeConfig(ctypes.Structure):
    _fields_ = [
        ("numQueryHeads", _i64),
        ("numKVHeads", _i64),
        ("headDim", _i64),
        ("pageSize", _i64),
        ("queryLength", _i64),
        ("kvType", _i32),
        ("queryType", _i32),
        ("keyLayout", _i32),
        ("vLayout", _i32),
        ("scaleMode", _i32),
        ("computeType", _i32),
        ("slidingWindow", _i64),
        ("hasSoftmaxScale", ctypes.c_bool),
        ("softmaxScale", ctypes.c_double),
        ("hasSinks", ctypes.c_bool),
        ("chip", ctypes.c_char_p),
        ("budget", _i64),
        ("maxPartitions", _i64),
    ]


class PaHostBuffers(ctypes.Structure):
    _fields_ = [
        ("batch", _i64),
        ("numPages", _i64),
        ("maxPagesPerSequence", _i64),
        ("capacity", _i64),
        ("query", _ptr),
        ("keyCache", _ptr),
        ("valueCache", _ptr),
        ("blockTables", _ptr),
        ("contextLengths", _ptr),
        ("kScale", _ptr),
        ("vScale", _ptr),
        ("sinks", _ptr),
        ("workInfo", _ptr),
        ("reduceInfo", _ptr),
        ("expSums", _ptr),
        ("maxLogits", _ptr),
        ("tmpOut", _ptr),
        ("output", _ptr),
    ]


class PaHostProgram(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


def library_path():
    """The libPACAPI.so this package loads."""
    override = os.environ.get("PA_MLIR_LIB")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2] / "build" / "lib" / "libPACAPI.so"


_library = None
_library_lock = threading.Lock()


def library():
    """The loaded C API, with argument and result types declared."""
    global _library
    with _library_lock:
        if _library is not None:
            return _library
        path = library_path()
        if not path.is_file():
            raise RuntimeError(
                f"pa_mlir: {path} does not exist; build the project "
                "(make build) or set PA_MLIR_LIB to libPACAPI.so")
        lib = ctypes.CDLL(str(path))
        lib.paStringDestroy.argtypes = [PaString]
        lib.paStringDestroy.restype = None
        lib.paDecodeConfigGetDefault.argtypes = []
        lib.paDecodeConfigGetDefault.restype = PaDecodeConfig
        lib.paHostProgramCreate.argtypes = [
            ctypes.POINTER(PaDecodeConfig), ctypes.POINTER(PaString)]
        lib.paHostProgramCreate.restype = PaHostProgram
        lib.paHostProgramDestroy.argtypes = [PaHostProgram]
        lib.paHostProgramDestroy.restype = None
        lib.paHostProgramPlanCapacity.argtypes = [PaHostProgram, _i64]
        lib.paHostProgramPlanCapacity.restype = _i64
        lib.paHostProgramRun.argtypes = [
            PaHostProgram, ctypes.POINTER(PaHostBuffers),
            ctypes.POINTER(PaString)]
        lib.paHostProgramRun.restype = ctypes.c_bool
        lib.paVerifyText.argtypes = [ctypes.c_char_p, ctypes.POINTER(PaString)]
        lib.paVerifyText.restype = ctypes.c_bool
        lib.paCompileToHostText.argtypes = [
            ctypes.POINTER(PaDecodeConfig), ctypes.POINTER(PaString),
            ctypes.POINTER(PaString)]
        lib.paCompileToHostText.restype = ctypes.c_bool
        _library = lib
        return lib


def take_string(string, lib=None):
    """The text of a PaString returned by `lib` (default: this library),
    which then frees it."""
    if not string.data:
        return ""
    text = ctypes.string_at(string.data, string.length).decode(
        "utf-8", errors="replace")
    (lib or library()).paStringDestroy(string)
    return text


class HostProgram:
    """A compiled decode program (owns its PaHostProgram)."""

    def __init__(self, config):
        lib = library()
        error = PaString()
        handle = lib.paHostProgramCreate(ctypes.byref(config),
                                         ctypes.byref(error))
        message = take_string(error)
        if not handle.ptr:
            raise ValueError(message or "pa_mlir: compilation failed")
        self._lib = lib
        self._handle = handle

    def plan_capacity(self, batch):
        return self._lib.paHostProgramPlanCapacity(self._handle, batch)

    def run(self, buffers):
        error = PaString()
        ok = self._lib.paHostProgramRun(self._handle, ctypes.byref(buffers),
                                        ctypes.byref(error))
        message = take_string(error)
        if not ok:
            raise ValueError(message)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None and handle.ptr:
            self._lib.paHostProgramDestroy(handle)
            self._handle = None


def verify_text(text):
    """Parses and verifies textual IR; raises ValueError with the diagnostics."""
    error = PaString()
    ok = library().paVerifyText(text.encode("utf-8"), ctypes.byref(error))
    message = take_string(error)
    if not ok:
        raise ValueError(message)


def compile_to_host_text(config):
    """The module of `config` after the host pipeline, as text."""
    module, error = PaString(), PaString()
    ok = library().paCompileToHostText(ctypes.byref(config),
                                       ctypes.byref(module),
                                       ctypes.byref(error))
    text, message = take_string(module), take_string(error)
    if not ok:
        raise ValueError(message)
    return text
