// The official TypeScript SDK's unstable client API (its `unstable_*` request specs, reached
// through `request(...)` with the unstable entries of the package) drives an agent generated
// with `--unstable` over stdio, as ACP v2 or v1.
//
//   node ts_unstable_client.mjs VERSION SDK_PREFIX CWD -- AGENT_COMMAND [ARGS...]
//
// The run: initialize, session/new, session/set_title, session/fork, session/list,
// session/archive, session/list (archived only), session/status of both sessions and
// session/unarchive. The SDK validates what it sends and receives with the zod schemas of its
// unstable surface; a notification it refuses is only reported with console.error, recorded
// here ("sdkErrors"). On stdout: one JSON summary.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { format } from "node:util";

const [version, sdkPrefix, cwd, dashes, ...agentCommand] = process.argv.slice(2);
if (!["1", "2"].includes(version) || dashes !== "--" || agentCommand.length === 0) {
  throw new Error("usage: ts_unstable_client.mjs 1|2 SDK_PREFIX CWD -- AGENT_COMMAND [ARGS...]");
}
const exported =
  version === "2" ? "@agentclientprotocol/sdk/experimental/v2/unstable" : "@agentclientprotocol/sdk/unstable";
const entry = createRequire(join(sdkPrefix, "package.json")).resolve(exported);
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

const app = acp.client({ name: "acp-codegen-interop" });
const summary = await app.connectWith(stream, async (ctx) => {
  const hello =
    version === "2"
      ? { protocolVersion: acp.PROTOCOL_VERSION, info: { name: "acp-codegen-interop", version: "0.0.0" } }
      : {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: {},
          clientInfo: { name: "acp-codegen-interop", version: "0.0.0" },
        };
  const initialized = await ctx.request("initialize", hello);
  const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
  const titled = await ctx.request("session/set_title", { sessionId, title: "Interop" });
  const fork = await ctx.request("session/fork", { sessionId, cwd, mcpServers: [] });
  const listed = await ctx.request("session/list", {});
  const archived = await ctx.request("session/archive", { sessionId: fork.sessionId });
  const onlyArchived = await ctx.request("session/list", { archived: "only" });
  const statusOpen = await ctx.request("session/status", { sessionId });
  const statusArchived = await ctx.request("session/status", { sessionId: fork.sessionId });
  const unarchived = await ctx.request("session/unarchive", { sessionId: fork.sessionId });
  return {
    protocolVersion: initialized.protocolVersion,
    capabilities:
      version === "2"
        ? initialized.capabilities?.session ?? null
        : initialized.agentCapabilities?.sessionCapabilities ?? null,
    sessionId,
    titled,
    fork,
    listed,
    archived,
    onlyArchived,
    statusOpen,
    statusArchived,
    unarchived,
  };
});

agentProcess.stdin.end(); // our agents exit when stdin closes
const exitCode = await exited;
process.stdout.write(JSON.stringify({ ...summary, agentExitCode: exitCode, sdkErrors }) + "\n");
