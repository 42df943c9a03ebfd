"""The `cuda` target of pa_mlir.decode: NVIDIA GPUs through the CUDA driver.

The program is compiled for sm_90a by compile() (so through the on-disk
cache when PA_MLIR_CACHE_DIR is set: a hit needs no libPACAPI.so) and
loaded by libPARuntimeCAPI.so (pa-c/Cuda.h), which opens the driver
(libcuda.so.1, or PA_CUDA_LIBRARY) at run time. Host (numpy) buffers are
copied to the device and back by the runtime (paCudaProgramRun); CUDA
tensors of PyTorch are launched on in place (paCudaProgramEnqueue on
torch.cuda.current_stream(), see _tensors).
"""

import ctypes
import threading

import numpy as np

from . import _runtime_capi
from ._operands import operand_table
from .compiler import compile as compile_config
from .config import DecodeConfig
from .errors import TargetUnavailableError

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


class CudaDecodeProgram:
    """A decode program compiled for sm_90a and loaded by the CUDA driver.

    A target program (plan_capacity(batch), run(buffers)) that also takes
    device operands: enqueue(operands, stream, device).
    """

    # decode() hands CUDA tensors only to targets that say so.
    takes_tensors = True

    def __init__(self, c_config):
        reason = unavailable_reason()
        if reason is not None:
            raise TargetUnavailableError(
                f"target 'cuda' needs the CUDA driver (libcuda.so.1) and an "
                f"NVIDIA GPU: {reason}; target='host' runs on any machine")
        self.config = cuda_config(c_config)
        self.artifact = compile_config(self.config)
        self._loaded = {}
        self._lock = threading.Lock()
        # Loaded now, so that a CUDA graph capture around a later call
        # launches only (no module load while capturing).
        self._program(None)

    def _program(self, device):
        """The runtime program for `device` (None: the context current, or
        device 0's primary one)."""
        with self._lock:
            program = self._loaded.get(device)
            if program is None:
                program = _runtime_capi.CudaProgram(
                    self.artifact.code_object, self.artifact.metadata_json)
                self._loaded[device] = program
            return program

    def plan_capacity(self, batch):
        return self.artifact.plan_capacity(batch)

    def operands(self, batch, num_pages, max_pages, capacity):
        return operand_table(self.config, batch, num_pages, max_pages,
                             capacity)

    def run(self, buffers):
        """A host-buffer run of a _capi.PaHostBuffers: the index inputs are
        checked (as every other target does), then the runtime copies in,
        launches, waits and copies back."""
        b = buffers
        c = self.config
        lengths = _int32_view(b.contextLengths, (b.batch,))
        tables = _int32_view(b.blockTables, (b.batch, b.maxPagesPerSequence))
        _runtime_capi.check_sequences(c.page_size, c.query_length,
                                      c.sliding_window, b.numPages, tables,
                                      lengths)
        addresses = {
            "query": b.query, "key_cache": b.keyCache,
            "value_cache": b.valueCache, "block_tables": b.blockTables,
            "context_lengths": b.contextLengths, "k_scale": b.kScale,
            "v_scale": b.vScale, "sinks": b.sinks, "work_info": b.workInfo,
            "reduce_info": b.reduceInfo, "exp_sums": b.expSums,
            "max_logits": b.maxLogits, "tmp_out": b.tmpOut,
            "output": b.output}
        table = self.operands(b.batch, b.numPages, b.maxPagesPerSequence,
                              b.capacity)
        self._program(None).run([
            (op.name, addresses[op.name], op.shape, op.element_bytes,
             op.read_only) for op in table])

    def enqueue(self, operands, stream, device):
        """Launches plan -> decode -> reduce on `stream` (a CUstream as an
        integer) over `operands` [(name, device address, shape)] on CUDA
        device `device`; asynchronous, capturable in a CUDA graph."""
        self._program(device).enqueue(operands, stream)


def _int32_view(address, shape):
    """The int32 host array at `address` (an int, None when empty)."""
    count = int(np.prod(shape))
    if count == 0 or not address:
        return np.zeros(shape, dtype=np.int32)
    buffer = (ctypes.c_int32 * count).from_address(address)
    return np.frombuffer(buffer, dtype=np.int32).reshape(shape)
