"""The web guard: who may use a local or remote web endpoint.

`web_guard` is the one set of checks every HTTP surface applies (bind address, Host, Origin,
token).

May import: nothing of the runtime outside this floor (it is below the transports so they can
use it, not because it needs the floors under it).
"""
