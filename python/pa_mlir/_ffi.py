"""What the ctypes bindings of both C libraries share: libPACAPI.so (_capi,
_compile_capi, _emulator_capi) and libPARuntimeCAPI.so (_runtime_capi).

Nothing here picks a library: every helper takes the one (or the path)
its caller names, so _runtime_capi keeps working where libPACAPI.so is not
there.
"""

import ctypes
import operator
import threading

# The range of each integer C type crossing the boundary. ctypes wraps an
# out-of-range Python int silently (2**64 + 5 becomes 5), in structure fields
# and in function arguments alike, so every integer is checked first.
_INTEGER_RANGES = {
    ctypes.c_int8: (-2**7, 2**7 - 1), ctypes.c_uint8: (0, 2**8 - 1),
    ctypes.c_int16: (-2**15, 2**15 - 1), ctypes.c_uint16: (0, 2**16 - 1),
    ctypes.c_int32: (-2**31, 2**31 - 1), ctypes.c_uint32: (0, 2**32 - 1),
    ctypes.c_int64: (-2**63, 2**63 - 1), ctypes.c_uint64: (0, 2**64 - 1),
}
_C_NAMES = {ctypes.c_int8: "int8", ctypes.c_uint8: "uint8",
            ctypes.c_int16: "int16", ctypes.c_uint16: "uint16",
            ctypes.c_int32: "int32", ctypes.c_uint32: "uint32",
            ctypes.c_int64: "int64", ctypes.c_uint64: "uint64"}


def checked_int(value, ctype, name):
    """`value` (a Python or numpy integer, not a bool) as an int that
    `ctype` holds exactly; ValueError naming `name` otherwise. The one
    conversion every integer takes into C."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be an integer, got {value!r}") from None
    low, high = _INTEGER_RANGES[ctype]
    if not low <= number <= high:
        raise ValueError(f"{name} = {number} does not fit in "
                         f"{_C_NAMES[ctype]} [{low}, {high}]")
    return number


def checked_array(ctype, values, name):
    """A ctypes array of `ctype` holding `values`, each checked_int; never
    empty (one zero when `values` is), as C callers may read a pointer."""
    checked = [checked_int(value, ctype, name) for value in values]
    return (ctype * max(len(checked), 1))(*checked)


def _checked_argument(ctype):
    """An argtypes entry converting like `ctype` after checked_int."""
    return type(f"Checked_{ctype.__name__}", (ctype,), {
        "from_param": classmethod(lambda cls, value: ctype(
            checked_int(value, ctype, "an integer argument")))})


_CHECKED_ARGUMENTS = {ctype: _checked_argument(ctype)
                      for ctype in _INTEGER_RANGES}


class CheckedStructure(ctypes.Structure):
    """A ctypes.Structure whose integer fields refuse values their C type
    cannot hold (ValueError naming the field) instead of wrapping them.
    Every structure of the bindings derives from it."""

    def __setattr__(self, name, value):
        ctype = type(self)._integer_fields().get(name)
        if ctype is not None:
            value = checked_int(value, ctype, name)
        super().__setattr__(name, value)

    @classmethod
    def _integer_fields(cls):
        fields = cls.__dict__.get("_checked_fields")
        if fields is None:
            fields = {name: ctype for name, ctype, *_ in cls._fields_
                      if ctype in _INTEGER_RANGES}
            cls._checked_fields = fields
        return fields


class PaString(CheckedStructure):
    """A string the library allocated; take_string() reads and frees it."""
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


# The out-parameter (PaString *) that a call's error message comes back in.
PaStringPtr = ctypes.POINTER(PaString)


class PaStringRef(CheckedStructure):
    """Bytes borrowed from their owner: (data, length), NUL bytes included."""
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def string_ref(data):
    """The PaStringRef of the bytes `data` (which must outlive the call): the
    library sees every byte, so a NUL inside is its error, not the end of
    the text as with a C string."""
    return PaStringRef(ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p),
                       len(data))


class Handle(CheckedStructure):
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
    """Declares {name: (argtypes, restype)} on the functions of `lib`, every
    integer argument range-checked (checked_int); returns `lib`."""
    for name, (argtypes, restype) in signatures.items():
        function = getattr(lib, name)
        function.argtypes = [_CHECKED_ARGUMENTS.get(ctype, ctype)
                             for ctype in argtypes]
        function.restype = restype
        setattr(lib, name, _value_errors(function))
    return lib


def _value_errors(function):
    """`function`, raising the ValueError of an argument that fails its
    conversion (ctypes wraps it in an ArgumentError, which is no
    ValueError) as a ValueError."""
    def call(*arguments):
        try:
            return function(*arguments)
        except ctypes.ArgumentError as error:
            raise ValueError(f"{function.__name__}: {error}") from None

    call.__name__ = function.__name__
    call.function = function
    return call


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
