#!/usr/bin/env bash
# The terminal board as a person sees it: the demo's run (the resolved demo
# workspace, the simulator's demo scenario) in an 80x30 tmux pane, resized
# to 60x24 and then 100x30 while it runs. After each resize and after the
# run, the screen holds one frame: one count line and no line of an earlier
# frame above it, no line wider than the pane, times as local clock times;
# the scroll history holds no history of count lines (at most the part of a
# frame that a shrinking resize pushed above the screen, which no cursor
# movement reaches). The captures are
# kept under <build>/test-output/board-tmux/.
#
# Usage: tests/e2e/board_tmux_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: board_tmux_test.sh BUILD_DIR}" && pwd)
out="$build/test-output/board-tmux"
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
sock="ad-board-$$"
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

"$build/ad-demo-gen" "$work/ws" --scenario resolved --fresh >/dev/null
"$build/agent-sim" demo-scenario --out "$work/scenario.json" \
  --task infra --task docs/01_api_reference --task auth/02+01_session_store \
  --task billing/01_invoice_schema
cat >"$work/run.sh" <<RUN
export PATH="$build/sim-bin:\$PATH"
export XDG_STATE_HOME="$work/xdg"
export AGENT_SIM_SCENARIO="$work/scenario.json"
export AGENT_SIM_REGISTRY="$work/registry.jsonl"
export AGENT_SIM_TIME_SCALE=1
export TZ=Asia/Seoul
cd "$work"
"$build/agent-dispatch" run --workspace ws --max-parallel 4
echo \$? >"$work/exit"
sleep 300
RUN

tmux -L "$sock" -f /dev/null new-session -d -s board -x 80 -y 30 "bash $work/run.sh"
capture() { tmux -L "$sock" capture-pane -p -t board "$@"; }
count_lines() { grep -c '^agent-dispatch: [0-9]* tasks' || true; }

# The first frame, then two resizes while attempts run.
for _ in $(seq 1 200); do
  capture | grep -q '^agent-dispatch: ' && break
  sleep 0.1
done
capture | grep -q '^agent-dispatch: ' || fail "no board after 20 s"
sleep 1.5
tmux -L "$sock" resize-window -t board -x 60 -y 24
sleep 1.5
capture >"$out/after-narrowing.txt"
tmux -L "$sock" resize-window -t board -x 100 -y 30
sleep 1.5
capture >"$out/after-widening.txt"
[ -s "$work/exit" ] && fail "the run ended before the second resize was drawn; make it longer"

for _ in $(seq 1 1800); do
  [ -s "$work/exit" ] && break
  sleep 0.1
done
[ -s "$work/exit" ] || fail "the run did not end within 3 minutes"
sleep 0.3
capture >"$out/screen.txt"
capture -S - >"$out/history.txt"
echo "exit code $(cat "$work/exit")" >"$out/exit.txt"

[ "$(cat "$work/exit")" = 0 ] || fail "run exited $(cat "$work/exit")"
for f in after-narrowing after-widening screen; do
  n=$(count_lines <"$out/$f.txt")
  [ "$n" = 1 ] || fail "$f.txt holds $n count lines, not one frame:
$(cat "$out/$f.txt")"
  # Nothing of an earlier frame above this one: the count line is the
  # screen's first line that is not blank.
  first=$(grep -m1 -v '^ *$' "$out/$f.txt" || true)
  case $first in
    "agent-dispatch: "*) ;;
    *) fail "$f.txt holds a line of an earlier frame above the count line: '$first'
$(cat "$out/$f.txt")" ;;
  esac
done
n=$(count_lines <"$out/history.txt")
[ "$n" -le 3 ] || fail "the scroll history holds $n count lines, a history of frames:
$(cat "$out/history.txt")"
grep -q '^agent-dispatch: 13 tasks  0 running  0 pending  0 waiting  0 blocked  0 failed  13 complete' \
  "$out/screen.txt" || fail "the last frame does not count 13 complete tasks:
$(cat "$out/screen.txt")"
# The summary line (cut to the pane's width: it names what the run spent
# before its exit code), then the run's last word.
grep -q '^summary 13 tasks: 13 complete; ' "$out/screen.txt" &&
  grep -q '^run: all 13 observed task(s) complete$' "$out/screen.txt" ||
  fail "no summary line on the screen:
$(cat "$out/screen.txt")"
# Times are local clock times (HH:MM:SS), never UTC stamps.
if grep -qE '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z' "$out/history.txt"; then
  fail "an ISO UTC stamp on the board:
$(cat "$out/history.txt")"
fi
grep -qE '^  [0-2][0-9]:[0-5][0-9]:[0-5][0-9] task_finished ' "$out/screen.txt" ||
  fail "no recent event with a local clock time:
$(cat "$out/screen.txt")"
# No line wider than the pane (a cut line ends with the ellipsis instead).
export LC_ALL=C.UTF-8
while IFS= read -r l; do
  [ "${#l}" -le 100 ] || fail "a line wider than the pane: $l"
done <"$out/screen.txt"
echo "ok: one frame after the run, through two resizes ($out)"
