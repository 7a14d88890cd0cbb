"""A test agent over stdio, of a package generated with `--unstable` (its folder and name given
as arguments), that speaks ACP v1 only. Each turn announces a child session, messages it,
streams the child's answer as the child, mirrors the child's idle state on the parent, has the
child reply, and says `done`."""

import importlib
import sys

sys.path.insert(0, sys.argv[1])
package = importlib.import_module(sys.argv[2])


class Delegating(package.Agent):  # type: ignore[misc,name-defined]
    info = package.models.Implementation(name="v1-subagent-agent", version="1.0.0")
    protocol_versions = (1,)

    async def on_prompt(self, session, prompt):  # type: ignore[no-untyped-def]
        helper = await session.announce_subagent(title="Helper", description="counts files")
        await helper.send_message("count the files")
        reply = helper.session.agent_message()
        await reply.append("two ")
        await reply.append("files")
        await helper.update(state=package.models.EndTurnIdleStateUpdate())
        await helper.send_message("there are two files", from_child=True)
        await session.say("done")
        return "end_turn"


if __name__ == "__main__":
    Delegating().run()
