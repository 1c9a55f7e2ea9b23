#!/bin/bash
# Interrupts a tfc-train run and resumes it.
#
# usage: interrupt.sh TFC_TRAIN SIGNAL OUT ARGS...
# Starts `TFC_TRAIN ARGS... --steps 100000000 --out OUT --log-every 1` in the
# background, waits (no fixed sleep: up to 120 s) until its log shows step
# 3, sends SIGNAL (INT or TERM) and reports its exit code, then checks that
# the checkpoint is at the last step metrics.jsonl logged, that `--resume
# OUT` with two more steps continues from it, and that the result equals a
# straight run of as many steps (compare_runs.py). The log is OUT.log.
set -u
train=$1 signal=$2 out=$3
shift 3
"$train" "$@" --steps 100000000 --out "$out" --log-every 1 > "$out.log" 2>&1 &
pid=$!
for _ in $(seq 1200); do
  grep -q '^step 3/' "$out.log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill "-$signal" "$pid"
# A run that ignores the signal is stopped after 120 s, not waited for.
for _ in $(seq 1200); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -0 "$pid" 2>/dev/null && { echo "still running 120 s after SIG$signal"; kill -KILL "$pid"; }
wait "$pid"
echo "exit code $?"
grep 'tfc-train: ' "$out.log"
logged=$(wc -l < "$out/metrics.jsonl")
saved=$(sed -n 's/.*"step": *\([0-9]*\).*/\1/p' "$out/checkpoint/meta.json")
if [ "$logged" -ge 3 ] && [ "$saved" = "$logged" ]; then
  echo "checkpoint at the last logged step"
else
  echo "checkpoint at step '$saved', $logged steps logged"
fi
"$train" --resume "$out" --steps $((saved + 2)) > "$out.resume.log" 2>&1 ||
  { echo "the resume failed:"; tail -3 "$out.resume.log"; exit 1; }
echo "resumed: $(( $(wc -l < "$out/metrics.jsonl") - saved )) more steps"
"$train" "$@" --steps $((saved + 2)) --out "$out.straight" > "$out.straight.log" 2>&1 ||
  { echo "the straight run failed:"; tail -3 "$out.straight.log"; exit 1; }
python3 "$(dirname "$0")/compare_runs.py" "$out.straight" "$out" --any-loss
