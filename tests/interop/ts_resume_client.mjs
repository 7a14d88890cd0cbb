// The official TypeScript SDK's v2 client (2.4.0, which predates `replay_complete`) resumes a
// session of one of our agents with `replayFrom` over stdio.
//
//   node ts_resume_client.mjs SDK_PREFIX CWD -- AGENT_COMMAND [ARGS...]
//
// The run: initialize, session/new, session/resume with replayFrom start, then the session's
// updates up to `replay_complete` (our agent ends every such replay with it; the SDK's open
// update union must take it). On stdout: one JSON summary; console.error (how the SDK reports
// a notification its schemas refuse) is recorded as "sdkErrors".
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { format } from "node:util";

const [sdkPrefix, cwd, dashes, ...agentCommand] = process.argv.slice(2);
if (dashes !== "--" || agentCommand.length === 0) {
  throw new Error("usage: ts_resume_client.mjs SDK_PREFIX CWD -- AGENT_COMMAND [ARGS...]");
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

const app = acp.client({ name: "acp-codegen-interop" });
const summary = await app.connectWith(stream, async (ctx) => {
  await ctx.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "acp-codegen-interop", version: "0.0.0" },
  });
  const session = await ctx.buildSession(cwd).start();
  const resumed = await ctx.request("session/resume", {
    sessionId: session.sessionId,
    cwd,
    replayFrom: { type: "start" },
  });
  const updates = [];
  for (;;) {
    const { update } = await session.nextUpdate(); // sent before the answer: already here
    updates.push(update.sessionUpdate);
    if (update.sessionUpdate === "replay_complete") break;
  }
  session.dispose();
  return { resumed, updates };
});

agentProcess.stdin.end();
const exitCode = await exited;
process.stdout.write(JSON.stringify({ ...summary, sdkErrors, agentExitCode: exitCode }) + "\n");
