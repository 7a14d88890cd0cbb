// The inspector's page. Everything the agent wrote is put in the page with textContent, never
// as markup. Data comes from the server's JSON API and event stream, or from the embedded report.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const ROW = 22;
  const token = new URLSearchParams(location.search).get("token") || "";
  const reportText = $("report").textContent.trim();
  const report = reportText ? JSON.parse(reportText) : null;
  let view = null;
  let traffic = [];   // summaries, by line number
  let shown = [];     // indices into traffic that pass the filters
  let selected = null;
  let moving = null;  // the position the slider asked for while a view was loading

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
    drawTraffic();
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
      if (!session.open) item.append(el("span", " (not open)", "block-tag"));
      if (live && !session.open) item.append(sessionButton("resume", session.id));
      if (live && session.open) item.append(sessionButton("close", session.id));
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
    renderMessages(session ? session.messages : []);
    if (!session) return;
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
    for (const plan of session.plans) {
      const node = el("div");
      node.dataset.part = "plan:" + plan.id;
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
    for (const item of call.content) {
      if (item.kind === "diff") {
        node.append(el("pre", JSON.stringify({ changes: item.changes, patch: item.patch }, null, 2)));
      } else {
        node.append(el("pre", item.text, item.block === "text" ? "output" : "block-tag"));
      }
    }
    return node;
  }

  function renderPermission(permission) {
    $("permission").hidden = !permission;
    $("permission-options").replaceChildren();
    if (!permission) return;
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
    filterTraffic();
  }

  function passes(summary) {
    const method = $("filter-method").value.trim().toLowerCase();
    const dir = $("filter-dir").value;
    if (dir && summary.dir !== dir) return false;
    if ($("filter-problems").checked && !summary.problems.length) return false;
    return !method || (summary.label + " " + summary.method).toLowerCase().includes(method);
  }

  function filterTraffic() {
    const box = $("traffic-scroll");
    const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - ROW;
    shown = [];
    for (let i = 0; i < traffic.length; i++) if (traffic[i] && passes(traffic[i])) shown.push(i);
    $("traffic-spacer").style.height = shown.length * ROW + "px";
    if (atEnd && view && view.mode === "live") box.scrollTop = box.scrollHeight;  // follow
    drawTraffic();
  }

  function drawTraffic() {
    // Only the rows in sight exist in the page, so a session of 100k lines scrolls as fast as 10.
    const box = $("traffic-scroll");
    const first = Math.max(0, Math.floor(box.scrollTop / ROW) - 5);
    const last = Math.min(shown.length, first + Math.ceil(box.clientHeight / ROW) + 10);
    const rows = [];
    for (let i = first; i < last; i++) {
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
    if (touches) {
      const part = touches.key ? touches.entity + ":" + touches.key : touches.entity;
      const target = document.querySelector('[data-part="' + CSS.escape(part) + '"]') ||
        document.querySelector('[data-part="' + CSS.escape(touches.entity) + '"]');
      if (target) { target.classList.add("highlight"); target.scrollIntoView({ block: "nearest" }); }
    }
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

  async function goTo(at) {
    if (!view || view.mode !== "trace") return;
    moving = Math.max(0, Math.min(view.total, at));
    while (moving !== null) {  // the latest position asked for wins; steps in between are skipped
      const target = moving;
      await load(target);
      if (moving === target) moving = null;
    }
  }

  // -- wiring ------------------------------------------------------------------------------------

  $("slider").addEventListener("input", () => goTo(Number($("slider").value)));
  $("step-first").addEventListener("click", () => goTo(0));
  $("step-back").addEventListener("click", () => goTo(view.at - 1));
  $("step-forward").addEventListener("click", () => goTo(view.at + 1));
  $("step-last").addEventListener("click", () => goTo(view.total));
  $("goto-line").addEventListener("click", () => goTo(selected + 1));
  $("traffic-scroll").addEventListener("scroll", drawTraffic);
  for (const id of ["filter-method", "filter-dir", "filter-problems"]) {
    $(id).addEventListener("input", filterTraffic);
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
