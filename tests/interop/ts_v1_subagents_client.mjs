// The official TypeScript SDK's v1 client (its unstable entry: v1's unstable schemas, which have
// child sessions) drives one of our agents over stdio and records every `session/update`.
//
//   node ts_v1_subagents_client.mjs FOLLOW SDK_PREFIX CWD -- AGENT_COMMAND [ARGS...]
//
// FOLLOW is `yes` (the client advertises `clientCapabilities.subagents`) or `no`. The run:
// initialize (protocol version 1), session/new, one prompt. The SDK validates what it receives
// with its zod schemas; a notification it refuses is only reported with console.error,
// recorded here ("sdkErrors"). On stdout: one JSON summary.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { format } from "node:util";

const [follow, sdkPrefix, cwd, dashes, ...agentCommand] = process.argv.slice(2);
if (!["yes", "no"].includes(follow) || dashes !== "--" || agentCommand.length === 0) {
  throw new Error("usage: ts_v1_subagents_client.mjs yes|no SDK_PREFIX CWD -- AGENT_COMMAND");
}
const entry = createRequire(join(sdkPrefix, "package.json")).resolve("@agentclientprotocol/sdk/unstable");
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

const updates = [];
const app = acp.client({ name: "acp-codegen-interop" });
app.onNotification("session/update", ({ params }) => {
  updates.push(params);
});

const summary = await app.connectWith(stream, async (ctx) => {
  const initialized = await ctx.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: follow === "yes" ? { subagents: {} } : {},
    clientInfo: { name: "acp-codegen-interop", version: "0.0.0" },
  });
  const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
  const answer = await ctx.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "go" }],
  });
  return { protocolVersion: initialized.protocolVersion, sessionId, answer };
});

agentProcess.stdin.end(); // our agents exit when stdin closes
const exitCode = await exited;
process.stdout.write(
  JSON.stringify({ ...summary, updates, agentExitCode: exitCode, sdkErrors }) + "\n",
);
