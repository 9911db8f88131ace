"""A comparison as JSON: the document of orbbench.comparison.shape."""
import json

from orbbench.comparison.shape import json_doc


def render_json(cmps):
    return json.dumps(json_doc(cmps), indent=1, ensure_ascii=False) + "\n"
