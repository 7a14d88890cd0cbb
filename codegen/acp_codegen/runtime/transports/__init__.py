"""Transports: stdio for both ends, and the client's end of a remote agent.

`stdio` serves on this process's stdin/stdout or spawns an agent; `remote_wire` is what both
remote ends agree on (headers, media types, session routing); `remote_client` reaches an agent
by URL over `http_client` (Streamable HTTP, reading `sse` event streams) or `ws_client`
(WebSocket), both sending through `send_queue`.

May import: guard, v1, client, agent, state, rpc, wire.
"""
