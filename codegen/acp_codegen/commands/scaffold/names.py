"""What a new project may be called: its name, the Python package it becomes, and why not."""

from __future__ import annotations

import keyword
import re
import sys
from dataclasses import dataclass

from ..targets import RESERVED_PACKAGES, UsageError

# Top-level packages a new agent project must not shadow besides the stdlib and the bindings'
# own dependencies: what it or its tests import, and the names acp-codegen itself uses.
TAKEN = RESERVED_PACKAGES | {
    "acp_bindings",
    "acp_codegen",
    "pytest",
    "_pytest",
    "mypy",
    "pip",
    "setuptools",
    "tests",
}
# A distribution name pip accepts (PEP 508), so the pyproject and the console script work.
DISTRIBUTION = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$")


@dataclass(frozen=True, slots=True)
class ProjectName:
    name: str  # as given: the distribution and the console script
    package: str  # the importable package: `-` becomes `_`

    @property
    def class_name(self) -> str:
        """`my_agent` -> `MyAgent`."""
        return "".join(part[:1].upper() + part[1:] for part in self.package.split("_") if part)


def checked_name(name: str) -> ProjectName:
    """The project's names, or UsageError saying why NAME cannot be one."""
    package = name.replace("-", "_")
    if not DISTRIBUTION.match(name) or "." in name:
        raise UsageError(
            f"NAME {name!r}: use letters, digits, '_' and '-' (starting and ending with a letter "
            "or digit), e.g. my-agent"
        )
    if not package.isidentifier() or keyword.iskeyword(package) or package[0].isdigit():
        raise UsageError(
            f"NAME {name!r}: its package name {package!r} is not a Python identifier "
            "(it must not start with a digit or be a keyword)"
        )
    if package in TAKEN or package.lower() in sys.stdlib_module_names:
        raise UsageError(
            f"NAME {name!r}: its package {package!r} would shadow the module of the same name "
            "(standard library, pydantic, acp, pytest or acp-codegen); pick another name"
        )
    return ProjectName(name=name, package=package)
