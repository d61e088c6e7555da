"""``SchemaDoc``: one tool schema as a document: local ``$ref`` resolution with no network, and a
validator per host profile."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from mcp_schema_audit import fastpaths
from mcp_schema_audit.jsontext import canonical, unescape_token
from mcp_schema_audit.jsontext import pointer as json_pointer
from mcp_schema_audit.schema.ajv import AJV_KIND, AjvKind
from mcp_schema_audit.schema.compile import (
    AJV_COMPILE_MAX_NODES,
    COMPILE_CACHE,
    COST_CACHE,
    INPLACE_BUDGET,
    INPLACE_CYCLE,
    SameTree,
    SchemaCompileError,
    SchemaCostError,
    ajv_compile_problem,
    inplace_cost,
    python_compile_problem,
)
from mcp_schema_audit.schema.dialects import (
    DEFAULT_DIALECT,
    DEFS_REF,
    DIALECTS,
    HOST_PROFILES,
    JS_SAFE,
    REF_IN_TEXT,
    RefError,
    dialect_of,
)
from mcp_schema_audit.schema.formats import ajv_format_checker
from mcp_schema_audit.schema.hosts import ajv_ref_siblings, host_class
from mcp_schema_audit.schema.memo import MEMO_FROM, refused_answer, remembering_class
from mcp_schema_audit.schema.metacheck import METASCHEMA_MAX_NODES, surely_valid_cached
from mcp_schema_audit.schema.quick import reader as quick_reader

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator
    from referencing._core import Resolver  # the class of Registry.resolver() (not exported by referencing)
    from referencing.jsonschema import Schema, SchemaRegistry

    from mcp_schema_audit.schema.quick import QuickReader

T = TypeVar("T")

#: JSON keys of keywords the host profiles read differently (only Ajv: ``nullable``, draft-07
#: ``dependencies`` in a 2020-12 schema; not ts-sdk-v1: the 2019-09/2020-12-only keywords; regex dialects:
#: ``pattern``, ``patternProperties``; formats checked by the TS profiles only; JavaScript arithmetic:
#: ``multipleOf``), as they appear in canonical JSON text.
HOST_SENSITIVE = (
    '"nullable"',
    '"dependencies"',
    '"pattern',
    '"format"',
    '"prefixItems"',
    '"unevaluated',
    '"dependentSchemas"',
    '"dependentRequired"',
    '"minContains"',
    '"maxContains"',
    '"items":false',
    '"items":[',
    '"propertyNames"',
    '"multipleOf"',
)
#: Keys (in canonical JSON text) that Ajv's draft-07 and 2020-12 classes compile differently: the keywords only
#: one of them knows, ``items`` as an array, and ``patternProperties`` (whose keys only 2020-12 may skip).
_AJV_KIND_SPECIFIC = (
    '"additionalItems"',
    '"$dynamic',
    '"$recursive',
    '"dependent',
    '"maxContains"',
    '"minContains"',
    '"prefixItems"',
    '"unevaluated',
    '"items":[',
    '"patternProperties"',
)


def host_sensitive_text(text: str, root_schema_keys: int = 0) -> bool:
    """Could host profiles read the schema whose canonical JSON is ``text`` differently? True when it holds a
    ``HOST_SENSITIVE`` keyword, or a ``$schema`` besides the ``root_schema_keys`` (0 or 1) of the document root
    (the root's own ``$schema`` sets the dialect, which callers compare; a nested one switches dialects
    mid-document, which hosts handle differently)."""
    return any(k in text for k in HOST_SENSITIVE) or text.count('"$schema"') > root_schema_keys


@functools.lru_cache(maxsize=1)
def _jsonschema_classes() -> tuple[dict[str, type[Validator]], SchemaRegistry]:
    """jsonschema's validator class per dialect name, and the registry of the dialects' metaschemas (imported on
    first use: ``--help`` and the capture need neither)."""
    from jsonschema import (
        Draft4Validator,
        Draft6Validator,
        Draft7Validator,
        Draft201909Validator,
        Draft202012Validator,
    )
    from jsonschema_specifications import REGISTRY

    return (
        {
            "2020-12": Draft202012Validator,
            "2019-09": Draft201909Validator,
            "draft-07": Draft7Validator,
            "draft-06": Draft6Validator,
            "draft-04": Draft4Validator,
        },
        REGISTRY,
    )


#: A run of 16 digits or more: an integer that long may be beyond what a JavaScript double holds exactly.
_LONG_NUMBER = re.compile(r"[0-9]{16,}")


#: Keywords of 2019-09/2020-12 references that ts-sdk-v1's draft-07 class does not read.
_MODERN_REFERENCES = ('"$anchor"', '"$dynamicRef"', '"$dynamicAnchor"', '"$recursiveRef"', '"$recursiveAnchor"')


def _plain_refs(text: str) -> bool:
    """Do every host profile's resolvers read the references of the schema whose canonical JSON is ``text``
    alike? No anchor or dynamic reference (ts-sdk-v1's draft-07 class knows neither), and every ``$ref`` to
    the root or a ``$defs``/``definitions`` entry (places its rewritten copy, ``hosts.ajv_ref_siblings``, keeps
    where they are)."""
    if '"$' not in text:
        return True
    return not any(k in text for k in _MODERN_REFERENCES) and all(
        DEFS_REF.fullmatch(ref) for ref in REF_IN_TEXT.findall(text)
    )


def js_inexact(text: str) -> bool:
    """Does JSON ``text`` hold an integer a TS host reads differently (beyond 2**53: ``JSON.parse`` rounds it to a
    double; ``hosts.js_numbers``)? Decimal fractions and exponents are doubles in Python too, read alike; a digit
    run inside a string or a fraction counts as well (never a false "alike")."""
    return any(int(run) > JS_SAFE for run in _LONG_NUMBER.findall(text))


@dataclass
class SchemaDoc:
    """One tool schema as a document. ``root`` is the schema (dict or bool) exactly as sent."""

    root: Any
    dialect: str = field(init=False)
    _registry: SchemaRegistry | None = field(init=False, default=None, repr=False)
    _resolver: Resolver[Schema] | None = field(init=False, default=None, repr=False)
    #: per profile: the validator, or the message of the ``SchemaCompileError`` it raises
    _validators: dict[str, Validator | str] = field(init=False, default_factory=dict, repr=False)
    _subvalidators: dict[tuple[int, str], tuple[Any, Validator]] = field(init=False, default_factory=dict, repr=False)
    _cost: float | None = field(init=False, default=None, repr=False)
    _canonical: str | None = field(init=False, default=None, repr=False)
    _agree: bool | None = field(init=False, default=None, repr=False)
    _twin: tuple[SchemaDoc, SameTree] | None = field(init=False, default=None, repr=False)
    _kind_specific: bool | None = field(init=False, default=None, repr=False)
    _has_id: bool | None = field(init=False, default=None, repr=False)
    _ajv_clean: bool | None = field(init=False, default=None, repr=False)
    _readers: dict[str, QuickReader] = field(init=False, default_factory=dict, repr=False)
    #: local ``#/…`` references resolved so far: ref → (target, its tokens)
    _local: dict[str, tuple[Any, list[str]]] = field(init=False, default_factory=dict, repr=False)
    _refused: tuple[set[int], SchemaDoc | None, dict[int, Any]] | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        self.dialect = dialect_of(self.root)

    @property
    def resolver(self) -> Resolver[Schema]:
        """A ``referencing`` resolver rooted at the document (no retrieval of remote resources)."""
        if self._resolver is None:
            from referencing import Registry, Resource
            from referencing.jsonschema import DRAFT7, DRAFT202012

            spec = DRAFT7 if self.dialect in ("draft-07", "draft-06", "draft-04") else DRAFT202012
            resource = (
                Resource.from_contents(self.root, default_specification=spec)
                if isinstance(self.root, dict)
                else spec.create_resource(self.root)
            )
            # the root's own $id is the base of relative refs, and embedded "$id"s are resources of their
            # own (crawled); nothing is ever retrieved: the registry has no retrieve function
            root_id = self.root.get("$id") if isinstance(self.root, dict) else None
            uri = root_id.rstrip("#") if isinstance(root_id, str) and "://" in root_id else "urn:schema-audit:root"
            registry: SchemaRegistry
            try:
                registry = Registry().with_resource(uri, resource).crawl()
            except Exception:  # an embedded $id referencing cannot read: plain document only
                uri = "urn:schema-audit:root"
                registry = Registry().with_resource(uri, resource)
            self._registry = registry
            self._resolver = registry.resolver(base_uri=uri)
        return self._resolver

    @property
    def canonical(self) -> str:
        """The schema as canonical JSON text (sorted keys), computed once: the key of per-schema caches."""
        if self._canonical is None:
            self._canonical = canonical(self.root)
        return self._canonical

    def lookup(self, ref: str) -> tuple[Any, list[str]]:
        """Resolve a ``$ref`` string found in this document.

        Returns ``(target_schema, pointer_tokens)`` where the tokens locate the target inside the
        document (``[]`` for the root; ``None``-free). Raises ``RefError`` for remote or missing targets.
        """
        known = self._local.get(ref)
        if known is not None:
            return known[0], list(known[1])
        if ref.startswith("#"):
            fragment = ref[1:]
            if fragment == "" or fragment.startswith("/"):
                tokens = [unescape_token(t) for t in fragment.split("/")[1:]] if fragment else []
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
                self._local[ref] = (node, list(tokens))  # a document is never changed once read
                return node, tokens
        try:
            resolved = self.resolver.lookup(ref)
        except Exception as exc:  # referencing.exceptions.Unresolvable and friends
            if "://" in ref or ref.startswith("file:"):
                raise RefError(f"remote $ref {ref!r} is not fetched") from exc
            raise RefError(f"$ref {ref!r} cannot be resolved") from exc
        return resolved.contents, ["$ref:" + ref]

    @property
    def refs_root(self) -> Any:
        """The root, for ``quick_valid`` to follow ``#/…`` references into, when the document has no ``$id`` (so
        each such reference names a place of this root, as jsonschema resolves it); None otherwise."""
        if self._has_id is None:
            self._has_id = '"$id"' in self.canonical
        return None if self._has_id else self.root

    def quick(self, node: Any, value: Any, profile: str = "python-sdk", whole: bool | None = None) -> bool | None:
        """``quick_valid`` of ``value`` under ``node`` (a subschema of this document) as ``validator_for(node,
        profile)`` would answer (the root, or ``whole``: as ``validator(profile)`` on the document), local
        references followed: True/False, or None when the validator must decide (or fast paths are off). Call it
        after ``validator(profile)`` succeeded: a document the profile cannot compile or afford is not looked at
        here."""
        if not fastpaths.enabled() or (self._cost or 0) >= MEMO_FROM:
            return None  # (a costly document: its validator keeps each $ref's outcome, quick would not)
        read = self._readers.get(profile)
        if read is None:
            if profile == "python-sdk":
                read = quick_reader(self.dialect, self.refs_root)
            else:
                kind = AJV_KIND[profile](self.dialect) if profile in AJV_KIND else None
                read = quick_reader(kind or "", self.refs_root, ajv_format_checker())
            self._readers[profile] = read
        return read.answer(node, value, 0, node is self.root if whole is None else whole)

    def _narrowed(self, instance: Any, profile: str) -> tuple[Any, Any, list[str]] | None:
        """``(node, value, keys)``: where every error of ``instance`` under this document lies, when ``quick``
        can tell: following ``properties`` from the root, an object node whose one property ``key`` of the value
        ``quick`` does not call valid, while the node with its properties' schemas made ``true`` accepts the value
        (so the node's other keywords and properties yield no error). ``keys``: the properties followed (at least
        one); None when there is nothing to narrow (or fast paths are off). Not narrowed: past a node with ``$ref``,
        into a boolean schema or a nested ``$schema`` (see the loop), nor for the Ajv draft-07 class on a
        document with ``$ref`` (it validates a rewritten copy, ``hosts.ajv_ref_siblings``)."""
        if (
            not fastpaths.enabled()
            or not isinstance(instance, dict)
            or (
                profile != "python-sdk"
                and profile in AJV_KIND
                and AJV_KIND[profile](self.dialect) == "draft-07"
                and '"$ref"' in self.canonical
            )
        ):
            return None
        node, value = self.root, instance
        keys: list[str] = []
        while isinstance(node, dict) and isinstance(value, dict) and len(keys) < 32:
            props = node.get("properties")
            if not isinstance(props, dict):
                break
            failing = [k for k in value if k in props and self.quick(props[k], value[k], profile, False) is not True]
            if len(failing) != 1:
                break
            key = failing[0]
            if "$ref" in node or not isinstance(props[key], dict) or {"$schema", "$id"} & props[key].keys():
                # a $ref (draft-07 ignores the properties beside it), a boolean schema (jsonschema's descent
                # reports false without the property's path), a nested $schema or $id (its own class, its own
                # base for the $refs inside): the whole validation decides
                break
            rest = {**node, "properties": dict.fromkeys(props, True)}  # the properties' own verdicts are known
            if self.quick(rest, value, profile, node is self.root) is not True:
                break
            node, value = props[key], value[key]
            keys.append(key)
        return (node, value, keys) if keys else None

    @property
    def root_schema_keys(self) -> int:
        """1 when the root declares ``$schema`` (the dialect), else 0."""
        return int(isinstance(self.root, dict) and "$schema" in self.root)

    @property
    def profiles_agree(self) -> bool:
        """True when every host profile reads this schema the same way, so one validation answers for all: the
        2020-12 dialect, none of the keywords the profiles read differently (``host_sensitive_text``: formats,
        regexes, ``nullable``, the 2019-09/2020-12-only keywords ts-sdk-v1 ignores, ``multipleOf``, a nested
        ``$schema``), no number beyond what a JavaScript double holds exactly, and Ajv compiles it for both TS
        profiles. Computed once."""
        if not fastpaths.enabled():
            return False  # every profile validates on its own
        if self._agree is None:
            text = self.canonical
            self._agree = (
                self.dialect == DEFAULT_DIALECT
                and not host_sensitive_text(text, self.root_schema_keys)
                and not js_inexact(text)
                and _plain_refs(text)
                and self.compile_problem("ts-sdk-v1") is None
                and self.compile_problem("ts-sdk-v2") is None
            )
        return self._agree

    def agrees_at(self, node: Any) -> bool:
        """True when every host profile reads subschema ``node`` the same way (``profiles_agree`` for the part of
        the document a value under ``node`` meets): the whole document agrees, or the dialect is 2020-12 and
        ``node`` holds no host-sensitive keyword and no integer beyond 2**53 (through a ``$ref``: the whole document
        decides). Always False while the fast paths are off."""
        if not fastpaths.enabled() or self.dialect != DEFAULT_DIALECT:
            return False
        if self.profiles_agree:
            return True
        text = canonical(node)
        if '"$ref"' in text or '"$dynamicRef"' in text:
            return False  # what the reference reaches is outside the node: the document did not agree
        return not host_sensitive_text(text, int(node is self.root and self.root_schema_keys)) and not js_inexact(text)

    def check_cost(self) -> None:
        """Raise ``SchemaCostError`` when no validator can run this document in bounded time: an in-place
        cycle, or ``inplace_cost`` above ``INPLACE_BUDGET``. Measured once per schema text (cached)."""
        if self._cost is None:
            # without $ref or unevaluated* the in-place expansion is at most the schema's size
            measure = '"$ref"' in self.canonical or '"unevaluated' in self.canonical
            self._cost = COST_CACHE.get(self.canonical, lambda: inplace_cost(self)) if measure else 0
        if self._cost == INPLACE_CYCLE:
            raise SchemaCostError(
                "an in-place $ref cycle (a schema that applies itself at the same instance "
                "location through allOf/anyOf/not/if/$ref): validation never terminates"
            )
        if self._cost > INPLACE_BUDGET:
            raise SchemaCostError(
                f"validation could evaluate over {INPLACE_BUDGET} subschemas at one place "
                "(nested anyOf/allOf/$ref/unevaluated* that multiply): not attempted"
            )

    def validator(self, profile: str = "python-sdk") -> Validator:
        """A jsonschema validator for the whole document as host ``profile`` would build it.

        Explicit empty registry (no network), format checking and regex dialect per profile, every
        regex search guarded (module docstring). Raises ``SchemaCompileError`` (a ``ValueError``) when
        the profile's host cannot compile the schema (``compile_problem``), ``ValueError`` for an
        unknown profile, ``SchemaCostError`` (a ``ValueError``) when validating could take exponential
        time (``inplace_cost`` above ``INPLACE_BUDGET``). Unresolvable ``$ref``s surface at validation
        time (``RefError`` from ``errors``).
        """
        self.check_cost()
        if profile not in self._validators:
            try:
                self._validators[profile] = self._build_validator(profile)
            except (AttributeError, TypeError, LookupError) as exc:
                # e.g. a root "$id": 5 — ``referencing`` fails reading it, as the host's validator would
                self._validators[profile] = (
                    f"{profile} cannot compile the schema: {type(exc).__name__} while "
                    "reading its $id/$anchor/$schema keywords"
                )
        built = self._validators[profile]
        if isinstance(built, str):
            raise SchemaCompileError(built)
        return built

    def ready(self, profile: str = "python-sdk") -> None:
        """Raise as ``validator(profile)`` would, without building the validator where building it cannot fail:
        with the fast paths on, a document without ``$id`` (jsonschema reads no other keyword to build one), for
        a caller whose question ``quick`` may answer. Raises as ``validator`` does."""
        if (
            profile in self._validators
            or not fastpaths.enabled()
            or self.refs_root is None
            or (profile != "python-sdk" and (profile not in AJV_KIND or self.compile_problem(profile) is not None))
        ):
            self.validator(profile)  # built (or its failure recorded) once, and raised from here
            return
        self.check_cost()

    def validator_for(self, node: Any, profile: str = "python-sdk") -> Validator:
        """A validator of ``node`` (a subschema of this document: its ``$ref``s resolve here) for ``profile``,
        built once per node and profile. Raises as ``validator`` does."""
        key = (id(node), profile)
        hit = self._subvalidators.get(key)
        if hit is not None and hit[0] is node:
            return hit[1]
        built = self.validator(profile).evolve(schema=node)
        self._subvalidators[key] = (node, built)  # the node is kept alive, so its id is not reused
        return built

    def _build_validator(self, profile: str) -> Validator | str:
        """The validator, or the message of the ``SchemaCompileError`` the profile raises (cached either way).

        Its registry holds nothing but the dialects' metaschemas (jsonschema adds those to any registry: given
        them already, it need not copy them for every validator) and retrieves nothing."""
        classes, metaschemas = _jsonschema_classes()
        if profile == "python-sdk":
            base = classes.get(self.dialect, classes["2020-12"])
            dialect = self.dialect if self.dialect in DIALECTS.values() else DEFAULT_DIALECT
            return remembering_class(host_class(base, None, dialect), self)(self.root, registry=metaschemas)
        if profile not in AJV_KIND:
            raise ValueError(f"unknown host profile {profile!r} (expected one of {', '.join(HOST_PROFILES)})")
        problem = self.compile_problem(profile)
        if problem is not None:
            ptr, why = problem
            return f"{profile} cannot compile the schema: {why}" + (f" at {ptr}" if ptr else "")
        kind = AJV_KIND[profile](self.dialect)
        assert kind is not None  # a dialect the host refuses is a compile problem (compile_problem), reported above
        base = classes[kind]
        root = ajv_ref_siblings(self.root) if kind == "draft-07" else self.root
        cls = remembering_class(host_class(base, kind, kind), self)
        return cls(root, registry=metaschemas, format_checker=ajv_format_checker())

    def compile_problem(self, profile: str = "python-sdk") -> tuple[str, str] | None:
        """``(json_pointer, reason)`` of what keeps host ``profile`` from compiling the schema, or None.

        - ``ts-sdk-v1``/``ts-sdk-v2``: what Ajv throws on (``ajv.compile``), found among the subschemas
          Ajv compiles: a ``pattern``/``patternProperties`` key that is not an ECMAScript regex with the
          ``u`` flag (Ajv lib/vocabularies/code.ts ``usePattern``); ``nullable`` without ``type`` or
          ``nullable: false`` with a ``type`` listing ``"null"`` (lib/compile/validate/dataType.ts
          ``getSchemaTypes``); a ``type`` that is not a JSON type name; a keyword value of the wrong
          JSON type (``maxLength: "3"``, a ``items`` array under Ajv2020: ``KeywordCxt``); ``id``
          (lib/vocabularies/core/id.ts); ``enum: []``; and for ``ts-sdk-v2`` a dialect it refuses
          (pointer ``/$schema``).
        - ``python-sdk``: a ``pattern``/``patternProperties`` key Python ``re`` rejects, anywhere
          (jsonschema's ``check_schema``). Other meta-schema violations are not looked for here.

        Unresolvable ``$ref``s are not reported here (``lookup`` raises ``RefError`` for them).
        Raises ``ValueError`` for an unknown profile.
        """
        if profile == "python-sdk":
            # only a pattern can fail Python's compile; canonical text without one has none
            found = (
                COMPILE_CACHE.get(("python", self.canonical), lambda: python_compile_problem(self.root))
                if '"pattern' in self.canonical
                else None
            )
        elif profile in AJV_KIND:
            kind = self._ajv_kind(profile)
            if kind is None:
                return "/$schema", (
                    f"unsupported dialect {self.dialect} (the SDK picks Ajv2020, Ajv2019 or the "
                    "draft-07 Ajv class from $schema and throws for any other)"
                )
            if fastpaths.enabled() and kind in ("draft-07", self.dialect) and self._ajv_surely_clean():
                return None  # valid against its metaschema, with nothing beyond it Ajv refuses (metacheck)
            found = COMPILE_CACHE.get(
                (kind, self.canonical), lambda: ajv_compile_problem(self, kind, self._clean_twin(profile, kind))
            )
        else:
            raise ValueError(f"unknown host profile {profile!r} (expected one of {', '.join(HOST_PROFILES)})")
        return None if found is None else (json_pointer(found[0]), found[1])

    def _ajv_surely_clean(self) -> bool:
        """True when no Ajv class can refuse to compile this document (``metacheck.surely_valid`` with ``ajv``):
        the compile walk would find nothing. Computed once."""
        if self._ajv_clean is None:
            self._ajv_clean = surely_valid_cached(
                self.root, self.canonical, self.dialect, METASCHEMA_MAX_NODES, ajv=True
            )
        return self._ajv_clean

    def _ajv_kind(self, profile: str) -> AjvKind | None:
        """The Ajv class whose compile walk answers for ``profile`` (None: a dialect the host refuses). A 2020-12
        schema without a keyword the draft-07 and 2020-12 classes compile differently takes the draft-07 walk:
        the same walk, the same answer."""
        kind = AJV_KIND[profile](self.dialect)
        if kind == "2020-12" and fastpaths.enabled():
            if self._kind_specific is None:
                self._kind_specific = any(k in self.canonical for k in _AJV_KIND_SPECIFIC)
            if not self._kind_specific:
                return "draft-07"
        return kind

    @staticmethod
    def _evaluating(run: Callable[[], T]) -> T:
        """``run()``, with what jsonschema raises on a stranger's schema worded as ``errors`` documents:
        ``RefError`` for an unresolvable ``$ref``, ``ValueError`` for anything its keyword code cannot evaluate
        (it assumes a valid schema, so a hostile one makes it raise anything)."""
        from jsonschema import exceptions as jexc
        from referencing.exceptions import Unresolvable

        try:
            return run()
        except Unresolvable as exc:
            raise RefError(str(exc)) from exc
        except ValueError:
            raise
        except (
            jexc.SchemaError,
            jexc.UnknownType,
            jexc.FormatError,
            re.error,
            ArithmeticError,
            RecursionError,
            TypeError,
            AttributeError,
            KeyError,
            IndexError,
        ) as exc:
            detail = " ".join(str(exc).split())[:200]
            raise ValueError(f"schema cannot be evaluated: {type(exc).__name__}: {detail}") from exc

    def pair_with(self, other: SchemaDoc, same: SameTree) -> None:
        """Make ``other`` (the other version of this tool's schema) this document's twin for the Ajv compile walk:
        subtrees ``same(node, other_node)`` proves identical to a place of ``other`` that ``other``'s own walk
        found clean are not walked again (``compile.ajv_compile_problem``). Answers do not change."""
        self._twin = (other, same)

    def _clean_twin(self, profile: str, kind: AjvKind) -> tuple[SchemaDoc, SameTree] | None:
        """The twin, when it can answer for subtrees of this document under ``kind``: fast paths on, the same
        Ajv class, its own walk found nothing (and ran without a twin of its own), and neither walk can reach
        ``AJV_COMPILE_MAX_NODES`` (each node visited is an object of at least two characters of canonical text)."""
        if self._twin is None or not fastpaths.enabled():
            return None
        other, same = self._twin
        longest = max(len(self.canonical), len(other.canonical))
        if other._twin is not None or other._ajv_kind(profile) != kind or longest >= 2 * AJV_COMPILE_MAX_NODES:
            return None
        return (other, same) if other.compile_problem(profile) is None else None

    def accepts(self, instance: Any, profile: str = "python-sdk") -> bool:
        """Is ``instance`` valid for host ``profile``? Stops at the first error (``errors`` lists them all).

        Raises as ``errors`` does. With the fast paths on, the answer comes from ``quick`` where it can give it
        (the validator's own verdict, without walking it); a document refused as a whole validates an instance that
        never reaches the refused part by its twin (``schema.reach``), one refused for its cost by ``schema.memo``."""
        if (answer := refused_answer(self, instance, profile, errors=False)) is not None:
            return bool(answer)  # refused as a whole: the twin, or each $ref's outcome kept (``schema.memo``)
        self._evaluating(lambda: self.ready(profile))  # raises as the host's validator would, whatever answers
        quick = self.quick(self.root, instance, profile)
        if quick is not None:
            return quick
        return bool(self._evaluating(lambda: self.validator(profile).is_valid(instance)))

    def errors(self, instance: Any, profile: str = "python-sdk") -> list[ValidationError]:
        """The validation errors for ``instance`` (empty = valid), best match first.

        Raises ``RefError`` for an unresolvable ``$ref``; ``SchemaCompileError`` (a ``ValueError``) when the
        profile's host cannot compile the schema at all (``compile_problem``: the host rejects every value);
        ``ValueError`` for a schema jsonschema cannot evaluate: an invalid keyword value (``multipleOf: 0``,
        ``maxLength: "3"``, an invalid regex), a too costly or undecidable regex search (``RegexBudgetError``),
        numbers it cannot compare, nesting too deep."""
        from jsonschema import exceptions as jexc

        if (answer := refused_answer(self, instance, profile, errors=True)) is not None:
            return list(answer)  # as ``accepts``
        validator = self._evaluating(lambda: self.validator(profile))
        narrowed = self._narrowed(instance, profile)
        if narrowed is None:
            errs = self._evaluating(lambda: list(validator.iter_errors(instance)))
        else:
            # the errors of the one property's value, located as the whole validation locates them (jsonschema's
            # ``descend`` and ``properties``: instance path and schema path prefixed, level by level)
            node, value, keys = narrowed
            errs = self._evaluating(lambda: list(self.validator_for(node, profile).iter_errors(value)))
            for e in errs:
                for key in reversed(keys):
                    e.path.appendleft(key)
                    e.schema_path.appendleft(key)
                    e.schema_path.appendleft("properties")
        if len(errs) > 1:
            best = jexc.best_match(errs)
            # best_match may pick an error inside a union's branches: the top-level error holding it goes first
            while best is not None and not any(best is e for e in errs):
                best = best.parent
            if best is not None:
                errs = [best, *(e for e in errs if e is not best)]
        return errs
