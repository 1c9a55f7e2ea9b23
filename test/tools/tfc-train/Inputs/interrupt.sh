#!/bin/bash
# Interrupts a tfc-train run and resumes it.
#
# usage: interrupt.sh TFC_TRAIN SIGNAL OUT ARGS...
# Starts `TFC_TRAIN ARGS... --out OUT --log-every 1` in the background, waits
# (no fixed sleep: up to 120 s) until its log shows step 3, sends SIGNAL
# (INT or TERM) and reports its exit code, then checks that the checkpoint
# is at the last step metrics.jsonl logged and that `--resume OUT` with two
# more steps continues from it. The log is OUT.log.
set -u
train=$1 signal=$2 out=$3
shift 3
"$train" "$@" --out "$out" --log-every 1 > "$out.log" 2>&1 &
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
