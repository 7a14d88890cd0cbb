"""A hostile v1 agent that asks the client for files it should not have. Each line of a prompt
is one request; a relative PATH is taken under the session's cwd (as an agent would):

- `read PATH`: `fs/read_text_file`; says `read PATH: <content>` or `read PATH refused (CODE):
  <message>`;
- `read-all PATH...`: reads them all at once (concurrent requests); says each as `read`;
- `write PATH TEXT`: `fs/write_text_file`; says `wrote PATH` or `write PATH refused (CODE): ...`;
- `race PATH N`: reads PATH N times, one after another; says `race: N reads, K refused,
  contents [...]` (every distinct content it got, so a test sees whether one came from
  elsewhere);
- `write-race PATH N`: writes `N` to PATH N times; says `write-race: N writes, K refused`.

    python reader_agent.py                       # serve on stdio
    python reader_agent.py --http 127.0.0.1:0    # serve over HTTP and WebSocket
"""

import argparse
import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import Agent, Prompt, RpcError, Session, models
from acp_bindings._runtime.serving.http_options import add_http_arguments, http_settings
from acp_bindings.v1 import models as v1_models


class Reader(Agent):
    info = models.Implementation(name="reader-agent", version="1.0.0")
    protocol_versions = (1,)  # the client's file services exist in v1 only

    async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
        cwd = session.setup.get("cwd") or "/"
        for line in prompt.text.splitlines():
            verb, _, rest = line.partition(" ")
            if verb == "read":
                await session.say(await self.read(session, cwd, rest) + "\n")
            elif verb == "read-all":
                reads = [self.read(session, cwd, path) for path in rest.split()]
                await session.say("".join(said + "\n" for said in await asyncio.gather(*reads)))
            elif verb == "write":
                path, _, text = rest.partition(" ")
                await session.say(await self.write(session, cwd, path, text) + "\n")
            elif verb == "race":
                path, _, count = rest.partition(" ")
                await session.say(await self.race(session, cwd, path, int(count)) + "\n")
            elif verb == "write-race":
                path, _, count = rest.partition(" ")
                refused = [await self.write(session, cwd, path, count) for _ in range(int(count))]
                failed = sum(1 for said in refused if not said.startswith("wrote"))
                await session.say(f"write-race: {count} writes, {failed} refused\n")
        return "end_turn"

    async def fetch(self, session: Session, path: str) -> str:
        request = v1_models.ReadTextFileRequest(session_id=session.session_id, path=path)
        return (await self.client_services.fs_read_text_file(request)).content

    async def read(self, session: Session, cwd: str, path: str) -> str:
        try:
            return f"read {path}: {await self.fetch(session, os.path.join(cwd, path))}"
        except RpcError as error:
            return f"read {path} refused ({error.code}): {error.message}"

    async def write(self, session: Session, cwd: str, path: str, text: str) -> str:
        request = v1_models.WriteTextFileRequest(
            session_id=session.session_id, path=os.path.join(cwd, path), content=text
        )
        try:
            await self.client_services.fs_write_text_file(request)
        except RpcError as error:
            return f"write {path} refused ({error.code}): {error.message}"
        return f"wrote {path}"

    async def race(self, session: Session, cwd: str, path: str, count: int) -> str:
        contents: set[str] = set()
        refused = 0
        for _ in range(count):
            try:
                contents.add(await self.fetch(session, os.path.join(cwd, path)))
            except RpcError:
                refused += 1
        return f"race: {count} reads, {refused} refused, contents {sorted(contents)}"


def main() -> None:
    parser = argparse.ArgumentParser()
    add_http_arguments(parser)
    remote = http_settings(parser, parser.parse_args())
    if remote is None:
        Reader().run()
    else:
        Reader().run_http(remote.host, remote.port, access=remote.access)


if __name__ == "__main__":
    main()
