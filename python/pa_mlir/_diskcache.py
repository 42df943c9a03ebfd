"""The on-disk compile cache (opt-in: the environment variable
PA_MLIR_CACHE_DIR names its directory).

One file per compile, `<key>.json`, where the key is the SHA-256 of the
compile's inputs (configuration or module text, chip, options) and the
package version. The file holds the inputs again, the code object
(base64), the metadata, the stages, the plan limits and a SHA-256 of all of
it: an entry that does not parse, belongs to other inputs or fails its
checksum is ignored (with a warning) and the compile runs again and
replaces it. Nothing in an entry is trusted: its size is bounded before it
is read (MAX_ENTRY_BYTES), JSON nested too deeply is a bad entry (not a
RecursionError), and every field is checked for type and range (plan
limits >= 1, stages as (name, text) pairs, metadata a JSON object).
Reading an entry needs nothing but this file - not libPACAPI.so - so a
cache filled on a machine with the compiler serves decode(target="cuda")
on one with only a GPU driver.

Each entry records the identity of the compiler that made it (the SHA-256
of the libPACAPI.so file). Where a compiler is present, an entry of
another build is stale: it is compiled again and replaced, so a rebuilt
compiler never serves old code objects. Where none is (a serving machine
with the runtime library only), any build's entry serves. The system's
libMLIR/libLLVM, which libPACAPI.so links dynamically, are not part of the
identity.

Writes go to a temporary file that is renamed into place, so concurrent
processes see a whole entry or none.
"""

import base64
import hashlib
import json
import os
import tempfile
import threading
import warnings
from pathlib import Path

from . import _capi
from ._version import __version__

ENVIRONMENT = "PA_MLIR_CACHE_DIR"
# 3: programs read the query at its run-time strides (older entries read
# it packed, so they are not served). 4: nhd / hnd programs read K and V at
# their run-time page strides (format-3 entries read them contiguous).
# 5: sidecars list the strides each kernel reads at run time
# ("dynamic_strides"); a format-4 entry has none, so the runtime would take
# only row-major views of it.
FORMAT = 5
# The largest entry read: code objects are hundreds of KB and the stages a
# few MB; a bigger file is not a cache entry of this package.
MAX_ENTRY_BYTES = 64 << 20
CODE_FORMATS = ("hsaco", "ptx", "cubin")

_identities = {}
_identities_lock = threading.Lock()


def compiler_identity():
    """The SHA-256 of the libPACAPI.so file compiles would load, or None
    when there is none; hashed once per (path, size, mtime)."""
    path = _capi.library_path()
    try:
        status = path.stat()
    except OSError:
        return None
    stamp = (str(path), status.st_size, status.st_mtime_ns, status.st_ino)
    with _identities_lock:
        identity = _identities.get(stamp)
        if identity is None:
            digest = hashlib.sha256()
            try:
                with open(path, "rb") as library:
                    for block in iter(lambda: library.read(1 << 20), b""):
                        digest.update(block)
            except OSError:
                return None
            identity = _identities[stamp] = digest.hexdigest()
        return identity


TUNING_TABLE = "PA_MLIR_TUNING_TABLE"


def tuning_table_identity():
    """The tuning table compiles read in place of the library's built-in one
    (docs/tuning.md), for the cache key: None when PA_MLIR_TUNING_TABLE is
    unset, "" when it names no table, else the SHA-256 of the file (the
    path when it cannot be read: the compile then fails with the reason)."""
    path = os.environ.get(TUNING_TABLE)
    if not path:
        return path
    try:
        with open(path, "rb") as table:
            return hashlib.sha256(table.read()).hexdigest()
    except OSError:
        return path


def directory():
    """The cache directory, or None when the cache is off."""
    value = os.environ.get(ENVIRONMENT)
    return Path(value) if value else None


def _canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def key(inputs):
    """The entry name of a compile of `inputs` (a JSON-able dict)."""
    material = {"format": FORMAT, "version": __version__, "inputs": inputs}
    return hashlib.sha256(_canonical(material).encode("utf-8")).hexdigest()


def _checksum(entry):
    body = {name: value for name, value in entry.items() if name != "sha256"}
    return hashlib.sha256(_canonical(body).encode("utf-8")).hexdigest()


def load(inputs):
    """The cached result of compiling `inputs` - a dict with chip, format,
    code_object (bytes), metadata_json, stages [(name, text)] and
    plan_limits ((budget, max_partitions) or None) - or None: no entry, a
    stale one (another compiler build) or a bad one (with a warning)."""
    folder = directory()
    if folder is None:
        return None
    name = key(inputs)
    path = folder / f"{name}.json"
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_ENTRY_BYTES:
                raise _BadEntry(f"{size} bytes, over the limit of "
                                f"{MAX_ENTRY_BYTES}")
            # Bounded even when the file grows while it is read.
            data = handle.read(MAX_ENTRY_BYTES + 1)
        if len(data) > MAX_ENTRY_BYTES:
            raise _BadEntry("it grew over the size limit while read")
        entry = _parse(data, name, inputs)
    except FileNotFoundError:
        return None
    except OSError as error:
        warnings.warn(f"pa_mlir: cannot read the compile cache entry "
                      f"{path}: {error}", RuntimeWarning, stacklevel=3)
        return None
    except _BadEntry as error:
        warnings.warn(f"pa_mlir: ignoring the corrupt compile cache entry "
                      f"{path} ({error}); compiling again", RuntimeWarning,
                      stacklevel=3)
        return None
    identity = compiler_identity()
    if identity is not None and entry["compiler"] != identity:
        return None  # made by another build of the compiler
    return entry["result"]


class _BadEntry(Exception):
    """An entry that must not be used (the message says why)."""


def _json(text, what):
    """json.loads(text); _BadEntry for text that is not JSON or nests too
    deeply for the parser (RecursionError)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise _BadEntry(f"{what}: {type(error).__name__}: "
                        f"{str(error)[:200]}") from None


def _is_int(value, low):
    return isinstance(value, int) and not isinstance(value, bool) and (
        low <= value < 2**63)


def _parse(data, name, inputs):
    """{"compiler": identity, "result": what load returns} of an entry's
    bytes; _BadEntry naming the first thing wrong."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _BadEntry(f"not UTF-8: {error}") from None
    entry = _json(text, "not JSON")
    if not isinstance(entry, dict):
        raise _BadEntry("not a JSON object")
    if entry.get("sha256") != _checksum(entry):
        raise _BadEntry("its checksum does not match its contents")
    if (entry.get("format") != FORMAT or entry.get("key") != name
            or _canonical(entry.get("inputs")) != _canonical(inputs)):
        raise _BadEntry("it belongs to other inputs")
    strings = ("chip", "code_format", "code_object", "metadata_json",
               "compiler")
    for field in strings:
        if not isinstance(entry.get(field), str):
            raise _BadEntry(f"'{field}' is not a string")
    if entry["code_format"] not in CODE_FORMATS:
        raise _BadEntry(f"unknown code format {entry['code_format'][:40]!r}")
    stages = entry.get("stages")
    if not isinstance(stages, list) or not all(
            isinstance(stage, list) and len(stage) == 2
            and all(isinstance(part, str) for part in stage)
            for stage in stages):
        raise _BadEntry("'stages' is not a list of (name, text) pairs")
    limits = entry.get("plan_limits")
    from_config = "config" in inputs
    if from_config:
        if not (isinstance(limits, list) and len(limits) == 2
                and all(_is_int(limit, 1) for limit in limits)):
            raise _BadEntry(f"'plan_limits' must be two integers >= 1, got "
                            f"{str(limits)[:80]}")
    elif limits is not None:
        raise _BadEntry("module text has no plan limits")
    if not isinstance(_json(entry["metadata_json"], "metadata is not JSON"),
                      dict):
        raise _BadEntry("the metadata is not a JSON object")
    try:
        code_object = base64.b64decode(entry["code_object"], validate=True)
    except ValueError as error:
        raise _BadEntry(f"the code object is not base64: {error}") from None
    return {"compiler": entry["compiler"], "result": {
        "chip": entry["chip"], "format": entry["code_format"],
        "code_object": code_object, "metadata_json": entry["metadata_json"],
        "stages": [tuple(stage) for stage in stages],
        "plan_limits": tuple(limits) if limits else None}}


def store(inputs, chip, format, code_object, metadata_json, stages,
          plan_limits):
    """Writes the entry of `inputs` (atomically); a cache that cannot be
    written is a warning, not an error."""
    folder = directory()
    if folder is None:
        return
    identity = compiler_identity()
    if identity is None:
        return  # nothing compiled here (a compiler loaded from elsewhere?)
    name = key(inputs)
    entry = {
        "format": FORMAT, "key": name, "version": __version__,
        "compiler": identity,
        "inputs": inputs, "chip": chip, "code_format": format,
        "code_object": base64.b64encode(code_object).decode("ascii"),
        "metadata_json": metadata_json,
        "stages": [list(stage) for stage in stages],
        "plan_limits": list(plan_limits) if plan_limits else None,
    }
    entry["sha256"] = _checksum(entry)
    text = json.dumps(entry)
    if len(text) > MAX_ENTRY_BYTES:
        warnings.warn(f"pa_mlir: not caching a compile of {len(text)} bytes "
                      f"(over {MAX_ENTRY_BYTES})", RuntimeWarning,
                      stacklevel=3)
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.",
                                             suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            # mkstemp's 0600 would hide the entry from other users.
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o644 & ~umask)
            os.replace(temporary, folder / f"{name}.json")
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as error:
        warnings.warn(f"pa_mlir: cannot write the compile cache entry in "
                      f"{folder}: {error}", RuntimeWarning, stacklevel=3)
