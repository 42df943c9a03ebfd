"""ctypes bindings of include/pa-c/Emulator.h and include/pa-c/ISAExecutor.h:
decode programs executed and checked on the CPU, the AMD kernels of a chip
on the wave64 emulator (as MLIR) or its code object on the
instruction-level executor.
"""

import ctypes

from . import _capi, _ffi
from ._capi import PaDecodeConfig, PaHostBuffers


class PaEmulatedProgram(_ffi.Handle):
    """A PaEmulatedProgram handle."""


class PaISAProgram(_ffi.Handle):
    """A PaISAProgram handle."""


_error = _ffi.PaStringPtr


def _signatures(prefix, handle):
    """The Create / Destroy / PlanCapacity / Run entry points of the C
    program type `prefix` (both headers declare the same four)."""
    return {
        prefix + "Create": (
            [ctypes.POINTER(PaDecodeConfig), _error], handle),
        prefix + "Destroy": ([handle], None),
        prefix + "PlanCapacity": ([handle, ctypes.c_int64], ctypes.c_int64),
        prefix + "Run": (
            [handle, ctypes.POINTER(PaHostBuffers), _error], ctypes.c_bool),
    }


# libPACAPI.so with the Emulator.h and ISAExecutor.h entry points declared.
library = _capi.with_signatures({
    **_signatures("paEmulatedProgram", PaEmulatedProgram),
    **_signatures("paISAProgram", PaISAProgram),
})


class _CpuProgram(_ffi.OwnedHandle):
    """A decode program of the C program type `_prefix` (owns its
    handle, released by `_destroy`)."""

    _prefix = None
    _failure = None

    def __init__(self, config):
        super().__init__(library(), self._prefix + "Create",
                         ctypes.byref(config), failure=self._failure)

    def plan_capacity(self, batch):
        return getattr(self._lib, self._prefix + "PlanCapacity")(
            self._handle, batch)

    def run(self, buffers):
        self._checked_call(self._prefix + "Run", ctypes.byref(buffers))


class EmulatedProgram(_CpuProgram):
    """The AMD kernels of a configuration on the wave64 emulator."""

    _prefix = "paEmulatedProgram"
    _destroy = "paEmulatedProgramDestroy"
    _failure = "pa_mlir: emulator compilation failed"


class ISAProgram(_CpuProgram):
    """The code object of a configuration on the instruction-level
    executor."""

    _prefix = "paISAProgram"
    _destroy = "paISAProgramDestroy"
    _failure = "pa_mlir: compilation for the instruction-level executor failed"
