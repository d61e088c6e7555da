"""Which tools a probe calls, with which arguments: the calls file, and the ``--auto`` choice of safe tools.

Nothing is called that the user did not list, or that ``--auto`` does not allow: a tool annotated
``readOnlyHint: true`` (and ``destructiveHint`` absent or ``false``; both literal JSON booleans) whose required
arguments can all be filled from its own ``inputSchema`` (``const``, a one-value ``enum``, ``default``, the
first of ``examples``), the filled object valid under that schema. Anything else is skipped, with the reason.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcp_schema_audit.capture.calls import PlannedCall
from mcp_schema_audit.engine.servers import infer
from mcp_schema_audit.errors import InputError, UsageError
from mcp_schema_audit.schema import RefError, SchemaDoc
from mcp_schema_audit.snapshot import Snapshot, read_json_file

_CALL_KEYS = {"tool", "arguments", "id"}
MAX_CALLS = 1000


def load_calls_file(path: Path) -> list[PlannedCall]:
    """Read a calls file: ``{"calls": [{"tool": "get_chart", "arguments": {...}, "id": "optional name"}]}``.

    Returns the calls in file order. ``arguments`` defaults to ``{}``; ``id`` defaults to the tool name
    (``name#2``, ``name#3`` … for repeats). Raises ``InputError`` for an unreadable or malformed file
    (not an object with a ``calls`` list; an entry that is not an object, has no tool name, unknown keys,
    arguments that are not an object; duplicate ids; more than ``MAX_CALLS`` calls).
    """
    data = read_json_file(path)
    if not isinstance(data, dict) or not isinstance(data.get("calls"), list):
        raise InputError(
            f"{path}: a calls file is a JSON object with a 'calls' list, e.g. "
            '{"calls": [{"tool": "get_chart", "arguments": {"id": 1}}]}'
        )
    unknown = set(data) - {"calls", "$schema", "description"}
    if unknown:
        raise InputError(f"{path}: unknown key {sorted(unknown)[0]!r} (a calls file has 'calls')")
    if len(data["calls"]) > MAX_CALLS:
        raise InputError(f"{path}: {len(data['calls'])} calls, more than the limit of {MAX_CALLS}")
    calls: list[PlannedCall] = []
    seen: dict[str, int] = {}
    ids: set[str] = set()
    for i, entry in enumerate(data["calls"]):
        where = f"{path}: calls[{i}]"
        if not isinstance(entry, dict):
            raise InputError(f"{where} is not an object")
        extra = set(entry) - _CALL_KEYS
        if extra:
            raise InputError(f"{where}: unknown key {sorted(extra)[0]!r} (use tool, arguments, id)")
        tool = entry.get("tool")
        if not isinstance(tool, str) or not tool:
            raise InputError(f"{where} has no tool name")
        arguments = entry.get("arguments", {})
        if not isinstance(arguments, dict):
            raise InputError(f"{where}: arguments must be a JSON object")
        call_id = entry.get("id")
        if call_id is None:
            seen[tool] = seen.get(tool, 0) + 1
            call_id = tool if seen[tool] == 1 else f"{tool}#{seen[tool]}"
        if not isinstance(call_id, str) or not call_id:
            raise InputError(f"{where}: id must be a non-empty string")
        if call_id in ids:
            raise InputError(f"{where}: duplicate id {call_id!r}")
        ids.add(call_id)
        calls.append(PlannedCall(call_id, tool, arguments, f"listed in {path.name}"))
    return calls


def plan_calls(
    listing: Snapshot, listed: list[PlannedCall], *, auto: bool
) -> tuple[list[PlannedCall], list[dict[str, str]]]:
    """The calls to make on a server whose tools are ``listing``: every call of the calls file (``listed``,
    in order), then with ``auto`` one call per tool ``auto_arguments`` allows (by tool name), skipping tools
    the calls file already calls.

    A call of a tool the server does not list stays in the plan, marked ``listed=False`` (not made: its record
    and finding say so), so one calls file can probe two releases where a tool was added or removed.

    Returns ``(calls, skipped)`` where ``skipped`` lists ``{"tool", "why", "add"}`` for each tool ``--auto`` left
    out (by name): why, and what to add so that it is called (``what_to_add``). Raises ``UsageError`` when the
    calls file names no tool the server lists at all (a typo, or the wrong server: the gate must not pass with
    nothing called).
    """
    tools = listing.tool_map()
    missing = sorted({c.tool for c in listed if c.tool not in tools})
    if listed and len(missing) == len({c.tool for c in listed}):
        raise UsageError(
            f"the calls file names no tool the server lists, only tool(s) it does not list: "
            f"{', '.join(map(repr, missing))} (it lists {len(tools)} tool{'s' if len(tools) != 1 else ''})",
            hint="a calls file may name tools one release does not list, as long as it names one it does",
        )
    calls = [
        c if c.tool in tools else replace(c, listed=False, why=f"{c.why}; the server does not list it: not called")
        for c in listed
    ]
    skipped: list[dict[str, str]] = []
    if auto:
        wording = infer(listing.tools).wording if listing.tools else None
        called = {c.tool for c in listed}
        ids = {c.id for c in listed}
        for name in sorted(tools):
            if name in called:
                continue
            arguments, why = auto_arguments(tools[name])
            if arguments is None:
                skipped.append({"tool": name, "why": why, "add": what_to_add(why, wording)})
                continue
            call_id = name if name not in ids else f"{name}#auto"
            ids.add(call_id)
            calls.append(PlannedCall(call_id, name, arguments, f"--auto: {why}"))
    return calls, skipped


#: How each framework spells what ``--auto`` needs (``engine.servers`` wordings; ``None``: not known, all of them).
_READ_ONLY = {
    "zod3": "registerTool(name, {annotations: {readOnlyHint: true}, …})",
    "zod4": "registerTool(name, {annotations: {readOnlyHint: true}, …})",
    "pydantic": "@mcp.tool(annotations={'readOnlyHint': True})",
}
#: Examples, not defaults: a default makes the argument optional in the listed inputSchema (a change of the
#: tool's contract made for the probe's sake).
_VALUES = {
    "zod4": "zod 4: .meta({examples: […]})",
    "zod3": "zod 3: none, its .describe() gives no examples",
    "pydantic": "pydantic: Field(examples=[…])",
}


def what_to_add(why: str, wording: str | None = None) -> str:
    """What would make ``--auto`` call a tool it left out for ``why`` (an ``auto_arguments`` reason), in the words
    of the server's framework when ``wording`` names one (``zod3``, ``zod4``, ``pydantic``: ``servers.infer``), else
    in every framework's."""
    if why.startswith(("not annotated readOnlyHint", "annotated readOnlyHint")):
        spelled = (
            _READ_ONLY[wording]
            if wording in _READ_ONLY
            else f"TypeScript: {_READ_ONLY['zod4']}; Python: {_READ_ONLY['pydantic']}"
        )
        return (
            f"if it only reads, annotate it readOnlyHint: true ({spelled}), or call it from a calls file (--calls FILE)"
        )
    if why.startswith("annotated destructiveHint"):
        return "call it from a calls file (--calls FILE) with arguments safe to send"
    if why.startswith("required argument"):
        spelled = (
            _VALUES[wording] if wording in _VALUES else "; ".join(_VALUES[w] for w in ("zod4", "zod3", "pydantic"))
        )
        return f"call the tool from a calls file (--calls FILE), or give each such argument examples ({spelled})"
    return "call it from a calls file (--calls FILE) with arguments its inputSchema accepts"


def auto_arguments(tool: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """``(arguments, why)`` when ``--auto`` may call ``tool``, else ``(None, why not)``.

    Allowed: ``annotations.readOnlyHint`` is the JSON literal ``true``, ``destructiveHint`` is absent or the
    literal ``false`` (any other value, ``1`` or ``"true"`` included, which the SDK's models would read as
    ``True``, counts as destructive), every required
    argument has a value in its own property schema (``const``, a one-value ``enum``, ``default``, the first
    of ``examples``; local ``$ref`` followed), and the filled object (required arguments only) is valid under
    the ``inputSchema`` (python-sdk reading).
    """
    annotations = given if isinstance(given := tool.get("annotations"), dict) else {}
    if annotations.get("readOnlyHint") is not True:
        if "readOnlyHint" in annotations and annotations["readOnlyHint"] is not False:
            return None, (
                f"annotated readOnlyHint: {_shown(annotations['readOnlyHint'])} "
                "(only a literal true counts as read-only)"
            )
        return None, "not annotated readOnlyHint: true"
    if "destructiveHint" in annotations and annotations["destructiveHint"] is not False:
        hint = annotations["destructiveHint"]
        if hint is True:
            return None, "annotated destructiveHint: true"
        return None, f"annotated destructiveHint: {_shown(hint)} (only a literal false counts as not destructive)"
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return None, "no inputSchema object"
    doc = SchemaDoc(schema)
    required = listed if isinstance(listed := schema.get("required"), list) else []
    props = listed_props if isinstance(listed_props := schema.get("properties"), dict) else {}
    arguments: dict[str, Any] = {}
    sources = []
    unfilled = []
    for name in required:
        if not isinstance(name, str):
            return None, "a required entry is not a string"
        found = _value_of(doc, props.get(name))
        if found is None:
            unfilled.append(name)
            continue
        arguments[name], source = found
        sources.append(f"{name} from {source}")
    if unfilled:  # every one of them, not only the first: one round of fixes, not one per argument
        names = ", ".join(map(repr, unfilled[:10])) + (f" and {len(unfilled) - 10} more" if len(unfilled) > 10 else "")
        return None, (
            f"required argument {names} has no const, single enum value, default or example"
            if len(unfilled) == 1
            else f"required arguments {names} have no const, single enum value, default or example"
        )
    try:
        errors = doc.errors(arguments, "python-sdk")
    except (RefError, ValueError, RecursionError) as exc:
        return None, f"its inputSchema cannot be evaluated ({' '.join(str(exc).split())[:120]})"
    if errors:
        return None, f"the filled arguments are invalid under its inputSchema: {errors[0].message[:160]}"
    why = "read-only, " + (", ".join(sources) if sources else "no required arguments")
    return arguments, why


def _shown(value: Any) -> str:
    """``value`` as short JSON text for a skip reason (server text: clipped, one line)."""
    try:
        text = json.dumps(value, ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _value_of(doc: SchemaDoc, prop: Any, depth: int = 0) -> tuple[Any, str] | None:
    """``(value, where it came from)`` for one property schema, or None."""
    if not isinstance(prop, dict) or depth > 8:
        return None
    if isinstance(prop.get("$ref"), str) and len(prop) == 1:
        try:
            target, _ = doc.lookup(prop["$ref"])
        except RefError:
            return None
        return _value_of(doc, target, depth + 1)
    if "const" in prop:
        return prop["const"], "const"
    if isinstance(prop.get("enum"), list) and len(prop["enum"]) == 1:
        return prop["enum"][0], "its only enum value"
    if "default" in prop:
        return prop["default"], "default"
    if isinstance(prop.get("examples"), list) and prop["examples"]:
        return prop["examples"][0], "examples"
    return None


def skip_line(skip: dict[str, str]) -> str:
    """One tool ``--auto`` left out, on one line (server text inert): ``  name: why; add: what``."""
    from mcp_schema_audit.report.escape import one_line

    add = f"; add: {skip['add']}" if skip.get("add") else ""
    return f"  {one_line(skip['tool'])}: {one_line(skip['why'])}{add}"


def render_plan(calls: list[PlannedCall], skipped: list[dict[str, str]], fmt: str = "text") -> str:
    """The ``--dry-run`` output: each call (id, tool, arguments as JSON, why) in order, then the tools ``--auto``
    skipped with the reason and what to add; ``fmt`` ``"json"`` gives ``{"calls": [{"id", "tool", "arguments",
    "why"}], "skipped": [{"tool", "why", "add"}]}``. Server text is inert."""
    from mcp_schema_audit.report.escape import json_text, one_line

    if fmt == "json":
        return json_text(
            {
                "calls": [{"id": c.id, "tool": c.tool, "arguments": c.arguments, "why": c.why} for c in calls],
                "skipped": skipped,
            },
            sort_keys=True,
        )
    lines = [f"probe plan (dry run, nothing is called): {len(calls)} call{'s' if len(calls) != 1 else ''}"]
    for c in calls:
        args = json.dumps(c.arguments, ensure_ascii=False, sort_keys=True)
        lines.append(f"  call {one_line(c.id)}: {one_line(c.tool)} {one_line(args)}  ({one_line(c.why)})")
    if skipped:
        lines.append(f"not called by --auto ({len(skipped)}):")
        lines += [skip_line(s) for s in skipped]
    return "\n".join(lines) + "\n"
