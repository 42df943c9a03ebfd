"""AOT programs (Artifact.save, pa_mlir.load_program) and the HIP half of
the runtime library (_runtime_capi.HipProgram), without libPACAPI.so.

Programs are compiled here (libPACAPI.so), saved as program directories,
then loaded and launched in a fresh process where PA_MLIR_LIB points at a
file that does not exist and the HIP runtime is libpa-fake-hip.so
(PA_FAKE_HIP_LIB, set by CTest), which records instead of running: the
launches (kernel, grid, stream), copies and synchronizations are checked,
and the process must not have mapped libPACAPI.so.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pa_mlir
from pa_mlir import _runtime_capi

HERE = Path(__file__).resolve().parent
PACKAGE = str(Path(pa_mlir.__file__).resolve().parents[1])
FAKE_HIP = os.environ.get("PA_FAKE_HIP_LIB")
CONFIG = pa_mlir.DecodeConfig(num_query_heads=8, num_kv_heads=2, head_dim=64,
                              kv_dtype="e4m3fnuz", scale="per_tensor",
                              budget=6, max_partitions=2, chip="gfx942")
needs_fake_hip = pytest.mark.skipif(
    not FAKE_HIP, reason="PA_FAKE_HIP_LIB is not set (CTest sets it)")


def run_without_compiler(script, *args):
    """Runs `script` in a fresh process that cannot load libPACAPI.so and
    whose HIP runtime is the recording fake; returns its JSON output."""
    env = dict(os.environ, PA_MLIR_LIB="/nonexistent/libPACAPI.so",
               PA_MLIR_RUNTIME_LIB=str(_runtime_capi.library_path()),
               PA_HIP_LIBRARY=FAKE_HIP or "", PYTHONPATH=os.pathsep.join(
                   [PACKAGE, str(HERE)]))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script),
                           *map(str, args)], env=env, cwd=HERE,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def amd_program(tmp_path_factory):
    path = tmp_path_factory.mktemp("aot") / "decode.paprog"
    artifact = pa_mlir.compile(CONFIG)
    assert artifact.save(path) == path
    return path, artifact


def test_a_saved_program_is_a_described_directory(amd_program):
    path, artifact = amd_program
    manifest = json.loads((path / "program.json").read_text())
    assert manifest["format"] == "pa-mlir-program"
    assert manifest["version"] == 4
    assert manifest["chip"] == "gfx942" and manifest["code_format"] == "hsaco"
    code = (path / manifest["code_object"]).read_bytes()
    assert code == artifact.code_object
    assert manifest["code_object_bytes"] == len(code)
    assert (path / manifest["metadata"]).read_text() == artifact.metadata_json
    assert manifest["config"]["decode_config"]["head_dim"] == 64
    assert manifest["config"]["plan_limits"] == list(artifact.plan_limits)
    chip, code_format, config = _runtime_capi.describe_program(path)
    assert (chip, code_format) == ("gfx942", "hsaco")
    assert json.loads(config) == manifest["config"]


LAUNCH = """
    import json, sys
    import numpy as np
    import pa_mlir
    from fake_hip import FakeHip
    from pa_mlir._operands import operand_table

    fake = FakeHip(sys.argv[1])

    def record():
        launches = [[name, grid, stream]
                    for name, grid, _, stream in fake.launches()]
        counts = fake.counts()
        fake.reset()
        return {"launches": launches, "counts": counts}

    program = pa_mlir.load_program(sys.argv[2])
    batch, pages, capacity = 3, 5, program.plan_capacity(3)
    table = operand_table(program.config, batch, pages, 2, capacity)
    buffers = {op.name: np.zeros(int(np.prod(op.shape)) * op.element_bytes,
                                 dtype=np.uint8) for op in table}
    # "Device" operands: the fake never dereferences them on enqueue.
    program.enqueue([(op.name, buffers[op.name].ctypes.data, op.shape)
                     for op in table], stream=0x5A5A0)
    enqueued = record()
    program.run([(op.name, buffers[op.name].ctypes.data, op.shape,
                  op.element_bytes, op.read_only) for op in table])
    ran = record()
    try:
        program.enqueue([(op.name, buffers[op.name].ctypes.data, op.shape)
                         for op in table if op.name != "output"], 0)
        missing = None
    except ValueError as error:
        missing = str(error)
    maps = open("/proc/self/maps").read()
    print(json.dumps({
        "driver": program.driver, "chip": program.chip,
        "capacity": capacity, "enqueued": enqueued, "ran": ran,
        "missing": missing, "operands": len(table),
        "failed_after_missing": record()["launches"],
        "compiler_mapped": "libPACAPI" in maps,
        "runtime_mapped": "libPARuntimeCAPI" in maps,
    }))
"""


@needs_fake_hip
def test_an_aot_program_launches_without_the_compiler(amd_program):
    path, _ = amd_program
    got = run_without_compiler(LAUNCH, FAKE_HIP, path)
    assert not got["compiler_mapped"] and got["runtime_mapped"]
    assert (got["driver"], got["chip"]) == ("hip", "gfx942")
    capacity = got["capacity"]
    assert capacity == CONFIG.plan_capacity(3)
    stream = 0x5A5A0
    # Graph-capture-shaped: the three launches on the caller's stream, no
    # copy, no allocation-backed copy, no synchronization.
    assert got["enqueued"]["launches"] == [
        ["pa_plan", [1, 1, 1], stream],
        ["pa_decode", [capacity, 2, 1], stream],
        ["pa_reduce", [3, 2, 1], stream],
    ]
    loads, unloads, copies, syncs = got["enqueued"]["counts"]
    assert (copies, syncs) == (0, 0)
    # The host-buffer run: every operand in, the 6 outputs back, one wait,
    # on the default stream.
    assert [launch[2] for launch in got["ran"]["launches"]] == [0, 0, 0]
    assert got["ran"]["counts"][2:] == [got["operands"] + 6, 1]
    # A missing operand is named and nothing is launched.
    assert "output" in got["missing"]
    assert got["failed_after_missing"] == []


def corrupt(program, tmp_path, name, edit):
    """A copy of the program directory with program.json edited by
    `edit(manifest)` (a dict) or, for a str `edit`, that file replaced."""
    target = tmp_path / name
    target.mkdir()
    for file in program.iterdir():
        (target / file.name).write_bytes(file.read_bytes())
    if callable(edit):
        manifest = json.loads((target / "program.json").read_text())
        edit(manifest)
        (target / "program.json").write_text(json.dumps(manifest))
    return target


def test_bad_programs_are_named(amd_program, tmp_path):
    path, _ = amd_program
    cases = {
        "not-a-directory": (path / "program.json",
                            "is not a pa-mlir program"),
        "missing": (tmp_path / "nothing", "is not a pa-mlir program"),
    }
    cases["version"] = (corrupt(path, tmp_path, "version", lambda m: m.update(
        version=3)), "has format version 3; this runtime reads version 4")
    cases["format"] = (corrupt(path, tmp_path, "format", lambda m: m.update(
        format="zip")), 'is not a pa-mlir program ("format" must be')
    cases["escape"] = (corrupt(path, tmp_path, "escape", lambda m: m.update(
        code_object="../decode.hsaco")), "is not a file name inside")
    cases["truncated"] = (corrupt(path, tmp_path, "truncated", lambda m:
                                  m.update(code_object_bytes=12)),
                          "(truncated or replaced)")
    cases["no chip"] = (corrupt(path, tmp_path, "chip", lambda m: m.pop(
        "chip")), '"chip" must be a string')
    cases["vendor"] = (corrupt(path, tmp_path, "vendor", lambda m: m.update(
        code_format="ptx")), "describes a")
    # A huge (sparse) sidecar or image is refused before it is read.
    huge = corrupt(path, tmp_path, "huge-metadata", lambda m: None)
    os.truncate(huge / "kernels.json", 1 << 40)
    cases["huge metadata"] = (huge, "more than the 67108864 it may have")
    huge = corrupt(path, tmp_path, "huge-image", lambda m: m.update(
        code_object_bytes=1 << 40))
    os.truncate(huge / "kernels.hsaco", 1 << 40)
    cases["huge image"] = (huge, "more than the 1073741824 it may have")
    directory = corrupt(path, tmp_path, "directory", lambda m: None)
    (directory / "kernels.json").unlink()
    (directory / "kernels.json").mkdir()
    cases["directory"] = (directory, "kernels.json is not a file")
    for name, (where, message) in cases.items():
        with pytest.raises(ValueError) as raised:
            _runtime_capi.describe_program(where)
        assert message in str(raised.value), name


def test_an_unreadable_recorded_configuration_is_named(amd_program,
                                                      tmp_path):
    path, _ = amd_program
    bad = corrupt(path, tmp_path, "config", lambda m: m["config"][
        "decode_config"].update(head_dims=64))
    with pytest.raises(ValueError, match="records a configuration this "
                                         "package cannot read"):
        pa_mlir.load_program(bad)


def test_writing_refuses_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="unknown code format 'elf'"):
        _runtime_capi.write_program(tmp_path / "a", "gfx942", "elf", b"x",
                                    "{}")
    with pytest.raises(ValueError, match="is not .A-Za-z0-9_-.+"):
        _runtime_capi.write_program(tmp_path / "b", 'gfx"942', "hsaco",
                                    b"x", "{}")
    with pytest.raises(ValueError, match="the config is not a JSON object"):
        _runtime_capi.write_program(tmp_path / "c", "gfx942", "hsaco", b"x",
                                    "{}", "[1]")
    with pytest.raises(ValueError, match="the metadata is not JSON"):
        _runtime_capi.write_program(tmp_path / "d", "gfx942", "hsaco", b"x",
                                    "{")


@needs_fake_hip
def test_a_program_for_the_other_vendor_is_refused(tmp_path):
    cuda = pa_mlir.compile(CONFIG.replace(chip="sm_90a", kv_dtype="e4m3fn"))
    path = cuda.save(tmp_path / "cuda.paprog")
    got = run_without_compiler("""
        import json, sys
        from pa_mlir import _runtime_capi
        try:
            _runtime_capi.HipProgram.from_file(sys.argv[1])
        except RuntimeError as error:
            print(json.dumps(str(error)))
    """, path)
    assert "is a program for sm_90a (ptx); load it with " \
           "paCudaProgramLoadFile" in got


@needs_fake_hip
def test_hip_program_from_bytes_enqueues_on_the_given_stream(amd_program):
    _, artifact = amd_program
    got = run_without_compiler("""
        import json, sys
        from fake_hip import FakeHip
        from pa_mlir import _runtime_capi
        from pa_mlir._operands import operand_table
        import pa_mlir
        fake = FakeHip(sys.argv[1])
        assert _runtime_capi.hip_unavailable_reason() is None
        with open(sys.argv[2] + "/kernels.hsaco", "rb") as f:
            code = f.read()
        with open(sys.argv[2] + "/kernels.json") as f:
            metadata = f.read()
        program = _runtime_capi.HipProgram(code, metadata)
        loaded = pa_mlir.load_program(sys.argv[2])
        config = loaded.config
        # The workspace of the program's plan (the launcher refuses
        # another capacity).
        table = operand_table(config, 2, 4, 2, loaded.plan_capacity(2))
        prepared = _runtime_capi.device_operands(
            [(op.name, 0x1000 * (i + 1), op.shape)
             for i, op in enumerate(table)])
        for stream in (0x100, 0x200):
            program.enqueue_prepared(prepared, stream)
        print(json.dumps({"launches": len(fake.launches()),
                          "counts": fake.counts()}))
    """, FAKE_HIP, amd_program[0])
    # Loaded twice (load_program, HipProgram), 6 launches, no copies or
    # synchronizations.
    assert got["launches"] == 6
    assert got["counts"] == [2, 0, 0, 0]


def test_hip_without_a_runtime_is_a_reason():
    done = subprocess.run(
        [sys.executable, "-c", "from pa_mlir import _runtime_capi; "
         "print(_runtime_capi.hip_unavailable_reason())"],
        env=dict(os.environ, PA_HIP_LIBRARY="/nonexistent/libamdhip64.so",
                 PYTHONPATH=PACKAGE), capture_output=True, text=True,
        timeout=60)
    assert done.returncode == 0, done.stderr
    assert "/nonexistent/libamdhip64.so" in done.stdout


@needs_fake_hip
def test_a_multi_chip_program_loads_the_gpus_chip(tmp_path):
    """gfx942, gfx950 and sm_90a programs of one configuration in one
    directory (Artifact.save(multi_chip=True)): without the compiler, the
    HIP runtime loads the code object of the GPU's chip (the fake reports
    FAKE_HIP_ARCH), CUDA would take the PTX, and a GPU of another chip is
    told which chips there are; a single-chip save over it is refused."""
    path = tmp_path / "decode.paprog"
    artifacts = {"gfx942": pa_mlir.compile(CONFIG)}
    for chip in ("gfx950", "sm_90a"):
        artifacts[chip] = pa_mlir.compile(CONFIG.replace(chip=chip,
                                                         kv_dtype="e4m3fn"))
    for artifact in artifacts.values():
        assert artifact.save(path, multi_chip=True) == path
    manifest = json.loads((path / "program.json").read_text())
    assert manifest == {"format": "pa-mlir-program", "version": 4,
                        "chips": ["gfx942", "gfx950", "sm_90a"]}
    for chip, artifact in artifacts.items():
        code_format = "hsaco" if chip.startswith("gfx") else "ptx"
        assert (path / chip / f"kernels.{code_format}").read_bytes() == (
            artifact.code_object)
    got = run_without_compiler("""
        import json, os, sys
        from fake_hip import FakeHip
        from pa_mlir import _runtime_capi
        import pa_mlir
        fake = FakeHip(sys.argv[1])
        loaded = []
        for arch in ("gfx942:sramecc+:xnack-", "gfx950"):
            os.environ["FAKE_HIP_ARCH"] = arch
            program = pa_mlir.load_program(sys.argv[2])
            loaded.append([program.chip, program.code_format,
                           program.config.kv_dtype, program.multi_chip,
                           program.driver])
        os.environ["FAKE_HIP_ARCH"] = "gfx90a:xnack-"
        try:
            pa_mlir.load_program(sys.argv[2])
            other = None
        except ValueError as error:
            other = str(error)
        print(json.dumps(dict(
            loaded=loaded, other=other,
            chips=_runtime_capi.program_chips(sys.argv[2]),
            cuda=_runtime_capi.program_chip(sys.argv[2], "cuda"))))
    """, FAKE_HIP, path)
    assert got["loaded"] == [["gfx942", "hsaco", "e4m3fnuz", True, "hip"],
                             ["gfx950", "hsaco", "e4m3fn", True, "hip"]]
    assert got["other"].endswith(
        "holds programs for gfx942, gfx950, sm_90a; none for this GPU's "
        "chip, gfx90a")
    assert got["chips"] == [["gfx942", "gfx950", "sm_90a"], True]
    assert got["cuda"] == "sm_90a"
    with pytest.raises(ValueError, match="is a multi-chip program"):
        artifacts["gfx942"].save(path)
    with pytest.raises(ValueError, match="holds the single-chip program of "
                                         "gfx942"):
        artifacts["gfx950"].save(artifacts["gfx942"].save(tmp_path / "one"),
                                 multi_chip=True)


@pytest.mark.parametrize("chips, message", [
    ("[]", '"chips" must be a non-empty array of chip names'),
    ('"gfx942"', '"chips" must be a non-empty array of chip names'),
    ('["gfx942", "gfx942"]', 'must hold distinct chip names'),
    ('["../gfx942"]', 'must hold distinct chip names ([A-Za-z0-9_-]+), '
                      'got "../gfx942"'),
    ('[942]', 'must hold distinct chip names ([A-Za-z0-9_-]+), got 942'),
])
def test_a_bad_chip_list_is_named(tmp_path, chips, message):
    path = tmp_path / "bad.paprog"
    path.mkdir()
    (path / "program.json").write_text(
        '{"format": "pa-mlir-program", "version": 4, "chips": %s}' % chips)
    with pytest.raises(ValueError) as raised:
        _runtime_capi.program_chips(path)
    assert message in str(raised.value)


def test_a_missing_chip_program_is_named(amd_program, tmp_path):
    """A multi-chip program whose listed chip has no directory: the load
    names the file it could not read, nothing reaches a driver."""
    _, artifact = amd_program
    path = artifact.save(tmp_path / "multi.paprog", multi_chip=True)
    (path / "gfx942" / "program.json").unlink()
    with pytest.raises(ValueError, match=r"cannot read .*gfx942/program\.json"):
        _runtime_capi.describe_program(path / "gfx942")
    assert _runtime_capi.program_chips(path) == (["gfx942"], True)
    with pytest.raises(ValueError, match="is a multi-chip program"):
        _runtime_capi.describe_program(path)
