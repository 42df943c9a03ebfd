"""The record of libpa-fake-hip.so (unittests/Launcher/FakeHip.cpp), the
HIP runtime that records instead of running, for test scripts run in a
subprocess (the HIP runtime is chosen once per process):

    fake = FakeHip(path)            # the library PA_HIP_LIBRARY names
    fake.launches()                 # [[kernel, grid, block, stream], ...]
    fake.counts()                   # [loads, unloads, copies, waits]
    fake.reset()
"""

import ctypes


class FakeHip:
    def __init__(self, path):
        self._lib = ctypes.CDLL(path)
        self._lib.fakeHipLaunch.restype = ctypes.c_char_p

    def launches(self):
        """Every launch so far: kernel name, grid, workgroup size and
        stream (an int, 0 for the default stream)."""
        grid, block = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
        stream, params = ctypes.c_void_p(), ctypes.c_void_p()
        size = ctypes.c_size_t()
        launches = []
        for i in range(self._lib.fakeHipLaunchCount()):
            name = self._lib.fakeHipLaunch(i, grid, block,
                                           ctypes.byref(stream),
                                           ctypes.byref(params),
                                           ctypes.byref(size))
            launches.append([name.decode(), list(grid), list(block),
                             stream.value or 0])
        return launches

    def counts(self):
        """[module loads, unloads, memory copies, synchronizations]."""
        counts = [ctypes.c_int() for _ in range(4)]
        self._lib.fakeHipCounters(*[ctypes.byref(c) for c in counts])
        return [c.value for c in counts]

    def reset(self):
        """Forgets the launches and counts."""
        self._lib.fakeHipReset()
