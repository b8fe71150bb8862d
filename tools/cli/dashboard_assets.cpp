// The dashboard page (docs/dashboard.md). Plain HTML, CSS and JavaScript,
// no framework and no build step: the page reads /api/v1/state or
// /api/v1/tasks/<name> and renders it, and follows /api/v1/events (read with
// fetch, so the bearer token travels in a header) to read the state again
// on every change, without reloading. Times are shown as the browser's
// local clock time.
#include "tools/cli/dashboard_assets.hpp"

namespace ad::cli {

const std::string_view dashboard_html = R"ad_html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agent-dispatch</title>
<link rel="stylesheet" href="/dashboard.css">
</head>
<body>
<header>
  <a href="#/" class="brand">agent-dispatch</a>
  <span id="live" class="live off" title="live updates">offline</span>
  <span id="clock"></span>
</header>
<form id="token-form" hidden>
  <p>This dashboard needs its token (the contents of the <code>--token</code> file).</p>
  <input id="token" type="password" autocomplete="off" placeholder="token">
  <button type="submit">Open</button>
</form>
<main id="main"><p class="muted">Loading…</p></main>
<script src="/dashboard.js"></script>
</body>
</html>
)ad_html";

const std::string_view dashboard_css = R"ad_css(
:root { --bg: #fbfbfa; --fg: #1d1d1f; --muted: #6b6b70; --line: #e3e3e0;
  --running: #0b7fab; --waiting: #a86b00; --blocked: #c0262d; --failed: #c0262d;
  --complete: #23863a; --pending: #6b6b70; --user-review: #7a3fb0; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
header { display: flex; gap: 1em; align-items: center; padding: .6em 1.2em;
  border-bottom: 1px solid var(--line); background: #fff; }
.brand { font-weight: 600; color: inherit; text-decoration: none; }
#clock { margin-left: auto; color: var(--muted); font-variant-numeric: tabular-nums; }
.live { font-size: 12px; padding: .1em .6em; border-radius: 1em; background: #e6f4ea; color: var(--complete); }
.live.off { background: #f4e6e6; color: var(--blocked); }
main { padding: 1em 1.2em; max-width: 1200px; }
h2 { font-size: 15px; margin: 1.4em 0 .5em; }
.counts { display: flex; flex-wrap: wrap; gap: .5em; }
.count { border: 1px solid var(--line); border-radius: 6px; padding: .4em .8em; background: #fff; min-width: 7em; }
.count b { display: block; font-size: 20px; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: .35em .6em; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; }
code, .mono { font: 12px/1.4 ui-monospace, monospace; }
code.cmd { display: inline-block; background: #f2f2ef; padding: .2em .4em; border-radius: 4px; user-select: all; }
.status { font-weight: 600; }
.status.running { color: var(--running); } .status.waiting { color: var(--waiting); }
.status.blocked { color: var(--blocked); } .status.failed { color: var(--failed); }
.status.complete { color: var(--complete); } .status.pending { color: var(--pending); }
.status.user-review { color: var(--user-review); }
.status.lease-held { color: var(--complete); } .status.lease-expiring { color: var(--waiting); }
.status.lease-lost { color: var(--failed); }
.quota.exhausted, .quota.cool-down, .quota.quota-reset { color: var(--waiting); font-weight: 600; }
.muted { color: var(--muted); }
.output { color: var(--muted); max-width: 40em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#token-form { padding: 1em 1.2em; }
pre.log { max-height: 30em; overflow: auto; background: #fff; border: 1px solid var(--line); padding: .5em; white-space: pre-wrap; }
)ad_css";

const std::string_view dashboard_js = R"ad_js(
"use strict";
const main = document.getElementById("main");
let token = sessionStorage.getItem("agent-dispatch-token") || "";
let following = false;
let refreshTimer = null;

function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, c =>
    ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}
function clock(iso) {
  return iso ? new Date(iso).toLocaleTimeString([], {hour12: false}) : "";
}
function since(iso) {
  if (!iso) return "";
  const s = Math.max(0, Math.floor((Date.now() - new Date(iso).getTime()) / 1000));
  return s < 60 ? s + "s" : s < 3600 ? Math.floor(s / 60) + "m" + String(s % 60).padStart(2, "0") + "s"
    : Math.floor(s / 3600) + "h" + String(Math.floor(s % 3600 / 60)).padStart(2, "0") + "m";
}
function status(word) { return `<span class="status ${esc(word)}">${esc(word)}</span>`; }
function taskLink(name) { return `<a href="#/task/${encodeURIComponent(name)}">${esc(name)}</a>`; }
function targetLink(name) { return name ? `<a href="#/target/${encodeURIComponent(name)}">${esc(name)}</a>` : ""; }
function nodeLink(name) { return name ? `<a href="#/node/${encodeURIComponent(name)}">${esc(name)}</a>` : ""; }
function quota(t) {
  return `<span class="quota ${esc(t.quota)}">${esc(t.quota || "no wait recorded")}</span>` +
    (t.until ? " until " + clock(t.until) : "");
}
function headers() { return token ? {"Authorization": "Bearer " + token} : {}; }

function askToken() {
  const form = document.getElementById("token-form");
  form.hidden = false;
  main.innerHTML = "";
  form.onsubmit = e => {
    e.preventDefault();
    token = document.getElementById("token").value.trim();
    sessionStorage.setItem("agent-dispatch-token", token);
    form.hidden = true;
    start();
  };
}

async function api(path) {
  const res = await fetch(path, {headers: headers(), cache: "no-store"});
  if (res.status === 401) { askToken(); throw new Error("token needed"); }
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

function table(head, rows) {
  if (!rows.length) return `<p class="muted">none</p>`;
  return `<table><thead><tr>${head.map(h => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function runningTable(list) {
  return table(["task", "role", "attempt", "since", "tokens", "last output"], list.map(a =>
    `<tr data-task="${esc(a.task)}"><td>${taskLink(a.task)}</td><td>${esc(a.role)}</td><td>#${a.attempt}</td>
    <td>${clock(a.started)} <span class="muted">${since(a.started)}</span></td><td class="tokens">${esc(a.usage_text)}</td>
    <td class="output mono" title="${esc(a.output)}">${esc(a.output)}</td></tr>`));
}
function failuresTable(list) {
  return table(["time", "task", "class", "evidence"], list.map(f =>
    `<tr data-class="${esc(f.failure_class)}"><td>${clock(f.time)}</td><td>${taskLink(f.task)}</td>
    <td>${esc(f.failure_class)}</td><td class="mono">${esc(f.evidence)}</td></tr>`));
}
function targetPage(all, name) {
  const t = all.targets.find(x => x.target === name);
  if (!t) { main.innerHTML = `<p><a href="#/">← overview</a></p><p class="muted">no target named ${esc(name)} in this ${all.source === "run" ? "run" : "state"}</p>`; return; }
  const classes = Object.entries(t.failure_counts).map(([k, n]) => `${esc(k)} ×${n}`).join(", ");
  main.innerHTML = `<p><a href="#/">← overview</a></p>
    <h2 id="target-name">${esc(t.target)}</h2>
    <p id="quota">quota: ${quota(t)} <span class="muted">${esc(t.quota_reason)}</span></p>
    <p id="spent">spent: ${t.usage_text ? esc(t.usage_text) : `<span class="muted">nothing reported</span>`}</p>
    ${t.finished !== undefined ? `<p>attempts finished: ${t.finished}${classes ? "; failures: " + classes : ""}</p>` : ""}
    <h2>Running here</h2>${runningTable(t.running)}
    <h2>${all.source === "run" ? "Recent failures" : "Tasks blocked by a failure here"}</h2>${failuresTable(t.failures)}`;
}
function lease(n) {
  if (!n.lease) return `<span class="muted">not greeted yet</span>`;
  const end = n.lease_until ? (n.lease === "lost" ? " (ended " : " (ends ") + clock(n.lease_until) + ")" : "";
  return `<span class="status lease-${esc(n.lease)}">${esc(n.lease)}</span>${end}`;
}
function nodePage(all, name) {
  const n = all.nodes.find(x => x.node === name);
  if (!n) { main.innerHTML = `<p><a href="#/">← overview</a></p><p class="muted">no node named ${esc(name)}</p>`; return; }
  main.innerHTML = `<p><a href="#/">← overview</a></p>
    <h2 id="node-name">${esc(n.node)}</h2>
    ${n.lease !== undefined ? `<p id="slots">slots: ${n.lease ? `${n.slots_in_use} of ${n.slots} in use` : `<span class="muted">not known yet</span>`}</p>
    <p id="lease">lease: ${lease(n)}${n.problem ? ` <span class="muted">${esc(n.problem)}</span>` : ""}</p>` : ""}
    ${n.started !== undefined ? `<p>attempts started: ${n.started}, finished: ${n.finished}, failed: ${n.failed}; last start ${clock(n.last_started)}</p>` : ""}
    <h2>Running here</h2>${runningTable(n.running)}
    ${n.failures ? `<h2>Recent failures</h2>${failuresTable(n.failures)}` : ""}`;
}

function overview(s, targets, nodes) {
  const counts = Object.entries(s.counts).map(([k, n]) =>
    `<div class="count" data-status="${esc(k)}"><b>${n}</b>${status(k)}</div>`).join("");
  const running = s.running.map(a => `<tr data-task="${esc(a.task)}"><td>${taskLink(a.task)}</td>
    <td>${esc(a.role)}</td><td>${targetLink(a.target)}${a.node ? " @" + nodeLink(a.node) : ""}</td><td>#${a.attempt}</td>
    <td>${clock(a.started)} <span class="muted">${since(a.started)}</span></td><td class="tokens">${esc(a.usage_text)}</td>
    <td class="output mono" title="${esc(a.output)}">${esc(a.output)}</td></tr>`);
  const waits = s.waits.map(w => `<tr data-wait="${esc(w.kind)}"><td>${esc(w.kind)}</td><td>${w.tasks.length}</td>
    <td>${w.tasks.map(t => taskLink(t.task) + (t.until ? " until " + clock(t.until) : "") +
      (t.target ? ` <span class="muted">(${targetLink(t.target)})</span>` : "") +
      (t.owner ? ` <span class="muted">claim held by ${taskLink(t.owner)}</span>` : "")).join("<br>")}</td></tr>`);
  const blocked = s.blocked.map(b => `<tr data-task="${esc(b.task)}"><td>${taskLink(b.task)}</td>
    <td>${esc(b.reason)}</td><td>${b.retry ? `<code class="cmd">${esc(b.retry)}</code>` : ""}</td></tr>`);
  const stops = s.user_review.map(u => `<tr data-task="${esc(u.task)}"><td>${taskLink(u.task)}</td>
    <td>${esc(u.reason)}</td></tr>`);
  const targetRows = targets.targets.map(t => `<tr data-target="${esc(t.target)}"><td>${targetLink(t.target)}</td>
    <td>${quota(t)}</td><td>${t.running.length}</td>
    <td>${esc(Object.entries(t.failure_counts).map(([k, n]) => k + " ×" + n).join(", "))}</td>
    <td class="tokens">${esc(t.usage_text)}</td></tr>`);
  const nodeRows = nodes.nodes.map(n => `<tr data-node="${esc(n.node)}"><td>${nodeLink(n.node)}</td>
    <td>${n.lease !== undefined && n.lease ? n.slots_in_use + "/" + n.slots : ""}</td><td>${n.lease !== undefined ? lease(n) : ""}</td>
    <td>${n.running.length}</td><td>${n.started ?? ""}</td><td>${n.failed ?? ""}</td></tr>`);
  const tasks = s.tasks.map(t => `<tr data-task="${esc(t.task)}" data-status="${esc(t.status)}">
    <td>${taskLink(t.task)}</td><td>${status(t.status)}</td><td>${esc(t.stage)}</td></tr>`);
  main.innerHTML = `<div class="counts">${counts}</div>
    <p id="spent">spent: ${s.usage_text ? esc(s.usage_text) : `<span class="muted">nothing reported yet</span>`}</p>
    ${s.summary ? `<p class="mono">${esc(s.summary)}</p>` : ""}
    <h2>Running now</h2>${table(["task", "role", "target", "attempt", "since", "tokens", "last output"], running)}
    <h2>Waiting</h2>${table(["for", "tasks", ""], waits)}
    <h2>Blocked</h2>${table(["task", "reason", "retry with"], blocked)}
    <h2>Waiting for a person (USER_REVIEW)</h2>${table(["task", "required action"], stops)}
    <h2>Targets</h2>${table(["target", "quota", "running", "failures", "spent"], targetRows)}
    ${nodeRows.length ? `<h2>Nodes</h2>${table(["node", "slots", "lease", "running", "started", "failed"], nodeRows)}` : ""}
    <h2>All tasks</h2>${table(["task", "status", "stage"], tasks)}`;
}

// The attempt's logs, a page at a time (/api/v1/attempts/<identity>/log):
// what was read stays across the page's re-renders; "more" reads the next page.
let logView = {identity: "", file: "output", text: "", next: 0, eof: true, size: 0, error: ""};
function identityOf(locator) {
  const folder = String(locator || "").split("/").slice(-2, -1)[0] || "";
  const at = folder.indexOf("__");
  return at > 0 ? folder.slice(at + 2) : "";
}
async function readLog(identity, file, more) {
  if (!more) logView = {identity, file, text: "", next: 0, eof: false, size: 0, error: ""};
  try {
    const p = await api(`/api/v1/attempts/${encodeURIComponent(identity)}/log?file=${file}&offset=${logView.next}&limit=65536`);
    logView.text += p.text; logView.next = p.next_offset; logView.eof = p.eof; logView.size = p.size;
  } catch (e) { logView.error = e.message; logView.eof = true; }
  showLog();
}
function showLog() {
  const box = document.getElementById("log");
  if (!box) return;
  const v = logView;
  box.innerHTML = v.identity ? `<p><b class="mono">${esc(v.identity)}</b> ${esc(v.file === "stream" ? "stream.log" : "normalized-output.log")}:
    ${v.next} of ${v.size} bytes ${v.error ? `<span class="status blocked">${esc(v.error)}</span>` : ""}</p>
    <pre id="log-text" class="mono log">${esc(v.text)}</pre>
    ${v.eof ? "" : `<button id="log-more">more</button>`}` : `<p class="muted">choose an attempt's output or stream log above</p>`;
  const more = document.getElementById("log-more");
  if (more) more.onclick = () => readLog(v.identity, v.file, true);
}
function logButtons(identity) {
  return identity ? `<button class="log-open" data-identity="${esc(identity)}" data-file="output">output</button>
    <button class="log-open" data-identity="${esc(identity)}" data-file="stream">stream</button>` : "";
}
function wireLogs() {
  for (const b of document.querySelectorAll("button.log-open"))
    b.onclick = () => readLog(b.dataset.identity, b.dataset.file, false);
  showLog();
}
function workLog(rows) {
  return table(["seq", "time", "event", "role", "attempt", "model", "result", "attempt log", "locator"], (rows || []).map(r =>
    `<tr data-row="${r.seq}"><td>${r.seq}</td><td>${clock(r.time)}</td><td>${esc(r.event)}</td><td>${esc(r.role)}</td>
    <td>${r.attempt}</td><td>${esc(r.model)}</td><td>${esc(r.result)}</td><td>${logButtons(identityOf(r.locator))}</td>
    <td class="mono">${esc(r.locator)}</td></tr>`));
}

// A task of `serve`: its `status --json` object.
function statePage(t) {
  const live = (t.live_attempts || []).map(a => `<tr><td>${esc(a.role)}</td><td>${esc(a.liveness)}</td>
    <td>${esc(a.reason)}</td><td>${esc(a.node || "")}</td><td class="tokens">${esc(a.usage_text)}</td>
    <td class="mono">${esc(a.locator)}</td><td class="output mono">${esc(a.output)}</td></tr>`);
  const route = (t.route || []).map(r => `<tr><td>${esc(r.stage)}</td><td>${esc(r.target)}</td>
    <td>${esc(r.transition)}</td><td>${esc(r.previous_target)}</td></tr>`);
  main.innerHTML = `<p><a href="#/">← overview</a></p>
    <h2 id="task-name">${esc(t.task)}</h2>
    <p>${status(t.status)} <span class="muted">${esc(t.stage)}</span> ${esc(t.reason)}</p>
    <p>attempts of the current plan: ${t.attempts}; target: ${esc(t.target)}</p>
    <p id="spent">spent: ${t.usage_text ? esc(t.usage_text) : `<span class="muted">nothing reported</span>`}</p>
    ${t.retry ? `<p>retry with <code class="cmd">${esc(t.retry)}</code></p>` : ""}
    <h2>Live attempts</h2>${table(["role", "liveness", "why", "node", "tokens", "locator", "last output"], live)}
    <h2>Route</h2>${table(["stage", "target", "transition", "from"], route)}
    ${t.blocked_evidence ? `<h2>Block evidence</h2><pre class="mono">${esc(JSON.stringify(t.blocked_evidence, null, 2))}</pre>` : ""}
    ${t.intervention ? `<h2>Intervention context</h2><pre class="mono">${esc(JSON.stringify(t.intervention, null, 2))}</pre>` : ""}
    <h2>Work log</h2>${workLog(t.work_log)}
    <h2>Attempt log</h2><div id="log"></div>`;
  wireLogs();
}

function taskPage(t) {
  if (!Array.isArray(t.attempts)) return statePage(t);
  const attempts = t.attempts.map(a => `<tr data-attempt="${esc(a.identity)}"><td class="mono">${esc(a.identity)}</td>
    <td>${esc(a.role)}</td><td>${esc(a.target)}${a.node ? " @" + esc(a.node) : ""}</td>
    <td>${clock(a.started)}</td><td>${clock(a.finished)}</td><td>${status(a.status)}</td>
    <td>${a.finished ? a.exit_code : ""}</td><td>${esc(a.failure_class)}</td><td>${esc(a.evidence)}</td>
    <td class="tokens">${esc(a.usage_text)}</td>
    <td class="mono">${esc(a.locator)}</td><td class="output mono">${esc(a.output)}</td><td>${logButtons(a.identity)}</td></tr>`);
  const events = t.events.map(e => `<tr><td>${clock(e.time)}</td><td>${esc(e.event)}</td>
    <td class="mono">${esc(e.reason || e.evidence || e.outcome || e.status || "")}</td></tr>`);
  main.innerHTML = `<p><a href="#/">← overview</a></p>
    <h2 id="task-name">${esc(t.task)}</h2>
    <p>${status(t.status)} <span class="muted">${esc(t.stage)}</span></p>
    <p id="spent">spent this run: ${t.usage_text ? esc(t.usage_text) : `<span class="muted">nothing reported</span>`}</p>
    ${t.wait ? `<p>waits for ${esc(t.wait.kind || "other")}${t.wait.until ? " until " + clock(t.wait.until) : ""}: ${esc(t.wait.reason)}</p>` : ""}
    ${t.blocked ? `<p>blocked: ${esc(t.blocked.reason)}</p>${t.blocked.retry ? `<p>retry with <code class="cmd">${esc(t.blocked.retry)}</code></p>` : ""}` : ""}
    ${t.intervention ? `<h2>Intervention context</h2>
      <p id="intervention-patterns">matched ${esc(t.intervention.pattern_ids.join(", "))} at ${clock(t.intervention.created_at)}; each later attempt's prompt ends with:</p>
      <pre id="intervention" class="mono">${esc(t.intervention.prompt)}</pre>` : ""}
    <h2>Attempts</h2>${table(["attempt", "role", "target", "started", "ended", "status", "exit", "class", "evidence", "tokens", "locator", "last output", "log"], attempts)}
    <h2>Attempt log</h2><div id="log"></div>
    <h2>Work log</h2>${workLog(t.work_log)}
    <h2>Events</h2>${table(["time", "event", "detail"], events)}`;
  wireLogs();
}

async function render() {
  const [route, query] = (location.hash.replace(/^#/, "") || "/").split("?");
  try {
    if (route.startsWith("/task/")) {
      taskPage(await api("/api/v1/tasks/" + route.slice(6)));
      // #/task/<name>?log=<identity>&file=stream opens that log.
      const q = new URLSearchParams(query || "");
      if (q.get("log") && logView.identity !== q.get("log")) await readLog(q.get("log"), q.get("file") || "output", false);
    }
    else if (route.startsWith("/target/")) targetPage(await api("/api/v1/targets"), decodeURIComponent(route.slice(8)));
    else if (route.startsWith("/node/")) nodePage(await api("/api/v1/nodes"), decodeURIComponent(route.slice(6)));
    else overview(...await Promise.all([api("/api/v1/state"), api("/api/v1/targets"), api("/api/v1/nodes")]));
    document.body.dataset.rendered = String(Number(document.body.dataset.rendered || 0) + 1);
  } catch (e) {
    if (e.message !== "token needed") main.innerHTML = `<p class="status blocked">${esc(e.message)}</p>`;
  }
}

function scheduleRender() {
  if (refreshTimer) return;
  refreshTimer = setTimeout(() => { refreshTimer = null; render(); }, 200);
}

async function follow() {
  const live = document.getElementById("live");
  following = true;
  try {
    const res = await fetch("/api/v1/events", {headers: headers(), cache: "no-store"});
    if (res.status === 401) { following = false; askToken(); return; }
    if (!res.ok || !res.body) throw new Error(res.statusText);
    live.textContent = "live"; live.classList.remove("off");
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, {stream: true});
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (/^(event|data):/m.test(message)) {
          document.body.dataset.events = String(Number(document.body.dataset.events || 0) + 1);
          scheduleRender();
        }
      }
    }
  } catch (e) { /* reconnect below */ }
  live.textContent = "offline"; live.classList.add("off");
  setTimeout(follow, 2000);
}

function start() {
  render();
  if (!following) follow();
}

window.addEventListener("hashchange", () => { logView.identity = ""; render(); });
setInterval(() => { document.getElementById("clock").textContent = new Date().toLocaleTimeString([], {hour12: false}); }, 1000);
start();
)ad_js";

} // namespace ad::cli
