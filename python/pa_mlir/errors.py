"""Exceptions of pa_mlir.

Bad input (arguments, shapes, configurations the dialect rejects) raises
ValueError or a subclass of it, so callers can catch one type; a target
whose runtime or device is missing raises TargetUnavailableError.
"""


class PaError(Exception):
    """Base of the exceptions pa_mlir defines."""


class CompileError(PaError, ValueError):
    """The compiler rejected the input; the message holds its diagnostics
    (file:line:col: error: ... for module text)."""


class TargetUnavailableError(PaError, RuntimeError):
    """The target's runtime library or device is not on this machine (e.g.
    target="hip" without libamdhip64 or an AMD GPU)."""
