// The official TypeScript SDK's v2 client drives one of our agents over stdio.
//
//   node ts_client.mjs SDK_PREFIX CWD -- AGENT_COMMAND [ARGS...]
//
// SDK_PREFIX is the npm prefix that holds @agentclientprotocol/sdk (test_ts_sdk.py installs it).
// The run: initialize, session/new, a turn whose permission request is allowed, a turn
// cancelled (session/cancel) while its permission request is pending, session/list,
// session/close and a prompt after the close. On stdout: one JSON summary that the pytest side
// asserts on. The SDK validates every message it receives and sends with its zod schemas; that
// is always on (there is no option to turn it off). A received notification that fails it is
// only reported with console.error, so console.error is recorded into the summary
// ("sdkErrors") and the test requires it to be empty.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { runScenario } from "./ts_scenario.mjs";

const [sdkPrefix, cwd, dashes, ...agentCommand] = process.argv.slice(2);
if (dashes !== "--" || agentCommand.length === 0) {
  throw new Error("usage: ts_client.mjs SDK_PREFIX CWD -- AGENT_COMMAND [ARGS...]");
}
// Resolved through the package's own export map, from the cache folder (not from this file).
const entry = createRequire(join(sdkPrefix, "package.json")).resolve(
  "@agentclientprotocol/sdk/experimental/v2",
);
const acp = await import(entry);

const agentProcess = spawn(agentCommand[0], agentCommand.slice(1), {
  stdio: ["pipe", "pipe", "inherit"],
});
const exited = new Promise((resolve) => agentProcess.on("exit", resolve));
const stream = acp.ndJsonStream(
  Writable.toWeb(agentProcess.stdin),
  Readable.toWeb(agentProcess.stdout),
);

const summary = await runScenario(acp, stream, cwd);

agentProcess.stdin.end(); // our agents exit when stdin closes (closing the connection may have)
const exitCode = await exited;
process.stdout.write(JSON.stringify({ ...summary, agentExitCode: exitCode }) + "\n");
