#!/usr/bin/env bash
# The Debian package of the build tree the suite runs in (docs/packaging.md),
# one ctest test per step (label "package"; `build` is the fixture the others
# need). It packages the binaries already built there with cpack and never
# builds the project again. In CI that tree is the sanitized one: the
# packaged programs are the ASan + UBSan builds, so the dependencies
# dpkg-shlibdeps computes include the sanitizer runtimes (libasan8,
# libubsan1), which the files step checks too. `tools/package.sh` makes the
# release package from a plain build.
#
# Usage: package_test.sh STEP BUILD_DIR SOURCE_DIR SANITIZED
#   build       cpack into BUILD_DIR/package-test, dpkg-deb -x into its root/
#   files       the file list, the control fields and the dependencies
#   runs        the extracted agent-dispatch: --version, doctor over the real
#               codex and claude CLIs, a dry run and a real run (agents under
#               the ad-keeper beside it) of generated workspaces
#   man         every page renders with man -l; every command --help shows
#               has its page, which names every option of its --help
#   completion  the completion offers every command and option --help shows
#   unit        systemd-analyze verify accepts the node unit; its settings;
#               the example node.conf's options are the node's
#   lintian     lintian reports no error
# SANITIZED is ON or OFF (AD_SANITIZE of the build).
set -euo pipefail
step=${1:?step}
build=$(cd "${2:?build dir}" && pwd)
src=$(cd "${3:?source dir}" && pwd)
sanitized=${4:?ON or OFF}
work=$build/package-test
root=$work/root

fail() {
  echo "package $step: $*" >&2
  exit 1
}

# The package the build step made.
deb() {
  local d
  d=$(ls "$work"/out/agent-dispatch_*.deb 2> /dev/null) || fail "no package: run the build step first"
  echo "$d"
}

# A scratch folder of this step, removed at exit.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# run_clean PATH [NAME=VALUE...] COMMAND...: COMMAND in an empty environment
# but for PATH, a private HOME, the sanitizer options and the NAME=VALUEs, so
# nothing of the build leaks in (no AD_KEEPER).
run_clean() {
  local path=$1
  shift
  mkdir -p "$scratch/home"
  env -i PATH="$path" HOME="$scratch/home" LC_ALL=C.UTF-8 \
    ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" "$@"
}

packaged=$root/usr/bin/agent-dispatch

# help_commands WORDS...: every sub-command under `agent-dispatch WORDS...`,
# read from the packaged program's --help (not from --list-commands, which
# made the pages), one path per line, depth first.
help_commands() {
  local sub
  for sub in $("$packaged" "$@" --help |
    awk '/^Subcommands:/ { on = 1; next } on && /^  [^ ]/ { print $1; next } /^[^ ]/ { on = 0 }'); do
    echo "${*:+$* }$sub"
    help_commands "$@" "$sub"
  done
}

# help_options WORDS...: the option names `agent-dispatch WORDS... --help`
# lists, one per line.
help_options() {
  "$packaged" "$@" --help | awk '/^  -[^ ]/ { print $1 }' | tr ',' '\n'
}

step_build() {
  rm -rf "$work"
  mkdir -p "$work/out"
  # gzip rather than the release's xz: a third of cpack's time here.
  cpack -D CPACK_DEBIAN_COMPRESSION_TYPE=gzip --config "$build/CPackConfig.cmake" -B "$work/out" \
    > "$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log" >&2; fail "cpack failed"; }
  dpkg-deb -x "$(deb)" "$root"
  echo "package: $(deb)"
}

step_files() {
  local d version arch listing
  d=$(deb)
  version=$(dpkg-deb -f "$d" Version)
  arch=$(dpkg --print-architecture)
  [ "$(basename "$d")" = "agent-dispatch_${version}_${arch}.deb" ] ||
    fail "file name $(basename "$d"), expected agent-dispatch_${version}_${arch}.deb"
  [ "$(dpkg-deb -f "$d" Package)" = agent-dispatch ] || fail "Package is not agent-dispatch"
  [ "$(dpkg-deb -f "$d" Architecture)" = "$arch" ] || fail "Architecture is not $arch"
  listing=$(dpkg-deb -c "$d" | awk '{ print $1, $6 }')
  local expected=(
    "-rwxr-xr-x ./usr/bin/agent-dispatch"
    "-rwxr-xr-x ./usr/bin/ad-keeper"
    "-rw-r--r-- ./usr/share/man/man1/agent-dispatch.1.gz"
    "-rw-r--r-- ./usr/share/man/man1/ad-keeper.1.gz"
    "-rw-r--r-- ./usr/share/bash-completion/completions/agent-dispatch"
    "-rw-r--r-- ./lib/systemd/system/agent-dispatch-node@.service"
    "-rw-r--r-- ./usr/share/doc/agent-dispatch/copyright"
    "-rw-r--r-- ./usr/share/doc/agent-dispatch/changelog.gz"
    "-rw-r--r-- ./usr/share/doc/agent-dispatch/examples/node.conf"
    "-rw-r--r-- ./usr/share/doc/agent-dispatch/README.md"
    "-rw-r--r-- ./usr/share/doc/agent-dispatch/docs/distributed.md"
  )
  local e
  for e in "${expected[@]}"; do
    grep -qxF -- "$e" <<< "$listing" || fail "the package lacks $e; it holds:"$'\n'"$listing"
  done
  # Nothing else: no test program, no file outside the package's folders.
  local unexpected
  unexpected=$(awk '$1 !~ /^d/ { print $2 }' <<< "$listing" | grep -vE \
    '^\./usr/bin/(agent-dispatch|ad-keeper)$|^\./usr/share/man/man1/[a-z-]+\.1\.gz$|^\./usr/share/bash-completion/completions/agent-dispatch$|^\./lib/systemd/system/agent-dispatch-node@\.service$|^\./usr/share/doc/agent-dispatch/|^\./usr/share/lintian/overrides/agent-dispatch$' ||
    true)
  [ -z "$unexpected" ] || fail "unexpected files in the package:"$'\n'"$unexpected"
  # The dependencies are dpkg-shlibdeps' reading of the two programs.
  local depends
  depends=$(dpkg-deb -f "$d" Depends)
  for lib in libcaf-core0.17 libcaf-io0.17 libcaf-openssl0.17 libssl3 libre2 libsimdjson libspdlog libstdc++6 libc6 adduser; do
    grep -q "$lib" <<< "$depends" || fail "Depends lacks $lib: $depends"
  done
  if [ "$sanitized" = ON ]; then
    grep -q libasan <<< "$depends" || fail "a sanitized build's Depends lacks libasan: $depends"
    grep -q libubsan <<< "$depends" || fail "a sanitized build's Depends lacks libubsan: $depends"
  else
    ! grep -q 'libasan\|libubsan' <<< "$depends" || fail "a plain build depends on a sanitizer: $depends"
  fi
  echo "package files: ok ($(wc -l <<< "$listing") entries; Depends: $depends)"
}

step_runs() {
  local d version printed
  d=$(deb)
  version=$(dpkg-deb -f "$d" Version)
  # --version prints the package's version: both come from project(VERSION).
  printed=$(run_clean /usr/bin:/bin "$packaged" --version)
  [ "$printed" = "$version" ] || fail "--version prints '$printed', the package is $version"
  run_clean /usr/bin:/bin "$root/usr/bin/ad-keeper" --help | grep -q '^usage: ad-keeper' ||
    fail "the packaged ad-keeper --help does not print its usage"

  # The README's real-agent steps: doctor over the real, pinned codex and
  # claude (only their --version and --help run; every proxy points at a
  # closed port), with the README's policy.
  local clis=$src/tests/contract/node_modules/.bin
  [ -x "$clis/codex" ] && [ -x "$clis/claude" ] ||
    fail "no pinned codex and claude in $clis: bash tests/contract/install-clis.sh installs them"
  mkdir -p "$scratch/real"
  cat > "$scratch/real/agent-dispatch.json" << 'EOF'
{
  "targets": [
    {"id": "claude", "adapter": "claude", "model": "claude-sonnet-4-5", "execution_class": "cloud_model",
     "env": {"IS_SANDBOX": "1"}},
    {"id": "codex", "adapter": "codex", "model": "gpt-5-codex", "execution_class": "cloud_model"}
  ],
  "rules": [
    {"id": "workers", "stage": "worker", "lanes": ["local", "cloud"], "grades": [1, 10],
     "candidates": ["claude", "codex"]}
  ],
  "promotion": {},
  "review_target": "codex"
}
EOF
  local out code=0
  out=$(run_clean "$root/usr/bin:$clis:/usr/local/bin:/usr/bin:/bin" HTTPS_PROXY=http://127.0.0.1:9 \
    HTTP_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1,localhost \
    agent-dispatch doctor --workspace "$scratch/real" 2>&1) || code=$?
  [ "$code" -eq 0 ] && grep -q '^doctor: 2 of 2 targets can run$' <<< "$out" &&
    grep -q "^codex: .*($clis/codex)" <<< "$out" && grep -q "^claude: .*($clis/claude)" <<< "$out" ||
    fail "doctor exited $code:"$'\n'"$out"

  # A dry run of the demo workspace prints what the build tree's own program
  # prints, with the same exit code (0: tasks are ready).
  "$build/ad-demo-gen" "$scratch/demo" --fresh > /dev/null
  local mine theirs mine_code=0 theirs_code=0
  mine=$(run_clean /usr/bin:/bin "$packaged" run --dry-run --workspace "$scratch/demo") || mine_code=$?
  theirs=$(run_clean /usr/bin:/bin "$build/agent-dispatch" run --dry-run --workspace "$scratch/demo") ||
    theirs_code=$?
  [ "$mine_code" -eq 0 ] && grep -q '^summary: 14 tasks: 5 ready' <<< "$mine" ||
    fail "the packaged dry run exited $mine_code:"$'\n'"$mine"
  [ "$mine" = "$theirs" ] && [ "$mine_code" = "$theirs_code" ] ||
    fail "the packaged dry run differs from the build tree's:"$'\n'"$(diff <(echo "$theirs") <(echo "$mine"))"

  # A real run: every agent starts under the ad-keeper beside the packaged
  # agent-dispatch. PATH holds the simulator's CLIs only (no ad-keeper) and
  # AD_KEEPER is unset; the same program copied alone into a folder cannot
  # start an agent, so the run that works found its keeper beside it.
  "$build/workspace-gen" --tasks 3 --shape chain --out "$scratch/ws" --fast-policy > /dev/null
  out=$(run_clean "$build/sim-bin" XDG_STATE_HOME="$scratch/state" AGENT_SIM_TIME_SCALE=0.01 \
    "$packaged" run --workspace "$scratch/ws" 2>&1) || fail "the packaged run failed:"$'\n'"$out"
  [ "$(find "$scratch/ws/agent-task/archive" -name complete.log | wc -l)" -eq 3 ] ||
    fail "the packaged run did not archive the 3 tasks:"$'\n'"$out"
  mkdir -p "$scratch/alone"
  cp "$packaged" "$scratch/alone/"
  "$build/workspace-gen" --tasks 1 --out "$scratch/ws1" --fast-policy > /dev/null
  code=0
  out=$(run_clean "$build/sim-bin" XDG_STATE_HOME="$scratch/state1" AGENT_SIM_TIME_SCALE=0.01 \
    "$scratch/alone/agent-dispatch" run --workspace "$scratch/ws1" 2>&1) || code=$?
  [ "$code" -eq 2 ] && grep -q "ad-keeper.*neither at $scratch/alone/ad-keeper nor on PATH" <<< "$out" ||
    fail "agent-dispatch without its keeper exited $code:"$'\n'"$out"
  echo "package runs: ok (version $version, doctor, dry run, a run of 3 tasks under the packaged keeper)"
}

step_man() {
  local dir=$root/usr/share/man/man1 page text
  for page in "$dir"/*.1.gz; do
    text=$(LC_ALL=C MANWIDTH=80 man --warnings -l "$page" 2> "$scratch/warnings") ||
      fail "man -l $page failed: $(cat "$scratch/warnings")"
    [ ! -s "$scratch/warnings" ] || fail "man -l $page warns: $(cat "$scratch/warnings")"
    for section in NAME DESCRIPTION "SEE ALSO"; do
      grep -q "^$section\$" <<< "$text" || fail "$page has no $section section"
    done
  done
  # Every command --help shows has a page naming each of its options.
  local path name opt count=0
  while read -r path; do
    name="agent-dispatch${path:+-${path// /-}}"
    page=$dir/$name.1.gz
    [ -f "$page" ] || fail "\`agent-dispatch $path\` has no man page ($name.1.gz)"
    # shellcheck disable=SC2086 # the path's words are the command's argv
    text=$(LC_ALL=C MANWIDTH=200 man -l "$page" 2> /dev/null)
    # shellcheck disable=SC2086
    for opt in $(help_options $path); do
      grep -qE -- "(^|[ ,])$opt([ ,=]|\$)" <<< "$text" || fail "$name(1) does not name $opt of \`agent-dispatch $path --help\`"
    done
    count=$((count + 1))
  done < <(echo; help_commands)
  # And no page of a command that does not exist.
  local pages
  pages=$(ls "$dir" | wc -l)
  [ "$pages" -eq $((count + 1)) ] || fail "$pages pages for $count commands and ad-keeper: $(ls "$dir")"
  echo "package man: ok ($pages pages)"
}

step_completion() {
  local script=$root/usr/share/bash-completion/completions/agent-dispatch
  # complete WORDS...: what the function the script registers for
  # agent-dispatch offers for the last word, as bash calls it on <TAB>.
  cat > "$scratch/complete.sh" << EOF
source "$script"
spec=\$(complete -p agent-dispatch) || exit 3
[[ \$spec =~ -F\ ([^ ]+) ]] || exit 4
COMP_WORDS=("\$@")
COMP_CWORD=\$((\$# - 1))
"\${BASH_REMATCH[1]}" agent-dispatch "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "\${COMPREPLY[@]}"
EOF
  offers() { (cd "$scratch/files" && bash "$scratch/complete.sh" agent-dispatch "$@" | sort | sed '/^$/d'); }
  mkdir -p "$scratch/files/a-folder"
  touch "$scratch/files/a-file.json"
  local files
  files=$(printf 'a-file.json\na-folder')
  # For every command --help lists: exactly its sub-commands (and file names
  # where it takes a positional, as --help shows), and exactly the options
  # of its --help, no hidden one.
  local path want got
  while read -r path; do
    # shellcheck disable=SC2086 # the path's words are the command's argv
    want=$(help_commands $path | awk -v n="$(wc -w <<< "$path")" 'NF == n + 1 { print $NF }')
    # shellcheck disable=SC2086
    if "$packaged" $path --help | grep -q '^Positionals:'; then
      want=$(printf '%s\n%s' "$want" "$files")
    fi
    want=$(sort <<< "$want" | sed '/^$/d')
    # shellcheck disable=SC2086
    got=$(offers $path "")
    [ "$got" = "$want" ] ||
      fail "\`agent-dispatch $path <TAB>\` offers:"$'\n'"$got"$'\n'"--help lists:"$'\n'"$want"
    # shellcheck disable=SC2086
    want=$(help_options $path | sort -u)
    # shellcheck disable=SC2086
    got=$(offers $path -)
    [ "$got" = "$want" ] ||
      fail "\`agent-dispatch $path -<TAB>\` offers:"$'\n'"$got"$'\n'"--help lists:"$'\n'"$want"
  done < <(echo; help_commands)
  # Values: a file name after an option that takes one (also after
  # --opt=, which bash splits at the =), nothing after a number; a flag
  # takes no value; an option's value is not read as a sub-command.
  got=$(offers run --workspace a-)
  [ "$got" = "$files" ] || fail "run --workspace a-<TAB> offers: $got"
  got=$(offers run --workspace = a-)
  [ "$got" = "$files" ] || fail "run --workspace=a-<TAB> offers: $got"
  got=$(offers run --max-parallel "")
  [ -z "$got" ] || fail "run --max-parallel <TAB> offers: $got"
  got=$(offers run --dry-run --js)
  [ "$got" = --json ] || fail "run --dry-run --js<TAB> offers: $got"
  got=$(offers status --workspace policy --js)
  [ "$got" = --json ] || fail "status --workspace policy --js<TAB> offers: $got"
  got=$(offers policy check a-f)
  [ "$got" = "$files" ] || fail "policy check a-f<TAB> offers: $got"
  echo "package completion: ok"
}

step_unit() {
  local unit=$root/lib/systemd/system/agent-dispatch-node@.service
  command -v systemd-analyze > /dev/null || fail "no systemd-analyze (the systemd package; tools/setup.sh)"
  # verify in a root of the packaged unit and program, with the host's
  # targets and slices the unit orders itself after, and the package's man
  # pages for Documentation=. systemd-analyze only warns about a bad
  # setting: any output fails.
  local vroot=$scratch/root
  mkdir -p "$vroot/lib/systemd/system" "$vroot/usr/bin"
  cp "$unit" /lib/systemd/system/*.target /lib/systemd/system/*.slice "$vroot/lib/systemd/system/"
  cp "$packaged" "$vroot/usr/bin/"
  local out code=0
  out=$(MANPATH=$root/usr/share/man systemd-analyze verify --root="$vroot" \
    /lib/systemd/system/agent-dispatch-node@build7.service 2>&1) || code=$?
  [ "$code" -eq 0 ] && [ -z "$out" ] || fail "systemd-analyze verify exited $code:"$'\n'"$out"
  local setting
  for setting in 'EnvironmentFile=/etc/agent-dispatch/node-%i.conf' \
    'ExecStart=/usr/bin/agent-dispatch node --name %i --listen ${AD_NODE_LISTEN} $AD_NODE_OPTIONS' \
    'Restart=on-failure' 'KillMode=process' 'NoNewPrivileges=yes' 'ProtectSystem=strict' \
    'User=agent-dispatch' 'StateDirectory=agent-dispatch'; do
    grep -qxF -- "$setting" "$unit" || fail "the unit lacks $setting"
  done
  # The example node.conf, read as systemd reads it, gives options the node
  # accepts: it gets as far as the certificate files, which do not exist here.
  local AD_NODE_LISTEN="" AD_NODE_OPTIONS=""
  eval "$(grep -E '^AD_NODE_(LISTEN|OPTIONS)=' "$root/usr/share/doc/agent-dispatch/examples/node.conf" |
    sed -E "s/^([A-Z_]+)=(.*)$/\1='\2'/")"
  [ -n "$AD_NODE_LISTEN" ] && [ -n "$AD_NODE_OPTIONS" ] || fail "node.conf sets no AD_NODE_LISTEN or AD_NODE_OPTIONS"
  code=0
  # shellcheck disable=SC2086 # systemd splits $AD_NODE_OPTIONS at spaces too
  out=$(run_clean /usr/bin:/bin "$packaged" node --name build7 --listen "$AD_NODE_LISTEN" $AD_NODE_OPTIONS 2>&1) ||
    code=$?
  [ "$code" -eq 2 ] && grep -q 'NAME.pem' <<< "$out" && ! grep -qi 'not expected\|unknown\|error:' <<< "$out" ||
    fail "the node with node.conf's options exited $code:"$'\n'"$out"
  echo "package unit: ok"
}

step_lintian() {
  local out code=0
  out=$(lintian --tag-display-limit 0 --info "$(deb)" 2>&1) || code=$?
  echo "$out"
  ! grep -q '^E: ' <<< "$out" || fail "lintian reports errors"
  [ "$code" -eq 0 ] || fail "lintian exited $code"
}

"step_$step"
