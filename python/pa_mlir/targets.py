"""Where pa_mlir.decode runs: a registry of targets.

A target is a factory `make_program(config)` taking the static
configuration (a _capi.PaDecodeConfig) and returning a program with
`plan_capacity(batch)` and `run(buffers)` (a _capi.PaHostBuffers of host
arrays: inputs read, outputs written), like _capi.HostProgram. Programs are
compiled once per (target, configuration) and cached.

    host  the CPU executor (always there)
    hip   AMD GPUs through the HIP runtime, loaded at run time; raises
          TargetUnavailableError without libamdhip64 or an AMD GPU. Also
          takes PyTorch tensors of ROCm builds (_tensors)
    cuda  NVIDIA GPUs (sm_90a) through the CUDA driver, loaded at run time
          by libPARuntimeCAPI.so; raises TargetUnavailableError without
          libcuda.so.1 or a GPU. Also takes PyTorch CUDA tensors (_tensors)
    emulate  the AMD kernels of `chip` (gfx942, gfx950) executed by the
          wave64 emulator on the CPU, which raises ValueError on any
          out-of-bounds access, LDS race or barrier misuse it detects
    isa   the code object of `chip` (gfx942, gfx950), the one target hip
          loads, executed instruction by instruction on the CPU, which
          raises ValueError on any out-of-range access, LDS race, wait-count
          hazard or read of a never-written register it detects

Other targets add themselves with register_target(name, make_program).
"""

import threading

from . import _capi, _cuda, _emulator_capi, _gpu, _runtime_capi
from .errors import TargetUnavailableError

_factories = {}
_programs = {}
_lock = threading.Lock()


def register_target(name, make_program):
    """Makes `name` a value of decode(target=...)."""
    if not isinstance(name, str) or not name:
        raise ValueError("a target name must be a non-empty string")
    with _lock:
        _factories[name] = make_program


def unregister_target(name):
    """Removes target `name` and its cached programs."""
    with _lock:
        _factories.pop(name, None)
        for key in [key for key in _programs if key[0] == name]:
            del _programs[key]


def names():
    """The registered targets, in registration order."""
    with _lock:
        return tuple(_factories)


def lookup(name):
    """The factory of target `name`; ValueError naming the targets."""
    with _lock:
        factory = _factories.get(name)
        known = tuple(_factories)
    if factory is None:
        raise ValueError(
            f"target must be one of {', '.join(known)}, got {name!r}")
    return factory


def program(target, config):
    """The compiled program of `config` (a _capi.PaDecodeConfig) for
    `target`, keyed by every field of it."""
    factory = lookup(target)
    key = (target, tuple(getattr(config, name)
                         for name, *_ in config._fields_))
    with _lock:
        cached = _programs.get(key)
        if cached is None:
            cached = factory(config)
            _programs[key] = cached
        return cached


def program_count():
    """How many programs the cache holds (all targets)."""
    with _lock:
        return len(_programs)


class HipDecodeProgram(_gpu.GpuDecodeProgram):
    """A decode program compiled for its AMD chip (gfx942, gfx950) and
    loaded by the HIP runtime of libPARuntimeCAPI.so (once per device):
    host buffers, and torch tensors of ROCm builds."""

    target = "hip"
    needs = "the HIP runtime (libamdhip64) and an AMD GPU"
    runtime = _runtime_capi.HipProgram
    unavailable_reason = staticmethod(_runtime_capi.hip_unavailable_reason)


register_target("host", _capi.HostProgram)
register_target("hip", HipDecodeProgram)
register_target("emulate", _emulator_capi.EmulatedProgram)
register_target("cuda", _cuda.CudaDecodeProgram)
register_target("isa", _emulator_capi.ISAProgram)
