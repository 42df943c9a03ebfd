"""A stand-in for the torch APIs pa_mlir's tensor path uses (_tensors.py),
over numpy host memory, for machines without PyTorch or a GPU.

test_cuda.py installs it as sys.modules["torch"] in a subprocess whose CUDA
driver is libpa-fake-cuda.so, whose "device memory" is host memory too: so
decode(target="cuda") on "CUDA tensors" runs here end to end (checks,
allocation of the outputs, launches on the current stream with the tensors'
addresses), kernels aside. Never used next to a real torch.
"""

import numpy as np

import pa_mlir


class dtype:
    def __init__(self, name, storage):
        self.name = name
        self.storage = np.dtype(storage)

    def __repr__(self):
        return f"torch.{self.name}"


float32 = dtype("float32", np.float32)
float16 = dtype("float16", np.float16)
bfloat16 = dtype("bfloat16", np.uint16)  # bits
int8 = dtype("int8", np.int8)
uint8 = dtype("uint8", np.uint8)
int16 = dtype("int16", np.int16)
int32 = dtype("int32", np.int32)
int64 = dtype("int64", np.int64)
# No uint16 and no float8 types: like older torch releases.


class device:
    def __init__(self, spec):
        kind, _, index = str(spec).partition(":")
        self.type = kind
        self.index = int(index) if index else (0 if kind == "cuda" else None)

    def __repr__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"


class Tensor:
    def __init__(self, array, dtype, where="cuda:0"):
        self.array = array
        self.dtype = dtype
        self.device = device(where)

    @property
    def shape(self):
        return tuple(self.array.shape)

    @property
    def ndim(self):
        return self.array.ndim

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def dim(self):
        return self.array.ndim

    def get_device(self):
        """torch's: the GPU index, -1 on the CPU."""
        return self.device.index if self.is_cuda else -1

    def numel(self):
        return self.array.size

    def is_contiguous(self):
        return self.array.flags.c_contiguous

    def stride(self, dim=None):
        strides = tuple(s // self.array.itemsize for s in self.array.strides)
        return strides if dim is None else strides[dim]

    def data_ptr(self):
        return self.array.ctypes.data

    def reshape(self, *shape):
        return Tensor(self.array.reshape(*shape), self.dtype, str(self.device))

    def to(self, target):
        if self.dtype is float32 and target is bfloat16:
            bits = pa_mlir.float32_to_bits(self.array, "bf16")
            return Tensor(bits, bfloat16, str(self.device))
        if self.dtype is float32 and target is float16:
            return Tensor(self.array.astype(np.float16), float16,
                          str(self.device))
        raise NotImplementedError(f"fake torch: {self.dtype} to {target}")

    def fill_(self, value):
        self.array[...] = _value(value, self.dtype)
        return self

    def transpose(self, a, b):
        return Tensor(self.array.swapaxes(a, b), self.dtype, str(self.device))

    def __getitem__(self, index):
        return Tensor(self.array[index], self.dtype, str(self.device))

    def view(self, *what):
        """view(dtype) reinterprets the bytes; view(*shape) reshapes."""
        if len(what) == 1 and isinstance(what[0], dtype):
            return Tensor(self.array.view(what[0].storage), what[0],
                          str(self.device))
        return Tensor(self.array.view().reshape(*what), self.dtype,
                      str(self.device))


def _value(value, kind):
    if kind is bfloat16:
        return pa_mlir.float32_to_bits(np.float32(value), "bf16")
    return np.array(value).astype(kind.storage)


def full(shape, value, dtype, device="cpu"):
    return Tensor(np.full(shape, _value(value, dtype), dtype=dtype.storage),
                  dtype, device)


def empty(shape, dtype, device="cpu"):
    # Garbage, as torch's: whatever the caller must overwrite shows.
    array = np.frombuffer(np.random.default_rng().bytes(
        int(np.prod(shape)) * dtype.storage.itemsize),
        dtype=dtype.storage).reshape(shape).copy()
    return Tensor(array, dtype, device)


class version:
    # A CUDA build; tests set version.hip to act as a ROCm build.
    cuda = "12.4"
    hip = None


def tensor_of(array, where="cuda:0"):
    """A tensor holding (not copying) numpy `array` (test helper)."""
    kinds = {np.dtype(np.float32): float32, np.dtype(np.uint8): uint8,
             np.dtype(np.int16): int16, np.dtype(np.int32): int32,
             np.dtype(np.int64): int64, np.dtype(np.float16): float16}
    if array.dtype == np.uint16:
        return Tensor(array, bfloat16, where)
    return Tensor(array, kinds[array.dtype], where)


class _Stream:
    cuda_stream = 0x7700


class cuda:
    @staticmethod
    def is_available():
        return True

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def current_stream(device=None):
        return _Stream()


class _Namespace:
    """torch.ops.NAMESPACE: the ops a fake Library defined there."""


class ops:
    """torch.ops: the fake Library's ops, called directly (no dispatcher)."""


def _schema_arguments(schema):
    """The argument names of an op schema "name(Type a, Type? b=None)"."""
    inside = schema[schema.index("(") + 1:schema.rindex(")")]
    return [part.split("=")[0].split()[-1] for part in inside.split(",")]


def _check_signature(function, names, what):
    """The op's Python function must take the schema's arguments, in order
    (as the real dispatcher passes them)."""
    import inspect
    got = list(inspect.signature(function).parameters)
    if got != names:
        raise TypeError(f"fake torch: {what} {function.__name__} takes "
                        f"{got}, the schema {names}")


class library:
    """torch.library's Library (define, impl) and register_fake: enough
    for pa_mlir.torch_ops to import and for its op to run on the fake
    drivers, the schema's argument names checked against the kernel's and
    the fake implementation's parameters."""

    schemas = {}
    fakes = {}

    class Library:
        def __init__(self, namespace, kind):
            self.namespace = namespace
            if not hasattr(ops, namespace):
                setattr(ops, namespace, _Namespace())

        def define(self, schema):
            name = schema[:schema.index("(")]
            library.schemas[f"{self.namespace}::{name}"] = schema

        def impl(self, name, function, dispatch_key):
            schema = library.schemas[f"{self.namespace}::{name}"]
            _check_signature(function, _schema_arguments(schema), "kernel")
            setattr(getattr(ops, self.namespace), name, function)

    @staticmethod
    def register_fake(qualified, lib=None):
        def register(function):
            _check_signature(function, _schema_arguments(
                library.schemas[qualified]), "fake implementation")
            library.fakes[qualified] = function
            return function
        return register
