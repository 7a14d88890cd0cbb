// The official TypeScript SDK's v1 client (the package's main entry, what editors built on it
// use today) drives one of our agents over stdio as a v1 client.
//
//   node ts_v1_client.mjs SDK_PREFIX CWD -- AGENT_COMMAND [ARGS...]
//
// The run: initialize (protocol version 1), session/new, a turn whose permission request is
// allowed, a turn cancelled (session/cancel, then the pending permission request answered
// `cancelled`, as v1 asks of a client), session/list and session/close. The SDK validates
// every message with its zod schemas; a received notification that fails is only reported
// with console.error, so console.error is recorded ("sdkErrors") and the test requires it to
// be empty. On stdout: one JSON summary, the shape py_sdk_v1_client.py prints.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { format } from "node:util";

const [sdkPrefix, cwd, dashes, ...agentCommand] = process.argv.slice(2);
if (dashes !== "--" || agentCommand.length === 0) {
  throw new Error("usage: ts_v1_client.mjs SDK_PREFIX CWD -- AGENT_COMMAND [ARGS...]");
}
// The main entry of the package is its stable v1 API (resolved through its export map).
const entry = createRequire(join(sdkPrefix, "package.json")).resolve("@agentclientprotocol/sdk");
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

const answers = ["allow", "cancel"];
const permissions = [];
const app = acp.client({ name: "acp-codegen-interop" });
app.onRequest("session/request_permission", async ({ params, agent }) => {
  const answer = answers.shift();
  permissions.push({
    answer,
    options: params.options.map((option) => option.optionId),
    toolCallId: params.toolCall.toolCallId,
    title: params.toolCall.title ?? null,
  });
  if (answer === "cancel") {
    await agent.notify("session/cancel", { sessionId: params.sessionId });
    return { outcome: { outcome: "cancelled" } };
  }
  return { outcome: { outcome: "selected", optionId: "allow" } };
});

// One turn: the prompt's answer (its stop reason) and the updates that came before it.
async function turn(session, text) {
  const answer = session.prompt(text);
  const updates = [];
  for (;;) {
    const message = await session.nextUpdate();
    if (message.kind === "stop") {
      return { answer: await answer, updates };
    }
    updates.push(message.update);
  }
}

const summary = await app.connectWith(stream, async (ctx) => {
  const initialized = await ctx.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: "acp-codegen-interop", version: "0.0.0" },
  });
  const session = await ctx.buildSession(cwd).start();
  const allowed = await turn(session, "count these four words");
  const cancelled = await turn(session, "this turn is cancelled");
  const listed = await ctx.request("session/list", { cwd });
  const closed = await ctx.request("session/close", { sessionId: session.sessionId });
  session.dispose();
  return {
    sdkProtocolVersion: acp.PROTOCOL_VERSION,
    initialized,
    sessionId: session.sessionId,
    turns: [allowed, cancelled],
    permissions,
    listed,
    closed,
  };
});

agentProcess.stdin.end(); // our agents exit when stdin closes
const exitCode = await exited;
process.stdout.write(JSON.stringify({ ...summary, agentExitCode: exitCode, sdkErrors }) + "\n");
