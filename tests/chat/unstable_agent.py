"""A test agent generated with `--unstable` (the package is made by the test, its folder and name
given as arguments): the runtime serves and advertises `session/fork`, `session/set_title`,
`session/archive` and `session/status`. Each turn answers `heard: TEXT`; a prompt `name TEXT`
makes the agent title the session itself (`session_info_update`). With the argument
`hostile`, the titles it gives carry terminal escapes (chat must show them inert); with `v1`
it speaks only ACP v1.
"""

import importlib
import sys

sys.path.insert(0, sys.argv[1])
package = importlib.import_module(sys.argv[2])
MARK = "\x1b]0;pwned\x07\x1b[2J" if "hostile" in sys.argv[3:] else ""


class Unstable(package.Agent):  # type: ignore[misc,name-defined]
    info = package.models.Implementation(name="unstable-agent", version="1.0.0")
    if "v1" in sys.argv[3:]:
        protocol_versions = (1,)

    async def on_prompt(self, session, prompt):  # type: ignore[no-untyped-def]
        text = prompt.text
        if text.startswith("name "):
            await session.set_title(text[5:] + MARK)
        await session.say(f"heard: {text}")
        return "end_turn"


if __name__ == "__main__":
    Unstable().run()
