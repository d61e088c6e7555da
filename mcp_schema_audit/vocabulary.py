"""The project's small vocabulary, spelled once: severities, gates, modes, directions, surfaces, host profiles.

Everything here is a constant (no imports beyond ``typing``), so the command line's ``--help`` and the config
loader can name the choices without loading the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

Severity = Literal["breaking", "warning", "info"]
FailOn = Literal["breaking", "warning", "info", "never"]
Mode = Literal["backward", "forward", "full"]
#: ``input``/``output`` (a tool's schemas), ``tool`` (the tool entry itself), or for another surface the surface
Direction = str
Surface = Literal["tool", "prompt", "resource", "resource-template", "server"]

#: Severities, worst first.
SEVERITIES: tuple[Severity, ...] = ("breaking", "warning", "info")
#: Rank of each severity (higher is worse): what ``--fail-on`` compares.
SEVERITY_RANK: dict[str, int] = {"info": 1, "warning": 2, "breaking": 3}
#: What ``--fail-on`` accepts: a severity, or ``never`` (the gate always passes).
FAIL_ON: tuple[FailOn, ...] = ("breaking", "warning", "info", "never")
#: Compatibility modes: ``backward`` (hosts cached OLD, server runs NEW), ``forward`` (hosts cached NEW, server
#: runs OLD: a rollback, a rolling deploy), ``full`` (both).
MODES: tuple[Mode, ...] = ("backward", "forward", "full")
#: What a finding can be about: a tool, a prompt, a static resource, a resource template, or the server
#: itself (its capabilities and instructions).
SURFACES: tuple[Surface, ...] = ("tool", "prompt", "resource", "resource-template", "server")
#: How each surface is named in messages.
SURFACE_WORDS: dict[str, str] = {
    "tool": "tool",
    "prompt": "prompt",
    "resource": "resource",
    "resource-template": "resource template",
    "server": "server",
}
#: Order of findings within one tool: the tool entry, then its inputSchema, then its outputSchema (then any
#: other direction).
DIRECTION_ORDER: dict[str, int] = {"tool": 0, "input": 1, "output": 2}
#: Order of the other surfaces after the tools.
SURFACE_ORDER: dict[str, int] = {"tool": 0, "prompt": 1, "resource": 2, "resource-template": 3, "server": 4}
#: What ``--server-validator`` accepts: ``auto`` (inferred from the listing), then the server validator profiles
#: (``engine.servers.PROFILES``): how the server's own framework reads the arguments a host sends.
SERVER_VALIDATORS: tuple[str, ...] = (
    "auto",
    "published",
    "zod-strip",
    "zod-strict",
    "zod-passthrough",
    "pydantic-ignore",
    "pydantic-forbid",
)
#: The JSON Schema types, in the order the engine tries them when it needs a value of some type.
JSON_TYPE_ORDER: tuple[str, ...] = ("string", "integer", "number", "boolean", "object", "array", "null")
#: The JSON Schema types (``type``'s values).
JSON_TYPES: frozenset[str] = frozenset(JSON_TYPE_ORDER)
#: The SDK clients' host profiles: how each validates a cached ``outputSchema`` (``schema.hosts``).
SDK_PROFILES: tuple[str, ...] = ("python-sdk", "ts-sdk-v1", "ts-sdk-v2")
#: Outcomes of a probe call that was not made (nothing was sent): the run's budget was spent first, or the server
#: does not list the tool.
UNMADE_OUTCOMES: tuple[str, ...] = ("not-called", "not-listed")
#: The first protocol revision of the era without the ``initialize`` handshake (``server/discover``): list-change
#: notifications only on a ``subscriptions/listen`` stream, ``structuredContent`` any JSON value, ``outputSchema``
#: any schema. Revisions are dates, so a later one compares greater.
MODERN_PROTOCOL = "2026-07-28"
#: The hosts and model providers whose portability ``--host`` can check (``schema.portability.PROFILES``): what
#: each does with a tool's schema (usable, degraded, unusable), in lint and as regressions in diff.
PORTABILITY_PROFILES: tuple[str, ...] = (
    "openai-strict",
    "openai",
    "gemini",
    "anthropic",
    "claude-code",
    "vscode",
    "cursor",
)
#: What ``--host`` accepts: the SDK clients' profiles, then the hosts and model providers.
HOST_CHOICES: tuple[str, ...] = SDK_PROFILES + PORTABILITY_PROFILES


def direction_rank(direction: str) -> int:
    """Sort key of a direction within one tool (``DIRECTION_ORDER``; an unknown one last)."""
    return DIRECTION_ORDER.get(direction, 3)


def modern_protocol(version: str | None) -> bool:
    """Is ``version`` (a negotiated protocol revision, ``YYYY-MM-DD``) of the era that begins with
    ``MODERN_PROTOCOL``? ``None`` (not recorded) is not."""
    return isinstance(version, str) and version >= MODERN_PROTOCOL


def portability_hosts(hosts: Sequence[str] | None) -> list[str]:
    """The hosts and model providers among ``hosts`` (the ``--host`` selection), in ``PORTABILITY_PROFILES`` order."""
    chosen = set(hosts or ())
    return [h for h in PORTABILITY_PROFILES if h in chosen]
