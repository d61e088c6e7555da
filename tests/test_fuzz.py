"""Fuzzing the loader and the diff engine with hypothesis (issue 5: fail safe on any input).

Every outcome must be a result or a clean ``InputError``/``SchemaAuditError``, never an unhandled
exception; each example is bounded in time (a ``SIGPROF`` watchdog on the CPU time of the example, which a
busy machine does not stretch as it does the wall clock, turns a hang into a failure with the shrunk
example instead of a stuck CI job; hypothesis' own wall-clock ``deadline`` is off); and nothing touches the
network (``socket`` connections are refused and recorded).

Strategies: arbitrary JSON values; bytes and text that are almost JSON; snapshot-shaped values
(envelopes, tools/list results, JSON-RPC wrappers with random tools); schema-shaped values built
from the JSON Schema vocabulary with values of the right type most of the time and junk the rest
(so both valid and invalid schemas, local/missing/remote ``$ref``, regexes that do not compile or
backtrack, extreme numbers). The whole file runs in well under 60 s.
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from runs import render_json, render_text

from mcp_schema_audit.diff import diff_snapshots
from mcp_schema_audit.engine import compare_schemas
from mcp_schema_audit.errors import SchemaAuditError
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.report.model import Report
from mcp_schema_audit.rules import RULES
from mcp_schema_audit.snapshot import Snapshot, canonical_json, parse_json_text, snapshot_from_data, tool_hash

EXAMPLE_BUDGET_S = 5  #: watchdog: an example computing for longer than this (CPU seconds) is a hang
SHRINK_BUDGET_S = 10  #: seconds hypothesis may spend shrinking one failure
MEMORY_HEADROOM = 3 * 1024**3  #: address space the fuzz tests may add to the test process (bytes)
FUZZ = settings(
    max_examples=250,
    deadline=None,  # the watchdog bounds each example in CPU time; a wall-clock deadline measures the machine's load
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
)
pytestmark = pytest.mark.timing  # each example is bounded in CPU time (watchdog)
SEVERITIES = {"breaking", "warning", "info"}


class _Hang(BaseException):
    """Raised by the watchdog; a BaseException so that no ``except Exception`` in the engine swallows it."""


@contextlib.contextmanager
def watchdog(seconds: float = EXAMPLE_BUDGET_S) -> Iterator[None]:
    """Fail (AssertionError, which hypothesis shrinks) when the block computes for longer than ``seconds`` of
    CPU time (``ITIMER_PROF``: this process's CPU time, so a loaded machine does not fire it early).

    ``re`` checks for signals while matching, so a catastrophic regex is interrupted too.
    """
    if not hasattr(signal, "setitimer"):  # pragma: no cover - non-POSIX
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise _Hang()

    previous = signal.signal(signal.SIGPROF, on_alarm)
    # re-fires every 0.5 s: an alarm landing in a gc callback or a finaliser is swallowed, the next one is not
    signal.setitimer(signal.ITIMER_PROF, seconds, 0.5)
    try:
        yield
    except _Hang:
        raise AssertionError(f"example ran longer than {seconds} s of CPU time (a hang)") from None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@pytest.fixture(scope="module", autouse=True)
def bounded_memory() -> Iterator[None]:
    """Cap this process's address space at its current size + ``MEMORY_HEADROOM`` while the module runs,
    so a memory bomb in the engine fails a test (MemoryError) instead of exhausting the machine."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        size = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    except (ImportError, OSError, ValueError):  # pragma: no cover - not Linux
        yield
        return
    limit = size + MEMORY_HEADROOM
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@pytest.fixture(scope="module", autouse=True)
def bounded_shrinking() -> Iterator[None]:
    """Cap hypothesis' shrinking of a failure at ``SHRINK_BUDGET_S`` (its default is 300 s), so that a
    failing run of this file stays about as short as a passing one. Restored after the module."""
    try:
        from hypothesis.internal.conjecture import engine as conjecture
    except ImportError:  # pragma: no cover - a hypothesis without this internal
        yield
        return
    previous = getattr(conjecture, "MAX_SHRINKING_SECONDS", None)
    if previous is not None:
        conjecture.MAX_SHRINKING_SECONDS = SHRINK_BUDGET_S  # type: ignore[attr-defined]
    yield
    if previous is not None:
        conjecture.MAX_SHRINKING_SECONDS = previous  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Refuse and record every outgoing connection for the duration of a test."""
    attempts: list[Any] = []

    def refuse(self: socket.socket, address: Any, *args: Any) -> Any:
        attempts.append(address)
        raise OSError("network access during a fuzz test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    yield attempts
    assert attempts == [], f"schema-audit tried to connect to {attempts}"


# ---- strategies ------------------------------------------------------------------------------------

KEYS = st.sampled_from(["a", "b", "id", "name", "x y", "", "$ref", "é", "\x1b[31m", "[bold]", "~1", "/"]) | st.text(
    max_size=4
)
NUMBERS = st.one_of(
    st.integers(-(10**6), 10**6),
    st.integers(-(2**64), 2**64),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, -0.0, 0.5, 1e-300, 5e-324, 1e308, -1.7e308, 1.7976931348623157e308, 2**53 + 1, 10**300]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=6))
JSON_VALUES = st.recursive(
    SCALARS, lambda c: st.lists(c, max_size=3) | st.dictionaries(KEYS, c, max_size=3), max_leaves=6
)
TYPES = st.sampled_from(["string", "integer", "number", "boolean", "object", "array", "null"])
PATTERNS = st.sampled_from(
    [
        "^a",
        "^[a-z]+$",
        "\\d+",
        "",
        "(",
        "[z-a]",
        "(a+)+b",
        "^(a|aa)+$",
        "(?P<x>a)(?P=x)",
        "^\\p{L}$",
        "a{2,}",
        "(?i)abc",
    ]
) | st.text(max_size=4)
REFS = st.sampled_from(
    [
        "#",
        "#/$defs/a",
        "#/$defs/b",
        "#/properties/a",
        "#/properties/a/items",
        "#/nope",
        "#/$defs/a/0",
        "#a",
        "#/%ZZ",
        "#/$defs/~2",
        "http://127.0.0.1:9/x.json",
        "https://example.invalid/s#/a",
        "file:///etc/passwd",
        "other.json",
        "urn:x:y",
        "",
    ]
)
DIALECTS = st.sampled_from(
    [
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-04/schema#",
        "http://127.0.0.1:9/meta",
        "nonsense",
    ]
)
LENGTHS = st.integers(-2, 12) | st.sampled_from([0, 1, 10**4])


def _mostly(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """The right kind of value most of the time, junk (any JSON value) sometimes."""
    return st.one_of(good, good, good, JSON_VALUES)


def _keyword_strategies(children: st.SearchStrategy[Any]) -> dict[str, st.SearchStrategy[Any]]:
    return {
        "type": _mostly(TYPES | st.lists(TYPES, max_size=3)),
        "enum": _mostly(st.lists(JSON_VALUES, max_size=4)),
        "const": JSON_VALUES,
        "minimum": _mostly(NUMBERS),
        "maximum": _mostly(NUMBERS),
        "exclusiveMinimum": _mostly(NUMBERS | st.booleans()),
        "exclusiveMaximum": _mostly(NUMBERS | st.booleans()),
        "multipleOf": _mostly(NUMBERS),
        "minLength": _mostly(LENGTHS),
        "maxLength": _mostly(LENGTHS),
        "minItems": _mostly(LENGTHS),
        "maxItems": _mostly(LENGTHS),
        "minProperties": _mostly(LENGTHS),
        "maxProperties": _mostly(LENGTHS),
        "pattern": _mostly(PATTERNS),
        "format": _mostly(
            st.sampled_from(["email", "uuid", "date-time", "uri", "int32", "int64", "regex", "ipv4", "bogus"])
        ),
        "properties": _mostly(st.dictionaries(KEYS, children, max_size=3)),
        "patternProperties": _mostly(st.dictionaries(PATTERNS, children, max_size=2)),
        # a malformed required (or dependentRequired entry) may hold any JSON value, hashable or not
        "required": st.one_of(_mostly(st.lists(KEYS, max_size=3)), st.lists(KEYS | JSON_VALUES, max_size=3)),
        "dependentRequired": _mostly(st.dictionaries(KEYS, st.lists(KEYS | JSON_VALUES, max_size=2), max_size=2)),
        "additionalProperties": _mostly(children),
        "unevaluatedProperties": _mostly(children),
        "items": _mostly(children | st.lists(children, max_size=2)),
        "prefixItems": _mostly(st.lists(children, max_size=2)),
        "uniqueItems": _mostly(st.booleans()),
        "anyOf": _mostly(st.lists(children, max_size=3)),
        "oneOf": _mostly(st.lists(children, max_size=3)),
        "allOf": _mostly(st.lists(children, max_size=2)),
        "not": children,
        "if": children,
        "then": children,
        "$ref": _mostly(REFS),
        "$defs": _mostly(st.fixed_dictionaries({}, optional={"a": children, "b": children})),
        "$schema": _mostly(DIALECTS),
        "$id": st.sampled_from(["http://127.0.0.1:9/root.json", "urn:x", "file:///tmp/", "#frag"]),
        "description": st.text(max_size=8),
        "default": JSON_VALUES,
    }


def _schema_dicts(children: st.SearchStrategy[Any], max_keys: int = 4) -> st.SearchStrategy[dict[str, Any]]:
    """A schema object with up to ``max_keys`` keywords, each with a value of (mostly) the right kind."""
    strategies = _keyword_strategies(children)
    return st.lists(st.sampled_from(sorted(strategies)), max_size=max_keys, unique=True).flatmap(
        lambda keys: st.fixed_dictionaries({k: strategies[k] for k in keys})
    )


SCHEMAS = st.recursive(st.booleans() | _schema_dicts(st.booleans()), _schema_dicts, max_leaves=12)
OBJECT_SCHEMAS = st.builds(
    lambda extra: {**extra, "type": "object"} if isinstance(extra, dict) else extra, _schema_dicts(SCHEMAS)
)


def _tools(names: st.SearchStrategy[str]) -> st.SearchStrategy[list[dict[str, Any]]]:
    tool = st.fixed_dictionaries(
        {"name": names},
        optional={
            "inputSchema": _mostly(OBJECT_SCHEMAS),
            "outputSchema": _mostly(SCHEMAS),
            "description": _mostly(st.text(max_size=10)),
            "annotations": _mostly(
                st.fixed_dictionaries(
                    {},
                    optional={
                        h: _mostly(st.booleans())
                        for h in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
                    },
                )
            ),
            "title": st.text(max_size=4),
            "_meta": JSON_VALUES,
        },
    )
    return st.lists(tool, max_size=4)


TOOL_NAMES = st.sampled_from(["a", "b", "c", "\x1b[2J", "[link=x]y[/link]"])
SNAPSHOT_SHAPED = st.one_of(
    st.builds(lambda t: {"tools": t}, _tools(TOOL_NAMES)),
    st.builds(lambda t: {"jsonrpc": "2.0", "id": 1, "result": {"tools": t, "nextCursor": None}}, _tools(TOOL_NAMES)),
    st.builds(
        lambda t, v, extra: {"format": "schema-audit/snapshot", "format_version": v, "tools": t, **extra},
        _tools(TOOL_NAMES),
        st.sampled_from([1, 1, 2, 3, "1", None]),
        st.fixed_dictionaries(
            {},
            optional={
                "label": JSON_VALUES,
                "server": JSON_VALUES,
                "meta": JSON_VALUES,
                "protocol_version": JSON_VALUES,
                "capabilities": JSON_VALUES,
                "transport": JSON_VALUES,
                "tool_hashes": JSON_VALUES,
                "list_cache": JSON_VALUES,
            },
        ),
    ),
    st.builds(lambda e: {"jsonrpc": "2.0", "id": 1, "error": e}, JSON_VALUES),
    st.dictionaries(
        st.sampled_from(["tools", "result", "format", "error", "server", "serverInfo"]), JSON_VALUES, max_size=3
    ),
    JSON_VALUES,
)


# ---- checks ----------------------------------------------------------------------------------------


def _check_findings(findings: Any) -> None:
    assert isinstance(findings, list)
    for f in findings:
        assert isinstance(f, Finding)
        assert f.rule in RULES, f.rule
        assert f.severity in SEVERITIES
        if f.severity == "breaking":
            assert f.witness is not None and f.hosts, f"breaking without a confirmed witness: {f.rule} at {f.pointer!r}"
        size = len(json.dumps(f.to_json(), default=str))
        assert size < 10_000_000, f"{f.rule} at {f.pointer!r}: a {size}-byte finding"


def _load(data: Any, source: str = "fuzz.json") -> Snapshot | None:
    try:
        snap = snapshot_from_data(data, source=source)
    except SchemaAuditError as exc:
        assert exc.one_line() and "\n" not in exc.one_line()
        return None
    assert isinstance(snap, Snapshot)
    return snap


# ---- the loader ------------------------------------------------------------------------------------


@FUZZ
@given(st.binary(max_size=64) | st.builds(lambda v, cut: json.dumps(v)[:cut].encode(), JSON_VALUES, st.integers(0, 60)))
def test_parse_json_text_bytes(data: bytes) -> None:
    with watchdog():
        try:
            parse_json_text(data, "fuzz.json")
        except SchemaAuditError as exc:
            assert "\n" not in exc.one_line()


@FUZZ
@given(st.text(max_size=40) | st.builds(lambda v: json.dumps(v, ensure_ascii=False), JSON_VALUES))
def test_parse_json_text_str(text: str) -> None:
    with watchdog():
        try:
            value = parse_json_text(text, "fuzz.json")
        except SchemaAuditError:
            return
        canonical_json(value)  # whatever parses can be written back (or is refused cleanly: not here)


@FUZZ
@given(SNAPSHOT_SHAPED)
def test_snapshot_from_data(data: Any) -> None:
    with watchdog():
        snap = _load(data)
        if snap is None:
            return
        names = [t["name"] for t in snap.tools]
        assert names == sorted(names) and len(set(names)) == len(names)
        try:
            text = canonical_json(snap.to_json())
        except SchemaAuditError:
            return  # e.g. a value JSON cannot hold: refused, cleanly
        again = _load(parse_json_text(text, "again.json"))  # a written snapshot loads back the same
        assert again is not None and again.tools == snap.tools
        assert {t["name"]: tool_hash(t) for t in again.tools} == snap.to_json()["tool_hashes"]


# ---- the engine ------------------------------------------------------------------------------------


@FUZZ
@given(SCHEMAS, SCHEMAS, st.sampled_from(["input", "output"]))
def test_compare_schemas_never_raises(old: Any, new: Any, direction: str) -> None:
    with watchdog():
        _check_findings(compare_schemas(old, new, direction, "t"))


@FUZZ
@given(OBJECT_SCHEMAS, st.data())
def test_compare_schema_with_a_mutation_of_itself(old: Any, data: st.DataObject) -> None:
    """Old and new share most structure (like real releases): one keyword replaced somewhere."""
    new = json.loads(json.dumps(old))
    node = new
    for _ in range(data.draw(st.integers(0, 3))):
        children = [v for v in node.values() if isinstance(v, dict)] if isinstance(node, dict) else []
        if not children:
            break
        node = data.draw(st.sampled_from(children))
    if isinstance(node, dict):
        node.update(data.draw(_schema_dicts(SCHEMAS)))
    with watchdog():
        for direction in ("input", "output"):
            _check_findings(compare_schemas(old, new, direction, "t"))
        assert compare_schemas(old, json.loads(json.dumps(old)), "output", "t") == compare_schemas(
            old, old, "output", "t"
        )


@settings(FUZZ, max_examples=150)
@given(_tools(TOOL_NAMES), _tools(TOOL_NAMES))
def test_diff_snapshots_and_reports(old_tools: list[Any], new_tools: list[Any]) -> None:
    old, new = _load({"tools": old_tools}, "old.json"), _load({"tools": new_tools}, "new.json")
    if old is None or new is None:
        return
    with watchdog(2 * EXAMPLE_BUDGET_S):
        findings = diff_snapshots(old, new)
        _check_findings(findings)
        report = Report(old=old, new=new, findings=findings, fail_on="warning")
        json.loads(render_json(report))
        text = render_text(report, color=False)
        assert "\x1b" not in text


def test_fuzz_file_runs_in_process(no_network: list[Any]) -> None:
    """The watchdog and the no-network fixture themselves work (so a pass above means something)."""
    with pytest.raises(AssertionError, match="longer than"), watchdog(0.2):
        import re

        re.search("(a+)+b", "a" * 40)  # catastrophic: only the watchdog ends it
    with pytest.raises(OSError, match="network access"):
        socket.create_connection(("127.0.0.1", 9), timeout=1)
    assert no_network == [("127.0.0.1", 9)]
    no_network.clear()
    assert "mcp_schema_audit.engine" in sys.modules  # in-process, so the fixtures apply to it


@settings(FUZZ, max_examples=400)
@given(SCHEMAS, st.sampled_from(["2020-12", "draft-07"]))
def test_metaschema_fast_path_never_passes_an_invalid_schema(schema: Any, dialect: str) -> None:
    """``surely_valid`` may say "not sure" for a valid schema, never "valid" for one ``check_schema`` rejects."""
    from jsonschema import Draft7Validator, Draft202012Validator
    from jsonschema.exceptions import SchemaError

    from mcp_schema_audit.schema.metacheck import surely_valid

    if isinstance(schema, dict):
        schema = {**schema, "$schema": "http://json-schema.org/draft-07/schema#"} if dialect == "draft-07" else schema
    cls = Draft7Validator if dialect == "draft-07" else Draft202012Validator
    if surely_valid(schema, dialect):
        try:
            cls.check_schema(schema)
        except SchemaError as exc:
            raise AssertionError(f"fast path passed an invalid schema: {exc.message}") from None
