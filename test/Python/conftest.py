"""Makes the in-tree package importable when pytest runs from the source tree.

CTest sets PYTHONPATH and PA_MLIR_LIB itself; by hand:
    PA_MLIR_LIB=build/lib/libPACAPI.so /usr/bin/python3 -m pytest test/Python
"""

import os
import sys
from pathlib import Path

# The tests keep the per-call poison fills of GPU outputs and workspaces on
# (debug mode), so that anything a kernel leaves unwritten shows; the
# processes they start inherit it.
os.environ.setdefault("PA_MLIR_DEBUG", "1")

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"
if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))
