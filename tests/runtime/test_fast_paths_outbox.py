"""An event stream's batches (`Outbox.next_batch` with `up_to_bytes`, written as one write by
`event_stream.py`) against its reference, one message per write (`up_to_bytes=0`): on the same
random pushes, failed writes put back (`unget_all`) included, the client gets the same bytes,
and the connection's backlog counts every queued byte."""

from __future__ import annotations

from acp_codegen.runtime.serving.event_stream import _events
from acp_codegen.runtime.serving.outbox import Backlog, Outbox
from hypothesis import given
from hypothesis import strategies as st

from .streams import run

# A step: push these messages, or take what the receiver would (False: its write then fails).
steps = st.lists(
    st.one_of(
        st.lists(st.binary(min_size=1, max_size=40), min_size=1, max_size=5),
        st.booleans(),
    ),
    max_size=20,
)


async def _written(script: list[list[bytes] | bool], up_to_bytes: int) -> bytes:
    """The bytes a receiver wrote over `script` and then what was left; the backlog counted
    every queued byte and nothing more."""
    backlog = Backlog(1 << 20)
    stream = Outbox(backlog)
    lease = stream.acquire()
    wire = b""
    for step in script:
        if isinstance(step, list):
            for frame in step:
                stream.push(frame)
        elif len(stream):
            batch = await stream.next_batch(None, lease, up_to_bytes=up_to_bytes)
            assert batch is not None
            if step:
                wire += _events(batch)
            else:
                stream.unget_all(batch)
    while len(stream):
        batch = await stream.next_batch(None, lease, up_to_bytes=up_to_bytes)
        assert batch is not None
        wire += _events(batch)
    assert backlog.size == 0
    return wire


@given(steps, st.sampled_from([1, 50, 12 * 1024]))
def test_batched_writes_carry_the_bytes_one_message_per_write_carries(
    script: list[list[bytes] | bool], up_to_bytes: int
) -> None:
    async def both() -> tuple[bytes, bytes]:
        return await _written(script, up_to_bytes), await _written(script, 0)

    batched, alone = run(both())
    pushed = b"".join(
        b"data: " + f + b"\n\n" for step in script if isinstance(step, list) for f in step
    )
    assert batched == alone == pushed
