"""Wire values and framing: what a message is made of before any connection exists.

The runtime's exceptions and JSON-RPC error codes (`errors`), plain JSON values and pointers
(`jsonvalue`), the ACP v2 vocabulary the lifecycles speak (`protocol`), the table rows a
generated package fills in (`tables`), models to and from wire JSON (`convert`), check-only and
tolerant validation (`checks`, `tolerant`), and the bytes of a message: newline-delimited
lines on a byte stream (`line_framing`, `pushed_lines`) or one message per transport frame
(`message_frames`).

May import: nothing of the runtime outside this floor.
"""
