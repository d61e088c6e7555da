"""Host-profile semantics of ``mcp_schema_audit/schema.py``: regex dialects, OpenAPI ``nullable``,
compile errors, and ReDoS bounds, per profile.

- ``python-sdk`` is python ``jsonschema``: Python ``re`` semantics, ``nullable`` ignored.
- ``ts-sdk-v1``/``ts-sdk-v2`` are Ajv 8: ``pattern``/``patternProperties`` are ECMAScript regexes
  compiled with the ``u`` flag (``\\d``, ``\\w``, ``\\b`` ASCII; ``$`` only at the end; ``\\p{L}``
  works; ``(?P<n>…)``, ``\\Z``, ``(?i)`` do not compile), ``nullable: true`` beside ``type`` admits
  ``null``, and what Ajv refuses to compile makes the schema uncompilable for the profile.

The last section checks a table of these facts against real Ajv (same set-up as
``tests/test_ajv_crosscheck.py``; skipped without node/npm).
"""

from __future__ import annotations

import contextlib
import re
import time
from typing import Any

import pytest

from mcp_schema_audit.schema import (
    HOST_PROFILES,
    INPLACE_BUDGET,
    EcmaRegexError,
    RegexBudgetError,
    SchemaCompileError,
    SchemaCostError,
    SchemaDoc,
    ajv_format_checker,
    ecma_compile_error,
    ecma_search,
    inplace_cost,
    js_numbers,
    safe_search,
)
from mcp_schema_audit.schema.compile import INPLACE_CYCLE
from mcp_schema_audit.schema.regex import _ecma_program

TS = ("ts-sdk-v1", "ts-sdk-v2")
D7 = "http://json-schema.org/draft-07/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"
D2020 = "https://json-schema.org/draft/2020-12/schema"
#: CPU seconds one hostile search or validation may take (the guard answers in ~0.05 s); CPU time, which a busy
#: machine does not stretch (a search stopped by the wall-clock guard raises WallClockGuard, which fails the test)
REDOS_BUDGET_S = 5.0


def valid(schema: Any, instance: Any, profile: str) -> bool:
    return not SchemaDoc(schema).errors(instance, profile)


def verdicts(schema: Any, instance: Any) -> dict[str, Any]:
    """profile → True (valid) / False (invalid) / "compile" (SchemaCompileError) / "error" (other ValueError)."""
    out: dict[str, Any] = {}
    doc = SchemaDoc(schema)
    for profile in HOST_PROFILES:
        try:
            out[profile] = not doc.errors(instance, profile)
        except SchemaCompileError:
            out[profile] = "compile"
        except ValueError:
            out[profile] = "error"
    return out


def string(pattern: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "pattern": pattern, **extra}


# ---- 1. ECMAScript vs Python regex semantics -------------------------------------------------------
@pytest.mark.parametrize(
    ("pattern", "text", "python", "ecma"),
    [
        (r"^\d$", "٣", True, False),  # ARABIC-INDIC DIGIT THREE: \d is Unicode in Python, ASCII in JS
        (r"^\d$", "3", True, True),
        (r"^abc$", "abc\n", True, False),  # Python $ matches before a trailing newline, JS $ only at the end
        (r"^abc$", "abc", True, True),
        (r"^\w$", "é", True, False),  # \w is ASCII in JS (no i flag)
        (r"^\w$", "_", True, True),
        (r"^\s$", "\u0085", True, False),  # NEL: Python whitespace, not in ECMAScript's \s
        (r"^\s$", "\ufeff", False, True),  # ZWNBSP: ECMAScript WhiteSpace, not Python's
        (r"^.$", "\u2028", True, False),  # . stops at LINE SEPARATOR in JS
        (r"^.$", "😀", True, True),  # u flag: one code point
        (r"\bfoo", "éfoo", False, True),  # \b is ASCII in JS: é-f is a boundary
        (r"^[^\d\s]+$", "٣x", False, True),  # a negated class of class escapes
    ],
)
def test_regex_semantics_per_profile(pattern: str, text: str, python: bool, ecma: bool) -> None:
    schema = string(pattern)
    assert valid(schema, text, "python-sdk") is python
    for profile in TS:
        assert valid(schema, text, profile) is ecma, profile
    assert (safe_search(pattern, text) is not None) is python
    assert ecma_search(pattern, text) is ecma


def test_unicode_property_escape_is_ecmascript_only() -> None:
    schema = string(r"^\p{L}+$")
    for profile in TS:
        assert valid(schema, "héllo", profile)
        assert not valid(schema, "h3", profile)
    with pytest.raises(ValueError, match="bad escape"):  # Python re has no \p: python-sdk cannot evaluate it
        SchemaDoc(schema).errors("héllo", "python-sdk")
    assert SchemaDoc(schema).compile_problem("python-sdk") is not None
    assert SchemaDoc(schema).compile_problem("ts-sdk-v1") is None


@pytest.mark.parametrize(
    "pattern",
    [r"(?P<id>[a-z]+)", r"^abc\Z", r"(?i)abc", r"(?i:abc)", r"[a-z]\-1", r"(?<n>a)|(?<n>b)", r"\b+", r"]", r"a{"],
)
def test_python_only_syntax_is_a_ts_compile_error(pattern: str) -> None:
    """Invalid under ECMAScript ``u``: Ajv throws at compile time, so every value is rejected by the host."""
    schema = {"type": "object", "properties": {"code": string(pattern)}}
    doc = SchemaDoc(schema)
    for profile in TS:
        ptr, why = doc.compile_problem(profile)
        assert ptr == "/properties/code/pattern" and "Invalid regular expression" in why
        with pytest.raises(SchemaCompileError, match=f"{profile} cannot compile the schema"):
            doc.errors({"code": "abc"}, profile)
        with pytest.raises(ValueError):
            doc.validator(profile)
        assert ecma_compile_error(pattern) is not None
        with pytest.raises(EcmaRegexError):
            ecma_search(pattern, "abc")
    try:
        re.compile(pattern)
    except re.error:
        assert doc.compile_problem("python-sdk") is not None
    else:  # valid Python: the python-sdk host compiles and runs it
        assert doc.compile_problem("python-sdk") is None
        assert isinstance(doc.errors({"code": "abc"}, "python-sdk"), list)


def test_ecmascript_only_constructs_compile() -> None:
    for pattern, text in (
        (r"^(?<year>\d{4})-\k<year>$", "2024-2024"),
        (r"(?<=\$)\d+", "$12"),
        (r"^\u{1F600}$", "😀"),
        (r"^[^]$", "\n"),
        (r"^\uD83D\uDE00$", "😀"),
    ):
        assert ecma_compile_error(pattern) is None, pattern
        for profile in TS:
            assert valid(string(pattern), text, profile), (pattern, profile)
    assert not valid(string("[]"), "x", "ts-sdk-v1")  # the empty class matches nothing


def test_pattern_properties_and_additional_properties_use_the_profile_regex() -> None:
    closed = {"type": "object", "patternProperties": {r"^\d+$": {"type": "integer"}}, "additionalProperties": False}
    assert verdicts(closed, {"٣": 1}) == {"python-sdk": True, "ts-sdk-v1": False, "ts-sdk-v2": False}
    assert verdicts(closed, {"3": 1}) == {"python-sdk": True, "ts-sdk-v1": True, "ts-sdk-v2": True}
    # the value schema applies only where the key matches: "٣" is not a patternProperties key for Ajv
    open_ = {"type": "object", "patternProperties": {r"^\d+$": {"type": "integer"}}}
    assert verdicts(open_, {"٣": "x"}) == {"python-sdk": False, "ts-sdk-v1": True, "ts-sdk-v2": True}
    # property names go through "pattern"
    names = {"type": "object", "propertyNames": {"pattern": r"^\w+$"}}
    assert verdicts(names, {"é": 1}) == {"python-sdk": True, "ts-sdk-v1": False, "ts-sdk-v2": False}


@pytest.mark.parametrize("dialect", [D2020, D2019])
def test_unevaluated_properties_use_the_profile_regex(dialect: str) -> None:
    schema = {
        "$schema": dialect,
        "type": "object",
        "patternProperties": {r"^\d+$": {"type": "integer"}},
        "unevaluatedProperties": False,
    }
    # ts-sdk-v1 is the draft-07 Ajv class: unevaluatedProperties is not a keyword there
    assert verdicts(schema, {"٣": 1}) == {"python-sdk": True, "ts-sdk-v1": True, "ts-sdk-v2": False}
    assert verdicts(schema, {"3": 1}) == {"python-sdk": True, "ts-sdk-v1": True, "ts-sdk-v2": True}
    nested = {
        "$schema": dialect,
        "type": "object",
        "allOf": [{"patternProperties": {r"^\w$": True}}],
        "unevaluatedProperties": False,
    }
    assert verdicts(nested, {"é": 1}) == {"python-sdk": True, "ts-sdk-v1": True, "ts-sdk-v2": False}


def test_python_sdk_keeps_jsonschema_joined_pattern_properties() -> None:
    """jsonschema joins the patternProperties keys with "|" for additionalProperties; the python-sdk
    profile keeps that (a global inline flag not at the start then fails), Ajv tests each key alone."""
    schema = {"type": "object", "patternProperties": {"^a": {}, "(?i)^b": {}}, "additionalProperties": False}
    with pytest.raises(ValueError):
        SchemaDoc(schema).errors({"B": 1}, "python-sdk")
    ok = {"type": "object", "patternProperties": {"^a": {}, "^b": {}}, "additionalProperties": False}
    assert verdicts(ok, {"b": 1, "a": 2}) == dict.fromkeys(HOST_PROFILES, True)
    assert verdicts(ok, {"c": 1}) == dict.fromkeys(HOST_PROFILES, False)


def test_format_regex_is_checked_as_ajv_formats_does() -> None:
    """ajv-formats ``regex``: ``new RegExp(str)`` without ``u``, and no ``\\Z``."""
    schema = {"type": "string", "format": "regex"}
    assert verdicts(schema, r"\p{L}") == dict.fromkeys(HOST_PROFILES, True)  # formats are not checked by python-sdk
    assert verdicts(schema, r"(?P<n>a)") == {"python-sdk": True, "ts-sdk-v1": False, "ts-sdk-v2": False}
    assert verdicts(schema, r"a\Z") == {"python-sdk": True, "ts-sdk-v1": False, "ts-sdk-v2": False}
    assert verdicts(schema, r"\a") == dict.fromkeys(HOST_PROFILES, True)  # an identity escape without u
    assert not ajv_format_checker().conforms("((", "regex")


def test_no_regex_search_escapes_the_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """No jsonschema module is patched, and none of jsonschema's own ``re.search`` calls is reached:
    every regex keyword (pattern, patternProperties, additionalProperties, unevaluatedProperties) of
    every validator class used is replaced."""
    import jsonschema._keywords
    import jsonschema._legacy_keywords
    import jsonschema._utils

    for module in (jsonschema._keywords, jsonschema._utils, jsonschema._legacy_keywords):
        assert module.re is re, f"{module.__name__}.re was replaced"

    class Tripwire:
        def __getattr__(self, name: str) -> Any:
            if name == "search":
                raise AssertionError("jsonschema's unguarded re.search was called")
            return getattr(re, name)

    for module in (jsonschema._keywords, jsonschema._utils, jsonschema._legacy_keywords):
        monkeypatch.setattr(module, "re", Tripwire())
    body = {
        "type": "object",
        "properties": {"s": {"type": "string", "pattern": "^a+$"}},
        "patternProperties": {"^x": {"type": "integer"}},
        "additionalProperties": {"type": "boolean"},
        "allOf": [{"patternProperties": {"^z": {"type": "boolean"}}}],
    }
    instance = {"s": "aa", "x1": 1, "z": True}
    for dialect in (
        D2020,
        D2019,
        D7,
        "http://json-schema.org/draft-06/schema#",
        "http://json-schema.org/draft-04/schema#",
    ):
        schema = {"$schema": dialect, **body}
        if dialect in (D2020, D2019):
            schema = {**schema, "unevaluatedProperties": False}
        for profile in HOST_PROFILES:
            try:
                errs = SchemaDoc(schema).errors(instance, profile)
            except SchemaCompileError:
                assert profile == "ts-sdk-v2" and dialect.endswith("draft-04/schema#")
                continue
            assert errs == [], (dialect, profile, [e.message for e in errs])
            bad = SchemaDoc(schema).errors({**instance, "s": "b", "x2": "no"}, profile)
            assert len(bad) >= 2, (dialect, profile)


# ---- 2. what Ajv refuses to compile ----------------------------------------------------------------
def test_compile_checks_follow_what_ajv_compiles() -> None:
    bad = string("(?P<n>a)")
    unreachable = [
        {"type": "object", "$defs": {"x": bad}},  # $defs are compiled only through $ref
        {"type": "object", "definitions": {"x": bad}},
        {"type": "object", "x-extension": bad},  # unknown keyword
        {"type": "object", "then": bad},  # "then" without "if"
        {"type": "object", "if": bad},  # "if" without "then"/"else"
        {"type": "array", "additionalItems": bad},  # ignored unless "items" is an array
    ]
    for schema in unreachable:
        for profile in TS:
            assert SchemaDoc(schema).compile_problem(profile) is None, (schema, profile)
    reachable = [
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": bad}}, "/$defs/x/pattern"),
        ({"type": "object", "properties": {"a": {"not": bad}}}, "/properties/a/not/pattern"),
        ({"type": "object", "propertyNames": bad}, "/propertyNames/pattern"),
        ({"type": "object", "if": {"type": "object"}, "then": {"title": "t"}, "else": bad}, "/else/pattern"),
        ({"type": "object", "dependencies": {"a": bad}}, "/dependencies/a/pattern"),
        ({"type": "integer", "pattern": "(?P<n>a)"}, "/pattern"),  # compiled whatever the type
    ]
    for schema, ptr in reachable:
        for profile in TS:
            assert SchemaDoc(schema).compile_problem(profile)[0] == ptr, (schema, profile)
    # 2020-12-only keywords: compiled by Ajv2020 (ts-sdk-v2), not by the draft-07 class (ts-sdk-v1)
    modern = {"type": "object", "prefixItems": [bad], "unevaluatedProperties": bad}
    assert SchemaDoc(modern).compile_problem("ts-sdk-v1") is None
    assert SchemaDoc(modern).compile_problem("ts-sdk-v2")[0] == "/prefixItems/0/pattern"


def test_pattern_properties_keys_compiled_as_ajv_does() -> None:
    """patternProperties.ts skips the regexes of always-valid subschemas in the draft-07 class (and in
    Ajv2019/2020 when additionalProperties already evaluated every key); additionalProperties.ts
    compiles them when it is not always valid."""
    key = "(?P<n>a)"
    only_trivial = {"type": "object", "patternProperties": {key: {"title": "t"}}}
    assert SchemaDoc(only_trivial).compile_problem("ts-sdk-v1") is None
    assert SchemaDoc(only_trivial).compile_problem("ts-sdk-v2")[0] == "/patternProperties/(?P<n>a)"
    with_open = {"type": "object", "patternProperties": {key: {}}, "additionalProperties": True}
    assert all(SchemaDoc(with_open).compile_problem(p) is None for p in TS)
    with_closed = {"type": "object", "patternProperties": {key: {}}, "additionalProperties": False}
    assert all(SchemaDoc(with_closed).compile_problem(p) is not None for p in TS)
    with_schema = {"type": "object", "patternProperties": {key: {"type": "string"}}}
    assert all(SchemaDoc(with_schema).compile_problem(p) is not None for p in TS)


@pytest.mark.parametrize(
    ("schema", "ptr", "message"),
    [
        ({"type": "string", "maxLength": "3"}, "/maxLength", 'maxLength value must be ["number"]'),
        ({"type": "object", "required": "a"}, "/required", 'required value must be ["array"]'),
        ({"type": "string", "enum": []}, "/enum", "enum must have non-empty array"),
        ({"type": "object", "id": "x"}, "/id", 'NOT SUPPORTED: keyword "id"'),
        ({"type": "foo"}, "/type", "type must be JSONType or JSONType[]: foo"),
        ({"type": "object", "properties": {"a": {"$ref": 5}}}, "/properties/a/$ref", '$ref value must be ["string"]'),
    ],
)
def test_keyword_values_ajv_refuses(schema: dict[str, Any], ptr: str, message: str) -> None:
    for profile in TS:
        found = SchemaDoc(schema).compile_problem(profile)
        assert found is not None and found[0] == ptr and message in found[1], (profile, found)


def test_items_array_under_ajv2020() -> None:
    """A draft-07 tuple (``items: [...]``) in a 2020-12 schema: Ajv2020 throws, the draft-07 class takes it."""
    schema = {"type": "object", "properties": {"t": {"type": "array", "items": [{"type": "string"}]}}}
    assert SchemaDoc(schema).compile_problem("ts-sdk-v1") is None
    assert SchemaDoc(schema).compile_problem("ts-sdk-v2") == (
        "/properties/t/items",
        'items value must be ["object","boolean"]',
    )
    assert SchemaDoc({**schema, "$schema": D7}).compile_problem("ts-sdk-v2") is None


def test_unsupported_dialect_is_a_ts_sdk_v2_compile_error() -> None:
    doc = SchemaDoc({"$schema": "http://json-schema.org/draft-04/schema#", "type": "string"})
    assert doc.compile_problem("ts-sdk-v2")[0] == "/$schema"
    with pytest.raises(SchemaCompileError, match="unsupported dialect draft-04"):
        doc.errors("x", "ts-sdk-v2")
    assert doc.errors("x", "ts-sdk-v1") == [] and doc.errors("x", "python-sdk") == []
    with pytest.raises(ValueError, match="unknown host profile"):
        doc.validator("ts-sdk-v9")


# ---- 3. OpenAPI nullable ---------------------------------------------------------------------------
def test_nullable_true_beside_type_admits_null_on_ts_only() -> None:
    schema = {"type": "string", "nullable": True}
    assert verdicts(schema, None) == {"python-sdk": False, "ts-sdk-v1": True, "ts-sdk-v2": True}
    assert verdicts(schema, "x") == dict.fromkeys(HOST_PROFILES, True)
    assert verdicts(schema, 1) == dict.fromkeys(HOST_PROFILES, False)
    nested = {
        "type": "object",
        "properties": {"label": {"type": ["string", "integer"], "nullable": True, "minLength": 2}},
        "required": ["label"],
    }
    assert verdicts(nested, {"label": None}) == {"python-sdk": False, "ts-sdk-v1": True, "ts-sdk-v2": True}
    via_ref = {
        "$schema": D7,
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/N"}},
        "definitions": {"N": {"type": "integer", "nullable": True}},
    }
    assert verdicts(via_ref, {"a": None}) == {"python-sdk": False, "ts-sdk-v1": True, "ts-sdk-v2": True}


def test_nullable_does_not_extend_enum_or_const() -> None:
    """Ajv adds "null" to the types only: an enum/const without null still rejects it."""
    for schema in (
        {"type": "string", "nullable": True, "enum": ["a", "b"]},
        {"type": "string", "nullable": True, "const": "a"},
    ):
        assert verdicts(schema, None) == dict.fromkeys(HOST_PROFILES, False)
    with_null = {"type": "string", "nullable": True, "enum": ["a", None]}
    assert verdicts(with_null, None) == {"python-sdk": False, "ts-sdk-v1": True, "ts-sdk-v2": True}


def test_nullable_false_changes_nothing_when_type_has_no_null() -> None:
    assert verdicts({"type": "string", "nullable": False}, None) == dict.fromkeys(HOST_PROFILES, False)
    assert verdicts({"type": "null", "nullable": True}, None) == dict.fromkeys(HOST_PROFILES, True)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"nullable": True}, '"nullable" cannot be used without "type"'),
        ({"nullable": False}, '"nullable" cannot be used without "type"'),
        ({"type": [], "nullable": True}, '"nullable" cannot be used without "type"'),
        ({"type": ["string", "null"], "nullable": False}, "type: null contradicts nullable: false"),
        ({"type": "null", "nullable": False}, "type: null contradicts nullable: false"),
        ({"type": "string", "nullable": "yes"}, 'nullable value must be ["boolean"]'),
    ],
)
def test_nullable_misuse_is_a_ts_compile_error(schema: dict[str, Any], message: str) -> None:
    wrapped = {"type": "object", "properties": {"v": schema}}
    plain = {"type": "object", "properties": {"v": {k: v for k, v in schema.items() if k != "nullable"}}}
    for value in ("x", None):  # jsonschema ignores nullable
        assert verdicts(wrapped, {"v": value})["python-sdk"] == verdicts(plain, {"v": value})["python-sdk"]
    for profile in TS:
        assert SchemaDoc(wrapped).compile_problem(profile)[0].startswith("/properties/v/")
        assert message in SchemaDoc(wrapped).compile_problem(profile)[1]
        with pytest.raises(SchemaCompileError, match=re.escape(message)):
            SchemaDoc(wrapped).errors({"v": "x"}, profile)
    # an unreferenced definition is never compiled
    assert SchemaDoc({"type": "object", "$defs": {"v": schema}}).compile_problem("ts-sdk-v1") is None


# ---- 4. ReDoS stays bounded in every profile -------------------------------------------------------
HOSTILE_TEXT = "a" * 5000 + "!"


@pytest.mark.timing
@pytest.mark.parametrize("profile", HOST_PROFILES)
@pytest.mark.parametrize(
    "schema,instance",
    [
        (string(r"^(a+)+$"), HOSTILE_TEXT),
        (string(r"^(a|aa)+$"), HOSTILE_TEXT),
        (
            string(r"^(a+)+\1$"),
            HOSTILE_TEXT,
        ),  # a backreference: no timeout-guarded translation, the static bound refuses
        (
            {"type": "object", "patternProperties": {r"^(a+)+$": {"type": "string"}}, "additionalProperties": False},
            {HOSTILE_TEXT: "x"},
        ),
        (
            {"type": "object", "patternProperties": {r"^(a+)+$": {"type": "string"}}, "unevaluatedProperties": False},
            {HOSTILE_TEXT: "x"},
        ),
        ({"type": "object", "propertyNames": {"pattern": r"^(a|a?)+$"}}, {HOSTILE_TEXT: 1}),
    ],
)
def test_catastrophic_patterns_are_bounded(profile: str, schema: Any, instance: Any) -> None:
    started = time.process_time()
    with contextlib.suppress(RegexBudgetError):  # refused or stopped: undecided, which callers report as such
        SchemaDoc(schema).errors(instance, profile)
    assert time.process_time() - started < REDOS_BUDGET_S


@pytest.mark.timing
def test_ecma_search_refuses_instead_of_hanging() -> None:
    started = time.process_time()
    with pytest.raises(RegexBudgetError, match="may backtrack catastrophically"):
        ecma_search(r"^(a+)+$", HOSTILE_TEXT)  # past both static bounds: refused by counted work, never by time
    with pytest.raises(RegexBudgetError, match="may backtrack catastrophically"):
        ecma_search(r"^(a+)+\1$", HOSTILE_TEXT)  # no exact translation: refused by the static bound
    assert time.process_time() - started < REDOS_BUDGET_S
    # within the static bound regress itself answers; a long text with a linear pattern is fine
    assert ecma_search(r"^(a+)+$", "a" * 10) and not ecma_search(r"^(a+)+$", "a" * 10 + "!")
    assert ecma_search(r"^[a-z]+$", "a" * 100_000)
    assert _ecma_program(r"^(a+)+$").limit < 30 < _ecma_program(r"^[a-z]+$").limit


@pytest.mark.timing
def test_fixed_count_over_alternatives_is_bounded() -> None:
    """``(?:a|a){40}`` backtracks 2**40 times on a miss although no repeat is variable: the static bound
    must be finite (a hang in regress before), and the search is then refused or timed out."""
    assert _ecma_program(r"^(?:a|a){40}$").limit < 30
    assert _ecma_program(r"^[a-z]{40}$").limit == float("inf")  # one atom per step: linear
    started = time.process_time()
    with pytest.raises(RegexBudgetError):
        ecma_search(r"^(?:a|a){40}$", "a" * 40 + "\n")
    with pytest.raises(RegexBudgetError):
        safe_search(r"^(?:a|a){40}\Z", "a" * 40 + "\n")
    assert time.process_time() - started < REDOS_BUDGET_S
    assert ecma_search(r"^(?:a|b){3}$", "aba") and not ecma_search(r"^(?:a|b){3}$", "abc")


def test_inplace_cost_finds_cycles_and_unevaluated_chains() -> None:
    """An in-place ``$ref`` cycle never terminates (``INPLACE_CYCLE``); recursion through ``properties``
    or an unused ``$defs`` cycle is harmless; ``unevaluatedProperties`` multiplies its subschemas."""
    assert inplace_cost(SchemaDoc({"not": {"$ref": "#"}})) == INPLACE_CYCLE
    assert (
        inplace_cost(
            SchemaDoc(
                {
                    "$ref": "#/$defs/a",
                    "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"if": {"$ref": "#/$defs/a"}}},
                }
            )
        )
        == INPLACE_CYCLE
    )
    tree = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}}
    assert inplace_cost(SchemaDoc(tree)) < 10
    unused = {"type": "object", "$defs": {"a": {"$ref": "#/$defs/a"}}}
    assert inplace_cost(SchemaDoc(unused)) < 10
    with pytest.raises(SchemaCostError, match="never terminates"):
        SchemaDoc({"type": "object", "not": {"$ref": "#"}}).validator()

    def chain(levels: int) -> dict[str, Any]:
        node: dict[str, Any] = {"properties": {"x": {"type": "string"}}}
        for _ in range(levels):
            node = {"allOf": [node], "unevaluatedProperties": False}
        return node

    laughs: dict[str, Any] = {"L0": {"type": "string"}}
    for i in range(1, 21):
        laughs[f"L{i}"] = {"anyOf": [{"$ref": f"#/$defs/L{i - 1}"}, {"$ref": f"#/$defs/L{i - 1}"}]}
    # a property named like a keyword ("enum", "$defs") is still a schema the walk measures
    for name in ("enum", "$defs", "default"):
        hidden = {"type": "object", "properties": {name: {"$ref": "#/$defs/L20"}}, "$defs": laughs}
        assert inplace_cost(SchemaDoc(hidden)) > INPLACE_BUDGET, name

    assert inplace_cost(SchemaDoc(chain(3))) < 200  # what real schemas nest: still validated
    assert SchemaDoc(chain(3)).errors({"x": "a", "y": 1})  # and y is rejected
    assert inplace_cost(SchemaDoc(chain(14))) > INPLACE_BUDGET
    with pytest.raises(SchemaCostError, match="unevaluated"):
        SchemaDoc(chain(14)).validator()


def test_ts_hosts_read_numbers_as_javascript_doubles() -> None:
    """JSON.parse rounds integers beyond 2**53: a bound of 9007199254740992 and the value 9007199254740993 are
    the same double for Ajv, so only python-sdk rejects it."""
    schema = {"type": "integer", "maximum": 2**53}
    assert SchemaDoc(schema).errors(2**53 + 1, "python-sdk")
    assert not SchemaDoc(schema).errors(2**53 + 1, "ts-sdk-v2") and not SchemaDoc(schema).errors(2**53 + 1, "ts-sdk-v1")
    assert SchemaDoc({"const": 2**53 + 1}).errors(2**53, "python-sdk")
    assert not SchemaDoc({"const": 2**53 + 1}).errors(2**53, "ts-sdk-v2")
    assert SchemaDoc({"maximum": 10}).errors(11, "ts-sdk-v2")  # small numbers unchanged
    assert js_numbers({"a": [2**60, True, 3]}) == {"a": [float(2**60), True, 3]}


def test_non_string_root_id_is_uncompilable_not_a_crash() -> None:
    for bad in (5, True, {}, []):
        doc = SchemaDoc({"type": "object", "$id": bad})
        with pytest.raises(SchemaCompileError):
            doc.validator("python-sdk")


def test_lone_surrogates_are_undecided_not_wrong() -> None:
    with pytest.raises(RegexBudgetError):
        ecma_search("^a$", "\ud800")
    with pytest.raises(RegexBudgetError):
        ecma_search("\ud800", "x")
    assert ecma_compile_error("\ud800") is None


# ---- 5. the timeout-guarded translation is exact ---------------------------------------------------
_PATTERNS = [
    r"^\d+$",
    r"^\w+$",
    r"^\s*$",
    r"^\S+$",
    r"^.$",
    r"^.*$",
    r"abc$",
    r"^\W\D$",
    r"\bfoo\b",
    r"\Bo",
    r"^[\w-]+$",
    r"^[^\s]+$",
    r"^[a-z\d_.]+@[^\W\d]+$",
    r"^[\D]$",
    r"^[^\D\s]$",
    r"^(?:a|ab)(?:c|bcd)(d*)$",
    r"(?<=\$)\d+(?!\d)",
    r"(?<!a)b",
    r"^\u{1F600}$",
    r"^[\u{1F600}-\u{1F64F}]+$",
    r"^\uD83D\uDE00$",
    r"^[^]$",
    r"^[]$",
    r"^\0$",
    r"^\cJ$",
    r"^\x41\u0042$",
    r"^[\s\S]{2,3}?$",
    r"^(?<n>x)y$",
    r"^\/\.\*$",
    r"^[\b]$",
    r"^(?:\.|[a-z]){2}$",
    r"^[-a]$",
    r"^[a-]$",
    r"^[\-\]]+$",
    r"^a{2}$",
    r"^a{1,}$",
    r"^(a|)+$",
]
_TEXTS = [
    "",
    "3",
    "٣",
    "12",
    "a",
    "é",
    "abc",
    "abc\n",
    "\nabc",
    "a b",
    " ",
    "\u00a0",
    "\u0085",
    "\ufeff",
    "\u2028",
    "\t",
    "\v",
    "foo",
    "xfoo",
    "é foo",
    "ß",
    "😀",
    "😀😀",
    "$12",
    "$123x",
    "ab",
    "b",
    "cb",
    "A",
    "AB",
    "\x00",
    "\n",
    "\x08",
    "a-b_c",
    "abcbcdd",
    "abcd",
    "xy",
    "/.*",
    "-",
    "]",
    "-]",
    "aa",
    "aaa",
    "a@b",
    "a.b@cd",
    "5",
]


@pytest.mark.parametrize("pattern", _PATTERNS)
def test_translation_agrees_with_regress(pattern: str) -> None:
    program = _ecma_program(pattern)
    fallback = program.fallback()  # compiled the first time a long text asks for it
    assert fallback is not None, pattern
    for text in _TEXTS:
        expected = program.regex.find(text) is not None
        assert (fallback.search(text) is not None) is expected, (pattern, text)


def test_translation_agrees_with_regress_on_generated_patterns() -> None:
    """Property check: random patterns over the translated constructs, random strings."""
    hypothesis = pytest.importorskip("hypothesis")
    from hypothesis import strategies as st

    atoms = st.sampled_from(
        [
            r"a",
            r"b",
            r"\d",
            r"\D",
            r"\w",
            r"\W",
            r"\s",
            r"\S",
            r".",
            r"[a-c]",
            r"[^a\d]",
            r"[\w-]",
            r"[^\s\S]",
            r"é",
            r"\u00e9",
            r"\b",
            r"\B",
            r"^",
            r"$",
            r"[\D\s]",
        ]
    )
    quantifiers = st.sampled_from(["", "", "*", "+", "?", "{1,2}", "*?", "+?"])

    def group(inner: str) -> str:
        return f"(?:{inner})"

    term = st.builds(lambda a, q: a + (q if a not in (r"\b", r"\B", "^", "$") else ""), atoms, quantifiers)
    seq = st.lists(term, min_size=1, max_size=4).map("".join)
    alt = st.lists(seq, min_size=1, max_size=3).map("|".join)
    pattern = st.one_of(alt, st.builds(lambda s, q: group(s) + q, alt, quantifiers), alt.map(lambda s: f"(?=a){s}"))
    text = st.text(alphabet="ab3٣é \n\u2028\ufeff_-", max_size=8)

    @hypothesis.settings(max_examples=400, deadline=None, derandomize=True)
    @hypothesis.given(pattern, st.lists(text, min_size=1, max_size=6))
    def check(p: str, texts: list[str]) -> None:
        program = _ecma_program(p)
        fallback = program.fallback()
        assert fallback is not None
        for t in texts:
            assert (fallback.search(t) is not None) is (program.regex.find(t) is not None), (p, t)

    check()


# ---- 6. real Ajv agrees with the emulation ---------------------------------------------------------
from test_ajv_crosscheck import NODE, NPM, ajv, ajv_prefix  # noqa: E402,F401  (session fixtures: real Ajv)

#: (schema, instance): compared per TS profile with real Ajv: valid, invalid, or compile error.
AJV_FACTS: list[tuple[Any, Any]] = [
    (string(r"^\d$"), "٣"),
    (string(r"^\d$"), "3"),
    (string(r"^abc$"), "abc\n"),
    (string(r"^\w$"), "é"),
    (string(r"^\s$"), "\ufeff"),
    (string(r"^\s$"), "\u0085"),
    (string(r"^.$"), "\u2028"),
    (string(r"\bfoo"), "éfoo"),
    (string(r"^\p{L}+$"), "héllo"),
    (string(r"^\p{L}+$"), "h3"),
    (string(r"(?P<n>a)"), "a"),
    (string(r"a\Z"), "a"),
    (string(r"(?i)a"), "a"),
    (string(r"(?i:a)"), "a"),
    (string(r"(?<n>a)|(?<n>b)"), "a"),
    (string(r"\b+"), "a"),
    (string(r"^(?<y>\d{4})-\k<y>$"), "2024-2024"),
    (string(r"^\uD83D\uDE00$"), "😀"),
    (string(r"^[^]$"), "\n"),
    ({"type": "object", "patternProperties": {r"^\d+$": {"type": "integer"}}, "additionalProperties": False}, {"٣": 1}),
    (
        {"type": "object", "patternProperties": {r"^\d+$": {"type": "integer"}}, "unevaluatedProperties": False},
        {"٣": 1},
    ),
    (
        {"$schema": D2019, "type": "object", "patternProperties": {r"^\d+$": True}, "unevaluatedProperties": False},
        {"٣": 1},
    ),
    ({"type": "object", "propertyNames": {"pattern": r"^\w+$"}}, {"é": 1}),
    ({"type": "object", "patternProperties": {"(?P<n>a)": {"title": "t"}}}, {}),
    ({"type": "object", "patternProperties": {"(?P<n>a)": {}}, "additionalProperties": False}, {}),
    ({"type": "object", "patternProperties": {"(?P<n>a)": {}}, "additionalProperties": True}, {}),
    ({"type": "object", "$defs": {"x": string("(?P<n>a)")}}, {}),
    ({"type": "object", "prefixItems": [string("(?P<n>a)")]}, {}),
    ({"type": "object", "if": {"type": "object"}, "then": {"title": "t"}, "else": string("(?P<n>a)")}, {}),
    ({"type": "string", "format": "regex"}, r"\p{L}"),
    ({"type": "string", "format": "regex"}, r"(?P<n>a)"),
    ({"type": "string", "format": "regex"}, r"a\Z"),
    ({"type": "string", "nullable": True}, None),
    ({"type": "string", "nullable": False}, None),
    ({"nullable": True}, None),
    ({"nullable": False}, "x"),
    ({"type": ["string", "null"], "nullable": False}, "x"),
    ({"type": "null", "nullable": True}, None),
    ({"type": "string", "nullable": True, "enum": ["a"]}, None),
    ({"type": "string", "nullable": True, "enum": ["a", None]}, None),
    ({"type": "string", "nullable": "yes"}, "x"),
    ({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"nullable": True}}}, {}),
    ({"type": "object", "$defs": {"a": {"nullable": True}}}, {}),
    ({"type": "array", "items": [{"type": "string"}]}, ["x"]),
    ({"type": "string", "enum": []}, "x"),
    ({"type": "object", "id": "x"}, {}),
    ({"type": "string", "maxLength": "3"}, "x"),
]


@pytest.mark.skipif(NODE is None or NPM is None, reason="node and npm are needed to run real Ajv")
@pytest.mark.parametrize("fact", AJV_FACTS, ids=lambda f: str(f)[:70])
def test_emulation_matches_real_ajv(fact: tuple[Any, Any], ajv: Any) -> None:  # noqa: F811 (the fixture)
    schema, instance = fact
    for profile in TS:
        real = ajv.validate(schema, instance, profile)
        mine = verdicts(schema, instance)[profile]
        expected = "compile" if real.get("compile_error") else bool(real["valid"])
        assert mine == expected, f"{profile}: emulation {mine!r}, real Ajv {real}"
