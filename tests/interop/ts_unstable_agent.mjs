// An agent written with the official TypeScript SDK's v2 agent API and its unstable entry,
// serving the unstable methods on stdio; our generated Client (made with `--unstable`) calls
// them in test_ts_unstable.py.
//
//   node ts_unstable_agent.mjs SDK_PREFIX
//
// It answers session/new, session/fork, session/set_title (the title trimmed, and told as
// session_info_update), session/archive, session/unarchive, session/status, providers/list
// and auth/status, and sends auth/status_update once a session exists. The SDK validates what
// it receives and sends with its unstable schemas.
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";

const [sdkPrefix] = process.argv.slice(2);
const entry = createRequire(join(sdkPrefix, "package.json")).resolve(
  "@agentclientprotocol/sdk/experimental/v2/unstable",
);
const acp = await import(entry);

let sessions = 0;
const app = acp
  .agent({ name: "ts-unstable-agent" })
  .onRequest("initialize", ({ params }) => ({
    protocolVersion: Math.min(params.protocolVersion, 2),
    info: { name: "ts-unstable-agent", version: "0.0.0" },
    capabilities: {
      session: { fork: {}, title: {}, archive: {}, status: {} },
      providers: {},
      auth: { status: {} },
    },
  }))
  .onRequest("session/new", ({ client }) => {
    const sessionId = `ts_session_${++sessions}`;
    setImmediate(() =>
      client
        .notify("auth/status_update", { state: "authenticated", accounts: [{ label: "Interop" }] })
        .catch((error) => {
          console.error("auth/status_update failed:", error);
          process.exit(3);
        }),
    );
    return { sessionId };
  })
  .onRequest("session/fork", () => ({ sessionId: `ts_session_${++sessions}` }))
  .onRequest("session/set_title", async ({ params, client }) => {
    const title = params.title.trim();
    await client.notify("session/update", {
      sessionId: params.sessionId,
      update: { sessionUpdate: "session_info_update", title },
    });
    return { title };
  })
  .onRequest("session/archive", () => ({}))
  .onRequest("session/unarchive", () => ({}))
  .onRequest("session/status", () => ({
    status: "open",
    state: { state: "idle", stopReason: "end_turn" },
  }))
  .onRequest("providers/list", () => ({
    providers: [
      {
        providerId: "main",
        supported: ["anthropic", "openai"],
        required: true,
        current: { apiType: "anthropic", baseUrl: "https://llm.invalid/" },
      },
    ],
  }))
  .onRequest("auth/status", () => ({ state: "authenticated", accounts: [{ label: "Interop" }] }));

const connection = app.connect(
  acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed; // the client closed stdin
