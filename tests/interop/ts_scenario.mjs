// The session scenario every TS client peer runs, whatever carries it (stdio: ts_client.mjs;
// HTTP or WebSocket: ts_remote_client.mjs): initialize, session/new, a turn whose permission
// request is allowed, a turn cancelled (session/cancel) while its permission request is
// pending, session/list, session/close and a prompt after the close. Returns the summary the
// pytest side asserts on; console.error output (how the SDK reports a notification its
// schemas refuse) is recorded as "sdkErrors".
import { format } from "node:util";

export async function runScenario(acp, stream, cwd) {
  const sdkErrors = [];
  const printError = console.error;
  console.error = (...args) => {
    sdkErrors.push(format(...args));
    printError(...args);
  };

  // What each permission request is answered with, in order: "allow" selects the agent's
  // "allow" option; "cancel" sends session/cancel, waits until the agent withdraws the pending
  // request with $/cancel_request (2.4.0: an agent cancels the permission requests of the work
  // it stops; the SDK aborts the handler's signal then), and answers `cancelled`.
  const answers = ["allow", "cancel"];
  const permissions = [];
  const app = acp.client({ name: "acp-codegen-interop" });
  app.onRequest("session/request_permission", async ({ params, agent, signal }) => {
    const answer = answers.shift();
    const options = params.options.map((option) => option.optionId);
    if (answer === "cancel") {
      await agent.notify("session/cancel", { sessionId: params.sessionId });
      await new Promise((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener("abort", resolve, { once: true });
      });
      permissions.push({ answer, options, withdrawn: true });
      return { outcome: { outcome: "cancelled" } };
    }
    permissions.push({ answer, options, withdrawn: signal.aborted });
    return { outcome: { outcome: "selected", optionId: "allow" } };
  });

  // One turn: send the prompt and read the session's updates until the idle state that follows
  // this prompt's user_message (an idle state before it, e.g. after session/new, is not the end).
  async function turn(session, text) {
    const receipt = session.prompt(text);
    const updates = [];
    const userMessages = [];
    const replies = new Map();
    const toolCalls = {}; // toolCallId -> the last status reported
    for (;;) {
      const message = await session.nextUpdate();
      const { update } = message;
      updates.push(update.sessionUpdate + (update.state ? `:${update.state}` : ""));
      if (message.kind === "stop") {
        if (userMessages.length > 0) {
          return {
            receipt: await receipt,
            stopReason: message.stopReason,
            userMessageIds: userMessages,
            reply: [...replies.values()].join(""),
            toolCalls,
            updates,
          };
        }
        continue;
      }
      if (update.sessionUpdate === "user_message") userMessages.push(update.messageId);
      if (update.sessionUpdate === "tool_call_update" && update.status) {
        toolCalls[update.toolCallId] = update.status;
      }
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
        replies.set(update.messageId, (replies.get(update.messageId) ?? "") + update.content.text);
      }
    }
  }

  const summary = await app.connectWith(stream, async (ctx) => {
    const initialized = await ctx.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      info: { name: "acp-codegen-interop", version: "0.0.0" },
    });
    const session = await ctx.buildSession(cwd).start();
    const allowed = await turn(session, "count these four words");
    const cancelled = await turn(session, "this turn is cancelled");
    const listed = await ctx.request("session/list", { cwd });
    const closed = await ctx.request("session/close", { sessionId: session.sessionId });
    let afterClose;
    try {
      afterClose = { result: await session.prompt("after the close") };
    } catch (error) {
      afterClose = { error: error.code };
    }
    session.dispose();
    return {
      protocolVersion: initialized.protocolVersion,
      agentName: initialized.info?.name,
      sessionId: session.sessionId,
      turns: [allowed, cancelled],
      permissions,
      listed,
      closed,
      afterClose,
    };
  });
  return { ...summary, sdkErrors };
}
