"""The v1 dialect: both lifecycles spoken to a v1 peer, as adapters over the v2 ones.

Agent side: `agent_side` serves a v1 client with the same `AgentSide` behind, `agent_wire`
writes the lifecycle's reports in v1's words, `agent_renamed` serves v1's methods v2 renamed,
`client_services` is the v1 client's file system and terminals for the agent's author.
Client side: `client_wire` is the `ClientDialect` a `ClientSide` is given for v1 agents
(`V1Tables(...).dialect`), `client_updates` reads v1 updates as the v2 updates state folds.

May import: client, agent, state, rpc, wire.
"""
