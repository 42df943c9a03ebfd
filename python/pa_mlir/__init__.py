"""pa_mlir: paged-attention decode compiled with MLIR, from numpy.

    import pa_mlir
    out = pa_mlir.decode(query, key_cache, value_cache, block_tables,
                         context_lengths, query_length=1, kv_dtype="e4m3fn")
    artifact = pa_mlir.compile(pa_mlir.DecodeConfig(head_dim=256))
    artifact.code_object, artifact.metadata     # .hsaco bytes + sidecar

The package is pure Python over the C API (libPACAPI.so, found in the
project's build/lib or through the environment variable PA_MLIR_LIB; it is
loaded on first use). target="cuda" runs through libPARuntimeCAPI.so (beside
it, or PA_MLIR_RUNTIME_LIB) and needs libPACAPI.so only to compile: with
PA_MLIR_CACHE_DIR set, compiles are cached on disk and a cache hit loads no
compiler. Artifact.save writes an ahead-of-time program directory that
load_program launches (HIP or CUDA) through libPARuntimeCAPI.so alone.
Semantics: docs/user-guide.md.
"""

from ._version import __version__
from ._capi import library_path, verify_text
from .decode import (KV_DTYPES, TARGETS, V_LAYOUTS, DecodeResult,
                     compiled_program_count, decode)
from .dtypes import QUERY_DTYPES, bits_to_float32, float32_to_bits, round_to
from . import targets
from .compiler import Artifact, clear_compile_cache, compile, compile_cache_size
from .config import DecodeConfig
from ._plans import Planner, plan, workspace_bytes
from ._tensors import Plan
from .programs import Program, load_program
from .errors import CompileError, PaError, TargetUnavailableError

__all__ = [
    "__version__", "decode", "DecodeResult", "verify_text", "library_path",
    "compiled_program_count", "float32_to_bits", "bits_to_float32",
    "round_to", "TARGETS", "KV_DTYPES", "QUERY_DTYPES", "V_LAYOUTS",
    "compile", "Artifact", "DecodeConfig", "compile_cache_size",
    "clear_compile_cache", "targets", "PaError", "CompileError",
    "TargetUnavailableError", "Program", "load_program", "plan", "Plan",
    "Planner",
    "workspace_bytes",
]
