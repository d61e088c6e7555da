"""Witness assembly: a value valid on both sides around the part that differs."""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.engine.applicators import conditionals
from mcp_schema_audit.engine.issue import NO_WITNESS
from mcp_schema_audit.engine.sampler import NoSample, sample
from mcp_schema_audit.schema import RefError


class WitnessMixin:
    """Witness assembly: a value valid on both sides around the part that differs."""

    def _common(self, p: Any, v: Any, depth: int = 0) -> Any:
        """A small value valid under P's node and, when possible, under V's node too.

        Witnesses are built from it so the rejecting side fails for the reason the finding names
        and nothing else. Falls back to a P-only sample, or ``NO_WITNESS``.
        """
        first = self._sample_p(p)
        if first is not NO_WITNESS and self._valid(self.v_doc, v, first):
            return first
        try:
            other = sample(v, self.v_doc)
            if self._valid(self.p_doc, p, other) and self._valid(self.v_doc, v, other):
                return other
        except (NoSample, RecursionError):
            pass
        if depth > 16:
            return first
        try:
            p2, _ = self._deref(p, self.p_doc)
            v2, _ = self._deref(v, self.v_doc)
        except RefError:
            return first
        if not isinstance(p2, dict) or not isinstance(v2, dict):
            return first
        values = self._values(p2)
        if values is not None:
            for x in values:
                if self._valid(self.p_doc, p2, x) and self._valid(self.v_doc, v2, x):
                    return x
            return first
        types = self._types_of(p2)
        if types is None or "object" in types:
            pprops = p2.get("properties") if isinstance(p2.get("properties"), dict) else {}
            vprops = v2.get("properties") if isinstance(v2.get("properties"), dict) else {}
            keys = [k for k in self._required(p2) + self._required(v2) if k in pprops or k in vprops]
            obj: dict[str, Any] = {}
            for k in dict.fromkeys(keys):
                got = self._common(pprops.get(k, True), vprops.get(k, True), depth + 1)
                obj[k] = None if got is NO_WITNESS else got
            if self._valid(self.p_doc, p2, obj):
                return obj
        if types is not None and "array" in types:
            item = self._common(p2.get("items", True), v2.get("items", True), depth + 1)
            for arr in ([], [None if item is NO_WITNESS else item]):
                if self._valid(self.p_doc, p2, arr) and self._valid(self.v_doc, v2, arr):
                    return arr
        return first

    @staticmethod
    def _required(node: dict[str, Any]) -> list[str]:
        req = node.get("required")
        return [k for k in req if isinstance(k, str)] if isinstance(req, list) else []

    def _array_wrap(self, p: dict[str, Any], v: dict[str, Any], index: int) -> Any:
        def wrap(child: Any) -> Any:
            base = self._common({**p, "type": "array"}, v)
            arr = list(base) if isinstance(base, list) else []
            p_pre, _, p_items, _ = self._tuple(p, self.p_doc)
            v_pre, _, v_items, _ = self._tuple(v, self.v_doc)
            p_items = True if p_items is None else p_items
            v_items = True if v_items is None else v_items
            filler = self._common(p_items, v_items)
            filler = None if filler is NO_WITNESS else filler
            while len(arr) <= index:
                j = len(arr)
                if j < len(p_pre):
                    got = self._common(p_pre[j], v_pre[j] if j < len(v_pre) else v_items)
                    arr.append(None if got is NO_WITNESS else got)
                else:
                    arr.append(filler)
            replaced = arr[index]
            arr[index] = child
            if "contains" not in p or index < len(p_pre) or self._valid(self.p_doc, p, arr) is not False:
                return arr
            # P's contains may have been met by the item the child replaced: add such items after it, as many
            # as P's minContains asks for
            kept = self._common({"allOf": [p_items, p["contains"]]}, v_items)
            need = p.get("minContains", 1)
            need = need if isinstance(need, int) and not isinstance(need, bool) and 0 < need <= 100 else 1
            for extra in (replaced, kept):
                if extra is NO_WITNESS:
                    continue
                for n in range(1, need + 1):
                    if self._valid(self.p_doc, p, arr + [extra] * n):
                        return arr + [extra] * n
            # no room for another item (maxItems): the child itself must meet contains, keeping what it shows
            # where contains does not speak, or taking contains' values where it does ({"id": ""} → {"id": "a"});
            # a scalar child gives way to contains' own value (confirmation checks it still shows the change)
            merged_children = (
                [{**kept, **child}, {**child, **kept}]
                if isinstance(child, dict) and isinstance(kept, dict)
                else [kept]
                if kept is not NO_WITNESS
                else []
            )
            for merged in merged_children:
                if self._valid(self.p_doc, p, arr[:index] + [merged] + arr[index + 1 :]):
                    return arr[:index] + [merged] + arr[index + 1 :]
            return arr

        return wrap

    def _obj_wrap(self, p: dict[str, Any], v: dict[str, Any], key: str, drop: str | None = None) -> Any:
        def wrap(child: Any) -> Any:
            base = self._common({**p, "type": "object"}, v)
            obj = dict(base) if isinstance(base, dict) else {}
            obj[key] = child
            if drop is not None:
                obj.pop(drop, None)
            return self._complete(p, obj, {key} | ({drop} if drop else set()))

        return wrap

    def _complete(self, p: dict[str, Any], obj: dict[str, Any], keep: set[str]) -> dict[str, Any]:
        """Add the properties P's conditionals require of ``obj`` (``dependentRequired``, ``dependentSchemas``,
        ``if``/``then``/``else`` with ``required``), so a witness is a value P declares; keys in ``keep`` are
        never added or changed. Returns ``obj`` (completed in place) when P already accepts it or has none."""
        conds = conditionals(p)
        if not conds or self._valid(self.p_doc, p, obj) is not False:
            return obj
        props = p.get("properties") if isinstance(p.get("properties"), dict) else {}
        for _ in range(4):
            added = False
            for c in conds:
                holds = self._valid(self.p_doc, c.if_, obj)
                branch = c.then if holds else c.else_
                required = branch.get("required") if isinstance(branch, dict) else None
                if not holds and self._meet_if(c, obj, required, keep):
                    added = True  # the else branch asked for a key the witness must lack: the if is met instead
                    continue
                for k in required if isinstance(required, list) else []:
                    if isinstance(k, str) and k not in obj and k not in keep:
                        got = self._sample_p(props.get(k, True))
                        obj[k] = None if got is NO_WITNESS else got
                        added = True
            if not added:
                break
        return obj

    def _meet_if(self, c: Any, obj: dict[str, Any], required: Any, keep: set[str]) -> bool:
        """When ``required`` (the ``else`` branch's) names a key in ``keep`` that ``obj`` lacks, merge into ``obj``
        (in place) the properties of a sample of the ``if`` schema, keys in ``keep`` aside, so the ``if`` holds and
        the ``then`` branch (which must not require such a key either) applies. True when done."""
        blocked = isinstance(required, list) and any(
            isinstance(k, str) and k in keep and k not in obj for k in required
        )
        then_req = c.then.get("required") if isinstance(c.then, dict) else None
        if (
            not blocked
            or not isinstance(c.if_, dict)
            or (isinstance(then_req, list) and any(k in keep and k not in obj for k in then_req if isinstance(k, str)))
        ):
            return False
        met = self._sample_p(c.if_)
        if not isinstance(met, dict):
            return False
        trial = {**obj, **{k: x for k, x in met.items() if k not in keep}}
        if not self._valid(self.p_doc, c.if_, trial):
            return False
        obj.update(trial)
        return True
