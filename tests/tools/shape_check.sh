#!/bin/bash
# What a refactor must not change, reduced so that two builds diff empty:
# `orbbench keys`, `orbbench check` on every shipped scenario, and the
# shape (tests/tools/result_shape.py) of short runs of a representative
# set of shipped scenarios, each capped with --set. A dev tool (issue 52).
#
# usage: tests/tools/shape_check.sh BIN_DIR OUT_DIR
#   then: diff -r OLD_OUT/shape NEW_OUT/shape
# Run from the checkout. A run whose crossing is found may take the
# local fit or the probes' mean as the noise falls: compare those runs'
# shapes by their union (OUT_DIR/shape/union.txt) when they differ.
set -u
[ $# -eq 2 ] || { sed -n 7p "$0" >&2; exit 2; }
bin=$1/orbbench
out=$2
tool=$(dirname "$0")/result_shape.py
mkdir -p "$out/runs" "$out/shape"
"$bin" keys > "$out/shape/keys.txt" 2>&1
: > "$out/shape/check.txt"
for f in $(find scenarios -name '*.json' | sort); do
    { echo "== $f"; "$bin" check "$f" 2>&1; echo "exit $?"; } \
        >> "$out/shape/check.txt"
done
: > "$out/shape/exits.txt"
run() {
    local name=$1; shift
    timeout 300 "$bin" run "$@" --no-progress --out "$out/runs/$name.json" \
        > "$out/runs/$name.stdout" 2> "$out/runs/$name.stderr"
    echo "$name exit $?" >> "$out/shape/exits.txt"
}
S="--set sweep.start=5 --set sweep.step=5 --set sweep.max_n=15
   --set sweep.rounds=3 --set sweep.warmup_rounds=1"
F="--set fanin.start=5 --set fanin.max_n=15 --set fanin.growth=1.5
   --set fanin.rounds=3"
W="--set server.work_us=1000 --set sweep.start=2 --set sweep.step=2
   --set sweep.max_ms=10 --set sweep.max_n=40 --set sweep.rounds=3
   --set sweep.near_rounds=4 --set sweep.warmup_rounds=1"
R="--set rate.duration_s=0.2 --set rate.warmup_s=0.1 --set rate.repeats=2"
L="--set latency.calls=200 --set latency.warmup_calls=10"
C="--set channel.events=200 --set channel.warmup_events=10"
sc=scenarios
run sweep-solo $sc/sync-unix.json $S
run sweep-paired $sc/sync-unix.json $S --paired
run sweep-pairing-rounds $sc/sync-unix.json $S --paired \
    --set sweep.pairing=rounds
run sweep-blocks $sc/sync-unix.json $S --set sweep.step_blocks=2
run sweep-cross $sc/sync-unix.json $S --set sweep.max_ms=0.001 \
    --set sweep.near_rounds=2 --set sweep.max_probes=3
run sweep-warm $sc/sync-unix.json $S --set sweep.max_n=30 \
    --set sweep.prior_n=20 --set sweep.far_rounds=1 --set sweep.growth=1.2 \
    --set sweep.max_ms=1000 --set sweep.cost_n=0
run sweep-idle $sc/sync-unix.json $S --set client.connect=false
run sweep-pipe $sc/kegel/p1-kegel-pipes-unlimited.json \
    --set sweep.max_n=6 --set sweep.growth=1.5 --set sweep.rounds=2
run sweep-grisby $sc/grisby/08-event-unix.json $S
run sweep-found $sc/sync-unix.json $W
run sweep-found-paired $sc/sync-unix.json $W --paired
run sweep-found-probes $sc/sync-unix.json $W --set sweep.max_probes=2
run fanin $sc/fanin/09-raw-unix.json $F
run fanin-paired $sc/fanin/09-raw-unix.json $F --paired
run rate $sc/fifo/15-raw-unix-sync.json $R
run rate-pool $sc/fifo/12-pool-tcp-oneway.json $R
run latency $sc/families/single-call-tcp.json $L
run latency-miro $sc/miro/01-None-tcp.json $L
run connect $sc/connect/04-giopmin-unix.json --set connect.count=200 \
    --set connect.blocks=2 --set connect.warmup=5 --set connect.hold=10
run clock $sc/clock/clock.json --set clock.duration_s=0.2 \
    --set clock.repeats=2
run scaling $sc/scaling/giopmin-unix-same.json \
    --set scaling.duration_s=0.2 --set scaling.repeats=2
run marshal $sc/miro/00-marshal.json --set marshal.encodes=100 \
    --set marshal.repeats=2
run channel-direct $sc/miro-channel/01-None-direct-unix.json $C
run channel $sc/miro-channel/01-None-channel-unix.json $C
for f in "$out"/runs/*.json; do
    python3 "$tool" --keep kind --keep phase --keep stop_reason \
        --keep held_unit "$f" > "$out/shape/$(basename "$f" .json).shape"
done
cat "$out"/shape/*.shape | sort -u > "$out/shape/union.txt"
