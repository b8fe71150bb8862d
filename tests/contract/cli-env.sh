#!/usr/bin/env bash
# Prepares a private HOME in which one real agent CLI talks only to the mock
# provider (tools/mock-provider) on 127.0.0.1:PORT, and prints the
# environment to run it with, one NAME=value per line.
#
#   cli-env.sh [--retries N] [--retry-delay-ms N] [--timeout-ms N]
#              [--sdk-retries N] [--oauth] [--pi-cost IN,OUT,CACHE_READ,CACHE_WRITE]
#              codex|claude|pi PORT HOME_DIR
#
# --retries N          codex: request_max_retries and stream_max_retries;
#                      claude: CLAUDE_CODE_MAX_RETRIES; pi: retry.maxRetries
# --retry-delay-ms N   pi: retry.baseDelayMs (codex and claude have no such knob)
# --timeout-ms N       codex: stream_idle_timeout_ms (a stream silent this
#                      long fails); claude: API_TIMEOUT_MS, pi:
#                      retry.provider.timeoutMs (a request left without
#                      response headers this long fails; a stream that
#                      stalls after them is not cut)
# --sdk-retries N      pi: retry.provider.maxRetries (the openai SDK's own
#                      retries of 429 and 5xx under pi's, default 2)
# --oauth              claude: a subscriber token (CLAUDE_CODE_OAUTH_TOKEN)
#                      instead of ANTHROPIC_API_KEY
# --pi-cost A,B,C,D    pi: the models' prices in models.json (US dollars per
#                      million input, output, cache-read, cache-write
#                      tokens), so pi reports a cost; without it pi reports 0
# Without options every CLI keeps its own defaults (as in the captures).
#
# Every proxy variable points at a closed loopback port with loopback
# exempt, so a request that is not for the mock fails at once; for a hard
# guarantee run the CLI in a network namespace with only loopback
# (`unshare -n` as root, as the contract tests do). Run the CLI with stdin
# from /dev/null.
set -euo pipefail

usage() {
  sed -n '6,8p' "$0" | sed 's/^# *//' >&2
  exit 2
}

retries="" delay="" idle="" sdk="" oauth=0 cost=""
while [ $# -gt 0 ]; do
  case "$1" in
  --retries) retries="${2:?}"; shift 2 ;;
  --retry-delay-ms) delay="${2:?}"; shift 2 ;;
  --timeout-ms) idle="${2:?}"; shift 2 ;;
  --sdk-retries) sdk="${2:?}"; shift 2 ;;
  --oauth) oauth=1; shift ;;
  --pi-cost) cost="${2:?}"; shift 2 ;;
  --) shift; break ;;
  -*) usage ;;
  *) break ;;
  esac
done
[ $# -eq 3 ] || usage
cli="$1" port="$2" home="$3"
case "$port" in '' | *[!0-9]*) usage ;; esac
for n in "$retries" "$delay" "$idle" "$sdk"; do
  case "$n" in *[!0-9]*) usage ;; esac
done
price=""
if [ -n "$cost" ]; then
  IFS=, read -r p_in p_out p_read p_write extra <<<"$cost"
  for n in "$p_in" "$p_out" "$p_read" "$p_write"; do
    [[ "$n" =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage
  done
  [ -z "$extra" ] || usage
  price=", \"cost\": {\"input\": $p_in, \"output\": $p_out, \"cacheRead\": $p_read, \"cacheWrite\": $p_write}"
fi
mkdir -p "$home"
home="$(cd "$home" && pwd)"

# Joins its arguments with ", ".
join() {
  local out="$1"
  shift
  for x in "$@"; do out="$out, $x"; done
  printf '%s' "$out"
}

dead="http://127.0.0.1:9"
common() {
  echo "HOME=$home"
  for v in HTTP_PROXY HTTPS_PROXY ALL_PROXY http_proxy https_proxy all_proxy; do
    echo "$v=$dead"
  done
  echo "NO_PROXY=127.0.0.1,localhost"
  echo "no_proxy=127.0.0.1,localhost"
}

case "$cli" in
codex)
  mkdir -p "$home/.codex"
  {
    echo 'model_provider = "mock"'
    echo
    echo '[model_providers.mock]'
    echo 'name = "mock"'
    echo "base_url = \"http://127.0.0.1:$port/v1\""
    echo 'wire_api = "responses"'
    if [ -n "$retries" ]; then
      echo "request_max_retries = $retries"
      echo "stream_max_retries = $retries"
    fi
    if [ -n "$idle" ]; then echo "stream_idle_timeout_ms = $idle"; fi
  } >"$home/.codex/config.toml"
  common
  echo "CODEX_HOME=$home/.codex"
  ;;
claude)
  mkdir -p "$home/.claude"
  common
  echo "ANTHROPIC_BASE_URL=http://127.0.0.1:$port"
  if [ "$oauth" -eq 1 ]; then
    echo "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-mock"
  else
    echo "ANTHROPIC_API_KEY=sk-ant-api03-mock"
  fi
  echo "DISABLE_TELEMETRY=1"
  echo "DISABLE_ERROR_REPORTING=1"
  echo "DISABLE_AUTOUPDATER=1"
  echo "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"
  # claude refuses --dangerously-skip-permissions as root outside a sandbox.
  if [ "$(id -u)" -eq 0 ]; then echo "IS_SANDBOX=1"; fi
  if [ -n "$retries" ]; then echo "CLAUDE_CODE_MAX_RETRIES=$retries"; fi
  if [ -n "$idle" ]; then echo "API_TIMEOUT_MS=$idle"; fi
  ;;
pi)
  mkdir -p "$home/.pi/agent"
  cat >"$home/.pi/agent/models.json" <<EOF
{
  "providers": {
    "iop": {
      "baseUrl": "http://127.0.0.1:$port/v1",
      "api": "openai-completions",
      "apiKey": "mock-key",
      "models": [
        {"id": "laguna-s", "name": "laguna-s", "reasoning": true$price},
        {"id": "laguna-m", "name": "laguna-m", "reasoning": true$price}
      ]
    }
  }
}
EOF
  retry=() provider=()
  if [ -n "$retries" ]; then retry+=("\"maxRetries\": $retries"); fi
  if [ -n "$delay" ]; then retry+=("\"baseDelayMs\": $delay"); fi
  if [ -n "$idle" ]; then provider+=("\"timeoutMs\": $idle"); fi
  if [ -n "$sdk" ]; then provider+=("\"maxRetries\": $sdk"); fi
  if [ ${#provider[@]} -gt 0 ]; then retry+=("\"provider\": {$(join "${provider[@]}")}"); fi
  if [ ${#retry[@]} -gt 0 ]; then
    printf '{\n  "retry": {%s}\n}\n' "$(join "${retry[@]}")" >"$home/.pi/agent/settings.json"
  else
    rm -f "$home/.pi/agent/settings.json"
  fi
  common
  ;;
*) usage ;;
esac
