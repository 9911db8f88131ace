"""A history whose neighbours were paired (orbbench history --steps, and
what --run writes): each step its own paired suite of two neighbouring
releases (orbbench suite --variant A --variant B, paired runs: both
sides' servers at once, measured in alternating blocks, as orbbench run
--versus does), so that a step's test is the per-run ratio B/A and a
step of ~10% can be told where unpaired points end inconclusive.

A step folder holds two variant sub-folders, from and to; the steps
given in order form a chain (step i's to is step i+1's from). A point
is a release: its label the variant's name, its results its runs of
every step it takes part in (pooled for the figures). Reads files only:
running the steps is orbbench.history_run's."""
from pathlib import Path

import orbbench.history as orbhistory
import orbbench.results as orbresults
import orbbench.safeload as orbsafe


def step_sides(folder):
    """[(variant name, sub-folder)] of a paired suite's folder, from and
    to: the two variants its summary.json names, in order, else its two
    sub-folders holding results (sorted). ValueError (one line naming
    the folder) when it has not exactly two."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a result folder")
    names = []
    try:
        doc = orbsafe.load_json(folder / orbresults.SUITE_SUMMARY)
        names = [v["name"] for v in doc.get("variants") or []]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        names = []
    subs = [folder / n for n in names if (folder / n).is_dir()]
    if not names:
        subs = sorted(d for d in folder.iterdir()
                      if d.is_dir() and any(d.glob("*.json")))
    if len(subs) != 2 or (names and len(names) != 2):
        raise ValueError(f"{folder}: a step is a suite of two variants "
                         f"(from and to), not {len(names) or len(subs)}: "
                         "orbbench suite --variant A --variant B")
    return [(d.name, d) for d in subs]


def chain(steps, folders):
    """The points' labels in order from [[(from label, _), (to label, _)]
    per step] (the steps' folders, to name one); ValueError naming the
    step's folder when its from is not the step before's to, or its to
    is a point already (a loop)."""
    labels = [steps[0][0][0]]
    for i, (((a, _), (b, _)), folder) in enumerate(zip(steps, folders)):
        if a != labels[-1]:
            raise ValueError(
                f"{folder}: step {i + 1} goes from {a!r} but step {i} "
                f"ended at {labels[-1]!r}: give the steps in order, each "
                "from the release the one before went to")
        if b in labels:
            raise ValueError(f"{folder}: step {i + 1}: {b!r} is already a "
                             "point: a release once in a history")
        labels.append(b)
    return labels


def load_steps(folders, note):
    """(points, sides) of a history of paired neighbours: points
    ([orbbench.history.Point] in the chain's order, each with every run
    of its release), sides ([(A results, B results)], one per step).
    ValueError (one line) for fewer than one step, a folder that is not
    a step, a broken chain, a side without sweep-shaped results."""
    if not folders:
        raise ValueError("give at least one step folder")
    found = [step_sides(f) for f in folders]
    labels = chain(found, folders)
    sides, runs, where = [], {}, {}
    for step in found:
        pair = []
        for label, sub in step:
            res = orbresults.load_repeats([sub], note)
            res = orbhistory.usable(res, sub, note)
            pair.append(res)
            runs.setdefault(label, []).extend(res)
            where.setdefault(label, sub)
        sides.append(tuple(pair))
    points = [orbhistory.Point(label, where[label], runs[label])
              for label in labels]
    return points, sides
