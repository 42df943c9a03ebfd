"""The on-disk compile cache (opt-in: the environment variable
PA_MLIR_CACHE_DIR names its directory).

One file per compile, `<key>.json`, where the key is the SHA-256 of the
compile's inputs (configuration or module text, chip, options) and the
package version. The file holds the inputs again, the code object
(base64), the metadata, the stages, the plan limits and a SHA-256 of all of
it: an entry that does not parse, belongs to other inputs or fails its
checksum is ignored (with a warning) and the compile runs again and
replaces it. Reading an entry needs nothing but this file - not
libPACAPI.so - so a cache filled on a machine with the compiler serves
decode(target="cuda") on one with only a GPU driver.

Writes go to a temporary file that is renamed into place, so concurrent
processes see a whole entry or none.
"""

import base64
import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path

from ._version import __version__

ENVIRONMENT = "PA_MLIR_CACHE_DIR"
FORMAT = 1


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
    plan_limits ([budget, max_partitions] or None) - or None."""
    folder = directory()
    if folder is None:
        return None
    name = key(inputs)
    path = folder / f"{name}.json"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        warnings.warn(f"pa_mlir: cannot read the compile cache entry "
                      f"{path}: {error}", RuntimeWarning, stacklevel=3)
        return None
    try:
        entry = json.loads(data.decode("utf-8"))
        if not isinstance(entry, dict) or entry.get("sha256") != _checksum(
                entry):
            raise ValueError("its checksum does not match its contents")
        if (entry.get("format") != FORMAT or entry.get("key") != name
                or _canonical(entry.get("inputs")) != _canonical(inputs)):
            raise ValueError("it belongs to other inputs")
        result = {
            "chip": entry["chip"],
            "format": entry["code_format"],
            "code_object": base64.b64decode(entry["code_object"],
                                            validate=True),
            "metadata_json": entry["metadata_json"],
            "stages": [(stage, text) for stage, text in entry["stages"]],
            "plan_limits": entry["plan_limits"],
        }
        json.loads(result["metadata_json"])
        return result
    except (ValueError, KeyError, TypeError) as error:
        warnings.warn(f"pa_mlir: ignoring the corrupt compile cache entry "
                      f"{path} ({error}); compiling again", RuntimeWarning,
                      stacklevel=3)
        return None


def store(inputs, chip, format, code_object, metadata_json, stages,
          plan_limits):
    """Writes the entry of `inputs` (atomically); a cache that cannot be
    written is a warning, not an error."""
    folder = directory()
    if folder is None:
        return
    name = key(inputs)
    entry = {
        "format": FORMAT, "key": name, "version": __version__,
        "inputs": inputs, "chip": chip, "code_format": format,
        "code_object": base64.b64encode(code_object).decode("ascii"),
        "metadata_json": metadata_json,
        "stages": [list(stage) for stage in stages],
        "plan_limits": list(plan_limits) if plan_limits else None,
    }
    entry["sha256"] = _checksum(entry)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.",
                                             suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(entry, out)
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
