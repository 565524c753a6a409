"""An answer's departures from its op's result schema, as differences.

Where the reference answers an op, an answer is judged against the reference's answer.
The agent ops have none: they are judged by universal checks
(`ctxspec.conformance.judging.universal`) that read the answer's fields. An answer those
checks cannot read (a field missing, a field of another JSON type, a list where an object
is due) is told by the op's result schema (`schemas/ops/`) instead: each departure is one
`compare.Difference`, `missing` for a required field, `differs` for the rest, so it reads
and counts as any other difference (never a `KeyError` inside a check).

- `schema_differences(op, result)`: every departure of `result` from `op`'s result
  schema (none for an op without one).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, Final

import jsonschema

from ctxspec.conformance.judging.compare import Difference, json_path
from ctxspec.conformance.protocol import op_schema

__all__ = ["schema_differences"]

# a JSON Schema type as a reader names the value it wants
_A: Final = {"object": "an object", "array": "a list", "integer": "an integer"}


@cache
def _validator(op: str) -> jsonschema.Draft202012Validator | None:
    schema = op_schema(op, "result")
    return None if schema is None else jsonschema.Draft202012Validator(schema)


def _wanted(types: Any) -> str:
    named = types if isinstance(types, list) else [types]
    return " or ".join(_A.get(str(t), f"a {t}") for t in named)


def _departures(error: jsonschema.ValidationError) -> list[Difference]:
    where = list(error.absolute_path)
    required = error.validator_value
    if error.validator == "required" and isinstance(error.instance, dict):
        fields = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        return [
            Difference(
                json_path([*where, key]),
                _wanted(fields.get(key, {}).get("type", "value")),
                None,
                missing=True,
            )
            for key in (required if isinstance(required, list) else [])
            if key not in error.instance
        ]
    if error.validator == "type":
        return [Difference(json_path(where), _wanted(error.validator_value), error.instance)]
    if error.validator == "enum":
        wanted = f"one of {json.dumps(error.validator_value)}"
        return [Difference(json_path(where), wanted, error.instance)]
    if error.validator in ("oneOf", "anyOf") and error.context:
        best = jsonschema.exceptions.best_match(error.context)
        if best is not None:
            return _departures(best)
    wanted = f"{error.validator} {json.dumps(error.validator_value, default=str)}"
    return [Difference(json_path(where), wanted, error.instance)]


def schema_differences(op: str, result: Any) -> list[Difference]:
    """Every departure of `result` from `op`'s result schema, in path order.

    >>> [(d.path, d.kind) for d in schema_differences("agent.compaction", {"compact": 1})]
    [('$.compact', 'differs'), ('$.keep', 'missing')]
    """
    validator = _validator(op)
    if validator is None:
        return []
    found: dict[str, Difference] = {}  # one per path (each missing field is one error)
    for error in validator.iter_errors(result):
        for departure in _departures(error):
            found.setdefault(departure.path, departure)
    return [found[path] for path in sorted(found)]
