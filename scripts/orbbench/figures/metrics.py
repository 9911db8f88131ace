"""The comparison figure of a kind without steps (one compared by its own
metrics, orbbench.metric.Metric): one panel per metric, a row per
scenario, each side's runs as dots with B/A, its interval and verdict
beside them; metrics_data returns exactly the numbers drawn. Any kind
that declares metrics gets it; nothing here names one."""
import orbbench.plot as orbplot
import orbbench.results as orbresults

SIDE_COLORS = ("tab:blue", "tab:orange")


def metrics_data(cmp, kind):
    """{"kind", "panels": [{"key", "label", "primary", "rows": [{"scenario",
    "a", "b" (each run's value, None dropped), "ratio", "ci" ([low, high]
    or None), "verdict"}]}], "left_out": [(scenario, why)]} of the rows of
    comparison cmp (a compare_pair dict) that are of Kind kind."""
    rows = [r for r in cmp["scenarios"] if r.get("kind") == kind.name]
    panels, left_out = [], []
    for m in kind.metrics:
        out = []
        for r in rows:
            x = r["metrics"].get(m.key)
            va = [v for v in (x or {}).get("a_values", []) if v]
            vb = [v for v in (x or {}).get("b_values", []) if v]
            if not va and not vb:
                left_out.append((r["scenario"], f"no {m.label}"))
                continue
            out.append({"scenario": r["scenario"], "a": va, "b": vb,
                        "ratio": x["ratio"],
                        "ci": ([x["ci_low"], x["ci_high"]]
                               if x.get("ci_low") is not None else None),
                        "verdict": x["verdict"]})
        if out:
            panels.append({"key": m.key, "label": m.label,
                           "primary": m.primary, "rows": out})
    return {"kind": kind.name, "panels": panels, "left_out": left_out}


def ratio_text(row):
    """'B/A 1.03 [0.67–1.57] inconclusive' (without what is missing)."""
    if row["ratio"] is None:
        return "B/A —"
    text = f"B/A {row['ratio']:.2f}"
    if row["ci"]:
        text += f" [{row['ci'][0]:.2f}–{row['ci'][1]:.2f}]"
    if row["verdict"] not in (None, "n/a"):
        text += f" {row['verdict']}"
    return text


def metrics_figure(data, labels, footer, title):
    plt = orbplot.plt
    panels = data["panels"]
    if not panels:
        raise orbplot.Skip(f"{data['kind']}: comparison figure skipped, no "
                           "metric has a value")
    names = list(dict.fromkeys(r["scenario"] for p in panels
                               for r in p["rows"]))
    height = 1.5 + 0.8 * len(names)
    fig, axes = plt.subplots(1, len(panels), squeeze=False,
                             figsize=(4.6 * len(panels) + 1.5, height),
                             dpi=orbplot.DPI)
    for ax, p in zip(axes[0], panels):
        rows = {r["scenario"]: r for r in p["rows"]}
        values = []
        for i, name in enumerate(names):
            r = rows.get(name)
            if r is None:
                continue
            for side, off in (("a", 0.15), ("b", -0.15)):
                color = SIDE_COLORS[side == "b"]
                ax.plot(r[side], [i + off] * len(r[side]), "o",
                        color=color, alpha=0.8, ms=5)
                values += r[side]
            ax.text(0.5, i + 0.42, ratio_text(r),
                    transform=ax.get_yaxis_transform(), va="center",
                    ha="center", fontsize=8, color="0.25")
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels(names if ax is axes[0][0] else [""] * len(names),
                           fontsize=8)
        ax.set_ylim(len(names) - 0.35, -0.5)
        if orbplot.spans_decades(values, 10):
            ax.set_xscale("log")
        ax.set_xlabel(p["label"] + ("" if p["primary"] else
                                    " (descriptive)"))
        ax.grid(axis="x", color="0.9")
        ax.set_axisbelow(True)
    handles = [plt.Line2D([], [], marker="o", ls="", color=c, label=lab)
               for c, lab in zip(SIDE_COLORS, labels)]
    fig.legend(handles=handles, loc="upper right", fontsize=8, ncol=2)
    orbplot.put_footer(fig, footer)
    orbplot.finish(fig, title, left=0.16, right=0.98, wspace=0.12,
                   top=1 - 0.75 / height, bottom=0.8 / height)
    return fig


def metrics_caption(data, labels):
    """Per metric, the scenarios' B/A range and verdicts."""
    parts = []
    for p in data["panels"]:
        rs = [r["ratio"] for r in p["rows"] if r["ratio"] is not None]
        if not rs:
            continue
        said = sorted({r["verdict"] for r in p["rows"]
                       if r["verdict"] not in (None, "n/a")})
        text = (f"{p['label']}: B/A {min(rs):.2f}" +
                (f"–{max(rs):.2f}" if len(rs) > 1 else ""))
        if said:
            text += f" ({', '.join(said)})"
        parts.append(text)
    return (f"{labels[1]} against {labels[0]}, each dot a run: " +
            "; ".join(parts) + "." if parts else
            "No metric has a ratio.")


def kind_figures(cmp, res_a, res_b, outdir, labels, log):
    """[Figure]: one comparison figure per kind without steps among cmp's
    scenarios (a kind with steps has its own: orbbench.figures.compare),
    as compare-KIND.png."""
    out = []
    footer = orbresults.footer(list(res_a) + list(res_b))
    for kind in orbresults.KINDS.values():
        if kind.stepped or not kind.metrics or not any(
                r.get("kind") == kind.name for r in cmp["scenarios"]):
            continue
        data = metrics_data(cmp, kind)
        for name, why in data["left_out"]:
            log(f"compare-{kind.name}: left out {name} ({why})")
        title = (f"{kind.name}: {labels[1]} against {labels[0]}, every "
                 "metric compare weighs")
        fig = orbplot.attempt(f"compare-{kind.name}", lambda: metrics_figure(
            data, labels, footer, title), log)
        if fig is None:
            continue
        out.append(orbplot.save(fig, outdir, f"compare-{kind.name}", title,
                                metrics_caption(data, labels)))
    return out
