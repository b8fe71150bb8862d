#!/usr/bin/env bash
# Fails when a function-based CAF actor is spawned without arguments. CAF
# 0.17.6 keeps a function actor's arguments in a shared tuple that is null
# when there are none, and dereferences it when the actor starts: undefined
# behaviour that UBSan stops on. Give such an actor one unused argument.
# Checked forms: "spawn([...](T* self) {" and "spawn(some_function)"; a
# receiver whose name contains "reactor" is the process reactor, not CAF.
# Usage: tools/check-spawn-args.sh [DIR...]   (default: actors tools tests bench)
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$@")
[ ${#dirs[@]} -eq 0 ] && dirs=(actors tools tests bench)
# Join each file's lines so a spawn call spread over several lines is seen whole.
found=$(for f in $(grep -rlE 'spawn(<[^>]*>)?\(' --include='*.cpp' --include='*.hpp' "${dirs[@]}"); do
  tr '\n' ' ' < "$f" |
    grep -oE '[A-Za-z0-9_)]*(\.|->)spawn(<[^>]*>)?\(\s*(\[[^]]*\]\s*\([^,()]*\)\s*(->[^{]*)?\{|[A-Za-z_][A-Za-z0-9_:]*\s*\))' |
    grep -vE '^[A-Za-z0-9_]*reactor[A-Za-z0-9_]*\)?(\.|->)' |
    sed "s|^|$f: |"
done || true)
if [ -n "$found" ]; then
  echo "function actors spawned without arguments (CAF 0.17.6 dereferences a null tuple):"
  printf '  %s\n' "$found"
  exit 1
fi
echo "no function actor is spawned without arguments"
