"""End-to-end: latency at an offered load (scenario kind "load"): a
server that stalls 50 ms every second, whose tail the open loop reports
and the closed loop does not; the search's ends and the bound on calls
outstanding (overloaded, no call dropped); every call mode; typed
payloads pipelined; the keys' rules; the histogram read back by the
Python side as the client reads it; compare, report and plot on its
results; TAO and ORBit2 when built. Short windows throughout: each test
takes a few seconds."""
import json
import signal
import subprocess
import time

import pytest

from conftest import BIN, ORBBENCH, SCENARIOS, finish

import orbbench.hist as orbhist

# One worker for the module (make test's -n 2): its module-scoped runs are
# made once, not once a worker.
pytestmark = pytest.mark.xdist_group("test_load")

LOAD = SCENARIOS / "load"
FIFO_RAW = LOAD / "fifo-raw-unix.json"
# Loose self-check settings: this host is shared, and its own pauses are
# not what these tests are about.
LOOSE = ("load.late_us=20000", "load.max_late_share=0.2")
SHORT = ("load.duration_s=0.2", "load.warmup_s=0.05", "load.repeats=2",
         *LOOSE)
# For the tests of the search and the plumbing, not of the verdicts: no
# step slips, falls behind or overloads because the host paused the
# client (only a bound crossed, or a server past its capacity, ends it).
ROBUST = ("load.max_late_share=1", "load.min_achieved=0.01",
          "load.max_outstanding=10000", "load.max_ms=60000")


def steps(doc):
    return doc["load"]["steps"]


def check_step(st, closed=False):
    """What every decided step must hold, whatever was measured."""
    assert st["verdict"] in ("within", "over", "behind", "overloaded",
                             "slipped")
    assert st["scheduled"] == st["sent"] + st["unsent"]
    assert st["completed"] == st["sent"]  # every call sent was answered
    h = st["histogram"]
    assert orbhist.valid(h) and h["count"] == st["completed"]
    lat = st["latency_us"]
    assert lat["count"] == st["completed"]
    # the Python reader gives the client's percentiles, to the ns
    for key, q in (("p50", 50), ("p99", 99), ("p99.9", 99.9)):
        assert orbhist.percentile(h, q) == pytest.approx(lat[key] * 1e3,
                                                         abs=1.5)
    assert lat["min"] <= lat["p50"] <= lat["p99"] <= lat["max"]
    reps = st["repeats"]
    assert sum(r["scheduled"] for r in reps) == st["scheduled"]
    for r in reps:
        assert r["in_window"] <= r["completed"] == r["sent"]
        assert r["held"] <= r["sent"] + r["unsent"]
        if not closed:
            # open loop: every call timed from when it was due, so never
            # less than its service time
            assert r["latency_us"]["p50"] >= r["service_us"]["p50"] - 0.01


def run_stall(orbbench, loop):
    r = orbbench(LOAD / f"stall-{loop}-raw-unix.json", "load.duration_s=1.1",
                 "load.repeats=1", *LOOSE)
    assert r.rc == 0, r.stderr
    assert r.doc["result"]["stop_reason"] == "done"
    (st,) = steps(r.doc)
    check_step(st, closed=loop == "closed")
    return st


def test_the_open_loop_reports_the_stall_and_the_closed_loop_does_not(
        orbbench):
    """1000 calls/s for 1.1 s to a server that sleeps 50 ms every second:
    the calls due during a stall wait up to 50 ms. The open loop times
    each from when it was due: 25 or more of about 1100 waited over 25
    ms, so its p99 is past 25 ms. The closed loop holds its next call
    until the reply and times it from its send: one call in the window
    sees the stall, its p99 does not (its max does)."""
    opened = run_stall(orbbench, "open")
    closed = run_stall(orbbench, "closed")
    assert opened["latency_us"]["p99"] > 25000, opened["latency_us"]
    assert opened["verdict"] in ("over", "slipped")
    assert closed["latency_us"]["max"] > 40000, closed["latency_us"]
    assert closed["latency_us"]["p99"] < 25000, closed["latency_us"]
    # the closed loop waited for its replies: calls held, none unsent
    assert closed["held"] > 0 and closed["unsent"] == 0


def test_a_search_to_max_rate_and_one_over_at_once(orbbench):
    r = orbbench(FIFO_RAW, *SHORT, *ROBUST, "load.rate=500",
                 "load.growth=4", "load.max_rate=8000")
    assert r.rc == 0, r.stderr
    rates = [st["offered_per_s"] for st in steps(r.doc)]
    assert rates == [500, 2000, 8000]
    assert all(st["phase"] == "step" for st in steps(r.doc))
    for st in steps(r.doc):
        check_step(st)
        assert len(st["repeats"]) == 2
    sus = r.doc["load"]["sustainable"]
    assert sus["end"] == "max_rate" and sus["per_s"] == 8000
    assert sus["high"] is None
    assert "up to load.max_rate" in r.stdout
    # a bound no call can meet: over at the first rate
    r = orbbench(FIFO_RAW, *SHORT, "load.rate=500", "load.max_ms=0.001")
    assert r.rc == 0, r.stderr
    sus = r.doc["load"]["sustainable"]
    assert sus["end"] == "none" and sus["per_s"] == 0
    assert sus["high"] == 500 and sus["limited_by"] == "over"
    assert len(steps(r.doc)) == 1


def test_a_server_at_capacity_is_bracketed_and_overloaded(orbbench):
    """omniORB's server spending 2 ms in each call serves at most 500
    calls/s on its one connection (fewer on a slow day, or sanitized):
    offered 50 then 1000 calls/s, the second overruns max_outstanding
    (overloaded: the calls past it wait, are counted, none is dropped)
    and the bracket is bisected."""
    r = orbbench(LOAD / "fifo-omniorb-unix.json", *SHORT, *ROBUST,
                 "server.work_us=2000", "load.rate=50", "load.growth=20",
                 "load.max_rate=1000", "load.max_outstanding=20",
                 "load.resolution=0.5", "load.max_probes=1")
    assert r.rc == 0, r.stderr
    sts = steps(r.doc)
    assert [st["offered_per_s"] for st in sts[:2]] == [50, 1000]
    over = sts[1]
    check_step(over)
    assert over["verdict"] == "overloaded"
    assert over["held"] > 0 and over["peak_outstanding"] == 20
    assert sts[2]["phase"] == "bisect" and 50 < sts[2]["offered_per_s"] \
        < 1000
    sus = r.doc["load"]["sustainable"]
    assert sus["end"] == "crossed"
    assert sus["low"] >= 50 and sus["high"] <= 1000
    assert sus["low"] < sus["high"]


@pytest.mark.parametrize("mode, extra", [
    ("pool", ("load.threads=2",)),
    ("thread-per-call", ("load.threads=2", "load.max_outstanding=64")),
    ("event", ("load.arrival=poisson", "load.spin_us=50")),
])
def test_every_mode_answers_every_call(orbbench, mode, extra):
    r = orbbench(FIFO_RAW, *SHORT, *ROBUST, f"load.mode={mode}",
                 "load.rate=400", "load.max_rate=400", *extra)
    assert r.rc == 0, r.stderr
    (st,) = steps(r.doc)
    check_step(st)
    assert st["sent"] > 0
    assert r.doc["load"]["mode"] == mode
    if mode != "event":
        # a connection a lane: two to the one server
        assert r.doc["load"]["servers"] == 1


def test_poisson_schedules_differ_by_seed(orbbench):
    counts = []
    for seed in (1, 1, 2):
        r = orbbench(FIFO_RAW, *SHORT, *ROBUST, "load.arrival=poisson",
                     f"load.seed={seed}", "load.rate=2000",
                     "load.max_rate=2000")
        assert r.rc == 0, r.stderr
        counts.append([rep["scheduled"] for rep in steps(r.doc)[0]["repeats"]])
    assert counts[0] == counts[1]  # the seed fixes the schedule
    assert counts[0] != counts[2]


def test_typed_payloads_are_pipelined_and_checked(orbbench):
    r = orbbench(LOAD / "miro-05-RangeSensor-omniorb-unix.json", *SHORT,
                 *ROBUST, "server.kind=giop-min", "load.max_rate=1000")
    assert r.rc == 0, r.stderr
    assert [st["offered_per_s"] for st in steps(r.doc)] == [100, 1000]
    for st in steps(r.doc):
        check_step(st)


@pytest.mark.parametrize("sets, key", [
    (("load.loop=closed", "load.mode=pool"), "load.loop"),
    (("load.rate=2000", "load.max_rate=1000"), "load.rate"),
    (("load.spin_us=10", "load.mode=pool"), "load.spin_us"),
    (("load.mode=pool", "transport=pipe"), "load.mode"),
    (("load.percentile=p42",), "load.percentile"),
    (("rate.window=2",), "rate.window"),
])
def test_bad_settings_are_refused_naming_the_key(orbbench, sets, key):
    r = orbbench(FIFO_RAW, *sets)
    assert r.rc == 2, r.stderr
    assert key in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_an_interrupt_ends_the_run_and_keeps_what_it_had(tmp_path):
    out = tmp_path / "r.json"
    proc = subprocess.Popen(
        [str(ORBBENCH), "run", str(FIFO_RAW), "--out", str(out),
         "--set", "load.rate=100", "--set", "load.max_rate=100",
         "--set", "load.duration_s=30", "--set", "load.warmup_s=0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # in the window (or, on a slow day, still starting the server: an
    # interrupt either way)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err = finish(proc)
    assert proc.returncode == 130, err
    doc = json.loads(out.read_text())
    assert doc["result"]["stop_reason"] == "interrupted"
    assert doc["load"]["sustainable"]["end"] == "running"


@pytest.fixture(scope="module")
def two_sides(tmp_path_factory):
    """Two folders of three short runs each of the raw floor."""
    root = tmp_path_factory.mktemp("load")
    for side in ("a", "b"):
        (root / side).mkdir()
        for i in range(3):
            out = root / side / f"fifo-{i}.json"
            r = subprocess.run(
                [str(ORBBENCH), "run", str(FIFO_RAW), "--out", str(out),
                 *[x for s in (*SHORT, *ROBUST, "load.rate=500",
                               "load.growth=4", "load.max_rate=2000")
                   for x in ("--set", s)]],
                capture_output=True, text=True, timeout=120)
            assert r.returncode == 0, r.stderr
    return root


def test_compare_weighs_its_metrics(two_sides):
    r = subprocess.run([str(ORBBENCH), "compare", str(two_sides / "a"),
                        str(two_sides / "b"), "--format", "json"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)["scenarios"]
    assert row["kind"] == "load"
    ms = row["metrics"]
    assert {"sustainable_per_s", "p99_us", "p50_us", "max_us"} <= set(ms)
    assert ms["sustainable_per_s"]["a_values"] == [2000] * 3
    assert ms["p99_us"]["primary"] and not ms["p50_us"]["primary"]
    assert len(ms["p99_us"]["a_values"]) == 3


def test_report_and_plot_draw_it(two_sides, tmp_path):
    rep = subprocess.run([str(ORBBENCH), "report", "--results",
                          str(two_sides / "a"), "--out", str(tmp_path / "r")],
                         capture_output=True, text=True, timeout=120)
    assert rep.returncode == 0, rep.stderr
    md = (tmp_path / "r" / "report.md").read_text()
    assert "## Latency at an offered load" in md
    assert "### Percentiles at each offered rate" in md
    assert md.count("| load-fifo-raw-unix") == 1 + 2  # and one a rate
    plot = subprocess.run([str(ORBBENCH), "plot", str(two_sides / "a"),
                           "--out", str(tmp_path / "p")],
                          capture_output=True, text=True, timeout=120)
    assert plot.returncode == 0, plot.stderr
    for stem in ("load-percentiles", "load-offered"):
        assert (tmp_path / "p" / f"{stem}.png").stat().st_size > 0
    assert len(list((tmp_path / "p").glob("*.hgrm"))) == 2  # a rate each
    (hgrm,) = (tmp_path / "p").glob("*-500.hgrm")
    lines = hgrm.read_text().splitlines()
    assert lines[0].split() == ["Value", "Percentile", "TotalCount",
                                "1/(1-Percentile)"]
    assert lines[-1].startswith("#[Buckets")
    # the last bucket line is at percentile 1, its count the total
    last = [ln for ln in lines if ln and not ln.startswith("#")][-1].split()
    assert float(last[1]) == 1.0 and int(last[2]) == 3 * 2 * 100


TAO = sorted((BIN / "orbs").glob("tao-*/echo-server"))
ORBIT2 = sorted((BIN / "orbs").glob("orbit2-*/echo-server"))


@pytest.mark.parametrize("kind, builds, build", [
    ("tao", TAO, "scripts/build-orb tao 2.2.1 --source "
     "ACE+TAO-src-6.2.1.tar.gz, then make"),
    ("orbit2", ORBIT2, "scripts/build-orb orbit2 2.14.19 --source "
     "ORBit2-2.14.19.tar.bz2, then make"),
])
def test_other_orbs_take_typed_calls_at_a_rate(orbbench, kind, builds,
                                               build):
    if not builds:
        pytest.skip(f"no {kind} build: {build}")
    r = orbbench(LOAD / f"miro-04-Odometry-{kind}-unix.json", *SHORT,
                 *ROBUST, f"server.orb={builds[-1].parent.name}",
                 "load.max_rate=1000")
    assert r.rc == 0, r.stderr
    for st in steps(r.doc):
        check_step(st)
