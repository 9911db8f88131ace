"""Shared by the Python unit tests (no client, no servers): where the tree
is, and the package scripts/orbbench importable as orbbench.* with its
measurement kinds registered, as tests/e2e/conftest.py has it."""
import sys
from pathlib import Path

PY = Path(__file__).resolve().parent
ROOT = PY.parents[1]

sys.path.insert(0, str(ROOT / "scripts"))
import orbbench.kinds as orbkinds  # noqa: E402,F401
