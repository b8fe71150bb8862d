#!/usr/bin/env bash
# Fails when two headers of one namespace folder define a type of the same
# name (everything under runtime/ is namespace ad::runtime; messages/ is
# ad::messages). Each folder given is checked on its own. Such a pair is an ODR violation once both
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
defs=$(grep -rHnE '^(struct|class|enum class|enum struct|union) [a-z_][a-z0-9_]*( final)?( *:[^:].*)? *\{' \
         --include='*.hpp' "$dir" |
       sed -E 's/^([^:]+):([0-9]+):(enum class|enum struct|struct|class|union) ([a-z_][a-z0-9_]*).*/\1:\2 \4/')
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
