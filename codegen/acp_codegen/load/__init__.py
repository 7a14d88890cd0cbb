"""The schema going in: reading a file within limits, validation and its checks (our own
meta-schema, references, names, hostile text), overlays of merge rules, and notes on newer
constructs; `parse.build_protocol` hands the checked document to the model. May import `model`."""
