"""A comparison in the format asked for."""
import orbbench.comparison.as_csv as as_csv
import orbbench.comparison.as_json as as_json
import orbbench.comparison.as_md as as_md
import orbbench.comparison.as_text as as_text


def render(cmps, fmt):
    if fmt == "json":
        return as_json.render_json(cmps)
    if fmt == "csv":
        return as_csv.render_csv(cmps)
    if fmt == "md":
        return as_md.render_md(cmps)
    return as_text.render_text(cmps)
