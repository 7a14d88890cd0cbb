"""acp-codegen: typed Python bindings for the Agent Client Protocol from one JSON Schema.

The generator is a pipeline, one subpackage a stage; imports run one way, down this list:
`commands` -> `write` -> `emit` -> `load` -> `model`. `runtime` (copied into every generated
package) and `paths` (where the tool's own files are) import nothing of the rest.
"""

__version__ = "0.1.0"
