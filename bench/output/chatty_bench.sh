#!/usr/bin/env bash
# One attempt of an agent that prints N MB of 100-byte lines and fails:
# prints the dispatcher's peak RSS, the bytes kept under runs/ and the time
# the attempt took, with the load average beside them.
# Usage: bench/output/chatty_bench.sh [--build DIR] [--mb N]   (default 500)
set -euo pipefail
build=build
mb=500
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --mb) mb=$2; shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--mb N]" >&2; exit 2 ;;
  esac
done
bin=$(cd "$build" && pwd)/agent-dispatch
[ -x "$bin" ] || { echo "chatty_bench: $bin is missing: build the agent-dispatch target" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
lines=$(( mb * 10000 ))
cat > "$dir/agent.sh" <<AGENT
#!/bin/sh
yes "\$(printf 'a%.0s' \$(seq 99))" | head -n $lines
exit 3
AGENT
chmod +x "$dir/agent.sh"
cat > "$dir/policy.json" <<POLICY
{"version": 1, "timezone": "UTC", "promotion": {},
 "targets": [{"id": "chatty", "adapter": "command", "model": "m", "execution_class": "cloud_model",
              "argv": ["$dir/agent.sh", "{prompt}"]}],
 "rules": [{"id": "w", "stage": "worker", "lanes": ["local", "cloud"], "grades": [1, 10],
            "candidates": ["chatty"]}],
 "review_target": "chatty",
 "backoff": {"initial_s": 600, "coefficient": 2, "max_s": 600}}
POLICY
task="$dir/ws/agent-task/g/01_x"
mkdir -p "$task"
printf '<!-- task=g/01_x plan=1 tag=t -->\n# PLAN\n\n## Modified Files Summary\n\n| File | Change |\n|---|---|\n| `src/a.cpp` | add |\n\n## Implementation Checklist\n\n- [ ] x\n' > "$task/PLAN-cloud-G03.md"
printf '# Review\n\n## Implementation Checklist\n\n- [ ] x\n' > "$task/CODE_REVIEW-cloud-G03.md"
export XDG_STATE_HOME="$dir/state"
start=$(date +%s.%N)
"$bin" run --workspace "$dir/ws" --policy "$dir/policy.json" > "$dir/run.out" 2>&1 &
pid=$!
hwm=0
# The attempt ends with its failure; the retry then waits 600 s: stop there.
for _ in $(seq 1 3000); do
  sleep 0.2
  kill -0 "$pid" 2>/dev/null || break
  h=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  [ "${h:-0}" -gt "$hwm" ] && hwm=$h
  grep -q attempt_finished "$dir/run.out" && break
done
end=$(date +%s.%N)
kill -INT "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
kept=$(du -sk "$XDG_STATE_HOME/agent-dispatch" | awk '{print $1}')
printf 'chatty_bench: %d MB of output in %.1f s; peak RSS %d KiB; %d KiB kept under the state root; load %s\n' \
  "$mb" "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" "$hwm" "$kept" "$(cut -d' ' -f1-3 /proc/loadavg)"
