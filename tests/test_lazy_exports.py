"""The generated package loads nothing but its pydantic check on import (the models and the
runtime load on first use); every exported name still resolves, and type checkers still see
each name's real type (the names, `models` too, are imported under TYPE_CHECKING)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

GENERATED = REPO / "generated"
needs_committed = pytest.mark.skipif(
    not (GENERATED / "acp_bindings").is_dir(), reason="generated/acp_bindings is absent"
)


def python(code: str, cwd: Path = GENERATED) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=False
    )


@needs_committed
def test_importing_the_package_loads_neither_the_models_nor_the_runtime() -> None:
    proc = python(
        "import sys, acp_bindings\n"
        "print(sorted(m for m in sys.modules if m.startswith('acp_bindings.')))"
    )
    assert proc.returncode == 0, proc.stderr
    loaded = eval(proc.stdout)  # a printed list of module names
    assert loaded == ["acp_bindings._pydantic_check"]
    for heavy in (
        "acp_bindings.models",
        "acp_bindings.agent",
        "acp_bindings.client",
        "acp_bindings.session",
        "acp_bindings._runtime.rpc.connection",
        "acp_bindings.tolerance",
    ):
        assert heavy not in loaded


@needs_committed
def test_every_exported_name_resolves_to_its_defining_module() -> None:
    proc = python(
        "import acp_bindings\n"
        "from acp_bindings import *\n"
        "from acp_bindings.agent import Agent as A\n"
        "from acp_bindings.session import Session as S\n"
        "missing = [n for n in acp_bindings.__all__ if n not in globals()]\n"
        "assert not missing, missing\n"
        "assert Agent is A and Session is S\n"
        "assert set(acp_bindings.__all__) <= set(dir(acp_bindings))\n"
        "print('ok')"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


@needs_committed
def test_a_submodule_is_an_attribute_of_the_package_as_before() -> None:
    """`import acp_bindings; acp_bindings.tolerance.TOLERANCE` worked when the package imported
    every module at once; it loads the module on first use now."""
    proc = python(
        "import acp_bindings\n"
        "print(type(acp_bindings.tolerance.TOLERANCE).__name__,"
        " acp_bindings.snapshot.SessionSnapshot.__name__)"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[1] == "SessionSnapshot"


@needs_committed
def test_the_models_load_on_first_use_every_way_they_are_reached() -> None:
    proc = python(
        "import sys, acp_bindings\n"
        "assert 'acp_bindings.models' not in sys.modules\n"
        "models = acp_bindings.models\n"
        "from acp_bindings.models import ContentBlock\n"
        "from acp_bindings import models as again\n"
        "assert models is again is sys.modules['acp_bindings.models']\n"
        "assert 'models' in dir(acp_bindings) and 'models' in acp_bindings.__all__\n"
        "import acp_bindings.v1.models as v1\n"
        "print(models.TextContent(type='text', text='hi').text, v1.__name__)"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["hi", "acp_bindings.v1.models"]


@needs_committed
def test_an_unknown_name_is_an_attribute_error() -> None:
    proc = python(
        "import acp_bindings\n"
        "try:\n    acp_bindings.NoSuchThing\n"
        "except AttributeError as e:\n    print(e)\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "NoSuchThing" in proc.stdout


@pytest.mark.slow
@needs_committed
def test_strict_type_checkers_see_the_lazy_names_types(tmp_path: Path, mypy_cache: Path) -> None:
    user = tmp_path / "user.py"
    user.write_text(
        "import acp_bindings\n"
        "from acp_bindings import Client, RpcError, Session\n\n\n"
        "def session_of(s: Session) -> str:\n    return s.session_id\n\n\n"
        "def text_of(block: acp_bindings.models.TextContent) -> str:\n    return block.text\n\n\n"
        "wrong: int = Client\n"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(mypy_cache),
            str(user),
        ],
        cwd=GENERATED,
        capture_output=True,
        text=True,
        check=False,
        env={"MYPYPATH": str(GENERATED), "PATH": ""},
    )
    # Exactly one error: the deliberate one, which needs `Client`'s real type to be found.
    assert proc.stdout.count("error:") == 1, proc.stdout
    assert 'has type "type[Client]"' in proc.stdout
