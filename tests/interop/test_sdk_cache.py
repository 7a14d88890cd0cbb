"""The SDK cache (sdk_cache.py) on its own, without a registry: an install lands whole or not
at all, two racing installs leave one copy, and a failure skips outside CI but fails in CI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .sdk_cache import cached_install


def marked(folder: Path) -> bool:
    return (folder / "done").is_file()


def writing(content: str) -> Callable[[Path], str | None]:
    def install(folder: Path) -> str | None:
        (folder / "done").write_text(content)
        return None

    return install


def test_an_install_is_renamed_into_place_and_then_reused(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "sdk"
    calls: list[Path] = []

    def install(folder: Path) -> str | None:
        assert folder.parent == target.parent and folder != target  # staged beside it
        calls.append(folder)
        (folder / "done").write_text("first")
        return None

    assert cached_install(target, marked, install) == target
    assert cached_install(target, marked, install) == target
    assert len(calls) == 1
    assert sorted(p.name for p in target.parent.iterdir()) == ["sdk"]  # no staging left


def test_the_loser_of_a_race_uses_the_winners_copy(tmp_path: Path) -> None:
    target = tmp_path / "sdk"

    def slow_install(folder: Path) -> str | None:
        # While this install runs, another process installs and renames its copy first.
        cached_install(target, marked, writing("winner"))
        (folder / "done").write_text("loser")
        return None

    assert cached_install(target, marked, slow_install) == target
    assert (target / "done").read_text() == "winner"
    assert [p.name for p in tmp_path.iterdir()] == ["sdk"]


@pytest.mark.parametrize("ci", ["", "true"])
def test_a_failed_install_skips_outside_ci_and_fails_in_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    monkeypatch.setenv("CI", ci)
    target = tmp_path / "sdk"

    def failing(folder: Path) -> str | None:
        (folder / "half").write_text("")
        return "the registry is unreachable"

    outcome = pytest.fail.Exception if ci else pytest.skip.Exception
    with pytest.raises(outcome, match="the registry is unreachable"):
        cached_install(target, marked, failing)
    assert list(tmp_path.iterdir()) == []  # nothing half-installed is left behind
