"""Writes a module of a deep shape to stdout, or runs a command under a small
main-thread stack (docs/reliability.md, "Deep input").

  deep_input.py modules N     N nested `module {`
  deep_input.py minus N       an affine map of N unary minus signs in a row
  deep_input.py small-stack KIB COMMAND...
                              COMMAND with its main thread's stack limited
                              to KIB KiB (as a caller's thread may be)
  deep_input.py cpu-limit SECONDS COMMAND...
                              COMMAND killed after SECONDS of CPU time (for
                              compile costs that must stay bounded)
"""
import os
import resource
import sys

FUNC = "func.func @f() {\n  return\n}\n"


def main():
    shape = sys.argv[1]
    if shape == "small-stack":
        limit = int(sys.argv[2]) * 1024
        resource.setrlimit(resource.RLIMIT_STACK, (limit, limit))
        os.execvp(sys.argv[3], sys.argv[3:])
    if shape == "cpu-limit":
        limit = int(sys.argv[2])
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit))
        os.execvp(sys.argv[3], sys.argv[3:])
    n = int(sys.argv[2])
    if shape == "modules":
        sys.stdout.write("module {\n" * n + FUNC + "}\n" * n)
    elif shape == "minus":
        sys.stdout.write("#map = affine_map<(d0) -> (" + "- " * n + "d0)>\n"
                         + "func.func @f(%a: index) -> index {\n"
                         + "  %0 = affine.apply #map(%a)\n"
                         + "  return %0 : index\n}\n")
    else:
        sys.exit(f"unknown shape {shape}")


main()
