"""ctypes bindings of include/pa-c/Emulator.h: decode programs run by the
wave64 emulator (the AMD kernels of a chip, executed and checked on the CPU).
"""

import ctypes

from . import _capi, _ffi
from ._capi import PaDecodeConfig, PaHostBuffers


class PaEmulatedProgram(_ffi.Handle):
    """A PaEmulatedProgram handle."""


_error = _ffi.PaStringPtr

# libPACAPI.so with the Emulator.h entry points declared.
library = _capi.with_signatures({
    "paEmulatedProgramCreate": (
        [ctypes.POINTER(PaDecodeConfig), _error], PaEmulatedProgram),
    "paEmulatedProgramDestroy": ([PaEmulatedProgram], None),
    "paEmulatedProgramPlanCapacity": (
        [PaEmulatedProgram, ctypes.c_int64], ctypes.c_int64),
    "paEmulatedProgramRun": (
        [PaEmulatedProgram, ctypes.POINTER(PaHostBuffers), _error],
        ctypes.c_bool),
})


class EmulatedProgram(_ffi.OwnedHandle):
    """A decode program for the emulator (owns its PaEmulatedProgram)."""

    _destroy = "paEmulatedProgramDestroy"

    def __init__(self, config):
        super().__init__(library(), "paEmulatedProgramCreate",
                         ctypes.byref(config),
                         failure="pa_mlir: emulator compilation failed")

    def plan_capacity(self, batch):
        return self._lib.paEmulatedProgramPlanCapacity(self._handle, batch)

    def run(self, buffers):
        self._checked_call("paEmulatedProgramRun", ctypes.byref(buffers))
