"""`acp-codegen chat`: a terminal client for any ACP v2 agent, built on the bindings the tool
vendors into itself (`acp_codegen._bindings`)."""
