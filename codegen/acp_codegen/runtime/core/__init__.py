"""The protocol core: the protocol's decisions, with no I/O (no asyncio, sockets, files).

`turn_state` is the agent's turn lifecycle as a synchronous state machine: where an accepted
prompt goes, what a cancel does, when a permission request changes the reported state, which
stop reason a turn ends with, and which late or duplicate messages change nothing.
`client_view` is the client's view of one session: what an update means for it (closed by a
takeover, a turn's end) and when a prompt is refused. `versions` holds the version rules: the
version an `initialize` settles on, what is refused before it, and which version's dispatcher a
message goes to. `client_rules` says what a client refuses to send (a setup before `initialize`,
a prompt for a session not set up here), `client_setup` what it makes of its setup answers (an
`initialize` body of another version, the state a session setup answer carries, a whole replay
rebuilding a session), `prompt_content` which prompt content an agent's capabilities allow
(both sides apply it), and `client_gates` what an agent may send a client given the
capabilities it advertised, and the form it sends otherwise.

The async code (agent/turns.py, agent/agent_session.py, client/client_session.py,
client/client_side.py, rpc/version_router.py) is the adapter: it tells the core what happened,
does what the answer says (writes, spawns, cancels) and keeps the I/O. Every call here is a few
attribute reads and writes, so the hot paths pay nothing for asking.

May import: wire (and only its pure values: tests/test_layout.py checks that nothing here
imports asyncio, socket, os, io, threading, subprocess or selectors).
"""
