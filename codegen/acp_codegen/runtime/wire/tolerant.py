"""Tolerant reading of session updates (and of the params of what either side receives, and
of the results of the requests it sent): drop the bad part, keep the rest.

The schema marks where a reader may recover (docs/design.md, "Tolerant reading"): a bad item of
a `skip-invalid-items` array is dropped; a bad `default-on-error` value falls back to its default
(absent for an optional property, `[]` for a required array); a `null` the type does not allow,
at an optional `default-on-null` property, is read as absent (any other bad value there stays an
error). The generated `TOLERANCE` table says which class each tag and field leads to, so this
module follows every pydantic error location from the update union (or a params class) down to
the innermost marked property; it knows no update variant or method.

Nothing is paid while updates are valid: `tolerant_validator` validates once and repairs only
after a failure, in one pass over the errors, then validates the repaired copy once more. An
error outside every marked property cannot be repaired and is raised as it was. With
`strict=True` nothing is repaired (for tests and conformance work).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Final, TypeVar

from pydantic import ValidationError

from .checks import wire_check
from .convert import from_wire
from .jsonvalue import JsonMapping, JsonObject, JsonValue, copy_json, pointer_to

if TYPE_CHECKING:
    from typing_extensions import TypeForm

logger = logging.getLogger(__name__)

Path = tuple[str | int, ...]
_T = TypeVar("_T")


class _Drop(Enum):
    """A repair's replacement that removes the value (an item or a property) instead."""

    DROP = "drop"


DROP: Final = _Drop.DROP


@dataclass(frozen=True, slots=True)
class FieldRule:
    """One property in the tolerance table."""

    default_on_error: bool = False
    skip_invalid_items: bool = False
    required: bool = False
    type: str | None = None  # the class or union its value (or items) hold, if the table goes on
    default_on_null: bool = False


@dataclass(frozen=True, slots=True)
class ToleranceTable:
    root: str  # the update union
    classes: Mapping[str, Mapping[str, FieldRule]]
    unions: Mapping[str, Mapping[str, str]]  # union -> tag -> class (or nested union)


@dataclass(frozen=True, slots=True)
class Repair:
    path: Path  # where in the update
    replacement: JsonValue | _Drop  # DROP, or the default to put there
    reason: str
    when_null: bool = False  # only if the value there is null (default-on-null)


def _pointer(path: Path) -> str:
    return "".join(pointer_to(str(step)) for step in path) or "/"


def plan_repair(
    table: ToleranceTable, loc: tuple[str | int, ...], root: str | None = None
) -> Repair | None:
    """The repair for one validation error location (of a value of type `root`, by default
    the update union), or None when nothing marked covers it."""
    current: str | None = root or table.root
    path: list[str | int] = []
    best: Repair | None = None
    i = 0
    while i < len(loc) and current is not None:
        step = loc[i]
        branches = table.unions.get(current)
        if branches is not None:  # a tagged union: pydantic names the branch's tag
            current = branches.get(step) if isinstance(step, str) else None
            i += 1
            continue
        rule = table.classes.get(current, {}).get(step) if isinstance(step, str) else None
        if rule is None:
            break
        path.append(step)
        i += 1
        index = loc[i] if i < len(loc) and isinstance(loc[i], int) else None
        if rule.skip_invalid_items and index is not None:
            best = Repair((*path, index), DROP, "invalid item skipped")
        elif rule.default_on_error and not rule.required:
            best = Repair(tuple(path), DROP, "invalid value left out")
        elif rule.default_on_error and rule.skip_invalid_items:
            best = Repair(tuple(path), [], "invalid list emptied")
        elif rule.default_on_null and index is None and not rule.required:
            best = Repair(tuple(path), DROP, "null read as absent", when_null=True)
        if index is not None:
            path.append(index)
            i += 1
        current = rule.type
    return best


def _null_at(data: object, path: Path) -> bool:
    """Whether `data` holds a JSON null at `path` (present, not merely absent)."""
    parent: Any = data  # stepped through blindly: a path that does not fit raises, caught below
    try:
        for step in path[:-1]:
            parent = parent[step]
        return isinstance(parent, dict) and path[-1] in parent and parent[path[-1]] is None
    except (KeyError, IndexError, TypeError):
        return False


def _apply(data: JsonObject, repairs: list[Repair]) -> None:
    """Apply repairs in place; deeper and later list items first, so indices stay right."""
    done: list[Path] = []
    for repair in sorted(repairs, key=lambda r: (len(r.path), r.path), reverse=True):
        if any(repair.path[: len(p)] == p for p in done if len(p) < len(repair.path)):
            continue
        parent: Any = data  # as in `_null_at`: the caller catches a path that does not fit
        for step in repair.path[:-1]:
            parent = parent[step]
        last = repair.path[-1]
        if repair.replacement is DROP:
            del parent[last]
        else:
            parent[last] = repair.replacement
        done.append(repair.path)


def repair_update(
    table: ToleranceTable, data: JsonMapping, error: ValidationError, root: str | None = None
) -> tuple[JsonObject, list[Repair]] | None:
    """A repaired copy of `data` and what was done, or None when an error is not covered."""
    repairs: dict[Path, Repair] = {}
    for item in error.errors(include_url=False):
        repair = plan_repair(table, tuple(item["loc"]), root)
        if repair is None or (repair.when_null and not _null_at(data, repair.path)):
            return None
        reason = f"{repair.reason} ({item['msg']})"
        repairs.setdefault(repair.path, Repair(repair.path, repair.replacement, reason))
    fixed: JsonObject = copy_json(dict(data))
    try:
        _apply(fixed, list(repairs.values()))
    except (KeyError, IndexError, TypeError):
        return None  # the location does not match the data: leave the error as it is
    return fixed, list(repairs.values())


def _repaired(
    tp: TypeForm[object],
    table: ToleranceTable,
    data: JsonValue,
    error: ValidationError,
    root: str,
    what: str,
) -> JsonObject | None:
    """`data` repaired and valid, with each repair logged; None when it cannot be repaired."""
    if not isinstance(data, dict):
        return None
    outcome = repair_update(table, data, error, root)
    if outcome is None:
        return None
    fixed, repairs = outcome
    try:
        wire_check(tp)(fixed)
    except ValidationError:
        return None
    for repair in repairs:
        logger.warning("%s: %s at %r", what, repair.reason, _pointer(repair.path))
    return fixed


def tolerant_validator(
    tp: TypeForm[object], table: ToleranceTable | None, *, strict: bool = False, tag_field: str = ""
) -> Callable[[JsonObject], JsonObject | None]:
    """A session-update validator for `SessionState`: returns None when the update is valid,
    the repaired update when it was repaired, and raises ValidationError otherwise."""
    checked = wire_check(tp)

    def validate(data: JsonObject) -> JsonObject | None:
        try:
            checked(data)
            return None
        except ValidationError as error:
            if strict or table is None:
                raise
            what = f"session update {data.get(tag_field)!r}" if tag_field else "session update"
            fixed = _repaired(tp, table, data, error, table.root, what)
            if fixed is None:
                raise
            return fixed

    return validate


# Params (or a result) that failed their check -> repaired ones, or None when they cannot be.
ParamsRepair = Callable[[JsonValue, ValidationError], JsonObject | None]


def params_repair(
    tp: TypeForm[object], table: ToleranceTable, root: str, method: str
) -> ParamsRepair:
    """For `ValidatingDispatcher`: repaired params of `method` (type `tp`, table class `root`),
    or None when they cannot be repaired."""

    def repair(params: JsonValue, error: ValidationError) -> JsonObject | None:
        return _repaired(tp, table, params, error, root, method)

    return repair


def result_repair(
    tp: TypeForm[object], table: ToleranceTable, root: str, method: str
) -> ParamsRepair:
    """For a typed proxy: the repaired result of `method` (type `tp`, table class `root`), or
    None when it cannot be repaired; repairs are logged as `<method> result: ...`."""

    def repair(result: JsonValue, error: ValidationError) -> JsonObject | None:
        return _repaired(tp, table, result, error, root, f"{method} result")

    return repair


def result_from_wire(
    tp: TypeForm[_T], result: JsonValue, repairs: Mapping[str, ParamsRepair], method: str
) -> _T:
    """For a typed proxy: `from_wire(tp, result)`. A result that fails is read again repaired
    when `repairs` (empty when strict) has `method`'s repair and it covers every error; else the
    original ValidationError is raised. A valid result costs what `from_wire` costs."""
    try:
        return from_wire(tp, result)
    except ValidationError as error:
        repair = repairs.get(method)
        fixed = None if repair is None else repair(result, error)
        if fixed is None:
            raise
        return from_wire(tp, fixed)
