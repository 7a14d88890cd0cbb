"""The pre-commit hook the repository offers (`.pre-commit-hooks.yaml`) and the `repo: local`
variant the README shows: both run this package's own `check` command."""

from __future__ import annotations

import re
import shlex
import tomllib
from typing import Any

import pytest
import yaml
from acp_codegen.commands.cli import _parser
from conftest import REPO

HOOK_ID = "acp-codegen-check"


def scripts() -> dict[str, str]:
    with (REPO / "pyproject.toml").open("rb") as handle:
        return dict(tomllib.load(handle)["project"]["scripts"])


def assert_runs_check(hook: dict[str, Any]) -> None:
    assert hook["id"] == HOOK_ID
    assert hook["pass_filenames"] is False  # check takes no file names
    assert hook["always_run"] is True
    program, *argv = shlex.split(hook["entry"])
    assert (
        scripts()[program] == "acp_codegen.commands.cli:console_main"
    )  # a console script of this package
    args = _parser().parse_args([*argv, *hook.get("args", [])])
    assert args.command == "check"


def test_the_published_hook_runs_check() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(hooks, list) and [h["id"] for h in hooks] == [HOOK_ID]
    (hook,) = hooks
    assert hook["language"] == "python"  # pre-commit installs this repository into its venv
    assert_runs_check(hook)


def readme_yaml_blocks() -> list[Any]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)]


def test_the_readme_configs_name_the_hook() -> None:
    configs = [c for c in readme_yaml_blocks() if isinstance(c, dict) and "repos" in c]
    local = [r for c in configs for r in c["repos"] if r["repo"] == "local"]
    remote = [r for c in configs for r in c["repos"] if r["repo"] != "local"]
    assert [h["id"] for r in remote for h in r["hooks"]] == [HOOK_ID]
    (repo,) = local
    (hook,) = repo["hooks"]
    assert hook["language"] == "system"  # uses the acp-codegen already installed
    assert_runs_check(hook)


@pytest.mark.parametrize("extra", [["--stat"], ["-q"]])
def test_hook_args_the_readme_mentions_are_check_options(extra: list[str]) -> None:
    args = _parser().parse_args(["check", *extra])
    assert args.command == "check"
