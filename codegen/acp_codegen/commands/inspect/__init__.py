"""`acp-codegen inspect`: a local web page showing everything an ACP agent does, live or
replayed from a recorded trace."""
