"""``WalkContext``: what every keyword family shares while one producing schema P is compared with one
validating schema V.

It holds the two documents and their normalizers, the memo of node pairs already compared and the
set of those on the stack, the two budgets (node pairs, validations), and the operations the
families use: validity (``valid``, ``rejected_for``), witness choice (``pick``, ``pick_any_profile``,
``pick_valid``), instances of P (``sample_p``), normalization (``norm``, ``deref``) and the
comparison of a child pair (``compare``, ``child``, ``prefix``). Each family is a plain function of
it (``objects.objects(ctx, p, v, depth)``); the walk itself (normalize, memoize, make paths
absolute) is ``walk.compare_pair``, handed to the context as ``walk`` so that this module needs no
family.

Budgets count work, never seconds: the context charges the tool's ``meter.Meter`` (``WORK_BUDGET`` node pairs,
``VALIDATION_BUDGET`` validations per tool and direction, shared with the swapped context and the stages after
the walk); past one, ``Budget`` is raised.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from mcp_schema_audit import fastpaths
from mcp_schema_audit.engine.confirm import same_reason
from mcp_schema_audit.engine.identity import Identity
from mcp_schema_audit.engine.issue import NO_WITNESS, Budget, Issue, canon
from mcp_schema_audit.engine.meter import Meter
from mcp_schema_audit.engine.nodes import Node, Tokens
from mcp_schema_audit.engine.normalize import Normalizer
from mcp_schema_audit.engine.sampler import NoSample, sample
from mcp_schema_audit.engine.servers import framework_reads, read_by_framework
from mcp_schema_audit.errors import MUST_PROPAGATE
from mcp_schema_audit.schema import HOST_PROFILES, RefError, SchemaCostError, SchemaDoc, json_type
from mcp_schema_audit.schema.memo import loops_at
from mcp_schema_audit.schema.reach import unreached_at

#: The profile of V's node read as the server's framework reads it (``WalkContext.reading``).
SERVER = "server"
#: Candidates a host-sensitive ``WalkContext.pick`` judges per profile before it settles for the best so far.
_MAX_HOST_TRIES = 64

#: The walk of one node pair: ``(ctx, p, v, depth, p_at, v_at)`` → issues with absolute paths.
Walk = Callable[["WalkContext", Any, Any, int, "Tokens | None", "Tokens | None"], list[Issue]]
#: Puts a child's witness into the parent's instance (``witness.obj_wrap``, ``witness.array_wrap``).
Wrap = Callable[[Any], Any]
#: A memo entry: the normalized P node, the normalized V node (kept alive for their ids), their issues.
MemoEntry = tuple[Any, Any, list[Issue]]


def error_keywords(errors: list[Any]) -> set[tuple[str, tuple[Any, ...]]]:
    """``(keyword, instance path)`` of every error in ``errors`` and, for ``anyOf``/``oneOf`` failures, of the
    branches' own errors (the reason inside the union)."""
    out: set[tuple[str, tuple[Any, ...]]] = set()
    stack = list(errors)
    while stack and len(out) < 10_000:
        e = stack.pop()
        out.add((str(e.validator), tuple(e.absolute_path)))
        stack.extend(e.context or [])
    return out


def prefix(issues: list[Issue], inst_step: Any = None, wrap: Wrap | None = None) -> list[Issue]:
    """Issues of a child node pair seen from the parent: instance path and witness extended."""
    if inst_step is None and wrap is None:
        return issues
    out = []
    for i in issues:
        j = replace(i)
        if inst_step is not None:
            j.inst = [inst_step] + i.inst
        if wrap is not None and i.witness is not NO_WITNESS:
            j.witness = wrap(i.witness)
        out.append(j)
    return out


class WalkContext:
    """One comparison of P's document with V's (see the module docstring).

    ``walk``: the comparison of one node pair (``walk.compare_pair``). ``root_type``: a type both roots
    always have (``"object"`` for inputSchemas: MCP ``arguments``). ``reading``: for an inputSchema, how the
    server's framework reads V's patterns and lengths (``servers.regex_reading``: ``"pydantic"``, ``"zod3"``,
    ``"zod4"``), read as the profile ``SERVER`` beside the hosts' (None: as python-sdk does).
    """

    def __init__(
        self,
        p_doc: SchemaDoc,
        v_doc: SchemaDoc,
        walk: Walk,
        root_type: str | None = None,
        meter: Meter | None = None,
        reading: str | None = None,
    ) -> None:
        self.p_doc, self.v_doc = p_doc, v_doc
        read = any(framework_reads(reading, doc.canonical) for doc in (p_doc, v_doc))
        self.reading = reading if read else None
        self.pn, self.vn = Normalizer(p_doc, root_type), Normalizer(v_doc, root_type)
        #: (id(P node), id(V node)) → the pair's issues; pairs on the stack are in ``active``
        self.memo: dict[tuple[int, int], MemoEntry] = {}
        self.active: set[tuple[int, int]] = set()
        #: the tool's counted work (``engine.meter``), shared with ``swapped`` and the stages after the walk
        self.meter = meter if meter is not None else Meter()
        self.identity = Identity(p_doc, v_doc)
        #: the identical-subtree skip (``fastpaths``: off only to check that it changes no verdict)
        self.fast = fastpaths.enabled()
        self._walk = walk
        self._swap: WalkContext | None = None

    # -- the walk ----------------------------------------------------------------------------------------
    def compare(
        self, p: Any, v: Any, depth: int = 0, p_at: Tokens | None = None, v_at: Tokens | None = None
    ) -> list[Issue]:
        """Issues where P's node declares values V's node rejects (and informational differences), with
        absolute paths (``walk.compare_pair``). ``p``/``v``: raw subschemas located at ``p_at``/``v_at``,
        or ``Node``s."""
        return self._walk(self, p, v, depth, p_at, v_at)

    def child(
        self,
        p: Node,
        p_steps: list[Any],
        ps: Any,
        v: Node,
        v_steps: list[Any],
        vs: Any,
        depth: int,
        inst_step: Any = None,
        wrap: Wrap | None = None,
    ) -> list[Issue]:
        """Compare P's subschema ``ps`` (at ``p_steps`` from ``p``) with V's ``vs`` (at ``v_steps`` from ``v``);
        the issues' witnesses are wrapped into ``p``'s instance by ``wrap`` (``inst_step`` is the key or index)."""
        issues = self.compare(ps, vs, depth + 1, p.where(p_steps), v.where(v_steps))
        return prefix(issues, inst_step, wrap)

    def swapped(self) -> WalkContext:
        """A context with the roles exchanged (V's document producing, P's validating), made once."""
        if self._swap is None:
            self._swap = WalkContext(self.v_doc, self.p_doc, self._walk, meter=self.meter)  # P: no server reads it
        return self._swap

    def norm(self, side: str, raw: Any, at: Tokens) -> Any:
        """``raw`` of side ``"p"`` or ``"v"`` normalized at ``at`` (``Normalizer.norm``)."""
        normalizer = self.pn if side == "p" else self.vn
        return normalizer.norm(raw, at)

    def deref(self, node: Any, doc: SchemaDoc) -> tuple[Any, None]:
        """``node`` normalized in its document (``$ref`` followed, ``allOf`` merged); kept for the applicators'
        proofs, which look at a subschema's keywords. Raises ``RefError``."""
        normalizer = self.pn if doc is self.p_doc else self.vn
        try:
            return normalizer.norm(node, normalizer.locate(node) or ()), None
        except Budget:
            raise RefError("in-place cycle") from None

    # -- budgets and validation ----------------------------------------------------------------------------
    def tick(self) -> None:
        """Count one node pair (``Meter.tick``); raises ``Budget`` past ``WORK_BUDGET``."""
        self.meter.tick()

    def count_validation(self, node: Any = None) -> None:
        """Count one validation of ``node`` (``Meter.count_validation``); raises ``Budget`` past a budget."""
        self.meter.count_validation(node)

    def prepay_searches(self, count: int) -> None:
        """Charge ``count`` regex searches about to run (``Meter.prepay_searches``)."""
        self.meter.prepay_searches(count)

    def validator(self, doc: SchemaDoc, node: Any, profile: str) -> Any:
        """``doc``'s validator of ``node`` for ``profile``, counted as one validation; for ``SERVER``, V's node as
        the server's framework reads it (``servers.read_by_framework``)."""
        self.count_validation(node)
        if profile == SERVER:
            assert self.reading is not None
            return read_by_framework(doc.validator_for(node), node, self.reading)
        return doc.validator_for(node, profile)

    def valid(self, doc: SchemaDoc, node: Any, value: Any, profile: str = "python-sdk") -> bool | None:
        """Is ``value`` valid under ``node`` (a subschema of ``doc``) for ``profile``? ``None`` when undecidable.
        A document refused as a whole answers for a value that never reaches the refused part by its twin
        (``schema.reach``)."""
        try:
            if (twin := unreached_at(doc, node, value)) is not None:
                doc, node = twin
            if self.fast and profile != SERVER:
                self.count_validation(node)
                doc.ready(profile)  # raises as the real validator would
                quick = doc.quick(node, value, profile)
                if quick is not None:
                    return quick
                return bool(doc.validator_for(node, profile).is_valid(value))
            return bool(self.validator(doc, node, profile).is_valid(value))
        except Budget:
            raise
        except SchemaCostError:  # refused: a value python-sdk's validation loops on fails there (RecursionError)
            return False if profile == "python-sdk" and self._loops(doc, node, value) else None
        except Exception:  # unresolvable $ref, invalid schema, catastrophic input: undecided
            return None
        except BaseException as exc:  # a panic in the regex engine's Rust code (pyo3 PanicException)
            if isinstance(exc, MUST_PROPAGATE):
                raise
            return None

    def _loops(self, doc: SchemaDoc, node: Any, value: Any) -> bool:
        """python-sdk's validation of ``value`` at ``node`` of ``doc`` (refused for an in-place cycle) never ends
        (``memo.loops_at``), counted as one validation."""
        self.count_validation(node)
        return loops_at(doc, node, value)

    def rejected_for(self, v: Any, value: Any, kw: str | None, profile: str = "python-sdk") -> int:
        """How well V's node rejects ``value`` for keyword ``kw``: 2 = rejected by ``kw`` alone, 1 = ``kw`` among
        the reasons, 0 = rejected for other reasons only (or not at all, or undecidable). Without ``kw``:
        2 when rejected."""
        try:
            v_doc, v = unreached_at(self.v_doc, v, value) or (self.v_doc, v)
            errors = list(self.validator(v_doc, v, profile).iter_errors(value))
        except Budget:
            raise
        except SchemaCostError:  # the value loops there (``valid``): a failure, for no keyword of its own
            return 1 if profile == "python-sdk" and self._loops(self.v_doc, v, value) else 0
        except Exception:
            return 0
        except BaseException as exc:  # pragma: no cover - a Rust panic in the regex engine
            if isinstance(exc, MUST_PROPAGATE):
                raise
            return 0
        if not errors:
            return 0
        if kw is None:
            return 2
        top = {str(e.validator) for e in errors}
        if top <= {"anyOf", "oneOf"} and kw not in ("anyOf", "oneOf"):
            top = {k for k, _ in error_keywords(errors)} - {"anyOf", "oneOf"}
        if top and all(same_reason(kw, k) for k in top):
            return 2
        return 1 if any(same_reason(kw, k) for k, _ in error_keywords(errors)) else 0

    # -- witnesses -----------------------------------------------------------------------------------------
    def pick(self, p: Any, v: Any, candidates: list[Any], kw: str | None = None) -> Any:
        """A candidate valid under P's node and rejected by V's node (python-sdk), or ``NO_WITNESS``. With ``kw``,
        the rejection must be by that keyword: alone when some candidate allows it (so the witness shows this
        change and nothing else), else among other reasons. Where the host profiles may read the nodes
        differently (a ``format``, a ``pattern``, ``nullable`` …), the candidate that is a witness for the most
        profiles wins (``witness_hosts``), so a value that breaks every host is never passed over for one that
        breaks python-sdk alone. With a ``reading`` (an inputSchema), a witness the servers' framework reads as one
        too (``SERVER``) wins over any other: the server's validator is the party that judges it."""
        # the server's framework may read a pattern the hosts all read alike otherwise ([[:alpha:]], \pL, (?i))
        sensitive = self.reading is not None or not (self.p_doc.agrees_at(p) and self.v_doc.agrees_at(v))
        served = (SERVER,) if self.reading is not None else ()
        best: tuple[int, int, int] = (0, 0, 0)
        chosen = NO_WITNESS
        seen: set[str] = set()
        tried = 0
        for cand in candidates:
            if cand is NO_WITNESS:
                continue
            key = canon(cand) + json_type(cand)
            if key in seen:
                continue
            seen.add(key)
            score = self.rejected_for(v, cand, kw) if self._python_witness(p, v, cand) else 0
            if not score:
                if served and self.witness_hosts(p, v, cand, kw, served):  # only the servers' framework reads it so
                    best, chosen = max((best, chosen), ((1, 0, 2), cand), key=lambda x: x[0])
                    tried += 1
                    if tried >= _MAX_HOST_TRIES:
                        break
                continue
            if not sensitive:
                if score == 2:
                    return cand
                rank = (0, 1, score)
            else:
                server = len(self.witness_hosts(p, v, cand, kw, served))
                rank = (server, len(self.witness_hosts(p, v, cand, kw, HOST_PROFILES[1:])) + 1, score)
                tried += 1
            if rank > best:
                best, chosen = rank, cand
            if rank == (len(served), len(HOST_PROFILES), 2) or tried >= _MAX_HOST_TRIES:
                break
        return chosen

    def _python_witness(self, p: Any, v: Any, cand: Any) -> bool:
        """python-sdk's reading: P's node accepts ``cand``, V's rejects it."""
        return bool(self.valid(self.p_doc, p, cand)) and self.valid(self.v_doc, v, cand) is False

    def witness_hosts(self, p: Any, v: Any, cand: Any, kw: str | None, profiles: tuple[str, ...]) -> list[str]:
        """The profiles among ``profiles`` for which ``cand`` is a witness: P's node accepts it, V's node rejects it
        (for ``kw`` among the reasons, when given)."""
        return [
            prof
            for prof in profiles
            if self.valid(self.p_doc, p, cand, prof)
            and self.valid(self.v_doc, v, cand, prof) is False
            and (kw is None or self.rejected_for(v, cand, kw, prof))
        ]

    def pick_any_profile(self, p: Any, v: Any, candidates: list[Any], kw: str | None = None) -> Any:
        """The first candidate some host profile accepts under P's node and rejects under V's (by ``kw`` when
        given), or ``NO_WITNESS`` (for host differences: formats, ECMAScript vs Python regexes, ``nullable``).
        With a ``reading``, both nodes are also read as the servers' framework reads them (``SERVER``: the cached
        version's server took the value, the new one's refuses it): a pattern only pydantic-core's Rust regex
        refuses a value for is a witness too."""
        profiles = (*HOST_PROFILES, SERVER) if self.reading is not None else HOST_PROFILES
        for cand in [c for c in candidates if c is not NO_WITNESS][:64]:
            for prof in profiles:
                if (
                    self.valid(self.p_doc, p, cand, prof)
                    and self.valid(self.v_doc, v, cand, prof) is False
                    and (kw is None or self.rejected_for(v, cand, kw, prof))
                ):
                    return cand
        return NO_WITNESS

    def pick_valid(self, p: Any, v: Any, cands: list[Any]) -> Any:
        """The first candidate P accepts and V rejects with python-sdk, else with some other host profile
        (keywords only some hosts read: draft-07 ``dependencies`` in a 2020-12 schema, ``nullable`` …)."""
        cands = [c for c in cands if c is not NO_WITNESS]
        for cand in cands:
            if self.valid(self.p_doc, p, cand) and self.valid(self.v_doc, v, cand) is False:
                return cand
        return self.pick_any_profile(p, v, cands)

    def sample_p(self, node: Any) -> Any:
        """A sample of ``node`` (a subschema of P's document, ``sampler.sample``), or ``NO_WITNESS``."""
        try:
            return sample(node, self.p_doc)
        except (NoSample, RecursionError, RefError):
            return NO_WITNESS
