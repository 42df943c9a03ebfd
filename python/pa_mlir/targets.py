"""Where pa_mlir.decode runs: a registry of targets.

A target is a factory `make_program(config)` taking the static
configuration (a _capi.PaDecodeConfig) and returning a program with
`plan_capacity(batch)` and `run(buffers)` (a _capi.PaHostBuffers of host
arrays: inputs read, outputs written), like _capi.HostProgram. Programs are
compiled once per (target, configuration) and cached.

    host  the CPU executor (always there)
    hip   AMD GPUs through the HIP runtime, loaded at run time; raises
          TargetUnavailableError without libamdhip64 or an AMD GPU
    cuda  NVIDIA GPUs (sm_90a) through the CUDA driver, loaded at run time
          by libPARuntimeCAPI.so; raises TargetUnavailableError without
          libcuda.so.1 or a GPU. Also takes PyTorch CUDA tensors (_tensors)
    emulate  the AMD kernels of `chip` (gfx942, gfx950) executed by the
          wave64 emulator on the CPU, which raises ValueError on any
          out-of-bounds access, LDS race or barrier misuse it detects

Other targets add themselves with register_target(name, make_program).
"""

import threading

from . import _capi, _compile_capi, _cuda, _emulator_capi, _runtime_capi
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


def program(target, key, config):
    """The compiled program of `config` (keyed by `key`) for `target`."""
    factory = lookup(target)
    with _lock:
        cached = _programs.get((target, key))
        if cached is None:
            cached = factory(config)
            _programs[(target, key)] = cached
        return cached


def program_count():
    """How many programs the cache holds (all targets)."""
    with _lock:
        return len(_programs)


def _hip_program(config):
    reason = _runtime_capi.hip_unavailable_reason()
    if reason is not None:
        raise TargetUnavailableError(
            f"target 'hip' needs the HIP runtime (libamdhip64) and an AMD "
            f"GPU: {reason}; target='host' runs on any machine")
    return _compile_capi.HipProgram(config)


register_target("host", _capi.HostProgram)
register_target("hip", _hip_program)
register_target("emulate", _emulator_capi.EmulatedProgram)
register_target("cuda", _cuda.CudaDecodeProgram)
