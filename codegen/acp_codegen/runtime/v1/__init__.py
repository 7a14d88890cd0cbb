"""The v1 dialect: both lifecycles spoken to a v1 peer, as one adapter per side over the v2 ones.

Both sides are built the same way. The lifecycle's floor names a dialect seam and speaks v2
through its default implementation (`agent.dialect.AgentDialect` / `V2AgentWire`,
`client.dialect.ClientDialect` / `V2ClientWire`); this floor's adapter implements that seam for
v1 and is also the `Dispatcher` of what a v1 peer sends, over the same lifecycle object
(sessions, states, hooks are shared: the version is settled per connection):

- agent: `agent_side.V1AgentSide` over `AgentSide`, handed to `AgentSide.initialize`;
  `agent_wire` writes the lifecycle's reports in v1's words, `agent_renamed` serves v1's
  methods v2 renamed, `client_services` is the v1 client's file system and terminals for the
  agent's author.
- client: `client_wire.V1ClientWire` in `ClientSide` (made by `V1Tables(...).dialect`), the
  wire `ClientSide` speaks once `initialize` settles on v1; `client_updates` reads v1 updates
  as the v2 updates its session states fold.

Each adapter is given v1's tables (`V1Tables`: the generated `.v1` method tables and the
repairs of what that side receives) and puts itself behind v1's checks (`checked()`); the
lifecycle's `versioned(v2)` (`AgentSide.versioned`, `ClientSide.versioned`) routes each
connection to v2 or to the adapter by the negotiated version. `assembly` does this for the
generated package, which calls it with its tables. v1's names (version number, renamed methods,
field names) are `constants`'.

May import: client, agent, state, rpc, wire.
"""
