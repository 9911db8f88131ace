"""The statistics of scripts/compare: is B faster, slower or the same as A,
per scenario and metric, from a few runs a side. Pure functions; standard
library and scipy (Debian python3-scipy) only.

The unit of replication is the run (one result file), never the round:
this machine's noise comes in bursts that last seconds, so the rounds of
one run share it and are not independent samples. Each run gives one value
per metric; the values are compared on a log scale (a ratio B/A is what a
maintainer asks for, and run-to-run noise is multiplicative)."""
import functools
import math
import statistics

ALPHA = 0.05   # significance level of a verdict (on BH q-values)
POWER = 0.80   # power at which the minimum detectable effect is given
# A ratio within this of 1 is "same" however significant: below what anyone
# acts on, and two sets of the very same servers differ by about this much
# in PSS (their Unix socket paths differ in length by a digit or two).
NEGLIGIBLE = 0.005
# "same" is a claim of equivalence (a TOST): B/A's interval lies within
# [1/(1+d), 1+d] for this d (compare --equivalence PCT). 3%: the margin
# orbbench suite --until-verdict already stops at (sequential.py), below the 5%
# this project sets out to tell apart, so "same" rules out a 5% change.
EQUIVALENCE = 0.03
# An interval wider than this factor either way of its ratio says only
# that there were too few runs: it is not printed as a number.
TOO_WIDE = 10.0

PERFORMANCE_VERDICTS = ("faster", "slower", "same", "inconclusive")
MEMORY_VERDICTS = ("larger", "smaller", "same", "inconclusive")


# scipy on first use: importing it takes about 0.4 s, which every command
# that loads this module would pay (gate, history, a refusal, --help)
# though only a test reads a distribution.
@functools.cache
def _t():
    """Student's t distribution (scipy.stats.t)."""
    from scipy import stats
    return stats.t


@functools.cache
def _special():
    """scipy.special (digamma, polygamma)."""
    from scipy import special
    return special


def _t_test(lr, se, df):
    """(p, tq, mde_pct) of a log ratio lr with standard error se on df
    degrees of freedom: the two-sided p-value (0 when se is 0), the t
    quantile of a 1 - ALPHA interval, and the minimum detectable effect:
    the log difference a two-sided test at ALPHA detects with probability
    POWER (normal approximation with t quantiles), as a percentage of A
    (exp(d) - 1, the larger of the two directions)."""
    t = _t()
    p = min(1.0, 2 * t.sf(abs(lr / se), df)) if se > 0 else 0.0
    tq = t.ppf(1 - ALPHA / 2, df)
    return p, tq, 100 * math.expm1((tq + t.ppf(POWER, df)) * se)


def _positive(values, side):
    """(the values > 0, [note]) : a log needs a positive value, so None,
    0 and negatives are dropped, and the note says how many."""
    kept = [float(v) for v in values
            if isinstance(v, (int, float)) and not isinstance(v, bool)
            and v > 0 and math.isfinite(v)]
    dropped = len(values) - len(kept)
    notes = []
    if dropped:
        notes.append(f"{side}: {dropped} of {len(values)} run(s) without a "
                     "positive value dropped")
    return kept, notes


def _mean(xs):
    return math.fsum(xs) / len(xs)


def _paired_logs(a_values, b_values):
    """[(log a, log b)] of the pairs where both values are positive, and a
    note on the pairs dropped."""
    ok = [(math.log(a), math.log(b)) for a, b in zip(a_values, b_values)
          if _positive([a], "A")[0] and _positive([b], "B")[0]]
    dropped = len(list(zip(a_values, b_values))) - len(ok)
    notes = [f"{dropped} pair(s) without a positive value on both sides "
             "dropped"] if dropped else []
    return ok, notes


def compare_paired(a_values, b_values, higher_is_better, memory=False):
    """compare_metric() for paired runs: a_values[i] and b_values[i] were
    measured in the same run (orbbench --paired / --versus: both sides'
    servers at once, taking turns), so the host's drift, which
    moves both, cancels in their ratio. The test is the one-sample t on
    the per-run log ratios log(b_i / a_i) (df = pairs - 1); the ratio is
    their geometric mean, exp(mean log ratio). Same dict as
    compare_metric(), with "paired": True."""
    pairs, notes = _paired_logs(list(a_values), list(b_values))
    n = len(pairs)
    out = {"ratio": None, "ci_low": None, "ci_high": None, "p_value": None,
           "q_value": None, "verdict": "n/a", "mde_pct": None,
           "n_a": n, "n_b": n, "higher_is_better": bool(higher_is_better),
           "memory": bool(memory), "paired": True, "notes": notes,
           "log_ratio": None, "se_log": None, "df": None}
    if not n:
        out["notes"].append("no pair with a value on both sides")
        return out
    d = [lb - la for la, lb in pairs]
    mean = _mean(d)
    out["ratio"] = math.exp(mean)
    out["log_ratio"] = mean
    if n < 2:
        out["notes"].append("one paired run: no test (repeats needed: "
                            "run-suite --paired --repeat 3)")
        return out
    df = n - 1
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in d) / df)
    out["df"] = df
    if sd == 0:
        out["se_log"] = 0.0
        if mean == 0:
            out.update(ratio=1.0, ci_low=1.0, ci_high=1.0, verdict="same")
            out["notes"].append("every pair gave the same value: no test")
            return out
        out.update(ci_low=out["ratio"], ci_high=out["ratio"], mde_pct=0.0,
                   p_value=0.0, q_value=0.0)
        out["notes"].append("the same ratio in every pair")
        out["verdict"] = metric_verdict(out["ratio"], 0.0, higher_is_better,
                                        memory, ci=(out["ratio"],) * 2)
        return out
    se = sd / math.sqrt(n)
    out["se_log"] = se
    out["se_factor"] = 1 / math.sqrt(n)    # se = sd × this
    p, tq, mde = _t_test(mean, se, df)
    out.update(ci_low=math.exp(mean - tq * se),
               ci_high=math.exp(mean + tq * se), p_value=p, q_value=p,
               mde_pct=mde)
    out["verdict"] = metric_verdict(out["ratio"], p, higher_is_better, memory,
                                    ci=(out["ci_low"], out["ci_high"]))
    return out


def compare_metric(a_values, b_values, higher_is_better, memory=False):
    """Compare one metric between two sides, one value per run.

    a_values, b_values: each run's value (any positive unit; None and
    values <= 0 are dropped with a note). higher_is_better: True for
    crossing_n (more servers), False for round time, CPU and memory.
    memory: verdicts "larger"/"smaller" instead of "faster"/"slower".

    Returns a dict:
      ratio      B/A as the ratio of geometric means, exp(mean log b -
                 mean log a); None when a side has no value.
      ci_low, ci_high  its 95% confidence interval.
      p_value    two-sided, Student's t on the logs with pooled variance.
      q_value    the p-value until adjust_metrics() replaces it with the
                 BH q-value over every test of the comparison.
      verdict    see metric_verdict(); "n/a" without a test.
      mde_pct    minimum detectable effect: the difference (in %, e.g.
                 4.1 for ±4.1%) that a test at ALPHA would find with
                 POWER, given the observed pooled SD and these n.
      n_a, n_b   runs used; notes: [str] why something is missing.

    Why Student's pooled t and not Welch's: both sides are measured the
    same way on the same machine, so equal variances on the log scale is
    the natural assumption, and with 3 runs a side Welch's estimate of the
    degrees of freedom swings with the two sample variances (with 2
    degrees of freedom a side it is close to unusable). Why not a rank
    test: Mann-Whitney U with 3 runs against 3 has only 20 orderings, so
    its smallest two-sided exact p-value is 2/20 = 0.1 and it can never
    reach p < 0.05, however large the difference."""
    a, notes = _positive(list(a_values), "A")
    b, notes_b = _positive(list(b_values), "B")
    out = {"ratio": None, "ci_low": None, "ci_high": None, "p_value": None,
           "q_value": None, "verdict": "n/a", "mde_pct": None,
           "n_a": len(a), "n_b": len(b), "higher_is_better":
           bool(higher_is_better), "memory": bool(memory),
           "notes": notes + notes_b, "log_ratio": None, "se_log": None,
           "df": None}
    if not a or not b:
        out["notes"].append("no value on side " + ("A" if not a else "B"))
        return out
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    diff = _mean(lb) - _mean(la)
    out["ratio"] = math.exp(diff)
    out["log_ratio"] = diff
    if len(a) < 2 or len(b) < 2:
        out["notes"].append("one run on a side: no test (repeats needed: "
                            "run-suite --repeat 3)")
        return out
    df = len(a) + len(b) - 2
    out["df"] = df
    ss = (math.fsum((x - _mean(la)) ** 2 for x in la) +
          math.fsum((x - _mean(lb)) ** 2 for x in lb))
    if ss == 0:
        # No spread on either side (values whose logs are equal, which
        # values a bit apart can be too): a t statistic would be 0/0 or
        # x/0.
        out["se_log"] = 0.0
        if diff == 0:
            # No test, so no detectable effect either (mde_pct None).
            out.update(ratio=1.0, ci_low=1.0, ci_high=1.0, verdict="same")
            out["notes"].append("every run gave the same value: no test")
            return out
        out.update(ci_low=out["ratio"], ci_high=out["ratio"], mde_pct=0.0)
        # Every run agrees within its side and the sides differ: the
        # limit of the test as the spread goes to 0.
        out["p_value"] = out["q_value"] = 0.0
        out["notes"].append("no spread within either side")
        out["verdict"] = metric_verdict(out["ratio"], 0.0, higher_is_better,
                                        memory)
        return out
    sp = math.sqrt(ss / df)                       # pooled SD of the logs
    se = sp * math.sqrt(1 / len(a) + 1 / len(b))  # SE of the difference
    out["se_factor"] = math.sqrt(1 / len(a) + 1 / len(b))
    out["se_log"] = se
    p, tq, out["mde_pct"] = _t_test(diff, se, df)
    out.update(ci_low=math.exp(diff - tq * se),
               ci_high=math.exp(diff + tq * se), p_value=p, q_value=p)
    out["verdict"] = metric_verdict(out["ratio"], p, higher_is_better, memory,
                                    ci=(out["ci_low"], out["ci_high"]))
    return out


def metric_verdict(ratio, q, higher_is_better, memory=False, alpha=ALPHA,
                   ci=(None, None), delta=EQUIVALENCE):
    """The word for one tested metric; 'n/a' when q is None (no test).
    - 'faster'/'slower' ('larger'/'smaller' for memory): q < alpha, so
      the interval excludes 1; the direction from B/A (with
      higher_is_better, crossing N, B/A < 1 is slower; for round time and
      CPU B/A > 1 is).
    - 'negligible': significant but within NEGLIGIBLE (0.5%) of 1: the
      interval excludes 1, yet nobody acts on it (a scenario counts it as
      same).
    - 'same': not significant and the interval ci = (low, high) lies
      within [1/(1+delta), 1+delta]: the data show that no difference as
      large as delta is there (an equivalence test, TOST, at the
      interval's level).
    - 'inconclusive': neither; the data cannot tell (benchstat's "~" and
      this project's old "same" said it as if it were equal)."""
    if q is None or ratio is None:
        return "n/a"
    if q < alpha:
        if abs(ratio - 1) < NEGLIGIBLE:
            return "negligible"
        if memory:
            return "larger" if ratio > 1 else "smaller"
        better = ratio > 1 if higher_is_better else ratio < 1
        return "faster" if better else "slower"
    return "same" if equivalent(ci, delta) else "inconclusive"


def equivalent(ci, delta=EQUIVALENCE):
    """True when the interval ci = (low, high) of a ratio lies within
    [1/(1+delta), 1+delta]."""
    lo, hi = ci
    if lo is None or hi is None:
        return False
    return 1 / (1 + delta) <= lo and hi <= 1 + delta


def too_wide(m):
    """True when m's interval (ci_low, ci_high) reaches beyond TOO_WIDE
    times its ratio either way: too few runs for a number to mean
    anything."""
    r, lo, hi = m.get("ratio"), m.get("ci_low"), m.get("ci_high")
    if r is None or lo is None or hi is None or r <= 0:
        return False
    return lo <= 0 or hi / r > TOO_WIDE or r / lo > TOO_WIDE


def interval_at(m, level):
    """(low, high): the interval of m's ratio (a compare_metric() or
    suite_metric() dict) at this confidence level, from its log ratio, the
    SE of that and its degrees of freedom; its own interval when it has no
    SE (no test)."""
    lr, se, df = m.get("log_ratio"), m.get("se_log"), m.get("df")
    if lr is None or se is None or not df:
        return m.get("ci_low"), m.get("ci_high")
    if se == 0:
        return math.exp(lr), math.exp(lr)
    tq = _t().ppf(1 - (1 - level) / 2, df)
    return math.exp(lr - tq * se), math.exp(lr + tq * se)


def adjust(p_values):
    """Benjamini-Hochberg adjusted q-values, in the order given; None
    passes through (no test) and is not counted.

    Why: one comparison of 8 scenarios × 3 primary metrics makes 24 tests;
    at alpha 0.05 each, comparing an ORB with itself would flag about 1.2
    of them by chance. When every null hypothesis is true, BH keeps the
    chance of flagging any at 0.05; when many differences are real (a
    regression that shows in most scenarios) it keeps nearly the power of
    the unadjusted tests, unlike Bonferroni.

    q_(i) = min over j >= i of p_(j) * m / j, for the p-values sorted
    ascending (ranks j = 1..m), capped at 1."""
    tested = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(tested)
    q = [None] * len(p_values)
    running = 1.0
    for rank in range(m, 0, -1):
        p, i = tested[rank - 1]
        running = min(running, p * m / rank)
        q[i] = running
    return q


def family_level(p_values, alpha=ALPHA):
    """(tests, rejections, level): BH at alpha over the p-values (None: no
    test), and the confidence level of the intervals that go with it:
    1 - max(R, 1) * alpha / m for R rejections of m tests (Benjamini and
    Yekutieli's false-coverage-rate intervals, 2005). BH rejects exactly
    the p-values <= R * alpha / m, so an interval at that level excludes 1
    exactly when its metric's verdict is not 'same': interval and verdict
    cannot disagree. With no rejection the level is the Bonferroni one,
    1 - alpha / m."""
    ps = [p for p in p_values if p is not None]
    qs = adjust(ps)
    r = int(sum(bool(q < alpha) for q in qs))
    m = len(ps)
    return m, r, (1 - max(r, 1) * alpha / m) if m else None


def adjust_family(metrics, alpha=ALPHA, delta=EQUIVALENCE):
    """Adjust one family of tests (a list of compare_metric() or
    suite_metric() dicts): BH q-values, verdicts from them, and every
    tested metric's interval (ci_low, ci_high) at the family's FCR level
    (family_level), which ci_level records; the unadjusted 95% interval
    stays as ci95_low, ci95_high. Returns (tests, rejections, level)."""
    qs = adjust([m["p_value"] for m in metrics])
    tests, rejected, level = family_level([m["p_value"] for m in metrics],
                                          alpha)
    for m, q in zip(metrics, qs):
        if q is None:
            continue
        m["q_value"] = q
        if m.get("ci_low") is not None:
            m["ci95_low"], m["ci95_high"] = m["ci_low"], m["ci_high"]
            m["ci_low"], m["ci_high"] = interval_at(m, level)
            m["ci_level"] = level
        m["verdict"] = metric_verdict(m["ratio"], q, m["higher_is_better"],
                                      m["memory"], alpha,
                                      ci=(m.get("ci_low"), m.get("ci_high")),
                                      delta=delta)
        m["equivalence"] = delta
    return tests, rejected, level


def _trigamma_inverse(y):
    """x with trigamma(x) = y (y > 0), by Newton's method on 1/trigamma
    (Smyth 2004, as limma does it)."""
    if y > 1e7:
        return 1 / math.sqrt(y)
    if y < 1e-6:
        return 1 / y
    x = 0.5 + 1 / y
    for _ in range(50):
        tri = float(_special().polygamma(1, x))
        dif = tri * (1 - tri / y) / float(_special().polygamma(2, x))
        x += dif
        if -dif / x < 1e-8:
            break
    return x


def moderate(metrics):
    """Moderate the variances of one metric across scenarios (Smyth's
    empirical Bayes, limma's moderated t): each tested metric's variance
    of the log ratio s² on d degrees of freedom is shrunk towards a prior
    s0² on d0 estimated from all of them,
        s~² = (d0 s0² + d s²) / (d0 + d),  df = d0 + d,
    and its test, intervals and detectable difference are redrawn from
    s~ and df. Why: with 3 paired runs a scenario's own SD has 2 degrees
    of freedom, and at the adjusted levels a t with 2 df is so wide that
    no scenario can show 5%; the scenarios of one suite measure their
    noise alike, so each borrows the others' (d0) in proportion to how
    alike their variances are: when they differ widely d0 is small and
    little is borrowed, and at most the others' degrees of freedom (when
    they are all alike, a scenario's df is that of all of them pooled).
    The estimate needs 3 or more scenarios with a spread. Returns {"d0",
    "s0"} (None when nothing was moderated)."""
    ms = [m for m in metrics if m.get("se_log") and m.get("df") and
          m.get("se_factor") and m.get("log_ratio") is not None]
    if len(ms) < 3:
        return None
    e, tri = [], []
    for m in ms:
        d = m["df"]
        s2 = (m["se_log"] / m["se_factor"]) ** 2
        e.append(math.log(s2) - float(_special().digamma(d / 2)) +
                 math.log(d / 2))
        tri.append(float(_special().polygamma(1, d / 2)))
    ebar = _mean(e)
    var = math.fsum((x - ebar) ** 2 for x in e) / (len(e) - 1) - _mean(tri)
    if var > 0:
        d0 = 2 * _trigamma_inverse(var)
        s0sq = math.exp(ebar + float(_special().digamma(d0 / 2)) -
                        math.log(d0 / 2))
    else:
        # No more scatter than chance: every scenario has the one
        # variance, best estimated by pooling them.
        d0 = math.inf
        s0sq = math.fsum(m["df"] * (m["se_log"] / m["se_factor"]) ** 2
                         for m in ms) / math.fsum(m["df"] for m in ms)
    # The prior is estimated from these scenarios' own variances, so it
    # holds no more information than they do: with every scenario alike
    # (d0 infinite, limma's case of thousands of genes) each gets the
    # pooled variance on the pooled df, not on infinitely many. Uncapped,
    # 3 scenarios of 3 runs tested on 10^6 df where they have 6.
    d0 = min(d0, math.fsum(m["df"] for m in ms) - max(m["df"] for m in ms))
    for m in ms:
        d = m["df"]
        s2 = (m["se_log"] / m["se_factor"]) ** 2
        post = (d0 * s0sq + d * s2) / (d0 + d)
        df = d0 + d
        se = math.sqrt(post) * m["se_factor"]
        lr = m["log_ratio"]
        p, tq, mde = _t_test(lr, se, df)
        m.update(se_log=se, df=df, p_value=p, q_value=p,
                 ci_low=math.exp(lr - tq * se), ci_high=math.exp(lr + tq * se),
                 mde_pct=mde,
                 moderated={"d0": d0, "s0": math.sqrt(s0sq),
                            "own_df": d, "own_sd": math.sqrt(s2)})
        m["verdict"] = metric_verdict(m["ratio"], p, m["higher_is_better"],
                                      m["memory"],
                                      ci=(m["ci_low"], m["ci_high"]))
    return {"d0": d0, "s0": math.sqrt(s0sq)}


def between_runs(metrics):
    """Widen block-paired metrics of one run each by the run-to-run spread
    that their blocks cannot see. The blocks of one paired run share its
    servers: a side's whole set of N processes may sit a little better or
    worse than the other's for the whole run (where its pages and threads
    landed), and every block pair carries that one offset u. With one run
    a scenario, u and a real difference look alike; across the suite's
    scenarios, each one run, the u's are independent, and their variance
    tau² is the scatter of the scenarios' log ratios beyond what their
    blocks' own errors explain (DerSimonian and Laird's moment estimate:
    Q = sum w_i (y_i - y_w)², w_i = 1 / se_i², tau² = max(0, (Q - (k - 1))
    / (sum w - sum w² / sum w))). Each metric's variance becomes se² +
    tau², on Welch-Satterthwaite's df, and its test, interval and verdict
    are redrawn. A difference that every scenario shows alike leaves
    tau² near 0; one that some show and others do not widens every
    interval, which errs on the side of "inconclusive". Needs 3 or more
    such metrics; returns {"tau", "k", "q"} or None (nothing changed)."""
    ms = [m for m in metrics if m.get("pairs") == "blocks" and
          m.get("runs") == 1 and m.get("se_log") and m.get("df") and
          m.get("log_ratio") is not None]
    if len(ms) < 3:
        return None
    w = [1 / m["se_log"] ** 2 for m in ms]
    sw = math.fsum(w)
    yw = math.fsum(wi * m["log_ratio"] for wi, m in zip(w, ms)) / sw
    q = math.fsum(wi * (m["log_ratio"] - yw) ** 2 for wi, m in zip(w, ms))
    k = len(ms)
    tau2 = max(0.0, (q - (k - 1)) / (sw - math.fsum(x * x for x in w) / sw))
    for m in ms:
        se2 = m["se_log"] ** 2
        var = se2 + tau2
        df = var ** 2 / (se2 ** 2 / m["df"] + tau2 ** 2 / (k - 1)) \
            if tau2 > 0 else m["df"]
        se = math.sqrt(var)
        lr = m["log_ratio"]
        p, tq, mde = _t_test(lr, se, df)
        m["between_runs"] = {"tau": math.sqrt(tau2), "k": k,
                             "own_se": m["se_log"], "own_df": m["df"]}
        m.update(se_log=se, df=df, p_value=p, q_value=p,
                 ci_low=math.exp(lr - tq * se), ci_high=math.exp(lr + tq * se),
                 mde_pct=mde)
        m["verdict"] = metric_verdict(m["ratio"], p, m["higher_is_better"],
                                      m["memory"],
                                      ci=(m["ci_low"], m["ci_high"]))
    return {"tau": math.sqrt(tau2), "k": k, "q": q}


def paired_fit(points, n0):
    """One paired run's log ratio log(B/A) at n0 from its own pairs, with
    the error its pairs show: (log ratio, se, df) or None.

    points: [(n, log ratio, weight)], one per measurement both sides of
    the run took at n (a step, a block): the sides took turns at every
    one, so each pair's ratio is free of the host's drift, which moves
    both. At one n (a fixed-N run's blocks): their weighted mean, df =
    pairs - 1. At several (a sweep's steps within the cost window): a
    weighted least-squares line of the log ratio on log n, evaluated at
    n0 (B's extra cost per call need not be the same fraction of A's at
    every N), df = pairs - 2. Needs two degrees of freedom or more; the
    weights as the run's own fit takes them (calls)."""
    pts = [(math.log(n), d, w if w and w > 0 else 1.0)
           for n, d, w in points if n and n > 0 and d is not None]
    xs = {x for x, _, _ in pts}
    k = 1 if len(xs) == 1 else 2
    if len(pts) - k < 2:
        return None
    sw = math.fsum(w for _, _, w in pts)
    xbar = math.fsum(w * x for x, _, w in pts) / sw
    ybar = math.fsum(w * y for _, y, w in pts) / sw
    x0 = math.log(n0) if k == 2 else xbar
    slope = 0.0
    sxx = math.fsum(w * (x - xbar) ** 2 for x, _, w in pts)
    if k == 2:
        slope = math.fsum(w * (x - xbar) * (y - ybar)
                          for x, y, w in pts) / sxx
    # Weights scaled to a mean of 1: the residual variance is then that
    # of a pair of average weight.
    scale = len(pts) / sw
    df = len(pts) - k
    s2 = math.fsum(w * scale * (y - ybar - slope * (x - xbar)) ** 2
                   for x, y, w in pts) / df
    var = s2 / (sw * scale)
    if k == 2:
        var += s2 * (x0 - xbar) ** 2 / (sxx * scale)
    return ybar + slope * (x0 - xbar), math.sqrt(var), df


def within_runs(metrics):
    """Test paired metrics of several runs on every pair of every run, not
    on the runs' values alone. Each such metric carries "within": one
    (log ratio, se, df) per run from paired_fit(), the run's own pairs
    (the steps of its cost window, or its blocks). The model: run r's log
    ratio y_r = theta + u_r + e_r, e_r the error its pairs show (se_r on
    their df), u_r the offset one run's pairs share and its se cannot see
    (where a side's processes landed for the run: between_runs), of
    variance tau². tau² is estimated from how far the runs of every such
    metric scatter about their scenario's mean beyond their own errors,
    pooled over the metrics given (DerSimonian and Laird's moment
    estimate, as between_runs does across scenarios; sum over scenarios
    of R - 1 degrees of freedom): the run-to-run offset is the host's
    and the method's, not a scenario's. Each metric's log ratio is the
    mean of its y_r, of variance (sum se_r² / R + tau²) / R, on
    Welch-Satterthwaite's df; test, interval and verdict are redrawn.
    Why: with R = 3 or 4 runs a scenario, the runs' values alone leave a
    t on 2-3 df (moderation borrows some back); one run's 9 steps near
    cost_n or 12 blocks measure its error on 7-11 df each, 28-44 over
    four runs. The metric leaves moderation's hands (no se_factor).
    Returns {"tau", "df", "metrics"} or None (none had "within")."""
    ms = [m for m in metrics if m.get("log_ratio") is not None and
          len(m.get("within") or []) >= 2]
    if not ms:
        return None
    q = den = 0.0
    df_t = 0
    for m in ms:
        w = [1 / se ** 2 for _, se, _ in m["within"]]
        sw = math.fsum(w)
        yw = math.fsum(wi * y for wi, (y, _, _) in zip(w, m["within"])) / sw
        q += math.fsum(wi * (y - yw) ** 2
                       for wi, (y, _, _) in zip(w, m["within"]))
        den += sw - math.fsum(x * x for x in w) / sw
        df_t += len(w) - 1
    tau2 = max(0.0, (q - df_t) / den) if den > 0 else 0.0
    for m in ms:
        ys = [y for y, _, _ in m["within"]]
        r = len(ys)
        lr = _mean(ys)
        sum_se2 = math.fsum(se ** 2 for _, se, _ in m["within"])
        df_w = sum_se2 ** 2 / math.fsum(se ** 4 / d
                                        for _, se, d in m["within"])
        vw = sum_se2 / r ** 2
        vt = tau2 / r
        var = vw + vt
        df = var ** 2 / (vw ** 2 / df_w + (vt ** 2 / df_t if vt else 0.0))
        se = math.sqrt(var)
        p, tq, mde = _t_test(lr, se, df)
        m["within_runs"] = {"tau": math.sqrt(tau2), "runs": r,
                            "pairs_df": sum(d for _, _, d in m["within"]),
                            "runs_se": m.get("se_log"),
                            "runs_df": m.get("df")}
        m.pop("se_factor", None)
        m.setdefault("notes", []).append(
            f"tested on every run's pairs: {r} runs, "
            f"{m['within_runs']['pairs_df']} df within them, run-to-run "
            f"sd {100 * math.sqrt(tau2):.1f}% (over {df_t} df)")
        m.update(ratio=math.exp(lr), log_ratio=lr, se_log=se, df=df,
                 p_value=p, q_value=p, ci_low=math.exp(lr - tq * se),
                 ci_high=math.exp(lr + tq * se), mde_pct=mde)
        m["verdict"] = metric_verdict(m["ratio"], p, m["higher_is_better"],
                                      m["memory"],
                                      ci=(m["ci_low"], m["ci_high"]))
    return {"tau": math.sqrt(tau2), "df": df_t, "metrics": len(ms)}


def adjust_metrics(metrics):
    """adjust_family() over metrics; the number of tests."""
    return adjust_family(metrics)[0]


def suite_metric(per_scenario, higher_is_better, memory=False):
    """The suite's answer for one metric: the geometric mean over
    scenarios of B/A, with its test and interval.

    per_scenario: [(scenario name, compare_metric() dict)]. Each scenario
    with a ratio gives one log ratio d_s (the mean over its runs: of the
    per-run log ratios when paired, else the difference of the sides' mean
    logs). The model: d_s = theta + u_s + e_s, the suite's shift theta, a
    scenario's own departure u_s and its runs' noise e_s; the scenario
    means are then independent with a common variance when every scenario
    has as many runs, and the one-sample t over them (df = scenarios - 1)
    tests theta = 0 (the paired t over scenario means). It needs no
    estimate of the within-scenario noise and is not fooled by a
    difference that a few scenarios show and the rest do not: those widen
    the interval. Same dict shape as compare_metric() ("n_scenarios",
    "scenarios" [(name, ratio)] instead of n_a, n_b)."""
    pts = [(name, m["log_ratio"]) for name, m in per_scenario
           if m.get("log_ratio") is not None]
    out = {"ratio": None, "ci_low": None, "ci_high": None, "p_value": None,
           "q_value": None, "verdict": "n/a", "higher_is_better":
           bool(higher_is_better), "memory": bool(memory),
           "n_scenarios": len(pts), "log_ratio": None, "se_log": None,
           "df": None, "primary": True, "notes": [],
           "scenarios": [[name, math.exp(d)] for name, d in pts],
           "model": "one-sample t over the scenarios' mean log ratios"}
    if not pts:
        out["notes"].append("no scenario has a ratio")
        return out
    d = [x for _, x in pts]
    mean = _mean(d)
    out.update(ratio=math.exp(mean), log_ratio=mean)
    if len(d) < 2:
        out["notes"].append("one scenario: no suite-level test")
        return out
    df = len(d) - 1
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in d) / df)
    out["df"] = df
    if sd == 0:
        out.update(se_log=0.0, ci_low=out["ratio"], ci_high=out["ratio"],
                   p_value=None if mean == 0 else 0.0)
        out["q_value"] = out["p_value"]
        out["verdict"] = "same" if mean == 0 else metric_verdict(
            out["ratio"], 0.0, higher_is_better, memory,
            ci=(out["ratio"],) * 2)
        return out
    se = sd / math.sqrt(len(d))
    p, tq, _ = _t_test(mean, se, df)
    out.update(se_log=se, p_value=p, q_value=p,
               ci_low=math.exp(mean - tq * se),
               ci_high=math.exp(mean + tq * se))
    out["verdict"] = metric_verdict(out["ratio"], p, higher_is_better,
                                    memory, ci=(out["ci_low"], out["ci_high"]))
    return out


def suite_drivers(m, level, top=3):
    """Which scenarios drive a suite_metric() m (after adjust_family):
    {"largest": [(name, ratio)] the top scenarios by their distance from 1
    in the verdict's direction (both directions when 'same'), "decisive":
    [names] those without which the interval at `level` would no longer
    exclude 1 (empty: the verdict holds without any one of them), or None
    when the verdict is same or n/a}."""
    pts = [(name, math.log(r)) for name, r in m.get("scenarios", [])]
    if m["log_ratio"] is None:
        return {"largest": [], "decisive": None}
    sign = 1 if m["log_ratio"] >= 0 else -1
    tested = m["verdict"] not in ("same", "inconclusive", "negligible",
                                  "interference", "n/a")
    order = sorted(pts, key=lambda p: -(sign * p[1] if tested else
                                        abs(p[1])))
    largest = [(n, math.exp(x)) for n, x in order[:top]]
    if not tested or len(pts) < 3:
        return {"largest": largest, "decisive": None}
    decisive = []
    for i, (name, _) in enumerate(pts):
        rest = [x for j, (_, x) in enumerate(pts) if j != i]
        mean = _mean(rest)
        sd = math.sqrt(math.fsum((x - mean) ** 2 for x in rest) /
                       (len(rest) - 1))
        tq = _t().ppf(1 - (1 - level) / 2, len(rest) - 1)
        half = tq * sd / math.sqrt(len(rest))
        if mean - half <= 0 <= mean + half:
            decisive.append(name)
    return {"largest": largest, "decisive": decisive}


def scenario_verdict(performance_verdicts):
    """A scenario's verdict from its performance metrics' verdicts (not
    memory's): 'slower' if some is slower and none faster, 'faster' in the
    mirror case, 'mixed' if both; else 'interference' if a difference was
    withheld because the sides disturbed each other unequally,
    'inconclusive' if some metric could not tell, 'same' if every tested
    one is same (or negligible), 'n/a' if none was tested."""
    v = set(performance_verdicts)
    if "slower" in v and "faster" in v:
        return "mixed"
    if "slower" in v:
        return "slower"
    if "faster" in v:
        return "faster"
    for word in ("interference", "inconclusive"):
        if word in v:
            return word
    return "same" if v & {"same", "negligible"} else "n/a"


# local_fit's window: the measurements within ×1.15 of n0 (about 3 steps of
# a ×1.1 sweep).
FIT_WINDOW = 1.15


def local_fit(points, n0, window=FIT_WINDOW):
    """A run's value at n0 servers from its measurements near n0.

    points: [(n, value, weight)] (steps and probes of one run; value > 0,
    weight e.g. the rounds or calls behind it). Weighted least squares of
    log(value) on log(n) over the points with n in [n0/window, n0*window],
    evaluated at n0: the measurements near the crossing are many and
    noisy, and a local power law through them is steadier than any one.
    With fewer than 2 distinct n in the window: the point with n nearest
    n0 (the weighted geometric mean of the points when several are as
    near, e.g. a probe repeated at one n).
    Returns None without a usable point."""
    pts = [(n, v, w if w and w > 0 else 1.0) for n, v, w in points
           if n and n > 0 and v is not None and v > 0]
    if not pts:
        return None
    near = [p for p in pts if n0 / window <= p[0] <= n0 * window]
    if len({p[0] for p in near}) >= 2:
        sw = math.fsum(w for _, _, w in near)
        xs = [(math.log(n), math.log(v), w) for n, v, w in near]
        xbar = math.fsum(w * x for x, _, w in xs) / sw
        ybar = math.fsum(w * y for _, y, w in xs) / sw
        sxx = math.fsum(w * (x - xbar) ** 2 for x, _, w in xs)
        sxy = math.fsum(w * (x - xbar) * (y - ybar) for x, y, w in xs)
        slope = sxy / sxx
        return math.exp(ybar + slope * (math.log(n0) - xbar))
    dist = min(abs(n - n0) for n, _, _ in pts)
    at = [(v, w) for n, v, w in pts if abs(n - n0) == dist]
    sw = math.fsum(w for _, w in at)
    return math.exp(math.fsum(w * math.log(v) for v, w in at) / sw)


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None
