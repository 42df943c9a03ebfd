"""ctypes bindings of include/pa-c/Runtime.h, Hip.h and Cuda.h:
libPARuntimeCAPI.so, the runtime library without MLIR or LLVM.

The library is the environment variable PA_MLIR_RUNTIME_LIB, else the
libPARuntimeCAPI.so beside libPACAPI.so (_capi.library_path(), which is
not loaded for that). Nothing here loads libPACAPI.so, so programs compiled
elsewhere (the on-disk compile cache, AOT program directories) run on a
machine without MLIR.

    program = HipProgram(code_object, metadata_json)   # or CudaProgram
    program = HipProgram.from_file("decode.paprog")     # an AOT program
    program.enqueue([(name, device_address, shape), ...], stream)
    program.run([(name, host_address, shape, element_bytes, read_only)])

HipProgram and CudaProgram are the same class over the two drivers: the HIP
runtime (libamdhip64.so, or PA_HIP_LIBRARY) or the CUDA driver
(libcuda.so.1, or PA_CUDA_LIBRARY), each opened by the runtime library on
first use.
"""

import ctypes
import os
from pathlib import Path

from . import _capi, _ffi
from ._ffi import PaString

_i64 = ctypes.c_int64
_i32 = ctypes.c_int32


# pa-c/Runtime.h's PA_HOST_OPERAND_ABI: the layout of PaHostOperand these
# bindings describe (the library refuses operands of another).
PA_HOST_OPERAND_ABI = 0x50414F5000000001


class PaHostOperand(_ffi.CheckedStructure):
    """pa-c/Runtime.h's PaHostOperand: (abi, name, data, rank, sizes,
    elementBytes, readOnly, strides), abi PA_HOST_OPERAND_ABI."""
    _fields_ = [("abi", ctypes.c_uint64),
                ("name", ctypes.c_char_p), ("data", ctypes.c_void_p),
                ("rank", _i32), ("sizes", ctypes.POINTER(_i64)),
                ("elementBytes", _i64), ("readOnly", ctypes.c_bool),
                ("strides", ctypes.POINTER(_i64))]


class PaDeviceOperand(_ffi.CheckedStructure):
    """strides: NULL (row-major) or `rank` element strides."""
    _fields_ = [("name", ctypes.c_char_p), ("address", ctypes.c_uint64),
                ("rank", _i32), ("sizes", ctypes.POINTER(_i64)),
                ("strides", ctypes.POINTER(_i64))]


class PaLaunchCall(_ffi.CheckedStructure):
    """pa-c/Runtime.h's PaLaunchCall: one enqueue of a bound launch as
    fields (launch, operands, count, kernels, stream, error), filled in
    place and passed to pa*LaunchCall as one pointer. Used for its layout:
    a plan keeps it at the head of its operand block (_tensors)."""
    _fields_ = [("launch", ctypes.c_void_p), ("operands", ctypes.c_void_p),
                ("count", ctypes.c_uint64), ("kernels", ctypes.c_uint64),
                ("stream", ctypes.c_void_p), ("error", PaString)]


class PaOperandShape(_ffi.CheckedStructure):
    """pa-c/Runtime.h's PaOperandShape: one operand of a decode program's
    table (name, pattern, rank, sizes[5], elementBytes, readOnly)."""
    _fields_ = [("name", ctypes.c_char_p), ("pattern", ctypes.c_char_p),
                ("rank", _i32), ("sizes", _i64 * 5),
                ("elementBytes", _i64), ("readOnly", ctypes.c_bool)]


# pa-c/Runtime.h's PA_MAX_DECODE_OPERANDS.
MAX_DECODE_OPERANDS = 16


class PaCudaProgram(_ffi.Handle):
    """A PaCudaProgram handle."""


class PaHipProgram(_ffi.Handle):
    """A PaHipProgram handle."""


class PaLaunch(_ffi.Handle):
    """A PaCudaLaunch or PaHipLaunch handle (the same struct)."""


# The kernel masks of pa-c/Runtime.h (PA_KERNEL_*).
KERNEL_PLAN, KERNEL_DECODE, KERNEL_REDUCE = 1, 2, 4
KERNELS_ALL = KERNEL_PLAN | KERNEL_DECODE | KERNEL_REDUCE

_error = _ffi.PaStringPtr
_i32p = ctypes.POINTER(_i32)
_SIGNATURES = {
    "paDecodeOperandTable": (
        [ctypes.POINTER(_capi.PaDecodeConfig), _i64, _i64, _i64, _i64,
         ctypes.POINTER(PaOperandShape), ctypes.POINTER(ctypes.c_size_t),
         _error], ctypes.c_bool),
    "paDecodeCheckSequences": (
        [_i64, _i64, _i64, _i64, _i64, _i64, _i32p, _i32p, _error],
        ctypes.c_bool),
    "paProgramWrite": ([ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
                        ctypes.c_char_p, _error], ctypes.c_bool),
    "paProgramDescribe": ([ctypes.c_char_p, _error, _error, _error, _error],
                          ctypes.c_bool),
    "paProgramWriteChip": ([ctypes.c_char_p, ctypes.c_char_p,
                            ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
                            ctypes.c_char_p, ctypes.c_char_p, _error],
                           ctypes.c_bool),
    "paProgramChips": ([ctypes.c_char_p, _error,
                        ctypes.POINTER(ctypes.c_bool), _error],
                       ctypes.c_bool),
}
# The same entry points for each driver: paHip* and paCuda*.
for _driver, _handle in (("Hip", PaHipProgram), ("Cuda", PaCudaProgram)):
    _SIGNATURES.update({
        f"pa{_driver}RuntimeAvailable": ([_error], ctypes.c_bool),
        f"pa{_driver}ProgramLoad": ([ctypes.c_void_p, ctypes.c_size_t,
                                     ctypes.c_char_p, _error], _handle),
        f"pa{_driver}ProgramLoadFile": ([ctypes.c_char_p, _error], _handle),
        f"pa{_driver}ProgramChip": ([ctypes.c_char_p, _error, _error],
                                    ctypes.c_bool),
        f"pa{_driver}ProgramDestroy": ([_handle], None),
        f"pa{_driver}ProgramEnqueue": ([_handle,
                                        ctypes.POINTER(PaDeviceOperand),
                                        ctypes.c_size_t, ctypes.c_void_p,
                                        _error], ctypes.c_bool),
        f"pa{_driver}ProgramEnqueueKernels": (
            [_handle, ctypes.POINTER(PaDeviceOperand), ctypes.c_size_t,
             ctypes.c_uint32, ctypes.c_void_p, _error], ctypes.c_bool),
        f"pa{_driver}ProgramRun": ([_handle, ctypes.POINTER(PaHostOperand),
                                    ctypes.c_size_t, _error], ctypes.c_bool),
        f"pa{_driver}ProgramBind": (
            [_handle, ctypes.POINTER(PaDeviceOperand), ctypes.c_size_t,
             ctypes.c_uint32, _error], PaLaunch),
        f"pa{_driver}LaunchEnqueue": ([PaLaunch, ctypes.c_void_p, _error],
                                      ctypes.c_bool),
        f"pa{_driver}LaunchEnqueueKernels": (
            [PaLaunch, ctypes.c_uint32, ctypes.c_void_p, _error],
            ctypes.c_bool),
        f"pa{_driver}LaunchDestroy": ([PaLaunch], None),
    })


def library_path():
    """The libPARuntimeCAPI.so this package loads."""
    override = os.environ.get("PA_MLIR_RUNTIME_LIB")
    if override:
        return Path(override)
    return _capi.library_path().parent / "libPARuntimeCAPI.so"


_MISSING = ("pa_mlir: the runtime library {path} does not exist; build the "
            "project (make build) or set PA_MLIR_RUNTIME_LIB to "
            "libPARuntimeCAPI.so")

# library(): the loaded runtime C API; RuntimeError saying where it was
# looked for when it is not there.
library = _ffi.Once(lambda: _ffi.load(library_path(), _MISSING, _SIGNATURES))


def _unavailable_reason(driver):
    """None when `driver` ("Hip", "Cuda") can run programs here, else why
    not (no runtime library, no driver, no GPU)."""
    try:
        lib = library()
    except (RuntimeError, OSError) as error:
        return str(error)
    reason = PaString()
    if getattr(lib, f"pa{driver}RuntimeAvailable")(ctypes.byref(reason)):
        return None
    # Freed by this library: libPACAPI.so may not be there.
    return (_ffi.take_string(reason, lib)
            or f"no {'HIP runtime' if driver == 'Hip' else 'CUDA driver'}")


def cuda_unavailable_reason():
    """None when CUDA programs can run here, else why not."""
    return _unavailable_reason("Cuda")


def hip_unavailable_reason():
    """None when HIP programs can run here (libamdhip64 and an AMD GPU, or
    the library PA_HIP_LIBRARY names), else why not."""
    return _unavailable_reason("Hip")


def check_sequences(page_size, query_length, sliding_window, num_pages,
                    block_tables, context_lengths):
    """ValueError naming the first context length outside its block-table
    row or page id outside the pool that some query row would read
    (int32 numpy arrays, C-contiguous)."""
    _ffi.checked_call(
        library(), "paDecodeCheckSequences", page_size, query_length,
        sliding_window, context_lengths.shape[0], num_pages,
        block_tables.shape[1], context_lengths.ctypes.data_as(_i32p),
        block_tables.ctypes.data_as(_i32p))


def decode_operand_table(config, batch, num_pages, max_pages, capacity):
    """paDecodeOperandTable of `config` (a _capi.PaDecodeConfig): the
    (name, pattern, shape, element_bytes, read_only) of every operand of
    a run, in @pa_decode's argument order; ValueError with the library's
    message for a configuration or dims without one."""
    shapes = (PaOperandShape * MAX_DECODE_OPERANDS)()
    count = ctypes.c_size_t()
    _ffi.checked_call(library(), "paDecodeOperandTable", ctypes.byref(config),
                      batch, num_pages, max_pages, capacity, shapes,
                      ctypes.byref(count))
    return [(s.name.decode(), s.pattern.decode(), tuple(s.sizes[:s.rank]),
             s.elementBytes, s.readOnly) for s in shapes[:count.value]]


def _sizes(shape):
    return _ffi.checked_array(_i64, shape, "an operand size")


class _Program(_ffi.OwnedHandle):
    """A decode program loaded by a GPU driver (owns its handle); the
    subclasses name the driver."""

    _driver = None

    def __init__(self, code_object, metadata_json, *, _path=None):
        """Loads `code_object` (bytes) described by `metadata_json` (the
        sidecar text); RuntimeError with the runtime's message (no driver,
        no GPU, a malformed sidecar, an image the driver refuses)."""
        failure = f"pa_mlir: loading the {self._driver.upper()} program failed"
        if _path is not None:
            super().__init__(library(), f"pa{self._driver}ProgramLoadFile",
                             os.fsencode(_path), exception=RuntimeError,
                             failure=failure)
        else:
            super().__init__(library(), f"pa{self._driver}ProgramLoad",
                             code_object, len(code_object),
                             metadata_json.encode("utf-8"),
                             exception=RuntimeError, failure=failure)
        self._run = f"pa{self._driver}ProgramRun"
        self._enqueue = getattr(self._lib,
                                f"pa{self._driver}ProgramEnqueueKernels")

    @classmethod
    def from_file(cls, path):
        """Loads the AOT program directory `path` (write_program,
        pa-compile --emit=program); RuntimeError naming the file and the
        problem (not a program, another format version, a program for the
        other driver, truncated)."""
        return cls(None, None, _path=path)

    def run(self, operands):
        """Host-buffer run (synchronous): `operands` are (name, address,
        shape, element_bytes, read_only[, strides]) of host memory (strides
        in elements, None or left out: row-major); the runtime copies them
        to the device, launches, waits, copies the ones not read-only back.
        ValueError with the runtime's message."""
        keep = [(_sizes(op[2]), _sizes(op[5]) if len(op) > 5 and op[5]
                 is not None else None) for op in operands]
        array = (PaHostOperand * max(len(operands), 1))(*[
            PaHostOperand(PA_HOST_OPERAND_ABI, op[0].encode("utf-8"), op[1],
                          len(op[2]), sizes, op[3], op[4], strides)
            for op, (sizes, strides) in zip(operands, keep)])
        self._checked_call(self._run, array, len(operands))

    def enqueue(self, operands, stream):
        """Launches plan -> decode -> reduce on `stream` (a hipStream_t /
        CUstream as an integer; 0 or None: the default stream) over
        `operands`: (name, device address, shape) with the pa operand
        names ("query", "key_cache", ..., "output"; _operands.operand_table
        has them and their shapes for a configuration), row-major shapes. Asynchronous: no copy, allocation or
        synchronization, so it may be captured in a HIP / CUDA graph.
        ValueError with the runtime's message when an operand is missing or
        does not fit (nothing is launched then) or a launch is refused.

        For a hot path, build the operand array once with
        device_operands() and pass it to enqueue_prepared()."""
        self.enqueue_prepared(device_operands(operands), stream)

    def enqueue_prepared(self, prepared, stream, kernels=KERNELS_ALL):
        """enqueue() of an operand array made by device_operands() (its
        addresses and sizes may be changed in place between calls), of
        the kernels `kernels` selects (a mask of KERNEL_PLAN,
        KERNEL_DECODE, KERNEL_REDUCE)."""
        array, count, _ = prepared
        error = PaString()
        if not self._enqueue(self._handle, array, count, kernels,
                             stream or None, ctypes.byref(error)):
            self.raise_launch_error(error)

    def launcher(self, prepared, kernels):
        """A function of one argument, the stream (an integer handle or
        None), that enqueues the `kernels` of `prepared`
        (device_operands()) as they are at each call: a launch bound once
        (paCudaProgramBind / paHipProgramBind: the runtime keeps the
        parameter buffers), called through a bare ctypes function of
        pointer arguments (no argument conversion or range check per
        call), for a hot path (Plan.run)."""
        return _BoundLaunch(self, prepared, kernels)

    def raise_launch_error(self, error):
        """ValueError of a failed enqueue's message (a PaString, freed
        here)."""
        raise ValueError(_ffi.take_string(error, self._lib)
                         or "pa_mlir: the launch failed")


def _bare_functions(lib, driver):
    """(bind, enqueue kernels, call, destroy): the
    bound-launch entry points of `driver` as bare ctypes functions
    (lib[name] is a new function object: the declared ones keep their
    checked signatures). A struct of one pointer is passed as the pointer,
    so bind returns the launch as a void *. call (pa*LaunchCall) declares
    no argument types: it is passed a ctypes array holding a PaLaunchCall
    at its start, which ctypes passes as its address without converting
    anything. Made once per library and driver."""
    bind = lib[f"pa{driver}ProgramBind"]
    bind.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                     ctypes.c_uint32, ctypes.c_void_p)
    bind.restype = ctypes.c_void_p
    enqueue = lib[f"pa{driver}LaunchEnqueueKernels"]
    enqueue.argtypes = (ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p,
                        ctypes.c_void_p)
    enqueue.restype = ctypes.c_bool
    call = lib[f"pa{driver}LaunchCall"]
    call.restype = ctypes.c_bool
    destroy = lib[f"pa{driver}LaunchDestroy"]
    destroy.argtypes = (ctypes.c_void_p,)
    destroy.restype = None
    return bind, enqueue, call, destroy


_bare = {}


class _BoundLaunch:
    """A PaCudaLaunch / PaHipLaunch of a program's kernels over a prepared
    operand array (kept alive here, as the launch reads it at every
    call); calling it with a stream enqueues the bound kernels, or the
    subset `kernels` of them."""

    def __init__(self, program, prepared, kernels):
        lib, driver = program._lib, program._driver
        functions = _bare.get((id(lib), driver))
        if functions is None:
            functions = _bare[(id(lib), driver)] = _bare_functions(lib,
                                                                  driver)
        bind, enqueue, call, self._destroy = functions
        array, count, _ = prepared
        self._error = PaString()
        error = ctypes.addressof(self._error)
        # `kernels` is one of the KERNEL_* masks and `count` an array's
        # length: nothing to range-check.
        self._launch = bind(program._handle.ptr, ctypes.addressof(array),
                            count, kernels, error)
        if not self._launch:
            program.raise_launch_error(self._error)
        self._program = program  # the launch must not outlive it
        self._prepared = prepared
        self._kernels = kernels
        # (function, launch, error): function(launch, kernels, stream,
        # error) enqueues the bound array's kernels (__call__).
        self.call = (enqueue, self._launch, error)
        # function(block): the enqueue a PaLaunchCall at the start of the
        # ctypes array `block` describes (its launch: self.handle; its
        # operands the bound array or a copy of it, so the plans of one
        # layout share a launch), one argument converted instead of six;
        # raise_launch_error(its error field) when it returns false.
        self.call_block = call
        self.handle = self._launch

    def __call__(self, stream, kernels=None):
        enqueue, launch, error = self.call
        if not enqueue(launch, self._kernels if kernels is None else kernels,
                       stream, error):
            self.failed()

    def failed(self):
        """Raises the ValueError of the enqueue that just failed."""
        self._program.raise_launch_error(self._error)

    def __del__(self):
        launch = getattr(self, "_launch", None)
        if launch:
            self._destroy(launch)
            self._launch = None


def device_operands(operands):
    """A reusable PaDeviceOperand array for enqueue_prepared():
    (array, count, keep-alive) of `operands` [(name, device address,
    shape)]; array[i].address and array[i].sizes[d] may be updated in place
    for the next call."""
    keep = [(name.encode("utf-8"), _sizes(shape))
            for name, _, shape in operands]
    array = (PaDeviceOperand * max(len(operands), 1))()
    # The fields set past CheckedStructure's per-field check: the sizes
    # are checked arrays, the rank their length, the address checked here
    # (a plan builds 13 operands: the checks were most of a new plan).
    field = ctypes.Structure.__setattr__
    for slot, (_, address, shape), (name, sizes) in zip(array, operands,
                                                        keep):
        field(slot, "name", name)
        field(slot, "address", _ffi.checked_int(address, ctypes.c_uint64,
                                                "an operand address"))
        field(slot, "rank", len(shape))
        field(slot, "sizes", sizes)
    return array, len(operands), keep


class HipProgram(_Program):
    """A decode program loaded by the HIP runtime (AMD code object)."""
    _driver = "Hip"
    _destroy = "paHipProgramDestroy"


class CudaProgram(_Program):
    """A decode program loaded by the CUDA driver (PTX or cubin)."""
    _driver = "Cuda"
    _destroy = "paCudaProgramDestroy"


def write_program(path, chip, code_format, code_object, metadata_json,
                  config_json=None, multi_chip=False):
    """Writes the AOT program directory `path` (docs/user-guide.md,
    "Deployment"), or with `multi_chip` the program of `chip` into the
    multi-chip program `path` (PATH/CHIP, listed in PATH/program.json);
    ValueError with the runtime's message."""
    _ffi.checked_call(
        library(), "paProgramWriteChip" if multi_chip else "paProgramWrite",
        os.fsencode(path), chip.encode("utf-8"), code_format.encode("utf-8"),
        code_object, len(code_object), metadata_json.encode("utf-8"),
        None if config_json is None else config_json.encode("utf-8"))


def _taken_text(lib, name, *arguments):
    """checked_call of `name` whose first out-argument is a PaString:
    its text (freed here)."""
    text = PaString()
    try:
        _ffi.checked_call(lib, name, *arguments[:1], ctypes.byref(text),
                          *arguments[1:])
    finally:
        taken = _ffi.take_string(text, lib)
    return taken


def program_chips(path):
    """([chip, ...], multi_chip) of the AOT program at `path`: a
    multi-chip program's chips, or a single-chip program's one chip.
    ValueError naming the problem."""
    multi = ctypes.c_bool()
    chips = _taken_text(library(), "paProgramChips", os.fsencode(path),
                        ctypes.byref(multi))
    return chips.split(), multi.value


def program_chip(path, driver):
    """The chip whose program the runtime of `driver` ("hip", "cuda")
    loads from `path` on the current GPU (of a multi-chip program: the
    GPU's chip for HIP, the NVIDIA one for CUDA); ValueError naming the
    chips there when none fits."""
    name = "paHipProgramChip" if driver == "hip" else "paCudaProgramChip"
    return _taken_text(library(), name, os.fsencode(path))


def describe_program(path):
    """(chip, code_format, config_json or None) of the AOT program at
    `path`; ValueError naming the problem when it is not a readable
    program."""
    lib = library()
    chip, code_format, config = PaString(), PaString(), PaString()
    try:
        _ffi.checked_call(lib, "paProgramDescribe", os.fsencode(path),
                          ctypes.byref(chip), ctypes.byref(code_format),
                          ctypes.byref(config))
    finally:
        texts = [_ffi.take_string(text, lib)
                 for text in (chip, code_format, config)]
    return texts[0], texts[1], texts[2] or None
