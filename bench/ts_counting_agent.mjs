// The counting agent of bench/remote_load.py, written with the official TypeScript SDK's v2
// agent API and served by its own server (`AcpServer`) over Streamable HTTP and WebSocket on
// 127.0.0.1, a free port: the peer bench/remote_vs_ts.py measures ours against.
//
//   node ts_counting_agent.mjs SDK_PREFIX WS_PREFIX
//
// SDK_PREFIX is an npm prefix holding @agentclientprotocol/sdk (tests/interop/sdk_cache.py's),
// WS_PREFIX one holding `ws`, which the SDK's WebSocket server side needs. A prompt whose text
// is a number N is answered with its receipt ({messageId}); the turn then sends what ours sends
// for it: the user_message, state running, N chunks "0 ", "1 ", ... of one agent message (each
// awaited, as ours awaits each append), state idle with end_turn. Prints "serving ACP on
// http://127.0.0.1:PORT/" on stderr once listening; runs until killed.
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";

const [sdkPrefix, wsPrefix] = process.argv.slice(2);
const resolve = createRequire(join(sdkPrefix, "package.json")).resolve;
const acp = await import(resolve("@agentclientprotocol/sdk/experimental/v2"));
const { AcpServer } = await import(resolve("@agentclientprotocol/sdk/experimental/server"));
const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } = await import(
  resolve("@agentclientprotocol/sdk/experimental/node")
);

function countingAgent() {
  let sessions = 0;
  let messages = 0;

  async function runTurn(client, sessionId, userMessageId, prompt) {
    const update = (body) => client.notify("session/update", { sessionId, update: body });
    await update({ sessionUpdate: "user_message", messageId: userMessageId, content: prompt });
    await update({ sessionUpdate: "state_update", state: "running" });
    const replyId = `reply_${++messages}`;
    const count = Number.parseInt(prompt[0].text, 10);
    for (let number = 0; number < count; number++) {
      await update({
        sessionUpdate: "agent_message_chunk",
        messageId: replyId,
        content: { type: "text", text: `${number} ` },
      });
    }
    await update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
  }

  return acp
    .agent({ name: "ts-counting-agent" })
    .onRequest("initialize", ({ params }) => ({
      protocolVersion: Math.min(params.protocolVersion, 2),
      info: { name: "ts-counting-agent", version: "0.0.0" },
      capabilities: { session: {} },
    }))
    .onRequest("session/new", () => ({ sessionId: `sess_${++sessions}` }))
    .onRequest("session/prompt", ({ params, client }) => {
      const messageId = `user_${++messages}`;
      // The receipt goes out when this handler returns; the turn runs after it.
      setImmediate(() =>
        runTurn(client, params.sessionId, messageId, params.prompt).catch((error) => {
          console.error("the turn failed:", error);
          process.exit(3);
        }),
      );
      return { messageId };
    });
}

const server = new AcpServer({ createAgent: countingAgent });
const http = createServer(createNodeHttpHandler(server));
const { WebSocketServer } = createRequire(join(wsPrefix, "package.json"))("ws"); // CommonJS
const sockets = new WebSocketServer({ noServer: true });
http.on("upgrade", createNodeWebSocketUpgradeHandler(server, sockets));
http.listen(0, "127.0.0.1", () => {
  console.error(`serving ACP on http://127.0.0.1:${http.address().port}/`);
});
