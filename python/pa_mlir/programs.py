"""Ahead-of-time (AOT) programs: compile once, launch where only a GPU
driver is installed.

    artifact = pa_mlir.compile(config)          # with the compiler
    artifact.save("decode.paprog")              # a program directory
    artifact.save("any.paprog", multi_chip=True)  # one chip of several
    program = pa_mlir.load_program("decode.paprog")
    program.enqueue(operands, stream)           # device buffers, capturable
    program.run(host_operands)                  # host buffers, synchronous

A program directory holds the code object (AMD) or PTX / cubin (NVIDIA),
its metadata sidecar and program.json (format name, version, chip, code
format, file names, the code object's size and the configuration it was
compiled from); docs/user-guide.md, "Deployment", describes it. Loading
needs libPARuntimeCAPI.so (PA_MLIR_RUNTIME_LIB) and the driver of the
program's vendor (libamdhip64 / PA_HIP_LIBRARY, libcuda.so.1 /
PA_CUDA_LIBRARY), never libPACAPI.so.
"""

import dataclasses
import json
import os

from . import _runtime_capi
from .config import DecodeConfig


def config_json(config, plan_limits):
    """The "config" object a program directory records for a DecodeConfig
    and its plan limits (budget, max_partitions)."""
    return json.dumps({"decode_config": dataclasses.asdict(config),
                       "plan_limits": list(plan_limits)}, sort_keys=True)


class Program:
    """An AOT program loaded by the runtime of its vendor.

    chip ("gfx942", "sm_90a", ...: of a multi-chip program, the one loaded),
    multi_chip, code_format ("hsaco", "ptx", "cubin"),
    config (the DecodeConfig compiled, or None when the program does not
    record one), plan_limits ((budget, max_partitions) or None), driver
    ("hip" or "cuda") and runtime (the _runtime_capi.HipProgram /
    CudaProgram that launches).
    """

    def __init__(self, path, target=None):
        path = os.fspath(path)
        self.path = path
        described = path
        chips, self.multi_chip = _runtime_capi.program_chips(path)
        if self.multi_chip:
            # The runtime loads the program of this GPU's chip, PATH/CHIP.
            driver = target or _multi_chip_driver(path, chips)
            described = os.path.join(
                path, _runtime_capi.program_chip(path, driver))
        self.chip, self.code_format, recorded = (
            _runtime_capi.describe_program(described))
        self.config = None
        self.plan_limits = None
        if recorded:
            described = json.loads(recorded)
            if "decode_config" in described:
                try:
                    self.config = DecodeConfig(**described["decode_config"])
                    budget, max_partitions = described["plan_limits"]
                except (TypeError, ValueError, KeyError) as error:
                    raise ValueError(
                        f"the program {path} records a configuration this "
                        f"package cannot read ({error})") from None
                self.plan_limits = (budget, max_partitions)
        self.driver = "hip" if self.code_format == "hsaco" else "cuda"
        loader = (_runtime_capi.HipProgram if self.driver == "hip"
                  else _runtime_capi.CudaProgram)
        self.runtime = loader.from_file(path)

    def plan_capacity(self, batch):
        """Plan slots for `batch` sequences (needs a recorded config)."""
        if self.config is None:
            raise ValueError(f"the program {self.path} records no "
                             f"configuration, so no plan capacity")
        from .compiler import plan_capacity
        return plan_capacity(self.config, self.plan_limits, batch)

    def enqueue(self, operands, stream=None):
        """_runtime_capi's enqueue: (name, device address, shape) operands
        on `stream` (hipStream_t / CUstream as an integer)."""
        self.runtime.enqueue(operands, stream)

    def run(self, operands):
        """_runtime_capi's host-buffer run: (name, host address, shape,
        element_bytes, read_only) operands."""
        self.runtime.run(operands)

    def __repr__(self):
        return (f"Program({self.path!r}, chip={self.chip!r}, "
                f"code_format={self.code_format!r})")


def _multi_chip_driver(path, chips):
    """The driver whose GPU picks the chip of a multi-chip program: the
    HIP runtime when there is one, else CUDA."""
    for driver, reason in (("hip", _runtime_capi.hip_unavailable_reason),
                           ("cuda", _runtime_capi.cuda_unavailable_reason)):
        if reason() is None:
            return driver
    raise RuntimeError(f"{path} holds programs for {', '.join(chips)}; "
                       f"neither the HIP runtime nor the CUDA driver is "
                       f"there to pick the GPU's")


def load_program(path, target=None):
    """Loads the AOT program directory `path`: a Program. Of a multi-chip
    program, the program of the GPU's chip (target "hip" or "cuda" names
    the driver; None: HIP when there is a HIP runtime, else CUDA).
    RuntimeError (no runtime library, driver or GPU; a program for the
    other vendor) or ValueError (not a program, another format version,
    truncated, no program for this GPU's chip) with the runtime's
    message."""
    return Program(path, target)
