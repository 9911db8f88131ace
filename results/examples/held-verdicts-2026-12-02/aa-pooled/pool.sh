#!/bin/sh
# The pooled A/A reading declared at 05:45, before the new A/A's results:
# the held A/A of 01:25 (3 repeats, /tmp/m3/recost-aa8) and this one's,
# renumbered r1..rK, one fixed-sample comparison at alpha 0.05.
set -e
rm -rf /tmp/m4/pool && mkdir -p /tmp/m4/pool/a /tmp/m4/pool/b
for side in a b; do
  for f in /tmp/m3/recost-aa8/$side/*.json; do cp "$f" /tmp/m4/pool/$side/; done
  for f in /tmp/m4/aa/$side/*.r*.json; do
    base=$(basename "$f"); scen=${base%.r*.json}; r=${base##*.r}; r=${r%.json}
    cp "$f" /tmp/m4/pool/$side/$scen.r$((r + 3)).json
  done
done
ls /tmp/m4/pool/a | wc -l
