// Meridian's dashboard. Every call answers with meridian's own envelope
// (ok, data, error, warnings, meta); its errors and warnings are shown as
// meridian words them. The WebSocket says which spaces changed, and what
// shows them is asked for again.
"use strict";

const token = new URLSearchParams(location.search).get("t") || "";
const state = { space: null, run: null, status: "", model: "", agent: "" };
const $ = (id) => document.getElementById(id);

async function call(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: { "X-Meridian-Token": token, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const env = await res.json();
  // A warning is {code, message, context?}; it reads as meridian writes it
  // on stderr for a person.
  for (const w of env.warnings || []) say(`WARNING [${w.code}]: ${w.message}`, false);
  return env;
}

function say(text, error) {
  const p = document.createElement("p");
  p.textContent = text;
  if (error) p.className = "error";
  $("messages").append(p);
  setTimeout(() => p.remove(), 8000);
}

function fail(env) {
  const e = env.error || {};
  say(`${e.code}: ${e.message}${e.suggestion ? " — " + e.suggestion : ""}`, true);
}

function cell(tr, text, cls) {
  const td = document.createElement("td");
  td.textContent = text ?? "";
  if (cls) td.className = cls;
  tr.append(td);
}

// fill shows rows in table, the selected one marked. The same rows again
// (a live update that changed nothing here) leave the table as it is:
// rows replaced under a person's pointer lose the click it was making.
function fill(table, rows, render, selected, pick) {
  const body = $(table).tBodies[0];
  if (unchanged(body, [rows, selected])) return;
  body.replaceChildren();
  for (const row of rows) {
    const tr = document.createElement("tr");
    tr.dataset.id = row.id;
    if (row.id === selected) tr.className = "selected";
    render(tr, row);
    tr.addEventListener("click", () => pick(row.id));
    body.append(tr);
  }
}

// unchanged reports whether el shows what it showed from data last time,
// and remembers data otherwise.
function unchanged(el, data) {
  const key = JSON.stringify(data);
  if (el.dataset.shown === key) return true;
  el.dataset.shown = key;
  return false;
}

// fresh starts a load of kind and returns whether it is still the latest
// of its kind: the WebSocket and the person ask again at any time, and an
// answer that comes after a newer one's (a list from before a filter
// changed) must not overwrite it.
const generations = {};
function fresh(kind) {
  const g = (generations[kind] = (generations[kind] || 0) + 1);
  return () => generations[kind] === g;
}

async function loadSpaces() {
  const latest = fresh("spaces");
  const env = await call("GET", "/api/spaces");
  if (!latest()) return;
  if (!env.ok) return fail(env);
  fill("spaces", env.data, (tr, s) => {
    cell(tr, s.id); cell(tr, s.name); cell(tr, s.status); cell(tr, when(s.started_at));
  }, state.space, pickSpace);
}

async function pickSpace(id) {
  state.space = id;
  state.run = null;
  $("run-pane").hidden = true;
  await Promise.all([loadSpaces(), loadRuns()]);
}

// when is a timestamp as a person reads it: the local date and time.
function when(ts) {
  if (!ts) return "";
  const d = new Date(ts);
  return isNaN(d) ? ts : d.toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" });
}

const countRuns = (n) => `${n} ${n === 1 ? "run" : "runs"}`;

function duration(secs) {
  if (secs == null) return "";
  return secs < 60 ? `${secs.toFixed(1)}s` : `${Math.floor(secs / 60)}m${Math.round(secs % 60)}s`;
}

async function loadRuns() {
  if (!state.space) return;
  $("space-pane").hidden = false;
  $("space-title").textContent = `Space ${state.space}`;
  const filters = new URLSearchParams();
  for (const f of ["status", "model", "agent"]) if (state[f]) filters.set(f, state[f]);
  const sp = encodeURIComponent(state.space);
  const latest = fresh("runs");
  const [runs, stats] = await Promise.all([
    call("GET", `/api/spaces/${sp}/runs?${filters}&limit=50`),
    call("GET", `/api/spaces/${sp}/stats?${filters}`), // the totals of the runs the filters select
  ]);
  if (!latest()) return;
  if (!runs.ok) return fail(runs);
  fill("runs", runs.data, (tr, r) => {
    cell(tr, r.id); cell(tr, r.status, `status-${r.status}`); cell(tr, r.model); cell(tr, r.harness);
    cell(tr, when(r.started_at)); cell(tr, duration(r.duration_secs));
    cell(tr, r.cost_usd != null ? `$${r.cost_usd.toFixed(4)}` : "");
    cell(tr, r.input_tokens != null ? `${r.input_tokens} in, ${r.output_tokens ?? 0} out` : "");
  }, state.run, pickRun);
  const more = runs.meta && runs.meta.pagination && runs.meta.pagination.has_more;
  $("more").hidden = !more;
  $("more").textContent = more ? "More runs: meridian run list shows them all." : "";
  if (stats.ok) {
    const t = stats.data;
    $("totals").textContent = `${countRuns(t.runs)} · $${(t.cost_usd || 0).toFixed(4)} · ` +
      `${t.input_tokens || 0} tokens in, ${t.output_tokens || 0} out`;
  }
  if (state.run) loadRun();
  loadChats();
}

// The space's chats, as `meridian space show` tells them: alive or not.
async function loadChats() {
  const latest = fresh("chats");
  const env = await call("GET", `/api/spaces/${encodeURIComponent(state.space)}`);
  if (!latest()) return;
  if (!env.ok) return fail(env);
  const body = $("chats").tBodies[0];
  if (unchanged(body, env.data.chats)) return;
  body.replaceChildren();
  for (const c of env.data.chats || []) {
    const tr = document.createElement("tr");
    tr.dataset.id = c.id;
    cell(tr, c.id); cell(tr, c.harness); cell(tr, c.model); cell(tr, c.alive ? "yes" : "no", c.alive ? "status-running" : "");
    const td = document.createElement("td");
    if (!c.alive) {
      const b = document.createElement("button");
      b.textContent = "Continue";
      b.addEventListener("click", () => startChat({ space: state.space, continue: c.id }));
      td.append(b);
    }
    tr.append(td);
    body.append(tr);
  }
}

// Terminal panes: each a chat — `meridian start` on a terminal of the
// server's. Closing a pane leaves the chat running; a reload attaches to
// every chat still open, and shows what it wrote meanwhile.
const panes = new Map();

async function startChat(form) {
  const env = await call("POST", "/api/terminals", form);
  if (!env.ok) return fail(env);
  openPane(env.data);
}

function openPane(t) {
  if (panes.has(t.id)) return;
  const pane = document.createElement("div");
  pane.className = "pane";
  pane.id = `pane-${t.id}`;
  const head = document.createElement("header");
  const title = document.createElement("span");
  title.textContent = `${t.id}: ${t.title}`;
  const hide = document.createElement("button");
  hide.textContent = "Close pane";
  const end = document.createElement("button");
  end.textContent = "End chat";
  head.append(title, hide, end);
  const box = document.createElement("div");
  box.className = "term";
  pane.append(head, box);
  $("terminals").append(pane);

  const term = new Terminal({ convertEol: false, fontSize: 13, theme: { background: "#1d2430" } });
  const fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  term.open(box);
  fit.fit();
  const ws = new WebSocket(`ws://${location.host}/api/terminals/${t.id}/attach?t=${encodeURIComponent(token)}`);
  ws.binaryType = "arraybuffer";
  const resize = () => ws.readyState === 1 && ws.send(JSON.stringify({ type: "resize", cols: term.cols, rows: term.rows }));
  ws.onopen = resize;
  ws.onmessage = (m) => term.write(new Uint8Array(m.data));
  ws.onclose = (ev) => {
    if (ev.code === 1013 && panes.has(t.id)) { // fell behind: attach again
      closePane(t.id);
      openPane(t);
      return;
    }
    title.textContent = `${t.id}: ${t.title} (ended)`;
  };
  const enc = new TextEncoder();
  term.onData((d) => ws.readyState === 1 && ws.send(enc.encode(d)));
  term.onResize(resize);
  hide.addEventListener("click", () => closePane(t.id));
  end.addEventListener("click", async () => {
    const env = await call("DELETE", `/api/terminals/${t.id}`);
    if (!env.ok) fail(env);
  });
  panes.set(t.id, { pane, ws, term });
  term.focus();
}

function closePane(id) {
  const p = panes.get(id);
  if (!p) return;
  panes.delete(id);
  p.ws.onclose = null;
  p.ws.close();
  p.term.dispose();
  p.pane.remove();
}

async function reattach() {
  const env = await call("GET", "/api/terminals");
  if (!env.ok) return fail(env);
  for (const t of env.data) if (t.alive) openPane(t);
}

$("new-chat").addEventListener("submit", (ev) => {
  ev.preventDefault();
  startChat({ space: state.space || "", model: $("chat-model").value });
});

async function pickRun(id) {
  state.run = id;
  await loadRuns();
}

async function loadRun() {
  const latest = fresh("run");
  const env = await call("GET", `/api/spaces/${encodeURIComponent(state.space)}/runs/${encodeURIComponent(state.run)}`);
  if (!latest()) return;
  if (!env.ok) return fail(env);
  const r = env.data;
  $("run-pane").hidden = false;
  $("run-title").textContent = `Run ${r.id}`;
  const facts = $("run-facts");
  facts.replaceChildren();
  for (const [k, v] of [["status", r.status], ["model", r.model], ["harness", r.harness], ["started", when(r.started_at)],
    ["finished", when(r.finished_at)], ["exit code", r.exit_code], ["directory", r.dir]]) {
    if (v == null || v === "") continue;
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = v;
    facts.append(dt, dd);
  }
  $("run-report").textContent = r.report || "(no report yet)";
  follow(r);
  const list = $("run-artifacts");
  list.replaceChildren(...(r.artifacts || []).map((a) => {
    const li = document.createElement("li"); li.textContent = a; return li;
  }));
  // What the run changed in the project's tree, once it ended.
  const ch = r.changes;
  $("run-changes").hidden = !ch;
  if (ch) {
    $("run-files").replaceChildren(...(ch.files || []).map((f) => {
      const li = document.createElement("li");
      li.textContent = `${f.status || ""} ${f.path || ""}${f.from ? " (from " + f.from + ")" : ""}`.trim();
      return li;
    }));
    const diff = ch.diff || (r.result && r.result.artifacts && r.result.artifacts.git_diff) || "";
    $("run-diff").textContent = (diff || ch.note || "(no diff)") + (ch.diff_truncated ? `\n… ${ch.diff_bytes} bytes in all: output/diff.patch` : "");
  }
}

$("spawn").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const env = await call("POST", "/api/runs", {
    space: state.space || "", prompt: $("prompt").value, model: $("model").value, agent: $("agent").value,
  });
  if (!env.ok) return fail(env);
  say(`Run ${env.data.id} started in space ${env.data.space}.`, false);
  $("prompt").value = "";
  state.space = env.data.space;
  state.run = env.data.id;
  await Promise.all([loadSpaces(), loadRuns()]);
});

// follow shows a running run's output as it comes: the server answers
// `meridian run output` each time it grows, until the run ends.
let following = null;
function follow(r) {
  if (following && following.id === `${state.space}/${r.id}`) return;
  if (following) following.ws.close();
  following = null;
  $("run-live").hidden = r.status !== "running";
  if (r.status !== "running") return;
  $("run-output").textContent = "";
  const path = `/api/spaces/${encodeURIComponent(state.space)}/runs/${encodeURIComponent(r.id)}/output`;
  const ws = new WebSocket(`ws://${location.host}${path}?t=${encodeURIComponent(token)}`);
  following = { id: `${state.space}/${r.id}`, ws };
  ws.onmessage = (m) => {
    const env = JSON.parse(m.data);
    if (!env.ok) return fail(env);
    $("run-output").textContent += env.data.text;
  };
  ws.onclose = () => {
    if (following && following.ws === ws) following = null;
    if (state.run === r.id) loadRun(); // its report, now it has ended
  };
}

$("continue-run").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const path = `/api/spaces/${encodeURIComponent(state.space)}/runs/${encodeURIComponent(state.run)}/continue`;
  const env = await call("POST", path, { prompt: $("continue-prompt").value });
  if (!env.ok) return fail(env);
  say(`Run ${env.data.id} continues ${state.run}.`, false);
  $("continue-prompt").value = "";
  state.run = env.data.id;
  await loadRuns();
});

// The filters of run list: a status, a model (an id or alias), an agent
// profile.
for (const f of ["status", "model", "agent"]) {
  $(`${f}-filter`).addEventListener("change", (ev) => {
    state[f] = ev.target.value.trim();
    loadRuns();
  });
}

// Wait for the space's running runs to end, as `run wait` does.
$("wait-space").addEventListener("click", async () => {
  const env = await call("GET", `/api/spaces/${encodeURIComponent(state.space)}/wait`);
  if (!env.ok) return fail(env);
  const w = env.data;
  say(`Waited for ${countRuns(w.runs.length)}: ${w.succeeded} succeeded, ${w.failed} failed, ${w.cancelled} cancelled.`, false);
  await loadRuns();
});

$("close-space").addEventListener("click", async () => {
  const path = `/api/spaces/${encodeURIComponent(state.space)}/close`;
  let env = await call("POST", path);
  if (!env.ok && env.error.code === "CONFIRMATION_REQUIRED") {
    if (!confirm(env.error.message)) return;
    env = await call("POST", `${path}?confirm=yes`);
  }
  if (!env.ok) return fail(env);
  say(`Space ${state.space} closed.`, false);
  await loadSpaces();
});

function listen() {
  const ws = new WebSocket(`ws://${location.host}/api/events?t=${encodeURIComponent(token)}`);
  ws.onopen = () => { $("live").className = "on"; };
  ws.onmessage = (m) => {
    // "ready" once the server watches (after a reconnect, anything may have
    // changed), then "changed" with the spaces whose files changed.
    const ev = JSON.parse(m.data);
    loadSpaces();
    if (state.space && (ev.type === "ready" || ev.spaces.includes(state.space))) loadRuns();
  };
  ws.onclose = () => { $("live").className = "off"; setTimeout(listen, 1000); };
}

loadSpaces();
listen();
reattach();
