// The echo agent every TS agent peer serves, whatever carries it (stdio: ts_agent.mjs; HTTP:
// ts_remote_agent.mjs), written with the official TypeScript SDK's v2 agent API.
//
// Each prompt is answered with its insertion receipt ({messageId} of the user_message the
// agent reports), then the turn runs: running, a thought, the prompt's words streamed back as
// chunks of one agent message, usage, idle end_turn. The SDK validates what it receives and
// what it sends (always on); a failure of a notification we send rejects the `notify` promise,
// so it ends the process with an error that the test sees.
export function echoAgent(acp) {
  let sessions = 0;
  let messages = 0;

  async function runTurn(client, sessionId, userMessageId, prompt) {
    const update = (body) => client.notify("session/update", { sessionId, update: body });
    await update({ sessionUpdate: "user_message", messageId: userMessageId, content: prompt });
    await update({ sessionUpdate: "state_update", state: "running" });
    const thoughtId = `thought_${++messages}`;
    await update({
      sessionUpdate: "agent_thought_chunk",
      messageId: thoughtId,
      content: { type: "text", text: "Echoing the prompt." },
    });
    const replyId = `reply_${++messages}`;
    const words = prompt
      .filter((block) => block.type === "text")
      .flatMap((block) => block.text.split(/\s+/).filter(Boolean));
    for (const word of words) {
      await update({
        sessionUpdate: "agent_message_chunk",
        messageId: replyId,
        content: { type: "text", text: `${word} ` },
      });
    }
    await update({ sessionUpdate: "usage_update", used: words.length, size: 1000 });
    await update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
  }

  return acp
    .agent({ name: "ts-interop-agent" })
    .onRequest("initialize", ({ params }) => ({
      // This agent serves v2 only; the client asks for v2 (the test checks it).
      protocolVersion: Math.min(params.protocolVersion, 2),
      info: { name: "ts-interop-agent", version: "0.0.0" },
      capabilities: { session: {} },
    }))
    .onRequest("session/new", () => ({ sessionId: `ts_session_${++sessions}` }))
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
