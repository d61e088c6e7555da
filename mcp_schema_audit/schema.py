"""Schema model: dialect detection, local ``$ref`` resolution with no network, and host-profile validators.

A ``SchemaDoc`` wraps one tool schema (inputSchema or outputSchema) as a document with a
``referencing.Registry`` that holds only that document: remote references (``http://…``,
``https://…``, ``file://…``) are never retrieved — resolving one raises ``RefError``.

Host profiles (DESIGN.md §1) are emulated with python ``jsonschema``:

- ``python-sdk``: validator chosen by ``$schema`` (default 2020-12), formats not checked;
- ``ts-sdk-v1``: Ajv's draft-07 class for every schema (2020-12-only keywords ignored), formats checked;
- ``ts-sdk-v2``: Ajv2020/2019/draft-07 chosen by ``$schema``, formats checked.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from typing import Any

DIALECTS = {
    "https://json-schema.org/draft/2020-12/schema": "2020-12",
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "http://json-schema.org/draft-06/schema": "draft-06",
    "http://json-schema.org/draft-04/schema": "draft-04",
}
DEFAULT_DIALECT = "2020-12"
HOST_PROFILES = ("python-sdk", "ts-sdk-v1", "ts-sdk-v2")
#: Keywords only 2020-12 (or 2019-09) validators enforce; ts-sdk-v1 (draft-07 Ajv) ignores them.
MODERN_ONLY_KEYWORDS = ("prefixItems", "unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "dependentSchemas")


class RefError(Exception):
    """A ``$ref`` cannot be resolved locally (missing pointer, remote URI, cycle of bare refs)."""


# ---- regular expressions from strangers ---------------------------------------------------------
#: Seconds one ``pattern`` search may take when the ``regex`` package (which has timeouts) is installed.
REGEX_TIMEOUT_S = 0.05
#: Without ``regex``: backtracking steps a search is allowed by the static estimate (see ``safe_search``).
REGEX_STEP_BUDGET = 200_000


class RegexBudgetError(ValueError):
    """A ``pattern`` search was refused or stopped: it could backtrack catastrophically (ReDoS) on this string."""


@functools.lru_cache(maxsize=1024)
def _regex_shape(pattern: str) -> tuple[int, int, int]:
    """``(nesting, alternatives, variable_repeats)`` of ``pattern``; raises ``re.error`` when invalid.

    ``nesting`` is the deepest nesting of variable repeats (``(a+)+`` → 2), ``alternatives`` the
    largest alternation inside a repeat (``(a|ab)+`` → 2), ``variable_repeats`` how many repeats
    have a variable count (times the count of fixed repeats around them: ``(.*a){12}`` → 12). A
    search costs about ``max(2, alternatives) ** len(text)`` steps when
    ``nesting > 1``, and ``len(text) ** (variable_repeats + 1)`` otherwise.
    """
    re.compile(pattern)  # the error a host would raise, first
    try:
        from re import _constants as c, _parser as parser  # type: ignore[attr-defined]  # 3.11+
    except ImportError:  # pragma: no cover - 3.10
        import sre_constants as c  # type: ignore[no-redef]
        import sre_parse as parser  # type: ignore[no-redef]
    repeats = {c.MAX_REPEAT, c.MIN_REPEAT} | ({c.POSSESSIVE_REPEAT} if hasattr(c, "POSSESSIVE_REPEAT") else set())
    count = 0

    def walk(items: Any, in_repeat: bool, mult: int = 1) -> tuple[int, int]:
        nonlocal count
        depth, alts = 0, 1
        for op, av in items:
            if op in repeats:
                lo, hi, body = av
                variable = lo != hi
                count += variable * mult
                inner = mult * hi if not variable and hi <= 16 else mult
                d, a = walk(body, in_repeat or variable or hi > 1, min(inner, 1000))
                depth, alts = max(depth, d + (1 if variable or hi > 16 else 0)), max(alts, a)
            elif op == c.BRANCH:
                for sub in av[1]:
                    d, a = walk(sub, in_repeat, mult)
                    depth, alts = max(depth, d), max(alts, a)
                if in_repeat:
                    alts = max(alts, len(av[1]))
            elif op in (c.SUBPATTERN, c.ASSERT, c.ASSERT_NOT) or op == getattr(c, "ATOMIC_GROUP", None):
                d, a = walk(av if op == getattr(c, "ATOMIC_GROUP", None) else av[-1], in_repeat, mult)
                depth, alts = max(depth, d), max(alts, a)
            elif op == c.GROUPREF_EXISTS:
                for sub in av[1:]:
                    if sub is not None:
                        d, a = walk(sub, in_repeat, mult)
                        depth, alts = max(depth, d), max(alts, a)
        return depth, alts

    depth, alts = walk(parser.parse(pattern), False)
    return depth, alts, count


def _max_safe_length(pattern: str) -> float:
    depth, alts, variable = _regex_shape(pattern)
    if depth > 1 or (alts > 1 and variable):
        base = max(2, alts) ** max(1, depth - 1)
        return max(1, int(math.log(REGEX_STEP_BUDGET) / math.log(base)))
    if variable:
        return int(REGEX_STEP_BUDGET ** (1 / (variable + 1))) * 4
    return math.inf


def safe_search(pattern: str, text: str) -> Any:
    """``re.search(pattern, text)`` that cannot hang on a hostile pattern (ReDoS); a match object or ``None``.

    With the ``regex`` package installed the search runs under a ``REGEX_TIMEOUT_S`` timeout;
    without it, a static estimate of the backtracking (nested or alternated repeats, number of
    variable repeats) bounds the string length searched. Raises ``re.error`` for an invalid
    pattern (as ``re`` would) and ``RegexBudgetError`` (a ``ValueError``) when the search is
    refused or stopped: callers treat that as "undecided", never as a match or a mismatch.
    """
    limit = _max_safe_length(pattern)
    if len(text) <= min(limit, 16):
        return re.search(pattern, text)
    try:
        import regex  # type: ignore[import-not-found]
    except ImportError:
        regex = None
    if regex is not None:
        try:
            found = regex.search(pattern, text, timeout=REGEX_TIMEOUT_S)
        except TimeoutError:
            raise RegexBudgetError(f"pattern {pattern[:60]!r} takes too long on a {len(text)}-character string") from None
        except regex.error:
            found = None  # accepted by re, not by regex: fall through to the static estimate
        else:
            return found
    if len(text) > limit:
        raise RegexBudgetError(
            f"pattern {pattern[:60]!r} may backtrack catastrophically on a {len(text)}-character string")
    return re.search(pattern, text)


class _GuardedRe:
    """Stands in for the ``re`` module inside jsonschema's keyword code: ``search`` is ``safe_search``."""

    search = staticmethod(safe_search)

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)


def _guard_jsonschema_regexes() -> None:
    """Route jsonschema's ``pattern``/``patternProperties``/``additionalProperties`` searches through
    ``safe_search`` (jsonschema calls ``re.search`` directly and has no timeout)."""
    import importlib

    for name in ("jsonschema._keywords", "jsonschema._utils", "jsonschema._legacy_keywords"):
        try:
            module = importlib.import_module(name)
        except ImportError:  # pragma: no cover - a jsonschema without this module
            continue
        if getattr(module, "re", None) is re:
            module.re = _GuardedRe()  # type: ignore[attr-defined]


def dialect_of(schema: Any) -> str:
    """The dialect name of ``schema`` from ``$schema`` ("2020-12", "2019-09", "draft-07", …).

    No ``$schema`` → ``DEFAULT_DIALECT``; an unrecognized URI → ``"unknown:<uri>"``.
    """
    if not isinstance(schema, dict) or not isinstance(schema.get("$schema"), str):
        return DEFAULT_DIALECT
    uri = schema["$schema"].rstrip("#")
    return DIALECTS.get(uri, f"unknown:{schema['$schema']}")


def _validator_class(dialect: str, profile: str) -> Any:
    from jsonschema import Draft4Validator, Draft6Validator, Draft7Validator, Draft201909Validator, Draft202012Validator

    if profile == "ts-sdk-v1":
        return Draft7Validator
    return {
        "2020-12": Draft202012Validator,
        "2019-09": Draft201909Validator,
        "draft-07": Draft7Validator,
        "draft-06": Draft7Validator if profile == "ts-sdk-v2" else Draft6Validator,
        "draft-04": Draft4Validator,
    }.get(dialect, Draft202012Validator)


@dataclass
class SchemaDoc:
    """One tool schema as a document. ``root`` is the schema (dict or bool) exactly as sent."""

    root: Any
    dialect: str = field(init=False)
    _registry: Any = field(init=False, default=None, repr=False)
    _resolver: Any = field(init=False, default=None, repr=False)
    _validators: dict[str, Any] = field(init=False, default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.dialect = dialect_of(self.root)

    @property
    def resolver(self) -> Any:
        """A ``referencing`` resolver rooted at the document (no retrieval of remote resources)."""
        if self._resolver is None:
            from referencing import Registry, Resource
            from referencing.jsonschema import DRAFT7, DRAFT202012

            spec = DRAFT7 if self.dialect in ("draft-07", "draft-06", "draft-04") else DRAFT202012
            resource = Resource.from_contents(self.root, default_specification=spec) if isinstance(
                self.root, dict) else Resource(contents=self.root, specification=spec)
            uri = "urn:schema-audit:root"
            self._registry = Registry().with_resource(uri, resource)
            self._resolver = self._registry.resolver(base_uri=uri)
        return self._resolver

    def lookup(self, ref: str) -> tuple[Any, list[str]]:
        """Resolve a ``$ref`` string found in this document.

        Returns ``(target_schema, pointer_tokens)`` where the tokens locate the target inside the
        document (``[]`` for the root; ``None``-free). Raises ``RefError`` for remote or missing targets.
        """
        if ref.startswith("#"):
            fragment = ref[1:]
            if fragment == "" or fragment.startswith("/"):
                tokens = [t.replace("~1", "/").replace("~0", "~") for t in fragment.split("/")[1:]] if fragment else []
                from urllib.parse import unquote

                tokens = [unquote(t) for t in tokens]
                node: Any = self.root
                for tok in tokens:
                    if isinstance(node, dict) and tok in node:
                        node = node[tok]
                    elif isinstance(node, list) and tok.isdigit() and int(tok) < len(node):
                        node = node[int(tok)]
                    else:
                        raise RefError(f"$ref {ref!r} points to nothing")
                return node, tokens
        try:
            resolved = self.resolver.lookup(ref)
        except Exception as exc:  # referencing.exceptions.Unresolvable and friends
            if "://" in ref or ref.startswith("file:"):
                raise RefError(f"remote $ref {ref!r} is not fetched") from exc
            raise RefError(f"$ref {ref!r} cannot be resolved") from exc
        return resolved.contents, ["$ref:" + ref]

    def validator(self, profile: str = "python-sdk") -> Any:
        """A jsonschema validator for the whole document as host ``profile`` would build it.

        Explicit empty registry (no network), format checking per profile. Raises ``RefError`` when the
        schema's ``$ref``s do not resolve at validation time (see ``validate``).
        """
        if profile not in self._validators:
            from referencing import Registry

            if profile == "ts-sdk-v2" and self.dialect not in ("2020-12", "2019-09", "draft-07", "draft-06"):
                raise ValueError(f"ts-sdk-v2 does not support dialect {self.dialect}: the host cannot compile it")
            _guard_jsonschema_regexes()
            cls = _validator_class(self.dialect, profile)
            checker = None if profile == "python-sdk" else ajv_format_checker()
            root = self.root
            if profile != "python-sdk" and cls.__name__ in ("Draft7Validator", "Draft6Validator", "Draft4Validator"):
                root = _ajv_ref_siblings(root)
            self._validators[profile] = cls(root, registry=Registry(), format_checker=checker)
        return self._validators[profile]

    def errors(self, instance: Any, profile: str = "python-sdk") -> list[Any]:
        """The validation errors for ``instance`` (empty = valid), best match first.

        Raises ``RefError`` for an unresolvable ``$ref``; ``ValueError`` for a schema jsonschema cannot
        evaluate: an invalid keyword value (``multipleOf: 0``, ``maxLength: "3"``, an invalid regex), a
        too costly ``pattern`` (``RegexBudgetError``), numbers it cannot compare, nesting too deep.
        """
        from jsonschema import exceptions as jexc
        from referencing.exceptions import Unresolvable

        try:
            validator = self.validator(profile)
            errs = list(validator.iter_errors(instance))
        except Unresolvable as exc:
            raise RefError(str(exc)) from exc
        except ValueError:
            raise
        except (jexc.SchemaError, jexc.UnknownType, jexc.FormatError, re.error, ArithmeticError, RecursionError,
                TypeError, AttributeError, KeyError, IndexError) as exc:
            # jsonschema's keyword code assumes a valid schema; a stranger's schema makes it raise anything
            detail = " ".join(str(exc).split())[:200]
            raise ValueError(f"schema cannot be evaluated: {type(exc).__name__}: {detail}") from exc
        if len(errs) > 1:
            best = jexc.best_match(errs)
            errs.remove(best)
            errs.insert(0, best)
        return errs


def _ajv_ref_siblings(schema: Any, depth: int = 0) -> Any:
    """Ajv 8 applies keywords beside ``$ref`` in every draft; draft-07 jsonschema ignores them.

    Returns a copy where ``{"$ref": R, k: v}`` becomes ``{"allOf": [{"$ref": R}], k: v}`` so the
    draft-07 validator sees what Ajv sees. Deeper than 400 levels the rest is left as it is.
    """
    if depth > 400:
        return schema
    if isinstance(schema, list):
        return [_ajv_ref_siblings(x, depth + 1) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: (v if k in ("enum", "const", "default", "examples") else _ajv_ref_siblings(v, depth + 1))
           for k, v in schema.items()}
    if isinstance(out.get("$ref"), str) and len(out) > 1:
        ref = out.pop("$ref")
        out["allOf"] = [{"$ref": ref}] + (out["allOf"] if isinstance(out.get("allOf"), list) else [])
    return out


_AJV_FORMAT_CHECKER: Any = None
_FORMAT_PATTERNS = {
    "uuid": r"^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$",
    "duration": r"^P(?!$)((\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)$",
    "byte": r"^(?:[a-z0-9+/]{4})*(?:[a-z0-9+/]{2}==|[a-z0-9+/]{3}=)?$",
    "date": r"^\d\d\d\d-[0-1]\d-[0-3]\d$",
    "hostname": r"^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$",
    "uri": r"^[a-z][a-z0-9+\-.]*:[^\s]*$",
    "url": r"^(?:https?|ftp):\/\/[^\s]+$",
    "json-pointer": r"^(?:\/(?:[^~/]|~0|~1)*)*$",
    "relative-json-pointer": r"^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$",
}


def ajv_format_checker() -> Any:
    """A jsonschema ``FormatChecker`` approximating ajv-formats (what the TS SDKs enforce).

    Starts from every format jsonschema can check here and adds ajv-formats' ``uuid``, ``duration``,
    ``byte``, ``int32``/``int64``, ``float``/``double``, ``url`` and case-insensitive patterns.
    """
    global _AJV_FORMAT_CHECKER
    if _AJV_FORMAT_CHECKER is None:
        import re

        from jsonschema import FormatChecker

        checker = FormatChecker()
        for name, pattern in _FORMAT_PATTERNS.items():
            rx = re.compile(pattern, re.IGNORECASE)
            checker.checkers[name] = ((lambda rx: lambda v: not isinstance(v, str) or bool(rx.match(v)))(rx), ())

        def int_range(bits: int) -> Any:
            lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
            return lambda v: not isinstance(v, (int, float)) or isinstance(v, bool) or (
                float(v).is_integer() and lo <= v <= hi)

        checker.checkers["int32"] = (int_range(32), ())
        checker.checkers["int64"] = (int_range(64), ())
        checker.checkers["float"] = (lambda v: True, ())
        checker.checkers["double"] = (lambda v: True, ())
        _AJV_FORMAT_CHECKER = checker
    return _AJV_FORMAT_CHECKER


def type_set(schema: dict[str, Any]) -> set[str] | None:
    """The set of JSON types ``schema``'s ``type`` keyword allows, or ``None`` when it has no ``type``.

    ``integer`` is kept distinct from ``number``; callers treat ``integer ⊂ number``.
    """
    t = schema.get("type")
    if t is None:
        return None
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    return set()


def json_type(value: Any) -> str:
    """The JSON Schema type name of a JSON value (``integer`` for whole numbers, as JSON Schema does)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"
