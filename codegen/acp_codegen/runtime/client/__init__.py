"""The client lifecycle (v2): a client's sessions, folded from the agent's updates.

`client_side` drives `initialize`, session setup and prompts as a `Dispatcher`; `client_session`
is one session and its state (its lifecycle is the core's `client_view.SessionView`);
`permission_request` is a permission the agent asks for, waiting for an answer. Another protocol
version plugs in through `dialect` (`ClientDialect`): this floor never imports one (v1/
implements it).

May import: state, rpc, core, wire (not agent: the two lifecycles share nothing but the floors
below).
"""
