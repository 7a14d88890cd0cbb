"""The protocol model: the frozen IR the templates see (`ir`), how a schema is lowered into it
(`lower`, `unions`, `nested`), the names it derives (`naming`), the problems that point into a
schema (`errors`) and untrusted text made safe to print (`shown`). The ground floor: imports
nothing of acp-codegen's but itself."""
