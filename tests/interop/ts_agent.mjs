// An agent written with the official TypeScript SDK's v2 agent API, serving on stdio; our
// generated Client drives it in test_ts_sdk.py.
//
//   node ts_agent.mjs SDK_PREFIX
//
// The agent itself is ts_echo_agent.mjs.
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { echoAgent } from "./ts_echo_agent.mjs";

const [sdkPrefix] = process.argv.slice(2);
const entry = createRequire(join(sdkPrefix, "package.json")).resolve(
  "@agentclientprotocol/sdk/experimental/v2",
);
const acp = await import(entry);

const app = echoAgent(acp);
const connection = app.connect(
  acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed; // the client closed stdin
