"""`acp-codegen new agent NAME`: a new agent project with the bindings vendored inside it."""
