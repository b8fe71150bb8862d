#include "tools/agent-sim/help_text.hpp"

namespace ad::agent_sim {

std::string_view help_text() {
  return R"(agent-sim: a scriptable stand-in for the codex, claude, agy and pi agent CLIs.

USAGE
  codex|claude|agy|pi ARGS...            (invoked through a symlink of that name)
  agent-sim --as codex|claude|agy|pi|command ARGS...
  agent-sim --as command [--task NAME] [--role worker|selfcheck|review]
            [--workspace DIR] [--scenario FILE] [--model M] [--prompt TEXT] [PROMPT]
  agent-sim check-registry FILE [--max-parallel N]
  agent-sim validate-scenario FILE
  agent-sim demo-scenario --out FILE [--task NAME]...
  agent-sim --help

Each CLI accepts its real argument shape (codex exec --json -C WS -m M -c k=v
... PROMPT; claude -p --output-format stream-json --session-id ID ... PROMPT;
agy --print PROMPT ... --log-file FILE; pi -p --mode json ... [--session FILE]
--session-dir DIR PROMPT) and prints what that CLI prints: the events, retry
lines, failure texts and exit codes of the real codex-cli 0.171.0, Claude
Code 2.1.332 and pi 0.73.1 (tests/fixtures/realcli). Like the public pi, pi
refuses --approve and --session-id unless AGENT_SIM_PI_FLAVOR=dispatcher. The task comes from the PLAN/CODE_REVIEW path, task folder or
attempt locator named in the prompt (or --task); the role from the prompt
wording ("start the review", "fill every missing implementation field") or
--role; a resumed pi session whose prompt names no task takes both from its
first user message; the attempt number counts earlier runs of the same task
and role.

ENVIRONMENT
  AGENT_SIM_SCENARIO     scenario file (no scenario: a competent agent)
  AGENT_SIM_REGISTRY     append one JSON line per run to this file
  AGENT_SIM_COUNTER      attempt counter file (default REGISTRY.attempts,
                         else SCENARIO.attempts; none: the aNN of the marker, else 1)
  AGENT_DISPATCH_EXECUTION_ID  the dispatcher's marker, recorded per run
  AGENT_SIM_FIXED_TIME   ISO time used for event timestamps and archive dates
  AGENT_SIM_SEED         makes generated ids (thread, session, tool) repeatable
  AGENT_SIM_TIME_SCALE   multiplies every wait (0.01 makes a demo fast)
  AGENT_SIM_NATIVE_SESSIONS=1  codex/claude also write native session files
                         ($CODEX_HOME or ~/.codex/sessions; $CLAUDE_CONFIG_DIR
                         or ~/.claude/projects)
  AGENT_SIM_PI_FLAVOR=dispatcher  pi takes --approve and --session-id
  also read as the CLIs do: CLAUDE_CODE_MAX_RETRIES (default 10), TZ,
  ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, OPENAI_BASE_URL

SCENARIO FORMAT (JSON)
  {
    "version": 1,
    "tasks": {
      "<task name, e.g. auth/02+01_api>": {
        "worker" | "selfcheck" | "review": {
          "<attempt number, 1-based>" | "default": { "actions": [ ACTION... ] }
        }
      }
    },
    "defaults": { "worker" | "selfcheck" | "review": { "actions": [ ACTION... ] } },
    "usage": USAGE
  }
  USAGE: {"input_tokens":N, "output_tokens":N, "cache_read_tokens":N,
  "cache_write_tokens":N, "reasoning_tokens":N, "cost_usd":X}, any of them:
  what each request the model answers reports, in the CLI's own fields,
  over the CLI's defaults (codex 1200 input / 40 output, claude 321 / 12 at
  $5 / $25 per million tokens, pi 1234 / 56 without a cost).
  Lookup: tasks[task][role][attempt], then tasks[task][role].default, then
  defaults[role], then the competent agent (2 events, then work / selfcheck /
  review PASS). An action list may also be given as a bare array.

ACTIONS (run in order; "fail" and "exit" end the run)
  {"kind":"work", "checklist":"all|first|none", "mode":"append|touch"}
      append a line to (or touch) every Modified Files Summary path of the
      PLAN, inside the workspace only; fill the CODE_REVIEW checklist
  {"kind":"selfcheck"}                 fill every empty checklist box
  {"kind":"review", "verdict":"PASS|WARN|FAIL"}
      write "## Code Review Result / Overall Verdict: V"; PASS renames the
      review to code_review_<lane>_G<NN>_<plan>.log, writes complete.log and
      moves the folder to agent-task/archive/<YYYY>/<MM>/<group>/<subtask>;
      FAIL and WARN keep plan_/code_review_ logs and write the next
      PLAN/CODE_REVIEW pair with plan=<N+1>
  {"kind":"review", "verdict":"FAIL|WARN", "follow_up":false}
      the same logs and no next pair (a reviewer that stops, for example
      after writing USER_REVIEW.md with a "write" action)
  {"kind":"events", "count":N, "interval_seconds":S}   N tool-call events
  {"kind":"silence", "seconds":T}      no output for T seconds
  {"kind":"hang", "in":"idle|tool_call"}   never finish (tool_call: a tool
                                       call started and never answered)
  {"kind":"fail", "failure":KIND, "variant":"...", "message":"...", "path":"...",
   "retry_after_seconds":N, "resets_at":"ISO", "exit_code":N, "signal":"SIGKILL"}
      KIND: rate_limit, resource_exhausted, quota_exceeded, usage_limit,
      context_length, model_overloaded, model_unavailable,
      connection_refused, stream_disconnected, file_exists (path),
      file_not_found (path), error, root_refusal (first action only: claude
      refuses its launch as root). The CLI retries what the real one retries
      first; codex never ends on connection_refused. Variants (codex):
      rate_limit http|in_stream, model_overloaded capacity|503|529,
      stream_disconnected cut|dropped. Default exit code: the real CLI's
      (codex 1, claude 1, pi 0, agy 1, command 1); with "signal" the run
      kills itself with it.
  {"kind":"retried", "failure":KIND, "times":N, "retry_after_seconds":S}
      N failed requests the CLI retries past (its retry lines and waits),
      then the run goes on; KIND: rate_limit, resource_exhausted,
      model_overloaded, connection_refused, stream_disconnected
  {"kind":"spawn_child", "seconds":T}  fork a child in the same process group
                                       that outlives the run by T seconds
  {"kind":"wait_file", "path":"...", "seconds":T}  wait (real time, at most
                                       T seconds, 0: no limit) until the file exists
  {"kind":"write", "path":"...", "content":"..."}   write one workspace file
  {"kind":"exit", "code":N, "signal":"SIGTERM"}
  {"kind":"collab_tool", "tool":"spawn_agent"}   codex: an item.started
                                       collab_tool_call (review-control test)
  {"kind":"usage", USAGE fields...}    what the requests answered from here
                                       on report (the fields given)

  Errors name the JSON pointer of the bad value, e.g.
  /tasks/auth~102_api/worker/1/actions/0/kind: unknown action "explode"

EXIT
  0 success; the CLI's code for a failure unless the scenario gives one; 1
  for a refused launch; 2 bad scenario, bad arguments or no task found;
  killed by the scenario's or the dispatcher's signal.
  check-registry: 0 clean, 1 violations (one per line), 2 unreadable.
)";
}

} // namespace ad::agent_sim
