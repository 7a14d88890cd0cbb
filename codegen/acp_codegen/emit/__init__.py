"""Emission: the package's files rendered in memory, with datamodel-code-generator (models),
Jinja (everything else), black and their helpers, plus the tables built from the rendered models
(typed surface, snapshot types, tolerance, protocol reference). May import `model` and `load`."""
