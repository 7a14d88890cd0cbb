"""An agent served remotely: Streamable HTTP, WebSocket and SSE (aiohttp).

`http_server` is the web app and its routes; `remote_link` is the agent's end of one remote
connection, whatever carries it; `ws_server` serves a WebSocket, `event_stream` one SSE
response; `outbox` keeps one receiver's messages in order until it takes them;
`write_progress` bounds how long a write may go without a byte going out; `http_options` says
who may use an agent served remotely (`Access`) and holds the command-line options of an agent
that can also serve remotely.

May import: transports, guard, v1, client, agent, state, rpc, wire.
"""
