"""What the A-against-B figures share: the sides' documents, names and
colours, and each scenario's crossings in pair order. Groups are
{scenario name: [result doc or orbbench.results.Result, …]}, as
orbbench.results.group_by_scenario gives them."""
import statistics

import orbbench.results as orbresults


# The two sides' colours unless given (tab10's first two: told apart by
# most colour-blind readers too).
SIDE_COLORS = ("tab:blue", "tab:orange")


def docs_of(items):
    """Result docs from a list of docs or orbbench.results.Result."""
    return [getattr(x, "doc", x) for x in items]


def unit_of(*groups):
    """What N counts in these groups' runs ({name: [doc or Result]}, None
    for none): their result.held_unit when they all share it ("servers",
    "connections"), else "N"."""
    units = {orbresults.held_unit(d) for g in groups if g
             for items in g.values() for d in docs_of(items)}
    return units.pop() if len(units) == 1 else "N"


def side_docs(groups):
    """{name: [doc, …]} from {name: [doc or Result, …]} (None → {})."""
    return {k: docs_of(v) for k, v in (groups or {}).items() if v}


def names_of(ga, gb):
    """Scenario names of both sides in seed order."""
    return orbresults.seed_order(list(ga) + list(gb))


def side_colors(labels, colors=None):
    """(colour of A, colour of B) from colors {label: colour} or the
    defaults."""
    colors = colors or {}
    labels = tuple(labels) + ("A", "B")[len(labels):]
    return tuple(colors.get(lab, c) for lab, c in zip(labels, SIDE_COLORS))


# ---- crossing N per run ---------------------------------------------------

def crossing_point(doc, use_crossing_n):
    """One run's crossing as drawn: {"x", "interval", "source"}. With
    use_crossing_n and a crossing_n, that and its 95% interval; else
    max_servers without an interval."""
    res = doc["result"]
    c = res.get("crossing_n") if use_crossing_n else None
    if c is not None:
        iv = res.get("crossing_interval")
        ok = (isinstance(iv, (list, tuple)) and len(iv) == 2 and
              all(isinstance(v, (int, float)) for v in iv))
        return {"x": float(c), "interval": [float(iv[0]), float(iv[1])]
                if ok else None, "source": "crossing_n"}
    return {"x": float(orbresults.held(doc)), "interval": None,
            "source": "max_servers"}


def pair_order(docs_a, docs_b):
    """docs_b in the order of the A runs they were paired with (paired.id,
    as scripts/compare matches them) when every run on both sides has a
    partner; else docs_b as given."""
    ids = [orbresults.get(d, "paired.id") for d in docs_a]
    by_id = {orbresults.get(d, "paired.id"): d for d in docs_b}
    if None in ids or len(set(ids)) != len(ids) or \
            len(by_id) != len(docs_b) or set(ids) != set(by_id):
        return docs_b
    return [by_id[i] for i in ids]


def scenario_crossings(docs_a, docs_b):
    """(A points, B points, why) of one scenario as scripts/compare takes
    them: crossing_n, unless some run is older than the crossing search
    (no "probes"): then max_servers for every run (like with like); a run
    without a crossing_n (it never crossed max_ms: the client leaves the
    field out, or null) gives its max_servers. why is None, or "no
    crossing_n" / "never crossed" for the fallbacks. B's points are in
    the order of docs_b: pass pair_order(docs_a, docs_b)."""
    docs = docs_a + docs_b
    use = all("probes" in d for d in docs)
    pa = [crossing_point(d, use) for d in docs_a]
    pb = [crossing_point(d, use) for d in docs_b]
    why = None
    if not use:
        why = "no crossing_n"
    elif any(p["source"] == "max_servers" for p in pa + pb):
        why = "never crossed"
    return pa, pb, why


def median_x(points):
    return statistics.median(p["x"] for p in points) if points else None
