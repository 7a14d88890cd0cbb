// The official TypeScript SDK's v2 client (2.4.0) cancels the work of a child session (a
// subagent) one of our agents announced, naming the child in `session/cancel`.
//
//   node ts_subagent_client.mjs SDK_PREFIX CWD -- AGENT_COMMAND [ARGS...]
//
// The run: initialize, session/new, session/prompt; once the child reports `running`,
// `session/cancel` with the child's sessionId; then every update up to the parent's idle
// report. On stdout: one JSON summary (each update as [whose, tag, detail], whose being
// "parent" or "child"); console.error (how the SDK reports a notification its schemas
// refuse) is recorded as "sdkErrors".
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { format } from "node:util";

const [sdkPrefix, cwd, dashes, ...agentCommand] = process.argv.slice(2);
if (dashes !== "--" || agentCommand.length === 0) {
  throw new Error("usage: ts_subagent_client.mjs SDK_PREFIX CWD -- AGENT_COMMAND [ARGS...]");
}
const entry = createRequire(join(sdkPrefix, "package.json")).resolve(
  "@agentclientprotocol/sdk/experimental/v2",
);
const acp = await import(entry);

const sdkErrors = [];
const printError = console.error;
console.error = (...args) => {
  sdkErrors.push(format(...args));
  printError(...args);
};

const agentProcess = spawn(agentCommand[0], agentCommand.slice(1), {
  stdio: ["pipe", "pipe", "inherit"],
});
const exited = new Promise((resolve) => agentProcess.on("exit", resolve));
const stream = acp.ndJsonStream(
  Writable.toWeb(agentProcess.stdin),
  Readable.toWeb(agentProcess.stdout),
);

// Every session/update, in arrival order; `waitFor` resolves once one matches.
const received = [];
let waiting = null;
function waitFor(match) {
  const found = received.find(match);
  if (found) return Promise.resolve(found);
  return new Promise((resolve) => {
    waiting = { match, resolve };
  });
}

const app = acp.client({ name: "acp-codegen-interop" }).onNotification("session/update", (ctx) => {
  received.push(ctx.params);
  if (waiting && waiting.match(ctx.params)) {
    const { resolve } = waiting;
    waiting = null;
    resolve(ctx.params);
  }
});
const summary = await app.connectWith(stream, async (ctx) => {
  await ctx.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "acp-codegen-interop", version: "0.0.0" },
  });
  const { sessionId } = await ctx.request("session/new", { cwd });
  await ctx.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "go" }],
  });
  const running = await waitFor(
    (n) => n.sessionId !== sessionId && n.update.sessionUpdate === "state_update",
  );
  const childId = running.sessionId;
  await ctx.notify("session/cancel", { sessionId: childId });
  await waitFor(
    (n) =>
      n.sessionId === sessionId &&
      n.update.sessionUpdate === "state_update" &&
      n.update.state === "idle",
  );
  const whose = (id) => (id === sessionId ? "parent" : id === childId ? "child" : id);
  const updates = received.map((n) => {
    const u = n.update;
    const detail =
      u.sessionUpdate === "state_update"
        ? [u.state, u.stopReason ?? null].join(" ")
        : u.sessionUpdate === "agent_message"
          ? u.content.map((block) => block.text).join("")
          : u.sessionUpdate === "subagent_update"
            ? u.sessionId
            : "";
    return [whose(n.sessionId), u.sessionUpdate, detail];
  });
  return { childId, updates };
});

agentProcess.stdin.end();
const exitCode = await exited;
process.stdout.write(JSON.stringify({ ...summary, sdkErrors, agentExitCode: exitCode }) + "\n");
