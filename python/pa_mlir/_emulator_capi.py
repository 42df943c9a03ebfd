"""ctypes bindings of include/pa-c/Emulator.h: decode programs run by the
wave64 emulator (the AMD kernels of a chip, executed and checked on the CPU).
"""

import ctypes
import threading

from . import _capi
from ._capi import PaDecodeConfig, PaHostBuffers, PaString


class PaEmulatedProgram(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


_declared = None
_declared_lock = threading.Lock()


def library():
    """libPACAPI.so with the Emulator.h entry points declared."""
    global _declared
    with _declared_lock:
        if _declared is not None:
            return _declared
        lib = _capi.library()
        error = ctypes.POINTER(PaString)
        signatures = {
            "paEmulatedProgramCreate": (
                [ctypes.POINTER(PaDecodeConfig), error], PaEmulatedProgram),
            "paEmulatedProgramDestroy": ([PaEmulatedProgram], None),
            "paEmulatedProgramPlanCapacity": (
                [PaEmulatedProgram, ctypes.c_int64], ctypes.c_int64),
            "paEmulatedProgramRun": (
                [PaEmulatedProgram, ctypes.POINTER(PaHostBuffers), error],
                ctypes.c_bool),
        }
        for name, (arguments, result) in signatures.items():
            function = getattr(lib, name)
            function.argtypes = arguments
            function.restype = result
        _declared = lib
        return lib


class EmulatedProgram:
    """A decode program for the emulator (owns its PaEmulatedProgram)."""

    def __init__(self, config):
        lib = library()
        error = PaString()
        handle = lib.paEmulatedProgramCreate(ctypes.byref(config),
                                             ctypes.byref(error))
        message = _capi.take_string(error)
        if not handle.ptr:
            raise ValueError(message or "pa_mlir: emulator compilation failed")
        self._lib = lib
        self._handle = handle

    def plan_capacity(self, batch):
        return self._lib.paEmulatedProgramPlanCapacity(self._handle, batch)

    def run(self, buffers):
        error = PaString()
        ok = self._lib.paEmulatedProgramRun(self._handle,
                                            ctypes.byref(buffers),
                                            ctypes.byref(error))
        message = _capi.take_string(error)
        if not ok:
            raise ValueError(message)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None and handle.ptr:
            self._lib.paEmulatedProgramDestroy(handle)
            self._handle = None
