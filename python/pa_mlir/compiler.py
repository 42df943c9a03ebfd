"""pa_mlir.compile: decode programs to GPU code objects.

    artifact = pa_mlir.compile(pa_mlir.DecodeConfig(num_query_heads=16,
                                                    head_dim=256), stages=True)
    artifact.code_object        # bytes of the .hsaco (gfx942/gfx950) or PTX
    artifact.metadata           # the sidecar: kernels, grids, argument layout
    artifact.stages["tiled"]    # the IR between two pipeline stages
    artifact.write("decode.hsaco")   # + decode.hsaco.json, like pa-compile

Compiles run in this process (no ROCm or CUDA needed) and are cached by
their inputs: the same configuration and options give the same Artifact.
With the environment variable PA_MLIR_CACHE_DIR set, compiles are also
cached on disk (_diskcache): a hit there loads nothing of the compiler
(libPACAPI.so), so a cache filled elsewhere serves a machine without MLIR.
"""

import dataclasses
import json
import threading
from pathlib import Path

from . import _compile_capi, _diskcache
from .config import DecodeConfig
from .errors import CompileError

_cache = {}
_cache_lock = threading.Lock()


class Artifact:
    """A compiled program: what a launcher needs, and the stages on request.

    chip: "gfx950", ...; format: "hsaco" or "ptx"; code_object: bytes;
    metadata_json: the sidecar text and metadata: it parsed; stages: the
    text of each stage by name, in pipeline order ("pa", "tiled",
    "rocdl" / "nvvm", "llvm", "isa" / "ptx"), empty unless requested;
    config: the DecodeConfig compiled, or None for module text;
    plan_limits: (budget, max_partitions) of the compiled plan, the chip's
    defaults filled in (None for module text).
    """

    def __init__(self, config, chip, format, code_object, metadata_json,
                 stages, plan_limits=None):
        self.config = config
        self.chip = chip
        self.format = format
        self.code_object = code_object
        self.metadata_json = metadata_json
        self.metadata = json.loads(metadata_json)
        self.stages = dict(stages)
        self.plan_limits = tuple(plan_limits) if plan_limits else None

    def plan_capacity(self, batch):
        """Plan slots for `batch` sequences, computed here (no compiler
        needed): min(B * max_partitions, max(B, ceil(budget / Hkv)))."""
        if self.plan_limits is None or self.config is None:
            raise ValueError("plan_capacity needs an artifact compiled from "
                             "a DecodeConfig")
        return plan_capacity(self.config, self.plan_limits, batch)

    @property
    def kernels(self):
        """The kernel names, as the sidecar lists them."""
        return [kernel["name"] for kernel in self.metadata.get("kernels", [])]

    def stage(self, name):
        """The text of stage `name`; KeyError naming the stages kept."""
        if name not in self.stages:
            kept = ", ".join(self.stages) or "none (compile with stages=True)"
            raise KeyError(f"no stage {name!r}; stages kept: {kept}")
        return self.stages[name]

    def write(self, path):
        """Writes the code object to `path` and the sidecar to `path`.json
        (what pa-compile -o writes); returns both paths."""
        path = Path(path)
        sidecar = path.with_name(path.name + ".json")
        path.write_bytes(self.code_object)
        sidecar.write_text(self.metadata_json)
        return path, sidecar

    def save(self, path, multi_chip=False):
        """Writes the AOT program directory `path` (pa_mlir.load_program and
        the runtime library's paHipProgramLoadFile / paCudaProgramLoadFile
        load it without the compiler); the configuration and plan limits
        are recorded when the artifact was compiled from a DecodeConfig.
        multi_chip: add this chip's program to the multi-chip program
        `path` (created when missing; the runtime loads the GPU's chip).
        Returns `path`. ValueError with the runtime library's message."""
        from . import _runtime_capi, programs
        recorded = None
        if self.config is not None and self.plan_limits is not None:
            recorded = programs.config_json(self.config, self.plan_limits)
        _runtime_capi.write_program(path, self.chip, self.format,
                                    self.code_object, self.metadata_json,
                                    recorded, multi_chip=multi_chip)
        return path

    def __repr__(self):
        return (f"Artifact(chip={self.chip!r}, format={self.format!r}, "
                f"{len(self.code_object)} bytes, kernels={self.kernels}, "
                f"stages={list(self.stages)})")


def compile(config=None, *, mlir=None, chip=None, code_object_version=5,
            stages=False, fp8_residual="query-and-p", cache_offsets="auto",
            key_prefetch="auto", **fields):
    """Compiles a decode program to a GPU code object.

    Give either a DecodeConfig (or its fields as keywords:
    compile(num_query_heads=16, head_dim=256, chip="gfx942")), or module
    text with pa ops as `mlir` and its `chip`. code_object_version: 5 or 6
    (AMD). stages: keep the IR of every stage in Artifact.stages.
    fp8_residual ("query-and-p", "p", "none"), cache_offsets ("auto",
    "64") and key_prefetch ("auto", "none", "next-tile"): pa-compile's
    --fp8-residual, --cache-offsets and --key-prefetch (AMD chips).

    Raises ValueError for bad arguments and CompileError (a ValueError)
    with the compiler's diagnostics when the compiler rejects the input.
    """
    if not isinstance(stages, bool):
        raise ValueError(f"stages must be True or False, got {stages!r}")
    if code_object_version not in (5, 6):
        raise ValueError(f"code_object_version must be 5 or 6, got "
                         f"{code_object_version!r}")
    for name, value, allowed in (
            ("fp8_residual", fp8_residual, _compile_capi.FP8_RESIDUAL),
            ("cache_offsets", cache_offsets, _compile_capi.CACHE_OFFSETS),
            ("key_prefetch", key_prefetch, _compile_capi.KEY_PREFETCH)):
        if value not in allowed:
            raise ValueError(f"{name} must be one of "
                             f"{', '.join(map(repr, allowed))}, got {value!r}")
    options = {"code_object_version": code_object_version,
               "fp8_residual": fp8_residual, "cache_offsets": cache_offsets,
               "key_prefetch": key_prefetch}
    if mlir is not None:
        if config is not None or fields:
            raise ValueError("give either mlir text or a configuration, not "
                             "both")
        if not isinstance(mlir, str):
            raise ValueError(f"mlir must be module text (str), got "
                             f"{type(mlir).__name__}")
        if not isinstance(chip, str) or not chip or "\0" in chip:
            raise ValueError(f"compiling module text needs chip= (e.g. "
                             f"'gfx950'), got {chip!r}")
        key = ("text", mlir, chip, stages, *options.values())
        inputs = {"mlir": mlir, "chip": chip}
    else:
        config = _configuration(config, chip, fields)
        # A tuning table named by the environment decides plan limits the
        # configuration leaves open: part of the key.
        table = _diskcache.tuning_table_identity()
        key = ("config", config, table, stages, *options.values())
        inputs = {"config": dataclasses.asdict(config)}
        if table is not None:
            inputs["tuning_table"] = table
    inputs.update(stages=stages, **options)

    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None:
        return cached
    stored = _diskcache.load(inputs)
    if stored is not None:
        artifact = Artifact(config, stored["chip"], stored["format"],
                            stored["code_object"], stored["metadata_json"],
                            stored["stages"], stored["plan_limits"])
        with _cache_lock:
            return _cache.setdefault(key, artifact)
    try:
        if mlir is not None:
            result = _compile_capi.compile_artifact(
                text=mlir, chip=chip, buffer_name="input", keep_stages=stages,
                **options)
            plan_limits = None
        else:
            c_config = config.to_c()
            result = _compile_capi.compile_artifact(
                config=c_config, keep_stages=stages, **options)
            plan_limits = _compile_capi.plan_limits(c_config)
    except ValueError as error:
        raise CompileError(str(error)) from None
    _diskcache.store(inputs, *result, plan_limits)
    artifact = Artifact(config, *result, plan_limits)
    with _cache_lock:
        return _cache.setdefault(key, artifact)


def plan_capacity(config, plan_limits, batch):
    """Plan slots for `batch` sequences of a program of `config` with
    `plan_limits` (budget, max_partitions), computed here (no compiler
    needed): min(B * max_partitions, max(B, ceil(budget / Hkv)))."""
    if not isinstance(batch, int) or batch < 0:
        raise ValueError(f"batch must be an integer >= 0, got {batch!r}")
    budget, max_partitions = plan_limits
    return min(batch * max_partitions,
               max(batch, -(-budget // config.num_kv_heads)))


def _configuration(config, chip, fields):
    """`config` with `fields` and `chip` applied, or a new one of them."""
    if config is not None and not isinstance(config, DecodeConfig):
        raise ValueError(f"config must be a pa_mlir.DecodeConfig, got "
                         f"{type(config).__name__}")
    if chip is not None:
        fields = dict(fields, chip=chip)
    try:
        if config is None:
            return DecodeConfig(**fields)
        return config.replace(**fields) if fields else config
    except TypeError as error:  # a keyword DecodeConfig does not have
        raise ValueError(f"not a DecodeConfig field: {error}") from None


def compile_cache_size():
    """How many artifacts the compile cache holds."""
    with _cache_lock:
        return len(_cache)


def clear_compile_cache():
    with _cache_lock:
        _cache.clear()
