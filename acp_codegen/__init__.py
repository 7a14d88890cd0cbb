"""acp-codegen: typed Python bindings for the Agent Client Protocol from one JSON Schema."""

__version__ = "0.1.0"
