#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang, ASan and UBSan, and
# runs each for a bounded time, two at a time: seeded from the fixtures the
# way tests/fuzz/seeds.txt says, plus the kept inputs of
# tests/fuzz/corpus/<target>/. A crash, a hang (over 10 s for one input), an
# input using more than 2 GB or a broken invariant fails the run; the input
# is kept in BUILD_DIR/crashes/, to be fixed and then added to
# tests/fuzz/corpus/<target>/ (fuzz_corpus_tests runs those in every build).
# Usage: tools/fuzz.sh [--seconds N] [--target NAME]... [BUILD_DIR]
#   --seconds N    fuzzing time per target (default 25)
#   --target NAME  only this target (plan, review, policy, journal,
#                  snapshot, trace, stream, pi_session, json_events);
#                  repeatable
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=25
only=()
build_dir=build-fuzz
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --target) only+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) build_dir=$1; shift ;;
  esac
done

bash tools/setup.sh --fuzz
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S . -B "$build_dir" -G Ninja -DAD_FUZZ=ON -DAD_UNITY=ON -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1"
fi

targets=()
for f in tests/fuzz/fuzz_*.cpp; do
  name=$(basename "$f" .cpp)
  [ "$name" = fuzz_corpus_test ] && continue
  name=${name#fuzz_}
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " =~ " $name " ]]; then
    continue
  fi
  targets+=("$name")
done
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no target named ${only[*]}" >&2; exit 2; }
cmake --build "$build_dir" -j "$(nproc)" $(printf -- '--target fuzz_%s ' "${targets[@]}")

# The seed corpus of one target, written fresh into its working corpus.
seed() {
  local target=$1 dir=$2
  rm -rf "$dir" && mkdir -p "$dir"
  local n=0
  while read -r t first folder pattern; do
    [ -z "$t" ] || [ "${t:0:1}" = "#" ] || [ "$t" != "$target" ] && continue
    while IFS= read -r -d '' file; do
      n=$((n + 1))
      if [ "$first" = "-" ]; then
        cp "$file" "$dir/seed-$n"
      else
        { printf '%s\n' "$first"; cat "$file"; } > "$dir/seed-$n"
      fi
    done < <(find "$folder" -type f -name "$pattern" -print0)
  done < tests/fuzz/seeds.txt
  echo "$n"
}

max_len() {
  case $1 in
    trace) echo 131072 ;;
    *) echo 16384 ;;
  esac
}

mkdir -p "$build_dir/crashes" "$build_dir/logs"
run_one() {
  local target=$1 work="$build_dir/corpus/$1" kept="tests/fuzz/corpus/$1"
  local seeds
  seeds=$(seed "$target" "$work")
  local dirs=("$work") kept_count=0
  if [ -d "$kept" ]; then
    dirs+=("$kept")
    kept_count=$(find "$kept" -type f | wc -l)
  fi
  local log="$build_dir/logs/$target.log"
  if "$build_dir/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -max_len="$(max_len "$target")" -print_final_stats=1 \
      -artifact_prefix="$build_dir/crashes/$target-" "${dirs[@]}" > "$log" 2>&1; then
    local runs
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz: $target: $runs inputs in ${seconds} s from $seeds seeds and $kept_count kept inputs, no failure"
  else
    echo "fuzz: $target FAILED; the input is in $build_dir/crashes/ (log: $log):" >&2
    grep -E 'ERROR|invariant|Test unit written|SUMMARY' "$log" | head -20 >&2
    return 1
  fi
}

start=$(date +%s)
status=0
pids=()
for target in "${targets[@]}"; do
  run_one "$target" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$(nproc)" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do
  wait "$p" || status=1
done
echo "fuzz: ${#targets[@]} targets in $(( $(date +%s) - start )) s"
exit $status
