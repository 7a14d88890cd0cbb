"""chat's rule for what a v1 agent's command may carry (`command_env`, `command_request`), and
`Terminals` refusing before anyone is asked: every refusal is -32602 saying why, and the
question names the program that really runs."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from acp_codegen._bindings import RpcError
from acp_codegen.commands.chat.command_env import (
    NOTHING_ALLOWED,
    AllowedEnv,
    invalid_name,
    why_refused,
)
from acp_codegen.commands.chat.command_request import MAX_ENV
from acp_codegen.commands.chat.gate import Gate, Question
from acp_codegen.commands.chat.terminals import Terminals
from acp_codegen.commands.chat.workspace import Workspace

# Each line a group of names, in the order of the rules.
REFUSED_LINES = (
    "LD_PRELOAD ld_preload LD_AUDIT LD_LIBRARY_PATH DYLD_INSERT_LIBRARIES GLIBC_TUNABLES",
    "GCONV_PATH",
    "BASH_ENV ENV ZDOTDIR PROMPT_COMMAND SHELLOPTS BASHOPTS PS4 IFS BASH_FUNC_git%% bash_func_ls%%",
    "GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0 GIT_CONFIG_PARAMETERS GIT_SSH_COMMAND",
    "GIT_EXEC_PATH GIT_PAGER GIT_EDITOR GIT_ASKPASS GIT_EXTERNAL_DIFF GIT_PROXY_COMMAND git_ssh",
    "PYTHONSTARTUP PYTHONPATH PYTHONWARNINGS PYTHONHOME PERL5OPT PERL5LIB PERLLIB RUBYOPT RUBYLIB",
    "NODE_OPTIONS NODE_PATH JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS CLASSPATH LUA_INIT",
    "PATH Path path MANPATH CDPATH EDITOR VISUAL PAGER MANPAGER LESSOPEN LESSCLOSE BROWSER SHELL",
    "SSH_ASKPASS SUDO_ASKPASS HOME XDG_CONFIG_HOME npm_config_script_shell NPM_CONFIG_USERCONFIG",
    "OPENSSL_CONF CURL_HOME KUBECONFIG DOCKER_CONFIG WGETRC CC MAKEFLAGS CFLAGS RUSTC_WRAPPER",
    "GOFLAGS GOTOOLCHAIN CARGO_HOME PIP_INDEX_URL HTTPS_PROXY https_proxy SSL_CERT_FILE",
    "REQUESTS_CA_BUNDLE CONFIG_SHELL DOTNET_STARTUP_HOOKS ELECTRON_RUN_AS_NODE",
)
REFUSED = [name for line in REFUSED_LINES for name in line.split()]
LET_PASS = [
    "LANG",
    "LC_ALL",
    "TERM",
    "CI",
    "NO_COLOR",
    "FORCE_COLOR",
    "TZ",
    "DEBUG",
    "MY_FLAG",
    "FOO",
]


@pytest.mark.parametrize("name", REFUSED)
def test_variables_that_run_another_program_are_refused_in_any_case(name: str) -> None:
    assert why_refused(name) is not None
    assert why_refused(name.lower()) is not None and why_refused(name.upper()) is not None


@pytest.mark.parametrize("name", LET_PASS)
def test_ordinary_variables_are_asked_about(name: str) -> None:
    assert why_refused(name) is None and not invalid_name(name)


@pytest.mark.parametrize("name", ["", "A=B", "=A", "A\0", "A B", " PATH", "PATH\n", "\x1b[2J"])
def test_names_no_program_reads_are_invalid(name: str) -> None:
    assert invalid_name(name)


def test_allowing_is_by_exact_name_or_name_and_value() -> None:
    allowed = AllowedEnv.parse(["GIT_PAGER", "PAGER=cat"])
    assert allowed.allows("GIT_PAGER", "anything")
    assert not allowed.allows("git_pager", "cat")  # another variable on POSIX
    assert allowed.allows("PAGER", "cat") and not allowed.allows("PAGER", "less")
    with pytest.raises(ValueError, match="not an environment variable name"):
        AllowedEnv.parse(["A B"])


class Recorder:
    """A gate that says yes and remembers what it was asked and told."""

    def __init__(self, allowed: AllowedEnv = NOTHING_ALLOWED) -> None:
        self.asked: list[Question] = []
        self.told: list[str] = []
        self.gate = Gate(self.confirm, self.told.append, allowed)

    async def confirm(self, question: Question) -> bool:
        self.asked.append(question)
        return True


async def never_written(path: Path, content: str) -> bool:
    return False


def create(tree: Path, recorder: Recorder, command: str, **options: Any) -> str:
    async def main() -> str:
        terminals = Terminals(Workspace(tree, never_written), recorder.gate)
        try:
            terminal = await terminals.create(command, **options)
            await terminals.wait_for_exit(terminal)
            return str(terminals.output(terminal)["output"])
        finally:
            await terminals.close()

    return asyncio.run(main())


def refused(tree: Path, recorder: Recorder, command: str, **options: Any) -> RpcError:
    with pytest.raises(RpcError) as caught:
        create(tree, recorder, command, **options)
    assert caught.value.code == -32602
    assert recorder.asked == []  # refused before anyone was asked
    return caught.value


def test_a_refused_variable_is_never_asked_about(tmp_path: Path) -> None:
    recorder = Recorder()
    env = {"FOO": "1", "LD_PRELOAD": "/tmp/x.so", "Path": "/tmp"}
    error = refused(tmp_path, recorder, "true", env=env)
    assert error.data == {"env": ["LD_PRELOAD", "Path"]}
    assert "--allow-env LD_PRELOAD --allow-env Path" in error.message
    assert recorder.told and "--allow-env LD_PRELOAD" in recorder.told[0]


@pytest.mark.parametrize(
    ("command", "options", "why"),
    [
        ("", {}, "an empty command"),
        ("true", {"args": ["\udc80"]}, "not valid text"),
        ("true", {"args": ["a\0b"]}, "NUL"),
        ("true", {"env": {"A=B": "1"}}, "not an environment variable name"),
        ("true", {"env": {"FOO": "\ud800"}}, "not valid text"),
        ("true", {"env": {f"V{n}": "" for n in range(MAX_ENV + 1)}}, "more than"),
        ("no-such-program-here", {}, "no program"),
        ("true", {"cwd": "/"}, "outside the working directory"),
    ],
)
def test_malformed_commands_are_refused_before_asking(
    tmp_path: Path, command: str, options: dict[str, Any], why: str
) -> None:
    assert why in refused(tmp_path, Recorder(), command, **options).message


def test_a_folder_that_leaves_by_a_symlink_or_is_a_file_is_refused(tmp_path: Path) -> None:
    tree = tmp_path / "work"
    tree.mkdir()
    (tree / "out").symlink_to(tmp_path)
    (tree / "up").symlink_to("..")
    (tree / "file").write_text("", encoding="utf-8")
    for cwd, why in (
        (tree / "out", "symlink to an absolute path"),
        (tree / "up", "outside"),
        (tree / "file", "not a folder"),
    ):
        assert why in refused(tree, Recorder(), "true", cwd=str(cwd)).message


def tool(folder: Path, name: str) -> Path:
    """An executable script that prints its path (the file the kernel ran)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!{sys.executable}\nimport sys; print(sys.argv[0])\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_the_question_names_the_program_that_runs(tmp_path: Path) -> None:
    # PATH let through: `git` is the agent's own, and the question says so.
    fake = tool(tmp_path / "bin", "git")
    recorder = Recorder(AllowedEnv.parse(["PATH"]))
    output = create(tmp_path, recorder, "git", env={"PATH": str(tmp_path / "bin")})
    details = recorder.asked[0].details
    assert f"program: {fake}" in details and output.strip() == str(fake)
    assert f"env: PATH={tmp_path / 'bin'}  [let through by --allow-env]" in details
    # A relative command runs from the folder asked for, shown as the file it is.
    local = tool(tmp_path / "sub", "run-me")
    recorder = Recorder()
    output = create(tmp_path, recorder, "./run-me", cwd=str(tmp_path / "sub"))
    assert f"program: {local}" in recorder.asked[0].details and output.strip() == str(local)
    assert recorder.asked[0].title == f"run ./run-me in {tmp_path / 'sub'}"


def test_a_symlinked_program_shows_where_it_leads(tmp_path: Path) -> None:
    real = tool(tmp_path / "real", "thing")
    (tmp_path / "bin").mkdir()
    os.symlink(real, tmp_path / "bin" / "thing")
    recorder = Recorder()
    create(tmp_path, recorder, str(tmp_path / "bin" / "thing"))
    assert f"program: {tmp_path / 'bin' / 'thing'} (-> {real})" in recorder.asked[0].details
