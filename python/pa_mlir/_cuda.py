"""The `cuda` target of pa_mlir.decode: NVIDIA GPUs through the CUDA driver.

The program is compiled for sm_90a by compile() (so through the on-disk
cache when PA_MLIR_CACHE_DIR is set: a hit needs no libPACAPI.so) and
loaded by libPARuntimeCAPI.so (pa-c/Cuda.h), which opens the driver
(libcuda.so.1, or PA_CUDA_LIBRARY) at run time. Host (numpy) buffers are
copied to the device and back by the runtime (paCudaProgramRun); CUDA
tensors of PyTorch are launched on in place (paCudaProgramEnqueue on
torch.cuda.current_stream(), see _tensors). What it shares with the `hip`
target is _gpu.GpuDecodeProgram.
"""

from . import _gpu, _runtime_capi
from .config import DecodeConfig

# The chip a configuration naming an AMD chip (decode()'s default is
# gfx950) is compiled for.
CHIP = "sm_90a"


def unavailable_reason():
    """None when target 'cuda' can run here, else why not."""
    return _runtime_capi.cuda_unavailable_reason()


def cuda_config(c_config):
    """The DecodeConfig target 'cuda' compiles for decode()'s configuration
    (a PaDecodeConfig): for its chip when that is an NVIDIA one, else for
    sm_90a (decode()'s chip defaults to an AMD chip)."""
    config = DecodeConfig.from_c(c_config)
    return config if config.chip.startswith("sm_") else config.replace(
        chip=CHIP)


class CudaDecodeProgram(_gpu.GpuDecodeProgram):
    """A decode program compiled for sm_90a and loaded by the CUDA driver
    (once per device)."""

    target = "cuda"
    needs = "the CUDA driver (libcuda.so.1) and an NVIDIA GPU"
    runtime = _runtime_capi.CudaProgram
    unavailable_reason = staticmethod(unavailable_reason)
    configuration = staticmethod(cuda_config)
