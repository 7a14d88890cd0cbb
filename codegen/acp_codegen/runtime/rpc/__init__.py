"""The JSON-RPC 2.0 layer: one connection, its dispatch, and the protocol version on it.

`connection` owns a connection's lifecycle and writing; `incoming` handles what the peer sends
(`messages` classifies it, `resumed` finishes requests answered at once); `dispatch` routes
calls to handlers through the generated tables; `outgoing_checks` checks what this side sends;
`version_router` routes each message to the dispatcher the core's rules pick; `peer` is what
generated proxies send through; `trace` records the traffic; `task_owner` (`TaskOwner`) holds
the tasks a connection, an agent side, a transport or a server starts, and cancels them when
its holder closes.

May import: core, wire.
"""
