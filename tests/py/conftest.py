"""Shared by the tests that need no build (no client, no servers): where
the tree is, the package scripts/orbbench importable as orbbench.* with
its measurement kinds registered, and tests/kit (what these tests share
with tests/e2e), as tests/e2e/conftest.py has them."""
import sys
from pathlib import Path

PY = Path(__file__).resolve().parent
ROOT = PY.parents[1]

sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests" / "kit"))
# tests/tools: the dev tools (result_shape.py), which test_shape.py tests.
sys.path.insert(0, str(ROOT / "tests" / "tools"))
import orbbench.kinds as orbkinds  # noqa: E402,F401
