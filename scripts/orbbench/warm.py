"""Warm starts: the crossing a run of a scenario found before, handed to
its next run as the sweep driver's prior (KIND.prior_n, prior_half_width,
prior_from: client/kinds/stepper_keys.h), so that the suite's repeats start
where the last one ended and --prior DIR starts a suite where another
(the base branch's last CI results, say) ended. What the prior does to a
run is the driver's: docs/kinds/sweep.md#warm-starts."""
import glob
import re
from pathlib import Path

import orbbench.results as orbresults

# A repeat's file: NAME.rR.json (the suite's naming with --repeat > 1).
REPEAT = re.compile(r"^(?P<stem>.+)\.r(?P<rep>[0-9]+)$")

# KIND.prior_from's buffer (struct stepper_opts) is 512 bytes.
FROM_MAX = 500


class PriorError(ValueError):
    """A --prior folder or file that cannot be read: one line naming it."""


def prior_of(doc, path):
    """The prior one result gives: {"n", "half_width", "from"}, n its
    result.crossing_n and half_width the larger half of its interval as a
    fraction of n (0 when it has none); None when the run found no
    crossing (it reached max_n, stopped first, or ran without the
    search): the next run is then cold."""
    res = doc.get("result") or {}
    n = res.get("crossing_n")
    if not orbresults.is_num(n) or n < 1:
        return None
    iv = res.get("crossing_interval")
    hw = 0.0
    if (isinstance(iv, list) and len(iv) == 2 and
            all(orbresults.is_num(x) for x in iv) and iv[0] <= n <= iv[1]):
        hw = max(n - iv[0], iv[1] - n) / n
    return {"n": float(n), "half_width": hw, "from": str(path)}


def pair_prior(priors):
    """One prior for the sides of a paired run: the lowest crossing of
    those that have one (None when none has). The sides share every sweep
    key (only server.* differ), so they share the prior; the lower one
    puts the steps of full rounds below both sides' crossings, and both
    sides' steps are measured alike."""
    have = [p for p in priors if p]
    return min(have, key=lambda p: p["n"]) if have else None


def prior_sets(group, prior):
    """The --set list that hands `prior` to a run whose kind's driver keys
    are GROUP.* (orbresults.Kind.settings); [] without one."""
    if not prior or not group:
        return []
    where = prior["from"]
    if len(where) > FROM_MAX:
        where = "…" + where[-(FROM_MAX - 3):]
    return [f"{group}.prior_n={prior['n']:.6g}",
            f"{group}.prior_half_width={min(prior['half_width'], 1):.4g}",
            f"{group}.prior_from={where}"]


def result_file(folder, stem):
    """The result of scenario `stem` in one folder: STEM.json, or the last
    repeat's STEM.rR.json (the highest R); None when there is neither."""
    one = folder / f"{stem}.json"
    if one.is_file():
        return one
    reps = []
    for f in folder.glob(f"{glob.escape(stem)}.r*.json"):
        m = REPEAT.match(f.name[:-len(".json")])
        if m and m["stem"] == stem and f.is_file():
            reps.append((int(m["rep"]), f))
    return max(reps)[1] if reps else None


def load_dir(folder, stems, variants):
    """The priors of a previous suite's output folder, {(variant, stem):
    prior or None}: for each variant name (None: no variants) its own
    sub-folder's result when the folder has one, else the folder's own
    (a suite run without variants). PriorError (one line naming the
    folder or file) when the folder is missing, holds none of these
    scenarios' results, or one does not load."""
    folder = Path(folder)
    if not folder.is_dir():
        raise PriorError(f"--prior {folder}: not a folder")
    out, found = {}, 0
    for v in variants:
        sub = folder / v if v and (folder / v).is_dir() else folder
        for stem in stems:
            f = result_file(sub, stem)
            if f is None:
                out[(v, stem)] = None
                continue
            try:
                doc = orbresults.load_result(f)
            except ValueError as e:
                raise PriorError(f"--prior: {e}") from None
            found += 1
            out[(v, stem)] = prior_of(doc, f)
    if not found:
        raise PriorError(f"--prior {folder}: holds no result of these "
                         "scenarios (NAME.json or NAME.rR.json, in a "
                         "variant's sub-folder or the folder itself)")
    return out
