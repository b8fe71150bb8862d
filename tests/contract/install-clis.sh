#!/usr/bin/env bash
# Installs the real agent CLIs the contract tests drive, at the versions
# pinned in package.json / package-lock.json, into tests/contract/node_modules.
# Idempotent: when node_modules already holds the pinned versions (checked by
# running each binary with --version) it changes nothing. Needs node and npm
# (Debian 12: node 20, npm 11); works as root.
#
# npm 11 runs install scripts only for the packages package.json's
# allowScripts names; claude's postinstall copies the native binary over
# bin/claude.exe, so the check below also catches a skipped script.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$here/node_modules/.bin"

want_codex="codex-cli 0.171.0"
want_claude="2.1.332 (Claude Code)"
want_pi="0.73.1"

# Prints "<cli> --version" (both streams: pi prints it on stderr when stdin
# is not a terminal), or nothing when the binary is missing or fails.
version_of() {
  [ -x "$bin/$1" ] || return 0
  timeout 60 "$bin/$1" --version </dev/null 2>&1 | tr -d '\r' | head -n 1 || true
}

pinned_present() {
  [ "$(version_of codex)" = "$want_codex" ] &&
    [ "$(version_of claude)" = "$want_claude" ] &&
    [ "$(version_of pi)" = "$want_pi" ]
}

if pinned_present; then
  echo "install-clis: pinned versions present"
else
  command -v npm >/dev/null || { echo "install-clis: npm not found" >&2; exit 1; }
  echo "install-clis: npm ci in $here"
  (cd "$here" && npm ci --no-audit --no-fund)
  # A claude left as the placeholder means its postinstall did not run.
  if [ "$(version_of claude)" != "$want_claude" ] &&
    [ -f "$here/node_modules/@anthropic-ai/claude-code/install.cjs" ]; then
    (cd "$here/node_modules/@anthropic-ai/claude-code" && node install.cjs)
  fi
  for cli in codex claude pi; do
    got="$(version_of "$cli")"
    echo "install-clis: $cli --version: ${got:-<none>}"
  done
  if ! pinned_present; then
    echo "install-clis: the installed CLIs are not the pinned versions" >&2
    exit 1
  fi
fi
echo "install-clis: binaries in $bin"
for cli in codex claude pi; do
  echo "  $bin/$cli"
done
