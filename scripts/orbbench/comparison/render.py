"""A comparison in the format asked for."""
import json

import orbbench.comparison.as_csv as as_csv
import orbbench.comparison.as_json as as_json
import orbbench.comparison.as_md as as_md
import orbbench.comparison.as_text as as_text


def render(cmps, fmt):
    if fmt == "json":
        return json.dumps(as_json.json_doc(cmps), indent=1,
                          ensure_ascii=False) + "\n"
    if fmt == "csv":
        return as_csv.render_csv(cmps)
    if fmt == "md":
        return as_md.render_md(cmps)
    return as_text.render_text(cmps)
