"""A comparison as JSON: the comparison itself, or the sets."""
from orbbench.comparison.model import LETTERS


def json_doc(cmps):
    """Two sets: the comparison itself (docs/compare.md). More: the sets
    by letter, the shared method, and one comparison per set after A."""
    if len(cmps) == 1:
        return cmps[0]
    return {"sets": [{"set": "A", "files": cmps[0]["a"]}] + [
                {"set": x, "files": cmp["b"]}
                for x, cmp in zip(LETTERS[1:], cmps)],
            "method": cmps[0]["method"],
            "comparisons": [dict(cmp, set=x)
                            for x, cmp in zip(LETTERS[1:], cmps)]}
