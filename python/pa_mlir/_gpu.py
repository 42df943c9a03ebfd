"""What the GPU targets ("cuda", "hip") share: a decode program compiled
by compile() (so served by the on-disk cache without the compiler) and
loaded by libPARuntimeCAPI.so once per device, which runs host buffers
(copied in and back) and launches on torch tensors (_tensors) alike.
"""

import ctypes
import threading

import numpy as np

from . import _runtime_capi, _tensors
from ._operands import operand_table
from .compiler import compile as compile_config
from .errors import TargetUnavailableError


class GpuDecodeProgram:
    """A target program (plan_capacity(batch), run(buffers)) that also
    launches on device operands: device_program(device).enqueue_prepared().

    Subclasses name the target, what it needs (`needs`, for the message
    when it is missing), the runtime program class (_runtime_capi.HipProgram
    or CudaProgram) and its unavailable_reason(), and may override
    configuration() (the DecodeConfig compiled for decode()'s PaDecodeConfig).
    The program for the current device is loaded when the target program is
    made, so that a graph capture around a later call launches only (no
    module load while capturing).
    """

    # decode() hands GPU tensors only to targets that say so.
    takes_tensors = True
    target = None
    needs = None
    runtime = None

    @staticmethod
    def unavailable_reason():
        raise NotImplementedError

    @staticmethod
    def configuration(c_config):
        from .config import DecodeConfig
        return DecodeConfig.from_c(c_config)

    def __init__(self, c_config):
        reason = self.unavailable_reason()
        if reason is not None:
            raise TargetUnavailableError(
                f"target {self.target!r} needs {self.needs}: {reason}; "
                f"target='host' runs on any machine")
        self.config = self.configuration(c_config)
        self.artifact = compile_config(self.config)
        self._loaded = {}
        self._lock = threading.Lock()
        self.device_program(_tensors.current_device())

    def device_program(self, device):
        """The runtime's program for `device` (a torch device index; None:
        the current one, for host-buffer runs), loaded on first use."""
        with self._lock:
            program = self._loaded.get(device)
            if program is None:
                program = self._loaded[device] = self.runtime(
                    self.artifact.code_object, self.artifact.metadata_json)
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
            "v_scale": b.vScale, "sinks": b.sinks,
            "alibi_slopes": b.alibiSlopes, "work_info": b.workInfo,
            "reduce_info": b.reduceInfo, "exp_sums": b.expSums,
            "max_logits": b.maxLogits, "tmp_out": b.tmpOut,
            "output": b.output, "lse": b.lse}
        table = self.operands(b.batch, b.numPages, b.maxPagesPerSequence,
                              b.capacity)
        # nhd / hnd caches at their page strides (halves of a combined
        # cache), the dims within a page row-major.
        page_strides = {"key_cache": b.keyPageStride,
                        "value_cache": b.valuePageStride}

        def strides(op):
            page_stride = page_strides.get(op.name)
            if not page_stride:
                return None
            inner = [1]
            for extent in reversed(op.shape[2:]):
                inner.insert(0, inner[0] * extent)
            return [page_stride] + inner

        self.device_program(None).run([
            (op.name, addresses[op.name], op.shape, op.element_bytes,
             op.read_only, strides(op)) for op in table])


def _int32_view(address, shape):
    """The int32 host array at `address` (an int, None when empty)."""
    count = int(np.prod(shape))
    if count == 0 or not address:
        return np.zeros(shape, dtype=np.int32)
    buffer = (ctypes.c_int32 * count).from_address(address)
    return np.frombuffer(buffer, dtype=np.int32).reshape(shape)
