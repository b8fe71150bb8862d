#!/usr/bin/env bash
# Writes what the package generates from the built programs, so that none of
# it can drift from them (docs/packaging.md):
#   OUT/man1/agent-dispatch.1.gz, one page per sub-command that
#     `agent-dispatch --list-commands` names (agent-dispatch-policy-check.1.gz
#     for `policy check`) and ad-keeper.1.gz: help2man over each one's real
#     --help, with the sections of packaging/man/<page>.h2m when there is one
#     and a SEE ALSO naming the related pages;
#   OUT/completions/agent-dispatch: `agent-dispatch --bash-completion`;
#   OUT/doc/changelog.gz: CHANGELOG compressed as Debian wants it.
# Pages of commands that no longer exist are removed. The version in every
# page is what `agent-dispatch --version` prints.
# Usage: generate-docs.sh AGENT_DISPATCH AD_KEEPER CHANGELOG OUT
set -euo pipefail
if [ $# -ne 4 ]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
bin=$(realpath "$1")
keeper=$(realpath "$2")
changelog=$3
out=$4
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

version=$("$bin" --version)
rm -rf "$out/man1" "$out/completions" "$out/doc"
mkdir -p "$out/man1" "$out/completions" "$out/doc"

"$bin" --list-commands > "$work/commands"
"$bin" --bash-completion > "$out/completions/agent-dispatch"
gzip -9n < "$changelog" > "$out/doc/changelog.gz"

# page NAME DESCRIPTION SEE_ALSO PROGRAM [WORDS...]: help2man over
# `PROGRAM WORDS... --help`, through a wrapper named NAME (help2man takes the
# page's name from the program's).
page() {
  local name=$1 description=$2 see_also=$3 program=$4
  shift 4
  local wrapper="$work/bin/$name" include="$work/$name.h2m"
  mkdir -p "$work/bin"
  {
    echo '#!/bin/sh'
    printf 'exec %q' "$program"
    [ $# -eq 0 ] || printf ' %q' "$@"
    echo ' "$@"'
  } > "$wrapper"
  chmod +x "$wrapper"
  : > "$include"
  [ -f "$here/man/$name.h2m" ] && cat "$here/man/$name.h2m" >> "$include"
  printf '[SEE ALSO]\n.nh\n%s\n' "$see_also" >> "$include"
  help2man --no-info --section 1 --manual "agent-dispatch manual" \
    --source "agent-dispatch $version" --version-string "$version" \
    --name "$description" --include "$include" --output "$work/$name.1" "$wrapper"
  gzip -9n < "$work/$name.1" > "$out/man1/$name.1.gz"
}

# man_ref NAME: NAME as a reference to its page in section 1.
man_ref() { printf '.BR %s (1)' "$1"; }

all_refs=""
while IFS=$'\t' read -r path _; do
  all_refs+="$(man_ref "agent-dispatch-${path// /-}"),"$'\n'
done < "$work/commands"
all_refs+="$(man_ref ad-keeper)"

page agent-dispatch "run fleets of AI coding agents over a repository's task folders" \
  "$all_refs" "$bin"
while IFS=$'\t' read -r path description; do
  name="agent-dispatch-${path// /-}"
  parent="agent-dispatch"
  [[ $path == *" "* ]] && parent="agent-dispatch-${path% *}" && parent=${parent// /-}
  refs=$(man_ref agent-dispatch)
  [ "$parent" != agent-dispatch ] && refs+=","$'\n'"$(man_ref "$parent")"
  # shellcheck disable=SC2086 # the path's words are the sub-command's argv
  page "$name" "$description" "$refs" "$bin" $path
done < "$work/commands"
page ad-keeper "keep one agent, its output and its exit status for agent-dispatch" \
  "$(man_ref agent-dispatch)" "$keeper"
