"""What the ctypes bindings of both C libraries share: libPACAPI.so (_capi,
_compile_capi, _emulator_capi) and libPARuntimeCAPI.so (_runtime_capi).

Nothing here picks a library: every helper takes the one (or the path)
its caller names, so _runtime_capi keeps working where libPACAPI.so is not
there.
"""

import ctypes
import threading


class PaString(ctypes.Structure):
    """A string the library allocated; take_string() reads and frees it."""
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


# The out-parameter (PaString *) that a call's error message comes back in.
PaStringPtr = ctypes.POINTER(PaString)


class Handle(ctypes.Structure):
    """An opaque C handle (struct { void *ptr; }); false when null."""
    _fields_ = [("ptr", ctypes.c_void_p)]

    def __bool__(self):
        return bool(self.ptr)


class Once:
    """A function returning what `make()` returned on the first call that
    did not raise (made under a lock, so once however many threads ask)."""

    def __init__(self, make):
        self._make = make
        self._lock = threading.Lock()
        self._made = None

    def __call__(self):
        with self._lock:
            if self._made is None:
                self._made = self._make()
            return self._made


def load(path, missing, signatures):
    """ctypes.CDLL(path) with paStringDestroy (take_string) and `signatures`
    declared; RuntimeError(missing.format(path=path)) when there is no such
    file."""
    if not path.is_file():
        raise RuntimeError(missing.format(path=path))
    lib = ctypes.CDLL(str(path))
    lib.paStringDestroy.argtypes = [PaString]
    lib.paStringDestroy.restype = None
    return declare(lib, signatures)


def declare(lib, signatures):
    """Declares {name: (argtypes, restype)} on the functions of `lib`;
    returns `lib`."""
    for name, (argtypes, restype) in signatures.items():
        function = getattr(lib, name)
        function.argtypes = argtypes
        function.restype = restype
    return lib


def take_string(string, lib):
    """The text of a PaString returned by `lib`, which then frees it."""
    if not string.data:
        return ""
    text = ctypes.string_at(string.data, string.length).decode(
        "utf-8", errors="replace")
    lib.paStringDestroy(string)
    return text


def checked_call(lib, name, *arguments, exception=ValueError, failure=""):
    """Calls `name` of `lib` with `arguments` and a PaString for its error
    message last; returns the result, or raises `exception` with the
    message (`failure` when the library gave none) when the result is false
    or a null Handle."""
    error = PaString()
    result = getattr(lib, name)(*arguments, ctypes.byref(error))
    message = take_string(error, lib)
    if not result:
        raise exception(message or failure)
    return result


class OwnedHandle:
    """Owns the Handle that the function `create` of `lib` returns
    (checked_call: `arguments` and `options` are that call's), released by
    the library's function named by the class attribute `_destroy` when
    collected."""

    _destroy = None

    def __init__(self, lib, create, *arguments, **options):
        self._lib = lib
        self._handle = checked_call(lib, create, *arguments, **options)

    def _checked_call(self, name, *arguments, **options):
        """checked_call of `name` with this handle before `arguments`."""
        return checked_call(self._lib, name, self._handle, *arguments,
                            **options)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            getattr(self._lib, self._destroy)(handle)
            self._handle = None
