// An agent written with the official TypeScript SDK's v1 agent API behind the SDK's protocol
// router, configured with v1 only (as agents serve today's editors); our client and `chat`
// drive it in test_v1_client.py.
//
//   node ts_v1_agent.mjs SDK_PREFIX
//
// Each turn: a thought, a plan of two steps, a tool call that asks for permission, then (when
// allowed) the tool call completes and the prompt's words come back as chunks of one agent
// message, the plan is replaced with both steps done, and the prompt answers `end_turn`. A
// rejected or cancelled permission ends the turn: `cancelled` when the client cancelled it.
// The session lists two modes and switches to the second during the turn.
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";

const [sdkPrefix] = process.argv.slice(2);
const resolve = createRequire(join(sdkPrefix, "package.json")).resolve;
const v1 = await import(resolve("@agentclientprotocol/sdk"));
const v2 = await import(resolve("@agentclientprotocol/sdk/experimental/v2"));

let sessions = 0;
const cancelled = new Set();

function plan(status) {
  return {
    sessionUpdate: "plan",
    entries: [
      { content: "Ask to look", priority: "high", status },
      { content: "Answer", priority: "medium", status },
    ],
  };
}

async function runTurn(client, sessionId, prompt) {
  const update = (body) => client.notify("session/update", { sessionId, update: body });
  await update({
    sessionUpdate: "agent_thought_chunk",
    content: { type: "text", text: "Planning the answer." },
  });
  await update(plan("pending"));
  await update({ sessionUpdate: "current_mode_update", currentModeId: "code" });
  const toolCallId = `look_${sessionId}`;
  await update({
    sessionUpdate: "tool_call",
    toolCallId,
    title: "Look at the prompt",
    kind: "read",
    status: "pending",
    rawInput: { words: prompt.length },
  });
  const answer = await client.request("session/request_permission", {
    sessionId,
    toolCall: { toolCallId, title: "Look at the prompt" },
    options: [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ],
  });
  if (answer.outcome.outcome !== "selected" || answer.outcome.optionId !== "allow") {
    await update({ sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
    return cancelled.has(sessionId) ? "cancelled" : "end_turn";
  }
  await update({
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: "completed",
    content: [{ type: "content", content: { type: "text", text: "looked" } }],
  });
  const words = prompt
    .filter((block) => block.type === "text")
    .flatMap((block) => block.text.split(/\s+/).filter(Boolean));
  for (const word of words) {
    await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${word} ` } });
  }
  await update(plan("completed"));
  return "end_turn";
}

const app = v1
  .agent({ name: "ts-v1-agent" })
  .onRequest("initialize", () => ({
    protocolVersion: 1,
    agentCapabilities: {},
    agentInfo: { name: "ts-v1-agent", version: "0.0.0" },
  }))
  .onRequest("session/new", () => ({
    sessionId: `ts_v1_session_${++sessions}`,
    modes: {
      currentModeId: "ask",
      availableModes: [
        { id: "ask", name: "Ask" },
        { id: "code", name: "Code" },
      ],
    },
  }))
  .onRequest("session/prompt", async ({ params, client }) => {
    cancelled.delete(params.sessionId);
    return { stopReason: await runTurn(client, params.sessionId, params.prompt) };
  })
  .onNotification("session/cancel", ({ params }) => {
    cancelled.add(params.sessionId);
  });

const router = v2.agentProtocolRouter().withV1(app);
const connection = router.connect(
  v1.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed; // the client closed stdin
