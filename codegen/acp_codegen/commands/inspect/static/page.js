// The inspector's page. Everything the agent wrote is put in the page with textContent, never
// as markup. Data comes from the server's JSON API and event stream, or from the embedded report.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const ROW = 22;
  const FOLD_LINES = 12;  // of a longer hunk, the first lines shown; the rest behind a summary
  const token = new URLSearchParams(location.search).get("token") || "";
  const reportText = $("report").textContent.trim();
  const report = reportText ? JSON.parse(reportText) : null;
  let view = null;
  let traffic = [];   // summaries, by line number
  let shown = [];     // indices into traffic that pass the filters, and {heading: index into turns}
  let selected = null;
  let moving = null;  // the position the slider asked for while a view was loading
  let turns = [];     // the prompt turns, from the view: headings of the traffic list
  let turnsKey = "";
  const folded = new Set();  // turns whose lines the traffic list hides
  const unfolded = new Set();  // the long hunks opened, by place: kept open as the view redraws

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  async function api(path, body) {
    const options = { headers: { Authorization: "Bearer " + token } };
    if (body !== undefined) {
      options.method = "POST";
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const response = await fetch(path, options);
    if (!response.ok) throw new Error((await response.text()).trim() || response.statusText);
    return response.json();
  }

  async function act(path, body) {
    try {
      await api(path, body);
    } catch (error) {
      showError(String(error.message || error));
    }
  }

  function showError(text) {
    $("error").hidden = !text;
    $("error").textContent = text || "";
  }

  // -- the state ---------------------------------------------------------------------------------

  function render(next) {
    view = next;
    const agent = view.agent || {};
    $("source").textContent = (view.mode === "live" ? "agent: " : "trace: ") + view.source;
    $("agent").textContent = [agent.name, agent.version].filter(Boolean).join(" ");
    const negotiated = typeof agent.protocolVersion === "number";
    $("protocol").hidden = !negotiated;
    $("protocol").textContent = negotiated ? "ACP v" + agent.protocolVersion : "";
    const session = view.session;
    const state = session ? session.state || "(no state yet)" : "(no session)";
    const stop = session && session.state === "idle" && session.stopReason ? " · " + session.stopReason : "";
    $("state").textContent = state + stop;
    $("state").className = "badge " + (session && session.state ? session.state : "");
    $("state").dataset.part = "state";
    renderAgent(agent);
    renderSessions(view.sessions || []);
    renderSession(session);
    renderPermission(view.permission);
    showError(view.error);
    $("reconnected").hidden = !view.reconnected;
    $("reconnected").textContent = view.reconnected || "";
    $("refused").hidden = !view.refused;
    $("refused").textContent = view.refused || "";
    const live = view.mode === "live";
    $("prompt-form").hidden = !live;
    $("new-session").hidden = !live;
    $("list-sessions").hidden = !live;
    $("send").disabled = !live || view.running;
    $("cancel").disabled = !live || !view.running;
    $("attach").hidden = !(live && agent.canAttach);
    if (view.mode === "trace" && !report) {
      $("replay").hidden = false;
      $("slider").max = String(view.total);
      if (moving === null) $("slider").value = String(view.at);
      $("position").textContent = "after line " + view.at + " of " + view.total;
      $("export-html").href = "/api/export/html?token=" + encodeURIComponent(token) + "&at=" + view.at;
    }
    // The list is rebuilt only when a turn begins or ends; a running turn's figures are redrawn.
    turns = view.turns || [];
    const key = turns.map((turn) => turn.start + "-" + turn.end).join(",");
    if (key !== turnsKey) { turnsKey = key; filterTraffic(true); }
    else drawTraffic();
  }

  function renderAgent(agent) {
    const details = $("agent-details");
    details.replaceChildren();
    for (const [name, value] of [["name", agent.name], ["version", agent.version],
      ["protocol version", agent.protocolVersion]]) {
      details.append(el("dt", name), el("dd", value === undefined || value === null ? "-" : value));
    }
    $("capabilities").textContent = JSON.stringify(agent.capabilities || {}, null, 2);
  }

  function renderSessions(sessions) {
    const list = $("sessions");
    list.replaceChildren();
    const live = view.mode === "live";
    for (const session of sessions) {
      const item = el("li", null, session.current ? "current" : "");
      item.title = session.id;
      const name = el("span", session.title || session.id, "name");
      if (session.open) name.addEventListener("click", () => chooseSession(session.id));
      item.append(name);
      if (session.forkedFrom) item.append(el("span", " (fork of " + session.forkedFrom + ")", "fork-of"));
      if (session.parentId) item.append(el("span", " (subagent of " + session.parentId + ")", "subagent-of"));
      if (!session.open) item.append(el("span", " (not open)", "block-tag"));
      if (live && !session.open) item.append(sessionButton("resume", session.id));
      if (live && session.open) item.append(sessionButton("close", session.id));
      if (live && session.open && view.agent.canFork) item.append(sessionButton("fork", session.id));
      if (live && view.agent.canDelete) item.append(sessionButton("delete", session.id));
      list.append(item);
    }
  }

  function sessionButton(action, id) {
    const button = el("button", action, "session-" + action);
    button.type = "button";
    button.addEventListener("click", () => act("/api/session", { [action]: id }));
    return button;
  }

  function chooseSession(id) {
    if (report) return;
    if (view.mode === "live") act("/api/session", { use: id });
    else load(view.at, id);
  }

  function renderSession(session) {
    for (const id of ["tool-calls", "terminals", "plans"]) $(id).replaceChildren();
    $("title").textContent = session && session.title ? session.title : "";
    $("title").dataset.part = "sessionInfo";
    $("usage").textContent = "";
    $("notices").replaceChildren();
    $("suggestions").replaceChildren();
    $("suggestions-section").hidden = !session || session.suggestions.length === 0;
    $("subagents").replaceChildren();
    $("subagents-section").hidden = !session || session.subagents.length === 0;
    renderMessages(session ? session.messages : []);
    if (!session) return;
    // The agent's latest prompt suggestions (unstable), each as text like every peer's word.
    for (const text of session.suggestions) $("suggestions").append(el("li", text, "suggestion"));
    for (const child of session.subagents) $("subagents").append(subagent(child));
    for (const call of session.toolCalls) $("tool-calls").append(toolCall(call));
    $("terminals-section").hidden = session.terminals.length === 0;
    for (const terminal of session.terminals) {
      const node = el("div", null, "terminal");
      node.dataset.part = "terminal:" + terminal.id;
      node.append(el("strong", terminal.command || terminal.id));
      if (terminal.exitStatus) node.append(el("span", " exit " + JSON.stringify(terminal.exitStatus)));
      node.append(el("pre", terminal.output));
      $("terminals").append(node);
    }
    for (const plan of session.plans) {  // each plan its own box, named by its turn
      const node = el("div", null, "plan");
      node.dataset.part = "plan:" + plan.id;
      node.title = plan.id;
      node.append(el("div", plan.turn ? "turn " + plan.turn : "plan " + plan.id, "plan-head"));
      for (const entry of plan.entries) {
        const row = el("div", null, "plan-entry");
        row.append(el("span", entry.status, "status " + entry.status), el("span", " " + entry.content));
        node.append(row);
      }
      $("plans").append(node);
    }
    if (session.usage) {
      const cost = session.usage.cost ? ", cost " + session.usage.cost.amount + " " + session.usage.cost.currency : "";
      $("usage").textContent = "usage: context " + session.usage.used + "/" + session.usage.size + cost;
    }
    for (const notice of session.notices) {
      $("notices").append(el("div", "notice [" + (notice.severity || "info") + "]: " +
        [notice.title, notice.description].filter(Boolean).join(": ")));
    }
  }

  // A child session its parent announced: what the parent said of it, as text; its name opens
  // the child's own transcript when the child's updates made it a session here.
  function subagent(child) {
    const item = el("li", null, "subagent");
    item.dataset.part = "subagent:" + child.id;
    item.title = child.id;
    const name = el("span", child.title, "name");
    if ((view.sessions || []).some((s) => s.id === child.id && s.open)) {
      name.classList.add("link");
      name.addEventListener("click", () => chooseSession(child.id));
    }
    item.append(name);
    if (child.state) item.append(el("span", " [" + child.state + "]", "status"));
    if (child.description) item.append(el("span", " - " + child.description, "description"));
    return item;
  }

  function renderMessages(messages) {
    // Messages are kept and their text extended in place: a streamed answer of 100k chunks
    // costs the page the new text, not a rebuild of all of it.
    const box = $("messages");
    const kept = box.children;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i];
      const part = "message:" + message.id;
      let node = kept[i];
      if (!node || node.dataset.part !== part || node.dataset.role !== message.role) {
        node = el("div", null, "message " + message.role);
        node.dataset.part = part;
        node.dataset.role = message.role;
        node.append(el("span", message.role, "role"));
        if (kept[i]) kept[i].replaceWith(node); else box.append(node);
      }
      const spans = node.children;
      for (let j = 0; j < message.blocks.length; j++) {
        const block = message.blocks[j];
        const className = block.kind === "text" ? "" : "block-tag";
        let span = spans[j + 1];
        if (!span) { span = el("span", "", className); node.append(span); }
        span.className = className;
        setText(span, block.text);
      }
      while (spans.length > message.blocks.length + 1) spans[spans.length - 1].remove();
    }
    while (kept.length > messages.length) kept[kept.length - 1].remove();
  }

  function setText(node, text) {
    const old = node.firstChild && node.firstChild.nodeType === Node.TEXT_NODE ? node.firstChild.data : null;
    if (old === text) return;
    if (old !== null && node.childNodes.length === 1 && text.startsWith(old)) {
      node.firstChild.appendData(text.slice(old.length));
    } else {
      node.textContent = text;
    }
  }

  function toolCall(call) {
    const node = el("div", null, "tool-call");
    node.dataset.part = "toolCall:" + call.id;
    node.append(el("strong", call.title || call.id, "title"));
    if (call.kind) node.append(el("span", " (" + call.kind + ") "));
    node.append(el("span", call.status || "", "status " + (call.status || "")));
    for (const location of call.locations) {
      node.append(el("div", location.path + (location.line ? ":" + location.line : ""), "block-tag"));
    }
    call.content.forEach((item, i) => {
      if (item.kind === "diff") {
        node.append(diffNode(item, "toolCall:" + call.id + ":" + i));
      } else {
        node.append(el("pre", item.text, item.block === "text" ? "output" : "block-tag"));
      }
    });
    return node;
  }

  function diffNode(diff, place) {
    // Each file, then its hunks; a long hunk shows its first lines and folds the rest.
    const box = el("div", null, "diff");
    diff.files.forEach((file, f) => {
      const paths = (file.oldPath ? file.oldPath + " → " : "") + file.path;
      const counts = file.hunks.length || file.hidden ? " +" + file.added + " -" + file.removed : "";
      box.append(el("div", file.operation + " " + paths + counts, "diff-file"));
      file.hunks.forEach((hunk, h) => {
        const node = el("div", null, "hunk");
        node.append(el("div", hunk.header, "hunk-header"));
        const rows = hunk.lines.map(diffLine);
        node.append(...rows.slice(0, FOLD_LINES));
        if (rows.length > FOLD_LINES) {
          const rest = el("details", null, "diff-fold");
          const key = place + ":" + f + ":" + h;
          rest.open = unfolded.has(key);
          rest.addEventListener("toggle", () => { if (rest.open) unfolded.add(key); else unfolded.delete(key); });
          rest.append(el("summary", (rows.length - FOLD_LINES) + " more lines"), ...rows.slice(FOLD_LINES));
          node.append(rest);
        }
        box.append(node);
      });
      if (file.hidden) box.append(el("div", file.hidden + " more lines not shown", "block-tag"));
    });
    if (!diff.files.length) box.append(el("div", "(an empty diff)", "block-tag"));
    return box;
  }

  function diffLine(line) {
    const [mark, oldNumber, newNumber, text] = line;
    const row = el("div", null, "diff-line " + mark);
    const sign = mark === "add" ? "+" : mark === "del" ? "-" : mark === "ctx" ? " " : "";
    row.append(el("span", oldNumber, "number"), el("span", newNumber, "number"), el("span", sign + text, "text"));
    return row;
  }

  function renderPermission(permission) {
    $("permission").hidden = !permission;
    $("permission-options").replaceChildren();
    $("permission-diffs").replaceChildren();
    if (!permission) return;
    (permission.diffs || []).forEach((diff, i) => {
      $("permission-diffs").append(diffNode(diff, "permission:" + permission.id + ":" + i));
    });
    $("permission-title").textContent = permission.title;
    // A v1 command's program, folder and every variable: all of what decides what runs.
    $("permission-details").hidden = !permission.description;
    $("permission-details").textContent = permission.description || "";
    const live = view.mode === "live";
    for (const option of permission.options) {
      const button = el("button", option.name + " (" + option.kind + ")");
      button.type = "button";
      button.dataset.option = option.id;
      button.disabled = !live;
      button.addEventListener("click", () => act("/api/permission", { id: permission.id, optionId: option.id }));
      $("permission-options").append(button);
    }
  }

  // -- the traffic -------------------------------------------------------------------------------

  function addTraffic(summaries) {
    for (const summary of summaries) traffic[summary.n] = summary;
    filterTraffic(true);
  }

  function passes(summary) {
    const method = $("filter-method").value.trim().toLowerCase();
    const dir = $("filter-dir").value;
    if (dir && summary.dir !== dir) return false;
    if ($("filter-problems").checked && !summary.problems.length) return false;
    return !method || (summary.label + " " + summary.method).toLowerCase().includes(method);
  }

  function filterTraffic(follow) {
    // The list: each turn's heading before its prompt line, then its lines (none when folded).
    // `follow`: new lines came; a live list scrolled to its end stays there.
    const box = $("traffic-scroll");
    const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - ROW;
    shown = [];
    let next = 0;
    let open = null;
    for (let i = 0; i < traffic.length; i++) {
      while (next < turns.length && turns[next].start <= i) { shown.push({ heading: next }); open = turns[next++]; }
      if (open && open.end !== null && i > open.end) open = null;
      if (open && folded.has(open.n)) continue;
      if (traffic[i] && passes(traffic[i])) shown.push(i);
    }
    $("traffic-spacer").style.height = shown.length * ROW + "px";
    if (follow && atEnd && view && view.mode === "live") box.scrollTop = box.scrollHeight;
    drawTraffic();
  }

  function drawTraffic() {
    // Only the rows in sight exist in the page, so a session of 100k lines scrolls as fast as 10.
    const box = $("traffic-scroll");
    const first = Math.max(0, Math.floor(box.scrollTop / ROW) - 5);
    const last = Math.min(shown.length, first + Math.ceil(box.clientHeight / ROW) + 10);
    const rows = [];
    for (let i = first; i < last; i++) {
      if (typeof shown[i] !== "number") { rows.push(turnRow(turns[shown[i].heading], i)); continue; }
      const summary = traffic[shown[i]];
      const row = el("div", null, "traffic-row");
      row.style.top = i * ROW + "px";
      row.dataset.n = String(summary.n);
      if (summary.problems.length) { row.classList.add("problem"); row.title = summary.problems.join("\n"); }
      if (view && view.mode === "trace" && summary.n >= view.at) row.classList.add("later");
      if (selected === summary.n) row.classList.add("selected");
      row.append(el("span", summary.dir === "send" ? "→" : summary.dir === "recv" ? "←" : "?", "dir"),
        el("span", summary.n + " "), el("span", summary.label));
      row.addEventListener("click", () => showLine(summary.n));
      rows.push(row);
    }
    $("traffic-spacer").replaceChildren(...rows);
  }

  function turnRow(turn, i) {
    const row = el("div", null, "turn-row");
    row.style.top = i * ROW + "px";
    row.dataset.turn = String(turn.n);
    if (view && view.mode === "trace" && turn.start >= view.at) row.classList.add("later");
    const sign = folded.has(turn.n) ? "▸ " : "▾ ";
    const text = sign + turnText(turn);
    row.append(el("span", text));
    row.title = text + (turn.prompt ? "\n" + turn.prompt : "");
    row.addEventListener("click", () => {
      if (folded.has(turn.n)) folded.delete(turn.n); else folded.add(turn.n);
      filterTraffic(false);
    });
    return row;
  }

  function turnText(turn) {
    // turn 2 · first update 41 ms · 1.20 s · 18 updates, 15/s · end_turn · "the prompt"
    const parts = ["turn " + turn.n];
    if (turn.firstUpdate !== null) parts.push("first update " + seconds(turn.firstUpdate));
    if (turn.duration !== null) parts.push(seconds(turn.duration));
    let updates = turn.updates + (turn.updates === 1 ? " update" : " updates");
    if (turn.duration) updates += ", " + Math.round(turn.updates / turn.duration) + "/s";
    parts.push(updates, turn.end === null ? "running" : turn.stop || "ended");
    if (turn.prompt) parts.push("“" + turn.prompt + "”");
    return parts.join(" · ");
  }

  function seconds(value) {
    return value < 1 ? Math.round(value * 1000) + " ms" : value.toFixed(2) + " s";
  }

  async function showLine(n) {
    selected = n;
    drawTraffic();
    let detail;
    if (report) {
      const touches = report.touches ? report.touches[n] : null;  // older reports have none
      detail = { record: report.records[n], summary: report.traffic[n], touches: touches };
    }
    else detail = await api("/api/line?n=" + n);
    $("line-detail").hidden = false;
    $("line-head").textContent = "line " + n + " · " + detail.summary.label;
    const problems = detail.summary.problems.length ? "problems: " + detail.summary.problems.join("; ") : "";
    const touches = detail.touches;
    const changes = touches ? "changes " + touches.entity + (touches.key ? " " + touches.key : "") : "";
    $("line-touches").textContent = [changes, problems].filter(Boolean).join(" · ");
    $("line-json").textContent = JSON.stringify(detail.record, null, 2);
    $("goto-line").hidden = !view || view.mode !== "trace";
    for (const node of document.querySelectorAll(".highlight")) node.classList.remove("highlight");
    $("line-changed").replaceChildren();
    $("line-changed").hidden = true;
    if (touches) {
      const part = touches.key ? touches.entity + ":" + touches.key : touches.entity;
      const target = document.querySelector('[data-part="' + CSS.escape(part) + '"]') ||
        document.querySelector('[data-part="' + CSS.escape(touches.entity) + '"]');
      if (target) {
        showChanged(target);
        target.classList.add("highlight");
        target.scrollIntoView({ block: "nearest" });
      }
    }
  }

  function showChanged(target) {
    // Beside the line's JSON: the part of the state it changed, as the conversation shows it
    // now (a copy of nodes built with textContent: still text, never markup).
    const copy = target.cloneNode(true);
    copy.removeAttribute("id");
    for (const node of [copy, ...copy.querySelectorAll("[data-part], [id]")]) {
      delete node.dataset.part;
      node.removeAttribute("id");
    }
    const where = view && view.mode === "trace" ? " (as of line " + view.at + ")" : "";
    $("line-changed").append(el("div", "what it changed" + where, "pane-head"), copy);
    $("line-changed").hidden = false;
  }

  // -- moving through a trace --------------------------------------------------------------------

  async function load(at, session) {
    const query = new URLSearchParams();
    if (at !== null && at !== undefined) query.set("at", String(at));
    const id = session || (view && view.sessionId);
    if (id) query.set("session", id);
    render(await api("/api/view?" + query));
  }

  let refreshing = false;
  let stale = false;

  async function refresh() {
    // One view request at a time; changes meanwhile make one more. A page busy drawing a long
    // session asks for fewer views instead of falling behind.
    if (refreshing) { stale = true; return; }
    refreshing = true;
    try {
      do { stale = false; await load(null); } while (stale);
    } catch (error) {
      showError(String(error.message || error));
    } finally {
      refreshing = false;
    }
  }

  function here() {
    // Where the replay is, or is going: a step taken while a view loads goes on from there.
    return moving !== null ? moving : view.at;
  }

  async function goTo(at) {
    if (!view || view.mode !== "trace") return;
    moving = Math.max(0, Math.min(view.total, at));
    $("slider").value = String(moving);  // the slider follows the buttons and the keys
    while (moving !== null) {  // the latest position asked for wins; steps in between are skipped
      const target = moving;
      await load(target);
      if (moving === target) moving = null;
    }
    $("slider").value = String(view.at);
  }

  // -- wiring ------------------------------------------------------------------------------------

  $("slider").addEventListener("input", () => goTo(Number($("slider").value)));
  $("step-first").addEventListener("click", () => goTo(0));
  $("step-back").addEventListener("click", () => goTo(here() - 1));
  $("step-forward").addEventListener("click", () => goTo(here() + 1));
  document.addEventListener("keydown", (event) => {
    // Left and right step through a trace from wherever the page is (the slider, focused,
    // moves itself; a text field keeps its keys).
    if (!view || view.mode !== "trace" || report || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest && event.target.closest("input, textarea, select")) return;
    if (event.key === "ArrowLeft") { event.preventDefault(); goTo(here() - 1); }
    if (event.key === "ArrowRight") { event.preventDefault(); goTo(here() + 1); }
  });
  $("step-last").addEventListener("click", () => goTo(view.total));
  $("goto-line").addEventListener("click", () => goTo(selected + 1));
  $("traffic-scroll").addEventListener("scroll", drawTraffic);
  for (const id of ["filter-method", "filter-dir", "filter-problems"]) {
    $(id).addEventListener("input", () => filterTraffic(false));
  }
  $("new-session").addEventListener("click", () => act("/api/session", { new: true }));
  $("list-sessions").addEventListener("click", () => act("/api/session", { list: true }));
  $("cancel").addEventListener("click", () => act("/api/cancel", {}));
  $("prompt-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { text: $("prompt-text").value };
    const file = $("attach").files[0];
    if (file) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      let binary = "";
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      body.attachment = { name: file.name, base64: btoa(binary) };
    }
    $("prompt-text").value = "";
    $("attach").value = "";
    await act("/api/prompt", body);
  });

  if (report) {
    $("exports").hidden = true;
    addTraffic(report.traffic);
    render(report.view);
    return;
  }
  const query = "?token=" + encodeURIComponent(token);
  $("export-trace").href = "/api/export/trace" + query;
  $("export-html").href = "/api/export/html" + query;
  api("/api/traffic").then((summaries) => {
    addTraffic(summaries);
    return load(null);
  }).then(() => {
    if (view.mode !== "live") return;
    const events = new EventSource("/api/events" + query + "&from=" + traffic.length);
    events.addEventListener("traffic", (event) => addTraffic(JSON.parse(event.data)));
    events.addEventListener("changed", refresh);
  }).catch((error) => showError(String(error.message || error)));
})();
