"""What hosts cache besides tools, compared: prompts, static resources, resource templates, the server's
capabilities and instructions.

``surface_findings(old, new)`` is called by ``diff.diff_snapshots`` (the one way from two snapshots to
findings). It compares a section only when both snapshots captured it (``Snapshot.captured``); prompts and
resource templates are paired by name, resources by uri. Verdicts follow DESIGN.md §2 with OLD as what
hosts cached and NEW as what the server runs: a breaking finding names a concrete request a cached host
sends that the new server rejects (the witness, ``accepted_by: "old"``), e.g. the ``prompts/get`` params
without a newly required argument, or a resource URI expanded from the cached ``uriTemplate`` that no
template of the new version matches (``uritemplates``: the MCP python-sdk's RFC 6570 matcher).

Every finding here has ``tool == ""``, ``surface`` and ``name`` set, ``direction == surface`` and a
``pointer`` into the item as listed (``/arguments/1/required``) or into the capabilities object
(``/resources/subscribe``); ``hosts`` is empty (no host's JSON Schema validator is involved).
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from mcp_schema_audit import uritemplates
from mcp_schema_audit.findings import NEW_SIDE, Finding
from mcp_schema_audit.rules import RULES
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.vocabulary import SURFACE_ORDER
from mcp_schema_audit.wording import Text

#: Template matches (URI × template) one comparison may run; past it, templates are left undecided.
MATCH_BUDGET = 200_000
#: Value a witness gives every prompt argument a cached host fills in (prompt arguments are strings).
ARGUMENT_VALUE = "example"
#: Top-level capabilities whose requests fail with Method not found once the server no longer serves them,
#: with the request a cached host then sends (method, params).
_REQUEST_CAPABILITIES = {
    "tools": ("tools/call", {"name": "…", "arguments": {}}),
    "prompts": ("prompts/get", {"name": "…"}),
    "resources": ("resources/read", {"uri": "…"}),
    "completions": (
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "…"}, "argument": {"name": "…", "value": ""}},
    ),
    "logging": ("logging/setLevel", {"level": "info"}),
}
_SECTION_WORDS = {
    "capabilities": "capabilities",
    "instructions": "instructions",
    "prompts": "prompts",
    "resources": "resources",
    "resource_templates": "resource templates",
}
_TEXT_LIMIT = 300


def _finding(
    rule_id: str,
    surface: str,
    name: str,
    ptr: str,
    detail: str | Text,
    old: Any,
    new: Any,
    *,
    witness: dict[str, Any] | None = None,
    delta: Any = NEW_SIDE,
    security: bool = False,
    old_pointer: str | None = None,
    new_pointer: str | None = None,
) -> Finding:
    """A finding of catalog rule ``rule_id`` (default severity) about item ``name`` of ``surface``.

    The message reads ``"<surface> <name>: <rule title> at <pointer or (root)>: <detail>"``; ``detail`` is words
    of ours with the values already in them (shown as it is) or a ``wording.Text``."""
    rule = RULES[rule_id]
    return Finding(
        rule=rule_id,
        severity=rule.severity,
        tool="",
        direction=surface,
        pointer=ptr,
        detail=detail if isinstance(detail, Text) else Text.literal(detail),
        old=old,
        new=new,
        old_pointer=old_pointer,
        new_pointer=new_pointer,
        witness=witness,
        delta=delta,
        tags=["security"] if security else [],
        surface=surface,
        name=name,
    )


def _esc(token: str) -> str:
    """A JSON Pointer reference token (RFC 6901: ``~`` → ``~0``, ``/`` → ``~1``)."""
    return token.replace("~", "~0").replace("/", "~1")


def _short(text: Any, limit: int = _TEXT_LIMIT) -> str:
    """``repr(text)``, cut to ``limit`` characters (server text: reporters show it inertly)."""
    s = repr(text)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def surface_findings(old: Snapshot, new: Snapshot) -> list[Finding]:
    """Findings for every section both snapshots captured (prompts, resources, resource templates,
    capabilities, instructions), hosts having cached ``old`` and the server running ``new``.

    Returns findings sorted by surface (prompt, resource, resource-template, server), name, pointer, rule.
    Never raises for malformed items beyond what ``snapshot.check_section`` already refused: an unparsable
    ``uriTemplate`` makes its finding a warning with a ``reason``.
    """
    both = old.captured & new.captured
    out: list[Finding] = []
    if "prompts" in both:
        out += _prompts(old, new)
    if "resources" in both:
        out += _resources(old, new)
    if "resource_templates" in both:
        out += _TemplateDiff(old, new).findings()
    if "capabilities" in both:
        out += _capabilities(old, new)
    if "instructions" in both:
        out += _instructions(old.instructions, new.instructions)
    return sorted(out, key=lambda f: (SURFACE_ORDER.get(f.surface, 9), f.name, f.pointer, f.rule))


def uncompared_note(old: Snapshot, new: Snapshot) -> str | None:
    """A report note naming the sections only one side captured (so they were not compared), or ``None``.

    E.g. ``prompts, resources, resource templates, instructions not compared: OLD (v0.2.5) has no such
    sections (a version-1 snapshot or a tools/list file)``."""
    parts = []
    for side, mine, other in (("OLD", old, new), ("NEW", new, old)):
        missing = [
            _SECTION_WORDS[s]
            for s in ("prompts", "resources", "resource_templates", "capabilities", "instructions")
            if s in other.captured and s not in mine.captured
        ]
        if missing:
            parts.append(
                f"{', '.join(missing)} not compared: {side} ({mine.label}) did not capture them "
                "(a version-1 snapshot or a tools/list file)"
            )
    return "; ".join(parts) or None


# --- prompts -----------------------------------------------------------------------------------------------


def _arguments(prompt: dict[str, Any]) -> list[dict[str, Any]]:
    args = prompt.get("arguments")
    return args if isinstance(args, list) else []


def _required(arg: dict[str, Any]) -> bool:
    return arg.get("required") is True


def _prompt_request(name: str, args: list[dict[str, Any]]) -> dict[str, Any]:
    """``prompts/get`` params a host sends: the prompt's name and a value for each of ``args``."""
    return {"name": name, "arguments": {a["name"]: ARGUMENT_VALUE for a in args}}


def _missing_witness(name: str, sent: list[dict[str, Any]], new_prompt: dict[str, Any], arg: str) -> dict[str, Any]:
    """The witness of a newly required argument: the ``prompts/get`` params a cached host sends (a value for each
    of ``sent``), confirmed against what the new prompt requires with the python-sdk server's own check
    (required names minus provided names). Raises ``RuntimeError`` if the request does not lack ``arg``
    (a bug: a breaking claim is never made without a confirmed witness)."""
    request = _prompt_request(name, sent)
    missing = {a["name"] for a in _arguments(new_prompt) if _required(a)} - set(request["arguments"])
    if arg not in missing:
        raise RuntimeError(f"prompt {name!r}: witness for {arg!r} not confirmed")
    names = ", ".join(repr(m) for m in sorted(missing))  # every argument the server finds missing, sorted
    return {
        "instance": request,
        "accepted_by": "old",
        "error": f"Missing required arguments: {{{names}}}",
        "instance_pointer": "/arguments",
    }


def _text_changes(
    surface: str,
    name: str,
    o: dict[str, Any],
    n: dict[str, Any],
    rule_id: str,
    keys: tuple[str, ...],
    prefix: str = "",
    label: str = "",
) -> list[Finding]:
    out = []
    for key in keys:
        if o.get(key) != n.get(key):
            what = f"{label}{key}" if label else key
            out.append(
                _finding(
                    rule_id,
                    surface,
                    name,
                    f"{prefix}/{key}",
                    f"{what} changed: {_short(o.get(key))} → {_short(n.get(key))}",
                    o.get(key),
                    n.get(key),
                    security=True,
                )
            )
    return out


def _prompts(old: Snapshot, new: Snapshot) -> list[Finding]:
    om, nm = old.section_map("prompts") or {}, new.section_map("prompts") or {}
    out: list[Finding] = []
    for name in sorted(set(om) | set(nm)):
        if name not in nm:
            request = _prompt_request(name, _arguments(om[name]))
            out.append(
                _finding(
                    "prompt-removed",
                    "prompt",
                    name,
                    "",
                    "hosts that cached it still offer it; prompts/get now fails",
                    om[name],
                    None,
                    witness={
                        "instance": request,
                        "accepted_by": "old",
                        "error": f"Unknown prompt: {name}",
                        "instance_pointer": "/name",
                    },
                )
            )
        elif name not in om:
            out.append(_finding("prompt-added", "prompt", name, "", "new prompt", None, nm[name]))
        elif om[name] != nm[name]:
            out += _prompt_changes(name, om[name], nm[name])
    return out


def _prompt_changes(name: str, o: dict[str, Any], n: dict[str, Any]) -> list[Finding]:
    out = _text_changes("prompt", name, o, n, "prompt-description-changed", ("description", "title"))
    oargs, nargs = _arguments(o), _arguments(n)
    oidx = {a["name"]: i for i, a in enumerate(oargs)}
    nidx = {a["name"]: i for i, a in enumerate(nargs)}
    for j, arg in enumerate(nargs):
        arg_name, ptr = arg["name"], f"/arguments/{j}"
        if arg_name not in oidx:
            if _required(arg):
                out.append(
                    _finding(
                        "prompt-argument-required-added",
                        "prompt",
                        name,
                        ptr,
                        f"new required argument {arg_name!r}: hosts that cached the prompt never send it",
                        None,
                        arg,
                        witness=_missing_witness(name, oargs, n, arg_name),
                        new_pointer=ptr,
                    )
                )
            else:
                out.append(
                    _finding(
                        "prompt-argument-added",
                        "prompt",
                        name,
                        ptr,
                        f"new optional argument {arg_name!r}",
                        None,
                        arg,
                        new_pointer=ptr,
                    )
                )
            continue
        i = oidx[arg_name]
        before = oargs[i]
        optr = f"/arguments/{i}"
        if _required(arg) and not _required(before):
            sent = [a for a in oargs if _required(a)]  # the user skipped every optional argument
            out.append(
                _finding(
                    "prompt-argument-made-required",
                    "prompt",
                    name,
                    f"{ptr}/required",
                    f"argument {arg_name!r} is now required: hosts that cached it as optional may leave it out",
                    before.get("required"),
                    arg.get("required"),
                    witness=_missing_witness(name, sent, n, arg_name),
                    old_pointer=f"{optr}/required",
                    new_pointer=f"{ptr}/required",
                )
            )
        elif _required(before) and not _required(arg):
            out.append(
                _finding(
                    "prompt-argument-made-optional",
                    "prompt",
                    name,
                    f"{ptr}/required",
                    f"argument {arg_name!r} is now optional",
                    before.get("required"),
                    arg.get("required"),
                    old_pointer=f"{optr}/required",
                    new_pointer=f"{ptr}/required",
                )
            )
        out += _text_changes(
            "prompt",
            name,
            before,
            arg,
            "prompt-description-changed",
            ("description", "title"),
            prefix=ptr,
            label=f"argument {arg_name!r} ",
        )
    for i, arg in enumerate(oargs):
        if arg["name"] not in nidx:
            out.append(
                _finding(
                    "prompt-argument-removed",
                    "prompt",
                    name,
                    f"/arguments/{i}",
                    f"argument {arg['name']!r} removed: hosts that cached the prompt still send it",
                    arg,
                    None,
                    old_pointer=f"/arguments/{i}",
                    delta=arg["name"],
                )
            )
    return out


# --- static resources --------------------------------------------------------------------------------------


def _resources(old: Snapshot, new: Snapshot) -> list[Finding]:
    om, nm = old.section_map("resources") or {}, new.section_map("resources") or {}
    matcher = _Router(new)
    out: list[Finding] = []
    for uri in sorted(set(om) | set(nm)):
        if uri not in nm:
            f = _finding(
                "resource-removed", "resource", uri, "", "no longer listed: hosts may have it pinned", om[uri], None
            )
            via = matcher.template_for(uri)
            if via is not None:
                f.severity = "info"
                f.reason = f"resources/read of {uri} still matches resource template {via!r} of {new.label}"
            out.append(f)
        elif uri not in om:
            out.append(_finding("resource-added", "resource", uri, "", "new resource", None, nm[uri]))
        elif om[uri] != nm[uri]:
            o, n = om[uri], nm[uri]
            if o.get("mimeType") != n.get("mimeType"):
                out.append(
                    _finding(
                        "resource-mime-type-changed",
                        "resource",
                        uri,
                        "/mimeType",
                        f"mimeType {_short(o.get('mimeType'))} → {_short(n.get('mimeType'))}",
                        o.get("mimeType"),
                        n.get("mimeType"),
                    )
                )
            out += _text_changes(
                "resource", uri, o, n, "resource-description-changed", ("description", "title", "name")
            )
    return out


# --- resource templates ------------------------------------------------------------------------------------


class _Router:
    """Where the new version routes a ``resources/read`` URI: its static resources by uri, then its templates
    (those the matcher can parse), counting template matches against ``MATCH_BUDGET``."""

    def __init__(self, new: Snapshot) -> None:
        self.uris = set(new.section_map("resources") or {})
        self.templates: list[tuple[str, uritemplates.Template]] = []
        self.matches = 0
        for item in new.resource_templates or []:
            try:
                self.templates.append((item["name"], uritemplates.parse(item["uriTemplate"])))
            except uritemplates.TemplateError:
                continue

    def spent(self) -> bool:
        """True once ``MATCH_BUDGET`` template matches were run."""
        return self.matches >= MATCH_BUDGET

    def template_for(self, uri: str) -> str | None:
        """The name of the first template of the new version that matches ``uri`` (``None``: none does)."""
        for name, template in self.templates:
            self.matches += 1
            if template.match(uri) is not None:
                return name
        return None

    def routes(self, uri: str) -> str | None:
        """What serves ``uri`` in the new version: ``"resource <uri>"``, ``"template <name>"`` or ``None``."""
        if uri in self.uris:
            return f"resource {uri}"
        name = self.template_for(uri)
        return None if name is None else f"template {name}"


_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_VARNAME = re.compile(r"[A-Za-z0-9_%.]+")


def _shape(text: str) -> str:
    """The template with every variable name replaced by ``v`` (operators, modifiers and literals kept): two
    templates of the same shape differ only in their variable names."""
    return _EXPRESSION.sub(lambda m: "{" + _VARNAME.sub("v", m.group(1)) + "}", text)


class _TemplateDiff:
    """Resource templates of two versions, paired by name."""

    def __init__(self, old: Snapshot, new: Snapshot) -> None:
        self.old, self.new = old, new
        self.om = old.section_map("resource_templates") or {}
        self.nm = new.section_map("resource_templates") or {}
        self.router = _Router(new)

    def findings(self) -> list[Finding]:
        out: list[Finding] = []
        for name in sorted(set(self.om) | set(self.nm)):
            if name not in self.nm:
                out.append(self._removed(name, self.om[name]))
            elif name not in self.om:
                out.append(
                    _finding(
                        "resource-template-added",
                        "resource-template",
                        name,
                        "",
                        "new resource template",
                        None,
                        self.nm[name],
                    )
                )
            elif self.om[name] != self.nm[name]:
                out += self._changed(name, self.om[name], self.nm[name])
        return out

    def _unrouted(self, template: uritemplates.Template) -> tuple[str | None, int]:
        """A URI ``template`` builds that the new version routes nowhere (``None`` when every sample is
        served), and how many samples were tried."""
        tried = 0
        for _, uri in uritemplates.sample_uris(template):
            tried += 1
            if self.router.routes(uri) is None:
                return uri, tried
        return None, tried

    def _undecided(self, f: Finding, why: str) -> Finding:
        f.severity = "warning" if f.severity == "breaking" else f.severity
        f.reason = why
        return f

    def _removed(self, name: str, item: dict[str, Any]) -> Finding:
        text = item["uriTemplate"]
        f = _finding(
            "resource-template-removed",
            "resource-template",
            name,
            "",
            f"hosts still build URIs from {text!r}",
            item,
            None,
        )
        return self._judge(f, text)

    def _judge(self, f: Finding, old_text: str) -> Finding:
        """Make ``f`` (a breaking claim about URIs built from ``old_text``) breaking with a witness URI, info when
        every URI is still served by something proven, or a warning with the reason it is undecided."""
        if self.router.spent():
            return self._undecided(
                f, f"not decided: the comparison's budget of {MATCH_BUDGET} template matches was spent"
            )
        try:
            template = uritemplates.parse(old_text)
        except uritemplates.TemplateError as exc:
            return self._undecided(f, f"not decided: the cached uriTemplate cannot be parsed ({exc})")
        uri, tried = self._unrouted(template)
        if uri is not None:
            f.witness = {
                "instance": uri,
                "accepted_by": "old",
                "instance_pointer": None,
                "error": f"Unknown resource: {uri} (no resource or resource template of {self.new.label} matches it)",
            }
            return f
        if f.rule == "resource-template-removed":
            via = sorted({self.router.routes(u) or "" for _, u in uritemplates.sample_uris(template)} - {""})
            f.severity = "info"
            f.reason = f"every URI it builds ({tried} tried) still matches {', '.join(via)} of {self.new.label}"
            return f
        return self._undecided(
            f,
            f"no URI the cached template builds was found that {self.new.label} rejects "
            f"({tried} tried), but the change is not proven safe",
        )

    def _changed(self, name: str, o: dict[str, Any], n: dict[str, Any]) -> list[Finding]:
        out: list[Finding] = []
        if o.get("uriTemplate") != n.get("uriTemplate"):
            out += self._uri_changed(name, o["uriTemplate"], n["uriTemplate"])
        if o.get("mimeType") != n.get("mimeType"):
            out.append(
                _finding(
                    "resource-template-mime-type-changed",
                    "resource-template",
                    name,
                    "/mimeType",
                    f"mimeType {_short(o.get('mimeType'))} → {_short(n.get('mimeType'))}",
                    o.get("mimeType"),
                    n.get("mimeType"),
                )
            )
        out += _text_changes(
            "resource-template", name, o, n, "resource-template-description-changed", ("description", "title")
        )
        return out

    def _uri_changed(self, name: str, old_text: str, new_text: str) -> list[Finding]:
        detail = f"{old_text!r} → {new_text!r}"
        try:
            old_t, new_t = uritemplates.parse(old_text), uritemplates.parse(new_text)
        except uritemplates.TemplateError as exc:
            f = _finding(
                "resource-template-uri-changed", "resource-template", name, "/uriTemplate", detail, old_text, new_text
            )
            return [self._undecided(f, f"not decided: a uriTemplate cannot be parsed ({exc})")]
        if _shape(old_text) == _shape(new_text) and old_t.variables != new_t.variables:
            return self._renamed(name, old_t, new_t)
        if uritemplates.only_query_added(old_t, new_t):
            added = ", ".join(sorted(new_t.query - old_t.query))
            return [
                _finding(
                    "resource-template-uri-compatible",
                    "resource-template",
                    name,
                    "/uriTemplate",
                    f"{detail}: only query variables added ({added})",
                    old_text,
                    new_text,
                )
            ]
        f = _finding(
            "resource-template-uri-changed",
            "resource-template",
            name,
            "/uriTemplate",
            f"{detail}: URIs hosts build from the cached template may no longer match",
            old_text,
            new_text,
        )
        return [self._judge(f, old_text)]

    def _renamed(self, name: str, old_t: uritemplates.Template, new_t: uritemplates.Template) -> list[Finding]:
        out = []
        for before, after in zip(old_t.variables, new_t.variables, strict=False):
            if before == after:
                continue
            detail = f"variable {before!r} is now {after!r} ({old_t.text!r} → {new_t.text!r})"
            witness: dict[str, Any]
            if before in old_t.query:
                values = dict.fromkeys(old_t.variables, f"{uritemplates.SAMPLE_VALUES[0]}")
                uri = old_t.expand(values)
                read = new_t.match(uri) or {}
                if after in read:  # cannot happen for a renamed query variable; never claim what is not so
                    continue
                witness = {
                    "instance": uri,
                    "accepted_by": "old",
                    "instance_pointer": None,
                    "error": f"the served template {new_t.text!r} reads no {before!r} from {uri} (it reads "
                    f"{after!r}: absent): the value is ignored",
                }
            else:
                witness = {
                    "instance": {
                        "ref": {"type": "ref/resource", "uri": old_t.text},
                        "argument": {"name": before, "value": ""},
                    },
                    "accepted_by": "old",
                    "instance_pointer": "/argument/name",
                    "error": f"the served template {new_t.text!r} has no variable {before!r} (renamed "
                    f"{after!r}): completion/complete for it finds nothing",
                }
            out.append(
                _finding(
                    "resource-template-variable-renamed",
                    "resource-template",
                    name,
                    "/uriTemplate",
                    detail,
                    old_t.text,
                    new_t.text,
                    witness=witness,
                    delta=[before, after],
                )
            )
        return out


# --- the server: capabilities and instructions -------------------------------------------------------------


def _present(value: Any) -> bool:
    """A capability (or flag) counts as advertised unless absent, null or false."""
    return value is not None and value is not False


#: Capabilities that are containers of named entries (an empty one advertises nothing).
_CONTAINERS = ("experimental", "extensions")


def _capability_points(caps: dict[str, Any]) -> dict[str, Any]:
    """JSON Pointer → value of every advertised capability and flag: ``/tools``, ``/tools/listChanged``,
    ``/resources/subscribe``, ``/experimental/<name>``, ``/extensions/<name>`` (one level below the top; the
    ``experimental`` and ``extensions`` containers count only through their entries)."""
    out: dict[str, Any] = {}
    for key, value in caps.items():
        if not _present(value):
            continue
        if key not in _CONTAINERS:
            out[f"/{_esc(key)}"] = value
        if isinstance(value, dict):
            for sub, flag in value.items():
                if _present(flag):
                    out[f"/{_esc(key)}/{_esc(sub)}"] = flag
    return out


def _capabilities(old: Snapshot, new: Snapshot) -> list[Finding]:
    before, after = _capability_points(old.capabilities), _capability_points(new.capabilities)
    out: list[Finding] = []
    gone_tops = {p for p in before if p.count("/") == 1 and p not in after}
    for ptr in sorted(before):
        if ptr in after:
            continue
        top = "/" + ptr.split("/")[1]
        if ptr != top and top in gone_tops:
            continue  # reported once, by its top-level capability
        key = ptr.split("/")[1]
        request = None
        if ptr == top and key in _REQUEST_CAPABILITIES:
            request = _REQUEST_CAPABILITIES[key]
        elif ptr == "/resources/subscribe":
            request = ("resources/subscribe", {"uri": "…"})
        if request is not None:
            method, params = request
            f = _finding(
                "server-capability-removed",
                "server",
                "capabilities",
                ptr,
                f"{ptr[1:]} no longer advertised: hosts that cached it still send {method}",
                before[ptr],
                None,
                witness={
                    "instance": {"method": method, "params": params},
                    "accepted_by": "old",
                    "instance_pointer": "/method",
                    "error": f"Method not found: {method}",
                },
            )
            if old.protocol_version != new.protocol_version:
                # two captures over different protocol versions (--protocol legacy and auto): what a server
                # advertises differs by protocol, and a host keeps the version it negotiated
                f.severity, f.hosts, f.witness = "warning", [], None
                f.reason = (
                    f"captured over different protocol versions ({old.protocol_version} and "
                    f"{new.protocol_version}): capture both with the same --protocol to compare capabilities"
                )
            out.append(f)
        else:
            why = (
                "hosts are no longer told when the list changes"
                if ptr.endswith("/listChanged")
                else "what hosts used it for is unknown to schema-audit"
            )
            out.append(
                _finding(
                    "server-capability-narrowed",
                    "server",
                    "capabilities",
                    ptr,
                    f"{ptr[1:]} no longer advertised: {why}",
                    before[ptr],
                    None,
                )
            )
    for ptr in sorted(set(after) - set(before)):
        top = "/" + ptr.split("/")[1]
        if ptr != top and top not in before and top[1:] not in _CONTAINERS:
            continue  # part of a capability added as a whole
        out.append(
            _finding(
                "server-capability-added", "server", "capabilities", ptr, f"{ptr[1:]} now advertised", None, after[ptr]
            )
        )
    return out


def _delta(old: str, new: str) -> str:
    """The text delta of two instructions, word by word: ``removed '…'; added '…'`` (each part shortened)."""
    a, b = old.split(" "), new.split(" ")
    removed: list[str] = []
    added: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag in ("delete", "replace"):
            removed.append(" ".join(a[i1:i2]))
        if tag in ("insert", "replace"):
            added.append(" ".join(b[j1:j2]))
    parts = []
    if removed:
        parts.append("removed " + _short(" … ".join(removed)))
    if added:
        parts.append("added " + _short(" … ".join(added)))
    return "; ".join(parts) or "whitespace changed"


def _instructions(old: str | None, new: str | None) -> list[Finding]:
    if old == new:
        return []
    if old is None:
        detail = f"instructions added ({len(new or '')} characters): {_short(new)}"
    elif new is None:
        detail = "instructions removed"
    else:
        detail = _delta(old, new)
    return [_finding("server-instructions-changed", "server", "instructions", "", detail, old, new, security=True)]
