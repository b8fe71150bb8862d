#!/usr/bin/env bash
# Fails when two headers of one namespace folder define a type of the same
# name in the same namespace (everything under runtime/ is namespace
# ad::runtime; messages/ is ad::messages; a nested namespace such as
# task_ev or sched_ev is its own). Each folder given is checked on its own. Such a pair is an ODR violation once both
# land in one binary: the linker keeps one inline constructor for both types
# and the other type's members are never built.
# Usage: tools/check-type-names.sh [DIR...]   (default: runtime messages)
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$@")
[ ${#dirs[@]} -eq 0 ] && dirs=(runtime messages)
failed=0
for dir in "${dirs[@]}"; do
# Definitions at the start of a line (namespace scope in this code base):
# "struct x {", "class x final : ...", "enum class x : uint8_t {". Forward
# declarations ("struct x;") are not definitions.
defs=$(find "$dir" -name '*.hpp' -print0 | sort -z | xargs -0 awk '
  FNR == 1 { depth = 0 }
  /^namespace [a-z_][a-z0-9_:]* \{/ { stack[++depth] = $2; next }
  /^\} \/\/ namespace/ { if (depth > 0) depth--; next }
  /^(struct|class|enum class|enum struct|union) [a-z_][a-z0-9_]*( final)?( *:[^:].*)? *\{/ {
    name = ($1 == "enum") ? $3 : $2
    sub(/[^a-z0-9_].*/, "", name)
    inner = ""
    for (i = 2; i <= depth; i++) inner = inner stack[i] "::"
    print FILENAME ":" FNR " " inner name
  }')
dups=$(printf '%s\n' "$defs" | awk 'NF == 2 {print $2}' | sort | uniq -d)
if [ -n "$dups" ]; then
  echo "$dir: type names defined in more than one header:"
  for name in $dups; do
    printf '%s\n' "$defs" | awk -v n="$name" '$2 == n {print "  " n ": " $1}'
  done
  failed=1
else
  echo "$dir: $(printf '%s\n' "$defs" | grep -c .) type definitions, no duplicates"
fi
done
exit $failed
