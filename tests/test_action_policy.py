"""``action_policy.lowering``: every setting by which a pull request's own configuration makes its gate looser
than the base revision's, as the run applies them (an attack round found four it missed: ``[[allow]]`` entries,
a raising ``[severity]`` of the base removed, an SDK profile no longer counted while the host set grew, the
version gate dropped)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcp_schema_audit.config import Config, IgnoreEntry

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import action_policy  # noqa: E402


@pytest.mark.parametrize(
    ("base", "head", "said"),
    [
        (Config(fail_on="breaking"), Config(fail_on="breaking", allow=[IgnoreEntry(reason="x", rule="*")]),
         "ignore entry added: "),
        (Config(severity={"output-object-opened": "breaking"}), Config(),
         "severity of output-object-opened: breaking → warning"),
        (Config(hosts=["openai-strict"]), Config(hosts=["openai-strict", "python-sdk"]),
         "ts-sdk-v1, ts-sdk-v2 no longer counted"),
        (Config(version_gate="semver"), Config(), "version_gate semver → off"),
        (Config(version_sources=["package.json"]), Config(), "version_sources drops package.json"),
        (Config(), Config(traffic_threshold="10%"), "traffic_threshold (none) → 10%"),
    ],
)  # fmt: skip
def test_each_lowering_is_named(base: Config, head: Config, said: str) -> None:
    lines = action_policy.lowering(base, head)
    assert any(said in line for line in lines), lines


@pytest.mark.parametrize(
    ("base", "head"),
    [
        (Config(hosts=["openai-strict"]), Config(hosts=["openai-strict", "gemini"])),  # one more host counted
        (Config(), Config(hosts=["python-sdk", "ts-sdk-v1", "ts-sdk-v2"])),  # the same three SDK profiles
        (Config(allow=[IgnoreEntry(reason="x", rule="r")]), Config(ignore=[IgnoreEntry(reason="x", rule="r")])),
        (Config(), Config(version_gate="semver", severity={"output-object-opened": "breaking"})),  # stricter
    ],
)
def test_what_lowers_nothing_is_not_named(base: Config, head: Config) -> None:
    assert action_policy.lowering(base, head) == []


def test_fail_on_is_compared_as_each_file_applies_it() -> None:
    """A key left out is the default (``breaking``); with the ``fail-on`` input given neither file's applies."""
    assert action_policy.lowering(Config(fail_on="warning"), Config()) == ["fail_on warning → breaking"]
    assert action_policy.lowering(Config(), Config(fail_on="never")) == ["fail_on breaking → never"]
    assert action_policy.lowering(Config(), Config(fail_on="breaking")) == []  # the default, written out
    assert action_policy.lowering(Config(fail_on="info"), Config(), fail_on_input=True) == []
