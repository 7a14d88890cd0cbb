// The official TypeScript SDK's remote clients (experimental/http-client, experimental/ws-client)
// drive one of our agents served with --http, through the scenario of ts_scenario.mjs.
//
//   node --experimental-websocket ts_remote_client.mjs SDK_PREFIX CWD URL http|ws [TOKEN]
//
// TOKEN, when given, goes in `Authorization: Bearer` on every request (and on the WebSocket
// upgrade). On stdout: one JSON summary that test_ts_remote.py asserts on.
import { createRequire } from "node:module";
import { join } from "node:path";
import { runScenario } from "./ts_scenario.mjs";

const [sdkPrefix, cwd, url, transport, token] = process.argv.slice(2);
if (!url || !["http", "ws"].includes(transport)) {
  throw new Error("usage: ts_remote_client.mjs SDK_PREFIX CWD URL http|ws [TOKEN]");
}
const resolve = createRequire(join(sdkPrefix, "package.json")).resolve;
const acp = await import(resolve("@agentclientprotocol/sdk/experimental/v2"));
const headers = token ? { Authorization: `Bearer ${token}` } : {};

// Node's WebSocket (undici) takes headers in its options object rather than in the third
// argument the SDK passes, so the constructor handed to the SDK moves them there.
class HeaderWebSocket extends WebSocket {
  constructor(address, protocols, options) {
    super(address, { protocols: protocols ?? [], headers: options?.headers ?? {} });
  }
}

let stream;
if (transport === "http") {
  const { createHttpStream } = await import(resolve("@agentclientprotocol/sdk/experimental/http-client"));
  stream = createHttpStream(url, { headers });
} else {
  const { createWebSocketStream } = await import(resolve("@agentclientprotocol/sdk/experimental/ws-client"));
  stream = createWebSocketStream(url, { headers, WebSocket: HeaderWebSocket });
}
const summary = await runScenario(acp, stream, cwd);
process.stdout.write(JSON.stringify(summary) + "\n");
process.exit(0); // the SDK's streams hold no more work; do not wait for keep-alive timers
