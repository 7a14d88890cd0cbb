"""The typed modules over the generic runtime: the agent facade (`session.py`), snapshot
TypedDicts (`snapshot.py`) and the tolerant-reading table (`tolerance.py`).

All three are derived from the generated `models.py` (read back by `model_fields`) together with
the IR, so they are built after the models and before the other templates, which ask whether
they exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jinja2

from ..model.errors import Problem, SchemaError
from ..model.ir import Protocol
from .facade import Facade
from .model_fields import read_models
from .snapshot_types import SnapshotTypes, snapshot_types
from .tolerance import Table, tolerance_table


@dataclass(frozen=True, slots=True)
class TypedSurface:
    protocol: Protocol
    facade: Facade | None  # only for schemas with the v2 lifecycle
    snapshot: SnapshotTypes | None  # only for schemas with merge rules
    tolerance: Table | None  # only for schemas with an update union

    @classmethod
    def build(cls, protocol: Protocol, models_source: str) -> TypedSurface:
        info = read_models(models_source)
        try:
            facade = Facade(protocol, models_source) if protocol.has_lifecycle else None
            if facade is not None:
                facade.check()
            return cls(
                protocol, facade, snapshot_types(protocol, info), tolerance_table(protocol, info)
            )
        except KeyError as error:  # a lookup by protocol vocabulary found nothing
            message = f"cannot build the typed session API: {error.args[0]}"
            raise SchemaError([Problem(protocol.source_name, "", message)]) from None

    @property
    def context(self) -> dict[str, Any]:
        """What the other templates may ask: `f` (the facade), `has_snapshot`,
        `has_tolerance` (there is a `tolerance.py`), `has_text_helpers` (messages hold
        content blocks) and `result_repairs` (the proxies' repaired methods, by sending side)."""
        return {
            "f": self.facade,
            "has_snapshot": self.snapshot is not None,
            "has_tolerance": self.tolerance is not None,
            "has_text_helpers": self.snapshot is not None and bool(self.snapshot.message_block),
            "result_repairs": self.result_repairs,
        }

    @property
    def result_repairs(self) -> dict[str, tuple[str, ...]]:
        """By the side that sends them: the requests whose results its proxy may repair."""
        t = self.tolerance
        if t is None:
            return {"agent": (), "client": ()}
        return {
            "agent": tuple(m for m, _ in t.agent_results),
            "client": tuple(m for m, _ in t.client_results),
        }

    def render(self, env: jinja2.Environment) -> dict[str, str]:
        pages = {}
        if self.facade is not None:
            pages["session.py"] = env.get_template("session.py.j2").render(
                p=self.protocol, f=self.facade
            )
        if self.snapshot is not None:
            pages["snapshot.py"] = env.get_template("snapshot.py.j2").render(
                p=self.protocol, s=self.snapshot
            )
        if self.tolerance is not None:
            pages["tolerance.py"] = env.get_template("tolerance.py.j2").render(
                p=self.protocol, t=self.tolerance
            )
        return pages
