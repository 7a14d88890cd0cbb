// The echo agent of ts_echo_agent.mjs served over Streamable HTTP by the official TypeScript
// SDK's server transport (experimental/server, experimental/node) on 127.0.0.1, a free port;
// our client reaches it in test_ts_remote.py. With WS_PREFIX (an npm prefix holding the `ws`
// package, which the SDK's WebSocket server side needs), WebSocket upgrades are served too.
//
//   node ts_remote_agent.mjs SDK_PREFIX [WS_PREFIX]
//
// Prints "serving ACP on http://127.0.0.1:PORT/" on stderr once listening; runs until killed.
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { echoAgent } from "./ts_echo_agent.mjs";

const [sdkPrefix, wsPrefix] = process.argv.slice(2);
const resolve = createRequire(join(sdkPrefix, "package.json")).resolve;
const acp = await import(resolve("@agentclientprotocol/sdk/experimental/v2"));
const { AcpServer } = await import(resolve("@agentclientprotocol/sdk/experimental/server"));
const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } = await import(
  resolve("@agentclientprotocol/sdk/experimental/node")
);

const server = new AcpServer({ createAgent: () => echoAgent(acp) });
const http = createServer(createNodeHttpHandler(server));
if (wsPrefix) {
  const { WebSocketServer } = createRequire(join(wsPrefix, "package.json"))("ws"); // CommonJS
  const sockets = new WebSocketServer({ noServer: true });
  http.on("upgrade", createNodeWebSocketUpgradeHandler(server, sockets));
}
http.listen(0, "127.0.0.1", () => {
  console.error(`serving ACP on http://127.0.0.1:${http.address().port}/`);
});
