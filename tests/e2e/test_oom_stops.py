"""A server that the OOM killer of the run's memory cgroup ends in the
middle of the calls is a `memory` stop, exit 0, in every kind that calls
servers: one classifier (kinds/servers.c servers_failed) says what a
failed call was. Before it, only the sweep said so; a rate, latency or
scaling run said server_died, exit 1."""
import json
import os

import pytest

from conftest import SCENARIOS
from test_misbehave import run_fake

pytestmark = pytest.mark.skipif(os.geteuid() != 0,
                                reason="needs root: makes a memory cgroup")

# The fake server replies to 3 calls on a connection, then takes memory
# until the cgroup's limit: 64 MB, about 4 of its own start-up size.
BALLOON = ["--behave", "balloon,after=3"]
KINDS = {
    "sweep": (SCENARIOS / "sync-unix.json",
              ("sweep.start=2", "sweep.max_n=4", "sweep.rounds=4")),
    "rate": (SCENARIOS / "fifo" / "01-tpc-unix-sync.json",
             ("rate.repeats=1", "rate.duration_s=0.5", "rate.warmup_s=0")),
    "latency": (SCENARIOS / "miro" / "01-None-tcp.json", ()),
    "scaling": (SCENARIOS / "scaling" / "omniorb-unix-spread.json",
                ("scaling.repeats=1", "scaling.duration_s=0.5")),
    "fanin": (SCENARIOS / "fanin" / "02-omniorb-tpc-tcp.json",
              ("fanin.start=2", "fanin.max_n=4", "fanin.rounds=4")),
}


@pytest.mark.parametrize("kind", KINDS)
def test_an_oom_kill_is_a_memory_stop_in_every_kind(tmp_path, kind):
    scenario, sets = KINDS[kind]
    assert json.loads(scenario.read_text()).get("kind", "sweep") == kind
    r = run_fake(tmp_path, "unix", "machine.mem_limit_mb=64", *sets,
                 args=BALLOON, scenario=scenario)
    assert r.doc is not None, r.stderr
    res = r.doc["result"]
    assert (res["stop_reason"], r.rc) == ("memory", 0), \
        (res, r.stderr)
    assert "was killed by the OOM killer in the 64 MB memory cgroup" in \
        res["detail"], res["detail"]
    assert r.doc["machine"]["mem_limit_bytes"] == 64 * 1024 * 1024
