#!/bin/sh
# Run every shipped scenario once at a base checkout and once at this one,
# with small overrides so each run takes seconds, then diff the shapes of
# the two result files (tests/tools/result_shape.py).  One run at a time, niced,
# each bounded by `timeout 120`.
#   tests/tools/shape_check.sh BASE_WORKTREE HEAD_WORKTREE OUTDIR
# OUTDIR/runs.tsv: file, kind, side, exit code (skip: not run), first
# error line, whose scenario file (own, head: new at head, -).
# Each side runs its own scenarios/FILE; a file new at head is run at base
# from head's copy.  Kinds the base does not know are not run at base.
set -u
base=$1 head=$2 out=$3
mkdir -p "$out/base" "$out/head"
: > "$out/runs.tsv"
over() { # kind -> --set arguments
  case $1 in
  sweep|fanin) p=$1; echo "--set $p.start=1 --set $p.step=1 --set $p.growth=1 --set $p.max_n=3 --set $p.rounds=2 --set $p.warmup_rounds=1 --set $p.near_rounds=2 --set $p.far_rounds=1 --set $p.max_probes=2 --set $p.prior_n=0 --set $p.cost_n=0" ;;
  rate) echo "--set rate.duration_s=0.05 --set rate.warmup_s=0 --set rate.repeats=2" ;;
  scaling) echo "--set scaling.duration_s=0.05 --set scaling.warmup_s=0 --set scaling.repeats=2 --set scaling.k=[1,2]" ;;
  clock) echo "--set clock.duration_s=0.05 --set clock.repeats=2 --set clock.k=1,2" ;;
  latency) echo "--set latency.warmup_calls=10 --set latency.calls=200" ;;
  marshal) echo "--set marshal.encodes=100 --set marshal.repeats=3" ;;
  channel) echo "--set channel.events=200 --set channel.warmup_events=10" ;;
  connect) echo "--set connect.count=40 --set connect.blocks=2 --set connect.warmup=2 --set connect.hold=2" ;;
  syscall) echo "--set syscall.duration_s=0.05 --set syscall.warmup_s=0 --set syscall.repeats=2" ;;
  load) echo "--set load.duration_s=0.05 --set load.warmup_s=0 --set load.repeats=2 --set load.max_probes=1" ;;
  objects) echo "--set objects.max_m=10 --set objects.calls=50 --set objects.warmup=5" ;;
  esac
}
cd "$head" || exit 2
basekinds=$("$base/bin/orbbench" keys 2>&1 | sed -n 's/^  kind  *choice  *\([a-z|]*\).*/\1/p')
for f in $(find scenarios -name '*.json' | sort); do
  kind=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('kind','sweep'))" "$f")
  id=$(echo "${f#scenarios/}" | sed 's/\.json$//; s|/|__|g')
  for side in base head; do
    wt=$head; [ $side = base ] && wt=$base
    if [ $side = base ] && ! echo "|$basekinds|" | grep -q "|$kind|"; then
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$kind" $side skip "kind not at base" - >> "$out/runs.tsv"; continue
    fi
    src=$wt/$f from="own"; [ -f "$src" ] || { src=$head/$f; from="head"; }
    rm -f "$out/$side/$id.json"
    # shellcheck disable=SC2046
    (cd "$wt" && nice -n 10 timeout 120 bin/orbbench run "$src" --no-progress \
        --out "$out/$side/$id.json" $(over "$kind")) > "$out/$side/$id.log" 2>&1
    rc=$?
    err=$(grep -m1 'orbbench:' "$out/$side/$id.log" | tr '\t' ' ' | cut -c1-200)
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$kind" $side $rc "$err" $from >> "$out/runs.tsv"
  done
done
# The shapes: one diff a scenario that ran at both sides, its exit code
# (0: nothing removed or changed type) in shapes.tsv.
mkdir -p "$out/diff"
: > "$out/shapes.tsv"
for b in "$out"/base/*.json; do
  [ -e "$b" ] || continue
  id=$(basename "$b" .json)
  [ -f "$out/head/$id.json" ] || continue
  /usr/bin/python3 "$head/tests/tools/result_shape.py" "$b" "$out/head/$id.json" > "$out/diff/$id.txt"
  printf '%s\t%s\n' "$id" $? >> "$out/shapes.tsv"
done
