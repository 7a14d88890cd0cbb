"""Which environment variables a v1 agent may hand a command it asks to run (`terminal/create`).

The user is asked "run `git status`?"; the answer must be about what really runs. Many
variables make the command run something else: the loader preloads a library (`LD_PRELOAD`),
bash sources a file first (`BASH_ENV`), git runs a configured program (`GIT_CONFIG_*` setting
`core.fsmonitor`), Python runs a start-up file (`PYTHONSTARTUP`), `PATH` picks another `git`.
Such a variable is refused (the request answered -32602 naming it, nobody asked) unless the
user allowed that name with `--allow-env NAME` (any value) or `--allow-env NAME=VALUE` (that
value only). Every other variable is shown in the question with its value.

Names are matched without regard to case: POSIX names are case-sensitive, but Windows and the
programs that read them both ways are not, and refusing `path` too costs nothing.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

ALLOW_OPTION: Final = "--allow-env"
# A name is printable ASCII without `=` or a space: anything else (empty, NUL, `=`, a control,
# a look-alike letter) is no variable a program reads by name, only a way to mislead.
_NAME: Final = re.compile(r"[!-<>-~]+")


@dataclass(frozen=True)
class Rule:
    """Names that make another program run (upper case; each field a space-separated list),
    and why: said to the agent and to the user."""

    why: str
    exact: str = ""
    prefixes: str = ""
    suffixes: str = ""
    contains: str = ""

    def matches(self, upper: str) -> bool:
        return (
            upper in self.exact.split()
            or upper.startswith(tuple(self.prefixes.split()))
            or upper.endswith(tuple(self.suffixes.split()))
            or any(part in upper for part in self.contains.split())
        )


RULES: Final = (
    Rule(
        "read by the dynamic loader: a library loaded into the program",
        exact="GLIBC_TUNABLES",
        prefixes="LD_ DYLD_ _RLD",
    ),
    Rule(
        "read by a shell at start-up: code run before the command",
        exact="ENV ZDOTDIR SHELLOPTS IFS INPUTRC HISTFILE PS0 PS1 PS2 PS3 PS4",
        prefixes="BASH PROMPT_COMMAND",  # BASH_ENV, BASHOPTS, BASH_FUNC_name%% (functions)
    ),
    Rule("read by git: configuration, hooks, ssh, pager, editor, proxy", prefixes="GIT_"),
    Rule(
        "read by an interpreter or runtime at start-up",
        exact="ELECTRON_RUN_AS_NODE EXINIT VIMINIT VIMRUNTIME COMSPEC",
        prefixes="PYTHON PERL RUBY NODE_ DENO_ BUN_ LUA_ PHP R_ ERL_ TCL TEXMF PYTEST_ "
        "DOTNET_ CORECLR_ COREHOST_ COR_",
        suffixes="_OPTIONS _OPTS CLASSPATH",  # JAVA_TOOL_OPTIONS, NODE_OPTIONS, MAVEN_OPTS
    ),
    Rule(
        "a program to run",
        exact="VISUAL FCEDIT TERMINAL SSH_ASKPASS_REQUIRE MANOPT",
        prefixes="LESS",  # LESSOPEN, LESSCLOSE, and LESS's own commands
        suffixes="EDITOR PAGER BROWSER SHELL ASKPASS",
    ),
    Rule(
        "where programs, libraries or modules are looked up",
        exact="PATHEXT",
        suffixes="PATH _DIRS",  # PATH, LD_LIBRARY_PATH, PYTHONPATH, GCONV_PATH, XDG_DATA_DIRS
    ),
    Rule(
        "where a program reads its configuration, which can name programs to run",
        prefixes="XDG_ NPM_ YARN_ PNPM_ COREPACK_ PIP_ UV_ POETRY_ PIPENV_ CONDA GEM_ BUNDLE_ "
        "CARGO_ RUST GO OPENSSL_ CURL_",
        suffixes="HOME RC",  # HOME, XDG_CONFIG_HOME, GNUPGHOME, WGETRC, PHPRC
        contains="CONF",  # GIT_CONFIG_*, KUBECONFIG, DOCKER_CONFIG, OPENSSL_CONF, npm_config_*
    ),
    Rule(
        "read by build tools: compilers, flags, make",
        exact="CC CXX CPP LD AR AS FC NM RANLIB STRIP",
        prefixes="MAKE CMAKE_ CCACHE_ GCC_ CGO_",
        suffixes="FLAGS",  # CFLAGS, LDFLAGS, MAKEFLAGS, GOFLAGS, RUSTFLAGS, ERL_FLAGS
    ),
    Rule(
        "where downloads come from and whom to trust",
        exact="HOSTALIASES",
        prefixes="SSL_CERT",
        suffixes="PROXY _CA_BUNDLE CA_CERTS",
    ),
)


def invalid_name(name: str) -> bool:
    """Not a name a program reads (empty, `=`, NUL, a space, a control or non-ASCII)."""
    return _NAME.fullmatch(name) is None


def why_refused(name: str) -> str | None:
    """Why `name` is refused unless allowed (it makes another program run), None when not."""
    upper = name.upper()
    return next((rule.why for rule in RULES if rule.matches(upper)), None)


@dataclass(frozen=True)
class AllowedEnv:
    """What `--allow-env` let through: names with any value, and name/value pairs."""

    names: frozenset[str] = frozenset()
    pairs: frozenset[tuple[str, str]] = frozenset()

    @classmethod
    def parse(cls, given: Iterable[str]) -> AllowedEnv:
        """From the option's values (`NAME` or `NAME=VALUE`); ValueError names a bad one."""
        names: set[str] = set()
        pairs: set[tuple[str, str]] = set()
        for entry in given:
            name, equals, value = entry.partition("=")
            if invalid_name(name):
                raise ValueError(f"{ALLOW_OPTION} {entry!r}: not an environment variable name")
            if equals:
                pairs.add((name, value))
            else:
                names.add(name)
        return cls(frozenset(names), frozenset(pairs))

    def allows(self, name: str, value: str) -> bool:
        """Whether the user allowed exactly this name (case as given), with this value."""
        return name in self.names or (name, value) in self.pairs


NOTHING_ALLOWED: Final = AllowedEnv()


@dataclass(frozen=True)
class EnvCheck:
    """An agent's variables sorted: refused ones with why, refused-but-allowed names."""

    refused: dict[str, str] = field(default_factory=dict)
    allowed: frozenset[str] = frozenset()


def check_env(env: Mapping[str, str], allowed: AllowedEnv) -> EnvCheck:
    """Which of `env` are refused (name: why) and which the user's `--allow-env` let pass."""
    refused: dict[str, str] = {}
    let_through: set[str] = set()
    for name, value in env.items():
        why = why_refused(name)
        if why is None:
            continue
        if allowed.allows(name, value):
            let_through.add(name)
        else:
            refused[name] = why
    return EnvCheck(refused, frozenset(let_through))


def refusal_text(refused: Mapping[str, str]) -> str:
    """The message for refused variables: them with why, and how the user allows them."""
    by_why: dict[str, list[str]] = {}
    for name, why in refused.items():
        by_why.setdefault(why, []).append(name)
    named = "; ".join(f"{', '.join(names)} ({why})" for why, names in by_why.items())
    flags = " ".join(f"{ALLOW_OPTION} {shlex.quote(name)}" for name in refused)
    return (
        f"environment variables that make another program run are refused: {named}. "
        f"Nothing was run or asked; the user may allow them with {flags}"
    )
