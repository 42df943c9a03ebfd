"""ctypes bindings of include/pa-c/Compile.h and include/pa-c/Hip.h.

They live on the same libPACAPI.so as _capi (Decode.h); the argument and
result types are declared on first use.
"""

import ctypes
import threading

from . import _capi
from ._capi import PaDecodeConfig, PaHostBuffers, PaString

_i64 = ctypes.c_int64


class PaStringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


class PaCompileOptions(ctypes.Structure):
    _fields_ = [("codeObjectVersion", ctypes.c_int32),
                ("keepStages", ctypes.c_bool)]


class PaArtifact(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


class PaHipProgram(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


_declared = False
_lock = threading.Lock()


def library():
    """libPACAPI.so with the Compile.h and Hip.h entry points declared."""
    global _declared
    lib = _capi.library()
    with _lock:
        if _declared:
            return lib
        config, error = ctypes.POINTER(PaDecodeConfig), ctypes.POINTER(PaString)
        options = ctypes.POINTER(PaCompileOptions)
        signatures = {
            "paCompileOptionsGetDefault": ([], PaCompileOptions),
            "paCompileConfig": ([config, options, error], PaArtifact),
            "paCompileText": ([ctypes.c_char_p, ctypes.c_char_p, options,
                               ctypes.c_char_p, error], PaArtifact),
            "paArtifactDestroy": ([PaArtifact], None),
            "paArtifactGetChip": ([PaArtifact], PaStringRef),
            "paArtifactGetFormat": ([PaArtifact], PaStringRef),
            "paArtifactGetCodeObject": ([PaArtifact], PaStringRef),
            "paArtifactGetMetadata": ([PaArtifact], PaStringRef),
            "paArtifactGetNumStages": ([PaArtifact], ctypes.c_ssize_t),
            "paArtifactGetStageName": ([PaArtifact, ctypes.c_ssize_t],
                                       PaStringRef),
            "paArtifactGetStageText": ([PaArtifact, ctypes.c_ssize_t],
                                       PaStringRef),
            "paDecodeConfigPlanCapacity": ([config, _i64], _i64),
            "paDecodeConfigGetPlanLimits": ([config, ctypes.POINTER(_i64),
                                             ctypes.POINTER(_i64)],
                                            ctypes.c_bool),
            "paHipRuntimeAvailable": ([error], ctypes.c_bool),
            "paHipProgramCreate": ([config, error], PaHipProgram),
            "paHipProgramDestroy": ([PaHipProgram], None),
            "paHipProgramRun": ([PaHipProgram, ctypes.POINTER(PaHostBuffers),
                                 error], ctypes.c_bool),
        }
        for name, (argtypes, restype) in signatures.items():
            function = getattr(lib, name)
            function.argtypes = argtypes
            function.restype = restype
        _declared = True
        return lib


def ref_bytes(ref):
    """The bytes a PaStringRef borrows (copied)."""
    return ctypes.string_at(ref.data, ref.length) if ref.data else b""


def ref_text(ref):
    return ref_bytes(ref).decode("utf-8", errors="replace")


def compile_artifact(config=None, text=None, chip=None, buffer_name=None,
                     code_object_version=5, keep_stages=False):
    """Compiles a PaDecodeConfig or module text; returns (chip, format,
    code object bytes, metadata JSON, [(stage, text)]) or raises ValueError
    with the diagnostics."""
    lib = library()
    options = lib.paCompileOptionsGetDefault()
    options.codeObjectVersion = code_object_version
    options.keepStages = keep_stages
    error = PaString()
    if config is not None:
        artifact = lib.paCompileConfig(ctypes.byref(config),
                                       ctypes.byref(options),
                                       ctypes.byref(error))
    else:
        artifact = lib.paCompileText(text.encode("utf-8"),
                                     chip.encode("utf-8"),
                                     ctypes.byref(options),
                                     buffer_name.encode("utf-8"),
                                     ctypes.byref(error))
    message = _capi.take_string(error)
    if not artifact.ptr:
        raise ValueError(message or "pa_mlir: compilation failed")
    try:
        stages = [(ref_text(lib.paArtifactGetStageName(artifact, i)),
                   ref_text(lib.paArtifactGetStageText(artifact, i)))
                  for i in range(lib.paArtifactGetNumStages(artifact))]
        return (ref_text(lib.paArtifactGetChip(artifact)),
                ref_text(lib.paArtifactGetFormat(artifact)),
                ref_bytes(lib.paArtifactGetCodeObject(artifact)),
                ref_text(lib.paArtifactGetMetadata(artifact)), stages)
    finally:
        lib.paArtifactDestroy(artifact)


def plan_capacity(config, batch):
    """Plan slots for `batch` sequences; ValueError for an invalid config."""
    capacity = library().paDecodeConfigPlanCapacity(ctypes.byref(config),
                                                    batch)
    if capacity < 0:
        raise ValueError("the configuration is invalid (see compile())")
    return capacity


def plan_limits(config):
    """(budget, max_partitions) of a PaDecodeConfig, the chip's defaults
    filled in; ValueError for an invalid config."""
    budget, max_partitions = _i64(), _i64()
    if not library().paDecodeConfigGetPlanLimits(
            ctypes.byref(config), ctypes.byref(budget),
            ctypes.byref(max_partitions)):
        raise ValueError("the configuration is invalid (see compile())")
    return budget.value, max_partitions.value


def hip_unavailable_reason():
    """None when HIP can run programs here, else why not."""
    reason = PaString()
    if library().paHipRuntimeAvailable(ctypes.byref(reason)):
        return None
    return _capi.take_string(reason) or "no HIP runtime"


class HipProgram:
    """A decode program compiled and loaded with HIP (owns its handle)."""

    def __init__(self, config):
        lib = library()
        error = PaString()
        handle = lib.paHipProgramCreate(ctypes.byref(config),
                                        ctypes.byref(error))
        message = _capi.take_string(error)
        if not handle.ptr:
            raise ValueError(message or "pa_mlir: HIP program creation failed")
        self._lib = lib
        self._handle = handle
        self._config = config

    def plan_capacity(self, batch):
        return plan_capacity(self._config, batch)

    def run(self, buffers):
        error = PaString()
        ok = self._lib.paHipProgramRun(self._handle, ctypes.byref(buffers),
                                       ctypes.byref(error))
        message = _capi.take_string(error)
        if not ok:
            raise ValueError(message)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None and handle.ptr:
            self._lib.paHipProgramDestroy(handle)
            self._handle = None
