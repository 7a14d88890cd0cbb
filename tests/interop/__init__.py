"""Interop with the official ACP SDKs (TypeScript and the Python pre-release), over real pipes."""
