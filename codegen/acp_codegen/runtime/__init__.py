"""Hand-written runtime copied into every generated package (relative imports only).

Its layers, lowest first; a subpackage imports only its own floor and the floors below it
(tests/test_layout.py checks every arrow):

    serving/     an agent served over Streamable HTTP, WebSocket and SSE
    transports/  stdio; the remote wire both ends agree on; the client's HTTP/WebSocket/SSE ends
    guard/       who may use a web endpoint: origin, host and token checks; an agent's access
    v1/          the v1 dialect, for both sides: an adapter over the v2 lifecycles
    client/      the client lifecycle: sessions folded from updates, prompts, permissions
    agent/       the agent lifecycle: initialize, the session registry, turns, update handles
    state/       session state and the merge of updates into it; what is kept for replay
    rpc/         the JSON-RPC connection, dispatch, version negotiation and routing
    core/        the protocol's decisions, no I/O: turn lifecycle, a client's session, versions
    wire/        wire values: errors, JSON, the v2 vocabulary, table rows, checks, line framing

The lifecycles are async adapters around `core/`: they feed it what happened and do the I/O it
decides on. Nothing here imports the generator or a generated module: generated code hands in
its tables.
"""
