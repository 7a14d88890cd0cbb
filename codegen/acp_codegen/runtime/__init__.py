"""Hand-written runtime copied into every generated package (relative imports only)."""
