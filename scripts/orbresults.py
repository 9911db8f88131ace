"""Reading orbbench result files: shared by run-suite, plot and compare."""
import json
from pathlib import Path

SCHEMA = "orbbench-result/1"


def load_result(path):
    """Load and check one result file; ValueError names the file."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not a readable JSON result ({e})") from e
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        got = doc.get("schema") if isinstance(doc, dict) else None
        raise ValueError(f"{path}: schema {got!r}, expected {SCHEMA!r}")
    for key in ("scenario", "steps", "result", "orb", "host"):
        if key not in doc:
            raise ValueError(f"{path}: no {key!r} field")
    return doc


def crossing_ms(doc):
    """Median round ms of the first step over max_ms, else of the last."""
    steps = doc.get("steps") or []
    if not steps:
        return None
    max_ms = doc["scenario"]["sweep"]["max_ms"]
    for s in steps:
        if s["round_ms"]["median"] > max_ms:
            return s["round_ms"]["median"]
    return steps[-1]["round_ms"]["median"]
