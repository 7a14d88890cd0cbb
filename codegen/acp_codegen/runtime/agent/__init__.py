"""The agent lifecycle (v2): what an agent author's code runs inside.

`agent_side` answers `initialize` and the session methods as a `Dispatcher`; `sessions` is the
session registry; `turns` accepts prompts, runs and cancels turns as the core's turn lifecycle
(`core.turn_state`) decides; `agent_session` and `handles` are what a turn handler sends its
updates through (`prompts`: an accepted prompt and the turn it runs in); `session_owner` says
which connection a session serves and `session_store` keeps sessions whose connection ended,
within limits; `durable_sessions` keeps them in a durable store (store/) beyond the process.
The v1 wire is not known here: v1/ adapts this lifecycle to it.

May import: store, state, rpc, core, wire.
"""
