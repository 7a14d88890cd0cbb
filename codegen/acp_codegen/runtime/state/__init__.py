"""Session state and merge: the state a session's updates fold into, and what is kept of it.

`session_state` folds `session/update`s into a session's state through the merge-rule table
(`merge_plan` checks the table once and precomputes each rule; `records` and `frozen` store the
entities compactly; `malformed` describes what the fold refuses); `history` keeps what an
agent replays on `session/resume`.

Like core/ it does no I/O (tests/test_layout.py checks), so it can be tested without an event
loop.

May import: rpc, core, wire (it needs only wire).
"""
