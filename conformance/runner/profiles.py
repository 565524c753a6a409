"""An agent's profile: its own declared terms at the five boundaries, and what does not apply.

A coding agent other than Pi is not judged by Pi's numbers. Its profile
(`conformance/profiles/<family>.yaml`, schema `schemas/profile.schema.json`) declares, each
with its source, the agent's units, limits, markers, instruction-file rules, what trust
gates and its compaction rule; the universal checks (`conformance/judging/universal/`) judge its
answers to the `agent.*` ops against these terms. The profile's `not_applicable` list
decides, by op, boundary, case or property name, what does not apply to the agent (Pi's
own ops, boundary 5): those items are reported *not applicable* with the profile's reason.
Nothing in the code branches on the agent.

The Pi family (the engines, every `pi@`, the fork and the ports) shares `pi.yaml`; a
command under test takes `--profile NAME|FILE`, else `pi.yaml`.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

import jsonschema
import yaml

from ctxspec.conformance.errors import CorpusError
from ctxspec.conformance.protocol import first_problem
from ctxspec.conformance.transport.named import parse_named

__all__ = ["PI_PROFILE", "Profile", "load_profile", "profile_for", "profile_names"]

PI_PROFILE: Final = "pi"


@dataclass(frozen=True, slots=True)
class Profile:
    """One agent's declared terms (`data`, as the YAML has them) and where they came from."""

    name: str
    data: dict[str, Any]
    source: str

    @property
    def title(self) -> str:
        return str(self.data.get("title", self.name))

    def term(self, *path: str) -> Any:
        """The declared term at `path` (e.g. `"tool_output", "shell"`), or None."""
        value: Any = self.data
        for key in path:
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
        return value

    def not_applicable(self, *, op: str, boundary: str, name: str, kind: str) -> str | None:
        """Why an item (a case or property named `name`) does not apply, or None."""
        for entry in self.data.get("not_applicable", []):
            selector, _, pattern = entry["select"].partition(":")
            subject = {"op": op, "boundary": boundary, "case": name, "property": name}[selector]
            if selector in {"case", "property"} and selector != kind:
                continue
            if fnmatch.fnmatchcase(subject, pattern):
                return str(entry["why"])
        return None


def _folder() -> Path:
    return Path(str(resources.files("ctxspec.conformance").joinpath("profiles")))


@cache
def _validator() -> jsonschema.Draft202012Validator:
    text = resources.files("ctxspec.conformance").joinpath("schemas", "profile.schema.json")
    return jsonschema.Draft202012Validator(json.loads(text.read_text("utf-8")))


def profile_names() -> list[str]:
    """The shipped profiles, by agent name."""
    return sorted(path.stem for path in _folder().glob("*.yaml"))


@cache
def load_profile(name_or_file: str) -> Profile:
    """A shipped profile by name, or a profile file; `CorpusError` naming what is wrong."""
    path = Path(name_or_file)
    if not name_or_file.endswith((".yaml", ".yml")):
        path = _folder() / f"{name_or_file}.yaml"
        if not path.is_file():
            raise CorpusError(
                f"no profile {name_or_file!r}: shipped ones are {', '.join(profile_names())}"
            )
    try:
        data = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise CorpusError(f"profile {path}: cannot be read: {error}") from None
    except yaml.YAMLError as error:
        raise CorpusError(f"profile {path}: not valid YAML: {error}") from None
    problem = first_problem(_validator(), data)
    if problem is not None:
        raise CorpusError(f"profile {path}: {problem}")
    return Profile(name=data["agent"], data=data, source=str(path))


def profile_for(impl: str, explicit: str | None = None) -> Profile:
    """The profile an implementation is judged by: `explicit` (`--profile`), else its named
    family's shipped profile, else Pi's (the engines, Pi's releases, the fork, the ports)."""
    if explicit:
        return load_profile(explicit)
    named = parse_named(impl)
    if named is not None and named.family.name in profile_names():
        return load_profile(named.family.name)
    return load_profile(PI_PROFILE)
