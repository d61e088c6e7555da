"""Host-profile validators: python ``jsonschema`` classes extended to read schemas as each host does
(Ajv's regexes, ``nullable``, formats and JS numbers for the TS profiles)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Hashable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from mcp_schema_audit.schema.ajv import AJV_RULES, AjvKind, ajv_always_valid
from mcp_schema_audit.schema.dialects import JS_SAFE
from mcp_schema_audit.schema.regex import ecma_search, pydantic_found, python_found
from mcp_schema_audit.schema.regex_units import zod_search

if TYPE_CHECKING:
    from typing import TypeAlias

    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator
    from referencing._core import Resolver  # the class of Registry.resolver() (not exported by referencing)
    from referencing.jsonschema import Schema


class HostValidator(Protocol):
    """What the keyword functions here use of the jsonschema validator running them (``_resolver``: the
    ``referencing`` resolver jsonschema keeps, which its own ``unevaluatedProperties`` reads too)."""

    _resolver: Resolver[Schema]

    def is_type(self, instance: object, type: str) -> bool: ...

    def is_valid(self, instance: object) -> bool: ...

    def descend(
        self, instance: object, schema: object, path: str | int | None = None, schema_path: str | int | None = None
    ) -> Iterator[ValidationError]: ...

    def evolve(self, **changes: Any) -> HostValidator: ...


if TYPE_CHECKING:
    #: A jsonschema keyword function (``jsonschema.validators.extend``): ``(validator, the keyword's value,
    #: instance, schema)`` → the errors.
    Keyword: TypeAlias = Callable[[HostValidator, Any, Any, Any], Iterator[ValidationError]]


def _error(message: str) -> ValidationError:
    """A jsonschema ``ValidationError`` (jsonschema is imported on first use: ``--help`` does not need it)."""
    from jsonschema.exceptions import ValidationError

    return ValidationError(message)


def _extras_msg(extras: list[Any]) -> tuple[str, str]:
    return ", ".join(repr(extra) for extra in extras), ("was" if len(extras) == 1 else "were")


class PatternSearch(Protocol):
    """How a host class searches the regexes of ``pattern``, ``patternProperties``, ``additionalProperties`` and
    ``unevaluatedProperties``: the strategy ``RegexKeywords`` runs with (``PythonSearch``, ``AjvSearch``)."""

    def found(self, pattern: str, text: str) -> bool:
        """Does ``pattern`` match somewhere in ``text``? Raises as the host's regex engine does (``re.error``,
        ``EcmaRegexError``), and ``RegexBudgetError`` for a search refused as too costly."""
        ...

    def matches_any(self, patterns: Collection[str], key: str) -> bool:
        """Is ``key`` matched by the ``patternProperties`` keys ``patterns`` (so ``additionalProperties`` leaves
        it alone)?"""
        ...

    def skips(self, subschema: object) -> bool:
        """Does the host search nothing for ``subschema`` (of ``patternProperties`` or ``additionalProperties``)?"""
        ...


class PythonSearch:
    """jsonschema's reading (python-sdk): Python ``re`` behind the ReDoS guard (``python_found``); the keys of
    ``patternProperties`` joined into one alternation for ``additionalProperties`` (jsonschema's
    ``_utils.find_additional_properties``); every subschema searched."""

    found = staticmethod(python_found)

    def matches_any(self, patterns: Collection[str], key: str) -> bool:
        joined = "|".join(patterns)
        return bool(joined) and python_found(joined, key)

    def skips(self, subschema: object) -> bool:
        return False


class PydanticSearch(PythonSearch):
    """pydantic-core's reading (a pydantic server's arguments model): its default Rust regex engine
    (``pydantic_found``), Python ``re`` where that engine refuses the pattern; each ``patternProperties`` key
    searched on its own (a dict key type of its own pattern)."""

    found = staticmethod(pydantic_found)

    def matches_any(self, patterns: Collection[str], key: str) -> bool:
        return any(pydantic_found(p, key) for p in patterns)


class AjvSearch:
    """Ajv's reading (the TS profiles): ECMAScript regexes with the ``u`` flag (``ecma_search``); each
    ``patternProperties`` key searched on its own (Ajv ``additionalProperties.ts``/``patternProperties.ts``), and
    nothing searched for a subschema that is always valid for the Ajv class of keywords ``rules`` (Ajv compiles
    no code for it)."""

    found = staticmethod(ecma_search)

    def __init__(self, rules: frozenset[str]) -> None:
        self.rules = rules

    def matches_any(self, patterns: Collection[str], key: str) -> bool:
        return any(ecma_search(p, key) for p in patterns)

    def skips(self, subschema: object) -> bool:
        return ajv_always_valid(subschema, self.rules)


class ZodSearch(AjvSearch):
    """zod's reading (a TypeScript server's arguments): the developer's regex as a JavaScript ``RegExp`` under every
    flag zod may have compiled it with (``regex_units.zod_search``; without ``u`` over UTF-16 code units); each
    ``patternProperties`` key searched on its own, and every subschema searched (zod checks every key of a record)."""

    found = staticmethod(zod_search)

    def __init__(self) -> None:
        super().__init__(frozenset())

    @staticmethod
    def pattern_found(pattern: str, text: str, schema: Any) -> bool:
        """``pattern`` of ``schema`` searched in ``text``: beside a ``format`` it is zod 4's own check of that
        format, whose flags are known (``zod_search(own=True)``); else the developer's, with any flag zod may run."""
        own = isinstance(schema, dict) and isinstance(schema.get("format"), str)
        return zod_search(pattern, text, own)

    def matches_any(self, patterns: Collection[str], key: str) -> bool:
        return any(zod_search(p, key) for p in patterns)

    def skips(self, subschema: object) -> bool:
        return False


class RegexKeywords:
    """The keyword functions for ``jsonschema.validators.extend`` whose regex searches go through ``search``:
    ``pattern``, ``patternProperties``, ``additionalProperties`` and (``dialect`` "2019-09" or "2020-12")
    ``unevaluatedProperties`` in that dialect's flavour (``table``). Each is jsonschema's own, searching through
    ``search``."""

    def __init__(self, search: PatternSearch, dialect: str) -> None:
        from jsonschema.exceptions import ValidationError

        self.search = search
        self.dialect = dialect
        # looked up once: the keyword functions run for every value validated
        self._found, self._matches_any, self._skips = search.found, search.matches_any, search.skips
        #: a strategy that reads a ``pattern`` by the schema around it (``ZodSearch``), else None
        self._pattern_found = getattr(search, "pattern_found", None)
        self._error = ValidationError
        self._evaluated_keys = self._evaluated_keys_2019 if dialect == "2019-09" else self._evaluated_keys_2020

    def table(self) -> dict[str, Keyword]:
        """Keyword name → function, for ``jsonschema.validators.extend``."""
        out: dict[str, Keyword] = {
            "pattern": self.pattern,
            "patternProperties": self.pattern_properties,
            "additionalProperties": self.additional_properties,
        }
        if self.dialect in ("2019-09", "2020-12"):
            out["unevaluatedProperties"] = self.unevaluated_properties
        return out

    def _additional(self, instance: dict[str, Any], schema: dict[str, Any]) -> Iterator[str]:
        properties = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        for prop in instance:
            if prop not in properties and not (patterns and self._matches_any(patterns, prop)):
                yield prop

    def pattern(self, validator: HostValidator, patrn: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        """``pattern``."""
        if not validator.is_type(instance, "string"):
            return
        found = (
            self._found(patrn, instance)
            if self._pattern_found is None
            else self._pattern_found(patrn, instance, schema)
        )
        if not found:
            yield self._error(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(
        self, validator: HostValidator, patternProperties: Any, instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        """``patternProperties``."""
        if not validator.is_type(instance, "object"):
            return
        found, skips = self._found, self._skips
        for pat, subschema in patternProperties.items():
            if skips(subschema):
                continue
            for k, v in instance.items():
                if found(pat, k):
                    yield from validator.descend(v, subschema, path=k, schema_path=pat)

    def additional_properties(
        self, validator: HostValidator, aP: Any, instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        """``additionalProperties``."""
        if not validator.is_type(instance, "object"):
            return
        if self._skips(aP):
            return
        extras = set(self._additional(instance, schema))
        if validator.is_type(aP, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], aP, path=extra)
        elif not aP and extras:
            if "patternProperties" in schema:
                verb = "does" if len(extras) == 1 else "do"
                joined = ", ".join(repr(each) for each in sorted(extras))
                patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
                yield self._error(f"{joined} {verb} not match any of the regexes: {patterns}")
            else:
                error = "Additional properties are not allowed (%s %s unexpected)"
                yield self._error(error % _extras_msg(sorted(extras, key=str)))

    def _applied_keys(
        self,
        recurse: Callable[[HostValidator, Any, Any], list[Any]],
        validator: HostValidator,
        instance: Any,
        schema: Any,
    ) -> list[Any]:
        # the part both versions share: patternProperties (through ``found``) and the in-place applicators
        keys: list[Any] = []
        if "patternProperties" in schema:
            found = self._found
            for prop in instance:
                for pat in schema["patternProperties"]:
                    if found(pat, prop):
                        keys.append(prop)
        if "dependentSchemas" in schema:
            for prop, subschema in schema["dependentSchemas"].items():
                if prop in instance:
                    keys += recurse(validator, instance, subschema)
        for kw in ("allOf", "oneOf", "anyOf"):
            for subschema in schema.get(kw, []):
                if next(validator.descend(instance, subschema), None) is None:
                    keys += recurse(validator, instance, subschema)
        if "if" in schema:
            if validator.evolve(schema=schema["if"]).is_valid(instance):
                keys += recurse(validator, instance, schema["if"])
                if "then" in schema:
                    keys += recurse(validator, instance, schema["then"])
            elif "else" in schema:
                keys += recurse(validator, instance, schema["else"])
        return keys

    def _evaluated_keys_2020(self, validator: HostValidator, instance: Any, schema: Any) -> list[Any]:
        # jsonschema/_utils.py find_evaluated_property_keys_by_schema, searches through ``found``
        if validator.is_type(schema, "boolean"):
            return []
        keys: list[Any] = []
        for kw in ("$ref", "$dynamicRef"):
            ref = schema.get(kw)
            if ref is not None:
                resolved = validator._resolver.lookup(ref)
                keys.extend(
                    self._evaluated_keys_2020(
                        validator.evolve(schema=resolved.contents, _resolver=resolved.resolver),
                        instance,
                        resolved.contents,
                    )
                )
        properties = schema.get("properties")
        if validator.is_type(properties, "object"):
            keys += properties.keys() & instance.keys()
        for kw in ("additionalProperties", "unevaluatedProperties"):
            if (subschema := schema.get(kw)) is None:
                continue
            keys += (key for key, value in instance.items() if next(validator.descend(value, subschema), None) is None)
        return keys + self._applied_keys(self._evaluated_keys_2020, validator, instance, schema)

    def _evaluated_keys_2019(self, validator: HostValidator, instance: Any, schema: Any) -> list[Any]:
        # jsonschema/_legacy_keywords.py find_evaluated_property_keys_by_schema, searches through ``found``
        from referencing.jsonschema import lookup_recursive_ref

        if validator.is_type(schema, "boolean"):
            return []
        keys: list[Any] = []
        resolved_refs = []
        if schema.get("$ref") is not None:
            resolved_refs.append(validator._resolver.lookup(schema["$ref"]))
        if "$recursiveRef" in schema:
            resolved_refs.append(lookup_recursive_ref(validator._resolver))
        for resolved in resolved_refs:
            keys.extend(
                self._evaluated_keys_2019(
                    validator.evolve(schema=resolved.contents, _resolver=resolved.resolver), instance, resolved.contents
                )
            )
        for kw in ("properties", "additionalProperties", "unevaluatedProperties"):
            if kw in schema:
                value = schema[kw]
                if validator.is_type(value, "boolean") and value:
                    keys += instance.keys()
                elif validator.is_type(value, "object"):
                    keys += [prop for prop in value if prop in instance]
        return keys + self._applied_keys(self._evaluated_keys_2019, validator, instance, schema)

    def unevaluated_properties(
        self, validator: HostValidator, uP: Any, instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        """``unevaluatedProperties`` (jsonschema/_keywords.py; the 2019-09 one differs only in its helper)."""
        if not validator.is_type(instance, "object"):
            return
        evaluated = self._evaluated_keys(validator, instance, schema)
        unevaluated = []
        for prop in instance:
            if prop not in evaluated:
                for _ in validator.descend(instance[prop], uP, path=prop, schema_path=prop):
                    unevaluated.append(prop)  # noqa: PERF401
        if unevaluated:
            if uP is False:
                error = "Unevaluated properties are not allowed (%s %s unexpected)"
                yield self._error(error % _extras_msg(sorted(unevaluated, key=str)))
            else:
                error = "Unevaluated properties are not valid under the given schema (%s %s unevaluated and invalid)"
                yield self._error(error % _extras_msg(unevaluated))


def equality_key(value: Any) -> Hashable:
    """A hashable key such that two parsed JSON values have equal keys exactly when jsonschema's
    ``_utils.equal`` calls them equal: ``1`` and ``1.0`` equal, ``true`` and ``1`` not, objects whatever
    their key order, arrays element by element; a NaN equals only itself (the same object).

    Raises ``RecursionError`` for absurd nesting, as jsonschema's own comparison would."""
    if value is True or value is False or value is None:
        return ("b", value) if value is not None else ("z",)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, float):
        if value != value:
            return ("nan", id(value))
        return ("n", int(value)) if value.is_integer() else ("n", value)
    if isinstance(value, int):
        return ("n", value)
    if isinstance(value, list):
        return ("l", tuple(equality_key(x) for x in value))
    if isinstance(value, dict):
        return ("d", frozenset((k, equality_key(x)) for k, x in value.items()))
    return ("o", id(value))


def _unique_items(validator: HostValidator, unique: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """``uniqueItems`` as Ajv reads it (no two items deep-equal), in linear time through ``equality_key``, with
    jsonschema's message."""
    if unique and validator.is_type(instance, "array"):
        keys = [equality_key(item) for item in instance]
        if len(set(keys)) != len(keys):
            yield _error(f"{instance!r} has non-unique elements")


def _jsonschema_unique(items: list[Any]) -> bool:
    """jsonschema's own verdict (``_utils.uniq``, which the Python SDK client runs): items that sort are compared
    with their neighbours only, so ``[[false, 0], [false, false], [false, 0]]`` passes (Python orders ``0`` and
    ``false`` alike, and the equal items are not neighbours); items that do not sort are compared all with all,
    which is ``equality_key`` uniqueness, here in linear time instead of jsonschema's quadratic one (a 0.7 MB
    array of 30,000 objects in a tool result took minutes)."""
    from jsonschema._utils import equal, unbool

    try:
        ordered = sorted(unbool(item) for item in items)
        return not any(equal(one, two) for one, two in zip(ordered, ordered[1:], strict=False))
    except TypeError:  # unorderable items (objects, mixed types): jsonschema's all-pairs path
        keys = [equality_key(item) for item in items]
        return len(set(keys)) == len(keys)


def _python_unique_items(
    validator: HostValidator, unique: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """jsonschema's ``uniqueItems`` (same verdict, same message), without its quadratic fallback."""
    if unique and validator.is_type(instance, "array") and not _jsonschema_unique(instance):
        yield _error(f"{instance!r} has non-unique elements")


def _ajv_type(base_type: Keyword) -> Keyword:
    """jsonschema's ``type`` plus Ajv's OpenAPI ``nullable``: ``nullable: true`` next to ``type`` adds
    ``"null"`` to the allowed types (Ajv lib/compile/validate/dataType.ts ``getSchemaTypes``; the
    misuses Ajv refuses to compile are found by ``compile.ajv_compile_problem``)."""

    def type_(validator: HostValidator, types: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        if instance is None and isinstance(schema, dict) and schema.get("nullable") is True:
            return
        yield from base_type(validator, types, instance, schema)

    return type_


@functools.lru_cache(maxsize=16)
def framework_regex_class(base: type[Validator], reading: str) -> type[Validator]:
    r"""``base`` with the keywords a server framework reads differently from jsonschema read its way, for
    ``engine.servers``: ``pattern``/``patternProperties`` searched as the framework searches them (``reading``
    "zod3"/"zod4", a JavaScript ``RegExp`` under the flags zod may have used, ``ZodSearch``: ``$`` is the end of
    the string, ``\w`` ASCII; "pydantic",
    pydantic-core's Rust regex, where ``$`` is the end of the string too) and, for "zod3", ``minLength``/
    ``maxLength`` counted in UTF-16 code units as JavaScript's ``String.length`` is (zod 3's ``.min(2)`` takes
    "😀", ``.max(2)`` refuses "😀😀"; zod 4 counts code points, as jsonschema). Built once per (class, reading)."""
    from jsonschema import validators

    search: PatternSearch = PydanticSearch() if reading == "pydantic" else ZodSearch()
    overrides = RegexKeywords(search, "2020-12").table()
    if reading == "zod3":
        overrides["minLength"], overrides["maxLength"] = _utf16_length(False), _utf16_length(True)
    extended: type[Validator] = validators.extend(base, overrides)
    return extended


@functools.lru_cache(maxsize=64)
def host_class(base: type[Validator], ajv_kind: AjvKind | None, dialect: str) -> type[Validator]:
    """``base`` (a jsonschema validator class) extended for a host: guarded regex keywords, and for an
    Ajv class (``ajv_kind`` "draft-07", "2019-09" or "2020-12") ECMAScript regexes and ``nullable``.

    Built with ``jsonschema.validators.extend`` and no ``version``, so jsonschema's registry of
    meta-schema URIs (``validator_for``) is left alone; built once per (base, kind, dialect).
    """
    from jsonschema import validators

    search: PatternSearch = PythonSearch() if ajv_kind is None else AjvSearch(AJV_RULES[ajv_kind])
    overrides = RegexKeywords(search, dialect if ajv_kind is None else ajv_kind).table()
    if "uniqueItems" in base.VALIDATORS:
        overrides["uniqueItems"] = _unique_items if ajv_kind is not None else _python_unique_items
    if ajv_kind is not None:
        overrides["type"] = _ajv_type(base.VALIDATORS["type"])
        if "dependencies" not in base.VALIDATORS:
            # Ajv2019/Ajv2020 keep draft-07 ``dependencies`` (lib/vocabularies/applicator/index.ts); jsonschema's
            # 2019-09/2020-12 validators dropped it
            overrides["dependencies"] = validators.Draft7Validator.VALIDATORS["dependencies"]
        for kw in _JS_NUMBER_KEYWORDS:
            if kw in base.VALIDATORS:
                overrides[kw] = _as_js_numbers(overrides[kw] if kw in overrides else base.VALIDATORS[kw])
    extended: type[Validator] = validators.extend(base, overrides)
    return extended


def utf16_length(text: str) -> int:
    """JavaScript's ``String.length`` of ``text``: its UTF-16 code units (a character beyond U+FFFF counts 2)."""
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def _utf16_length(upper: bool) -> Any:
    """jsonschema's ``maxLength`` (``upper``) or ``minLength`` keyword, the length counted by ``utf16_length``."""
    from jsonschema.exceptions import ValidationError

    def length(validator: Any, bound: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "string"):
            return
        size = utf16_length(instance)
        if upper and size > bound:
            yield ValidationError(f"{instance!r} is too long")
        elif not upper and size < bound:
            yield ValidationError(f"{instance!r} is too short")

    return length


#: Keywords whose schema value and instance a TS host reads as JavaScript numbers (IEEE doubles).
_JS_NUMBER_KEYWORDS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "const",
    "enum",
    "uniqueItems",
)


def js_numbers(value: Any) -> Any:
    """``value`` as ``JSON.parse`` gives it to a TS host: integers beyond 2**53 become the nearest double
    (9007199254740993 → 9007199254740992.0), at any depth; everything else unchanged."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value) if abs(value) > JS_SAFE else value
    if isinstance(value, list):
        return [js_numbers(x) for x in value]
    if isinstance(value, dict):
        return {k: js_numbers(x) for k, x in value.items()}
    return value


def _as_js_numbers(keyword: Keyword) -> Keyword:
    """A jsonschema keyword function that sees its schema value and the instance as JavaScript does."""

    def run(validator: HostValidator, value: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        return keyword(validator, js_numbers(value), js_numbers(instance), schema)

    return run


def ajv_ref_siblings(schema: Any, depth: int = 0) -> Any:
    """Ajv 8 applies keywords beside ``$ref`` in every draft; draft-07 jsonschema ignores them.

    Returns a copy where ``{"$ref": R, k: v}`` becomes ``{"allOf": [{"$ref": R}], k: v}`` so the
    draft-07 validator sees what Ajv sees. Deeper than 400 levels the rest is left as it is.
    """
    if depth > 400:
        return schema
    if isinstance(schema, list):
        return [ajv_ref_siblings(x, depth + 1) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        k: (v if k in ("enum", "const", "default", "examples") else ajv_ref_siblings(v, depth + 1))
        for k, v in schema.items()
    }
    if isinstance(out.get("$ref"), str) and len(out) > 1:
        ref = out.pop("$ref")
        out["allOf"] = [{"$ref": ref}] + (out["allOf"] if isinstance(out.get("allOf"), list) else [])
    return out
