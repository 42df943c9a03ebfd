"""ctypes bindings of include/pa-c/Compile.h.

They live on the same libPACAPI.so as _capi (Decode.h); the argument and
result types are declared on first use.
"""

import ctypes

from . import _capi, _ffi
from ._capi import PaDecodeConfig
from ._ffi import PaStringRef

_i64 = ctypes.c_int64


class PaCompileOptions(_ffi.CheckedStructure):
    _fields_ = [("codeObjectVersion", ctypes.c_int32),
                ("keepStages", ctypes.c_bool),
                ("fp8Residual", ctypes.c_int32),
                ("cacheOffsets", ctypes.c_int32),
                ("keyPrefetch", ctypes.c_int32)]


# PaFp8Residual, PaCacheOffsets and PaKeyPrefetch by their pa-compile
# spellings.
FP8_RESIDUAL = {"query-and-p": 0, "p": 1, "none": 2}
CACHE_OFFSETS = {"auto": 0, "64": 1}
KEY_PREFETCH = {"auto": 0, "none": 1, "next-tile": 2}


class PaArtifact(_ffi.Handle):
    """A PaArtifact handle."""


_config = ctypes.POINTER(PaDecodeConfig)
_error = _ffi.PaStringPtr
_options = ctypes.POINTER(PaCompileOptions)

# libPACAPI.so with the Compile.h entry points declared.
library = _capi.with_signatures({
    "paCompileOptionsGetDefault": ([], PaCompileOptions),
    "paCompileConfig": ([_config, _options, _error], PaArtifact),
    "paCompileText": ([PaStringRef, ctypes.c_char_p, _options,
                       ctypes.c_char_p, _error], PaArtifact),
    "paArtifactDestroy": ([PaArtifact], None),
    "paArtifactGetChip": ([PaArtifact], PaStringRef),
    "paArtifactGetFormat": ([PaArtifact], PaStringRef),
    "paArtifactGetCodeObject": ([PaArtifact], PaStringRef),
    "paArtifactGetMetadata": ([PaArtifact], PaStringRef),
    "paArtifactGetNumStages": ([PaArtifact], ctypes.c_ssize_t),
    "paArtifactGetStageName": ([PaArtifact, ctypes.c_ssize_t], PaStringRef),
    "paArtifactGetStageText": ([PaArtifact, ctypes.c_ssize_t], PaStringRef),
    "paDecodeConfigPlanCapacity": ([_config, _i64], _i64),
    "paDecodeConfigGetPlanLimits": ([_config, ctypes.POINTER(_i64),
                                     ctypes.POINTER(_i64)], ctypes.c_bool),
})


def ref_bytes(ref):
    """The bytes a PaStringRef borrows (copied)."""
    return ctypes.string_at(ref.data, ref.length) if ref.data else b""


def ref_text(ref):
    return ref_bytes(ref).decode("utf-8", errors="replace")


def compile_artifact(config=None, text=None, chip=None, buffer_name=None,
                     code_object_version=5, keep_stages=False,
                     fp8_residual="query-and-p", cache_offsets="auto",
                     key_prefetch="auto"):
    """Compiles a PaDecodeConfig or module text; returns (chip, format,
    code object bytes, metadata JSON, [(stage, text)]) or raises ValueError
    with the diagnostics."""
    lib = library()
    options = lib.paCompileOptionsGetDefault()
    options.codeObjectVersion = code_object_version
    options.keepStages = keep_stages
    options.fp8Residual = FP8_RESIDUAL[fp8_residual]
    options.cacheOffsets = CACHE_OFFSETS[cache_offsets]
    options.keyPrefetch = KEY_PREFETCH[key_prefetch]
    if config is not None:
        arguments = ("paCompileConfig", ctypes.byref(config),
                     ctypes.byref(options))
    else:
        encoded = text.encode("utf-8")  # alive through the call
        arguments = ("paCompileText", _ffi.string_ref(encoded),
                     chip.encode("utf-8"), ctypes.byref(options),
                     buffer_name.encode("utf-8"))
    artifact = _ffi.checked_call(lib, *arguments,
                                 failure="pa_mlir: compilation failed")
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
