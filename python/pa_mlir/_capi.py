"""ctypes bindings of include/pa-c/Decode.h (libPACAPI.so).

The library is found relative to the package (<repo>/build/lib/libPACAPI.so,
or the install tree's lib/ for an installed package) unless the environment
variable PA_MLIR_LIB names it.
"""

import ctypes
import os
import threading
from pathlib import Path

from . import _ffi
from ._ffi import PaString

# Enumerators of Decode.h.
KV_TYPES = {"e4m3fn": 0, "e4m3fnuz": 1, "bf16": 2}
QUERY_TYPES = {"bf16": 0, "f16": 1}
KEY_LAYOUTS = {"packed": 0, "unpacked": 1}
V_LAYOUTS = {"plain": 0, "transposed": 1}
KV_LAYOUTS = {"packed": 0, "nhd": 1, "hnd": 2}
SCALE_MODES = {"none": 0, "per_tensor": 1, "per_token": 2}
COMPUTE_DEFAULT = -1

_i64 = ctypes.c_int64
_i32 = ctypes.c_int32
_ptr = ctypes.c_void_p


class PaDecodeConfig(_ffi.CheckedStructure):
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
        ("logitsSoftCap", ctypes.c_double),
        ("kvLayout", _i32),
        ("returnLse", ctypes.c_bool),
        ("hasAlibi", ctypes.c_bool),
    ]


# pa-c/Decode.h's PA_HOST_BUFFERS_ABI: the layout of PaHostBuffers these
# bindings describe (the library refuses buffers of another).
PA_HOST_BUFFERS_ABI = 0x5041425500000001


class PaHostBuffers(_ffi.CheckedStructure):
    """pa-c/Decode.h's PaHostBuffers; `abi` is set to PA_HOST_BUFFERS_ABI."""
    _fields_ = [
        ("abi", ctypes.c_uint64),
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
        ("alibiSlopes", _ptr),
        ("workInfo", _ptr),
        ("reduceInfo", _ptr),
        ("expSums", _ptr),
        ("maxLogits", _ptr),
        ("tmpOut", _ptr),
        ("output", _ptr),
        ("lse", _ptr),
        ("keyPageStride", _i64),
        ("valuePageStride", _i64),
    ]

    def __init__(self, **fields):
        fields.setdefault("abi", PA_HOST_BUFFERS_ABI)
        super().__init__(**fields)


class PaHostProgram(_ffi.Handle):
    """A PaHostProgram handle."""


_config = ctypes.POINTER(PaDecodeConfig)
_error = _ffi.PaStringPtr
_SIGNATURES = {
    "paDecodeConfigGetDefault": ([], PaDecodeConfig),
    "paHostProgramCreate": ([_config, _error], PaHostProgram),
    "paHostProgramDestroy": ([PaHostProgram], None),
    "paHostProgramPlanCapacity": ([PaHostProgram, _i64], _i64),
    "paHostProgramRun": ([PaHostProgram, ctypes.POINTER(PaHostBuffers),
                          _error], ctypes.c_bool),
    "paVerifyText": ([_ffi.PaStringRef, _error], ctypes.c_bool),
    "paCompileToHostText": ([_config, _error, _error], ctypes.c_bool),
}


def library_path():
    """The libPACAPI.so this package loads: PA_MLIR_LIB, else the one of
    the install tree the package was installed into (cmake --install
    writes _location.py), else the source tree's build/lib."""
    override = os.environ.get("PA_MLIR_LIB")
    if override:
        return Path(override)
    package = Path(__file__).resolve().parent
    try:
        from . import _location
    except ImportError:
        return package.parents[1] / "build" / "lib" / "libPACAPI.so"
    return (package / _location.LIBRARY_DIR / "libPACAPI.so").resolve()


_MISSING = ("pa_mlir: {path} does not exist; build the project (make build) "
            "or set PA_MLIR_LIB to libPACAPI.so")
_library = None
_library_lock = threading.Lock()


def library():
    """The loaded C API, with argument and result types declared; kept in
    the module global _library, None until this process loads it."""
    global _library
    with _library_lock:
        if _library is None:
            _library = _ffi.load(library_path(), _MISSING, _SIGNATURES)
        return _library


def with_signatures(signatures):
    """A library() for more entry points of libPACAPI.so (the other pa-c
    headers): library() with `signatures` declared on its first call."""
    return _ffi.Once(lambda: _ffi.declare(library(), signatures))


class HostProgram(_ffi.OwnedHandle):
    """A compiled decode program (owns its PaHostProgram)."""

    _destroy = "paHostProgramDestroy"

    def __init__(self, config):
        super().__init__(library(), "paHostProgramCreate",
                         ctypes.byref(config),
                         failure="pa_mlir: compilation failed")

    def plan_capacity(self, batch):
        return self._lib.paHostProgramPlanCapacity(self._handle, batch)

    def run(self, buffers):
        self._checked_call("paHostProgramRun", ctypes.byref(buffers))


def verify_text(text):
    """Parses and verifies textual IR; raises ValueError with the diagnostics."""
    encoded = text.encode("utf-8")  # alive through the call
    _ffi.checked_call(library(), "paVerifyText", _ffi.string_ref(encoded))


def compile_to_host_text(config):
    """The module of `config` after the host pipeline, as text."""
    lib = library()
    module = PaString()
    try:
        _ffi.checked_call(lib, "paCompileToHostText", ctypes.byref(config),
                          ctypes.byref(module))
    finally:
        text = _ffi.take_string(module, lib)  # on failure too
    return text
