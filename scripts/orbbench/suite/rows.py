"""A run's row in the suite's summary (summary.json's rows, the closing
table's lines): what its result file says, read once, and how the run
ended; and the one line of progress a finished run gets."""
import orbbench.results as orbresults
import orbbench.warm as orbwarm


def num(x, fmt="{:.0f}"):
    return fmt.format(x) if orbresults.is_num(x) else "—"


def headline(kind_name, column=True):
    """How a kind's one figure is named: in the summary's column, or
    (column False) in a progress line."""
    kind = orbresults.KINDS.get(kind_name)
    if not (kind and kind.headline):
        return "max servers"
    return kind.headline[1 if column else 0]


def status_text(row):
    """How a run ended, for its line of progress."""
    what = headline(row.get("kind", "sweep"), column=False)
    if "failed" not in row and row.get("blocks"):
        # --at-n: no N held to speak of, what was measured at the one N
        cpu = (row.get("costs") or {}).get("server_cpu") or {}
        return (f"{row['blocks']} blocks at N={row.get('held')}, "
                f"server CPU {num(cpu.get('us_per_call'), '{:.1f}')} "
                "us/call")
    return (f"failed: {row['failed']}" if "failed" in row else
            f"{what} {row.get('headline')} "
            f"({row.get('stop_reason')})")


def orb_text(orb):
    """'omniORB 4.2.5', or '—' for a run without servers (kind clock,
    marshal: its result's orb is null)."""
    if not orb:
        return "—"
    return f'{orb["name"]} {orb.get("version") or "?"}'


def caller_text(caller):
    """'omniorb deferred (omniORB 4.2.5)': who made a run's calls
    (docs/callers.md)."""
    return (f"{caller.get('kind', '?')} {caller.get('mode', '?')} "
            f"({caller.get('name', '?')} {caller.get('version') or '?'})")


def row_prior(row, out):
    """The prior a finished run leaves its scenario's next repeat: its
    crossing (orbbench.warm), from the row, which holds what the result
    file does (make_row read it once); None when it found none, or
    failed."""
    if "failed" in row or row.get("crossing_n") is None:
        return None
    return orbwarm.prior_of(
        {"result": {k: row.get(k) for k in ("crossing_n",
                                             "crossing_interval")}}, out)


def result_fields(doc):
    """The row's fields read from a loaded result document."""
    res = doc["result"]
    kind = orbresults.kind(doc)
    fields = dict(
        scenario=doc["scenario"]["name"],
        description=doc["scenario"].get("description", ""),
        # what a sweep driver's kind held (a number, in held_unit), and
        # the kind's one figure as shown: N held, or a rate's upcalls/s
        held=(orbresults.held(doc) if kind.stepped else None),
        held_unit=(orbresults.held_unit(doc) if kind.stepped else None),
        headline=(kind.headline[2](doc) if kind.headline
                  else res.get("max_servers", "—")),
        kind=doc.get("kind", "sweep"),
        stop_reason=res["stop_reason"], detail=res["detail"],
        crossing_ms=orbresults.crossing_ms(doc),
        crossing_n=res.get("crossing_n"),
        crossing_interval=res.get("crossing_interval"),
        costs=res.get("costs"),
        orb=orb_text(doc.get("orb")))
    if doc.get("caller"):
        fields["caller"] = caller_text(doc["caller"])
    blocks = [s for s in doc.get("steps") or [] if "block" in s]
    if blocks:
        fields["blocks"] = len(blocks)
    return fields


def make_row(scenario, out, proc, dt, variant):
    """The summary row of one result file, out, written by proc (a
    CompletedProcess, its stderr captured) in dt s, for variant (a
    orbbench.suite.plan.Variant, or None)."""
    row = {"scenario": scenario.stem, "file": out.name,
           "exit": proc.returncode, "seconds": dt}
    doc = None
    if out.exists():
        try:
            doc = orbresults.load_result(out)
        except ValueError as e:
            row["error"] = str(e)
    if doc:
        row.update(result_fields(doc))
    if proc.returncode not in (0, 130):
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        row["failed"] = lines[-1] if lines else f"exit {proc.returncode}"
    if variant:
        row["variant"] = variant.name
        if variant.orb:
            row["orb_id"] = variant.orb
    return row
