"""Resource templates compared: removed, its URI form changed (do URIs a cached host expands still match?), a
variable renamed, a mimeType or text changed."""

from __future__ import annotations

import re
from typing import Any

from mcp_schema_audit import uritemplates
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces import resources
from mcp_schema_audit.surfaces.common import finding, short_text, text_changes
from mcp_schema_audit.surfaces.resources import Router

_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_VARNAME = re.compile(r"[A-Za-z0-9_%.]+")


def _shape(text: str) -> str:
    """The template with every variable name replaced by ``v`` (operators, modifiers and literals kept): two
    templates of the same shape differ only in their variable names."""
    return _EXPRESSION.sub(lambda m: "{" + _VARNAME.sub("v", m.group(1)) + "}", text)


class TemplateDiff:
    """Resource templates of two versions, paired by name."""

    def __init__(self, old: Snapshot, new: Snapshot) -> None:
        self.old, self.new = old, new
        self.om = old.section_map("resource_templates") or {}
        self.nm = new.section_map("resource_templates") or {}
        self.router = Router(new)

    def findings(self) -> list[Finding]:
        out: list[Finding] = []
        for name in sorted(set(self.om) | set(self.nm)):
            if name not in self.nm:
                out.append(self._removed(name, self.om[name]))
            elif name not in self.om:
                out.append(
                    finding(
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
        f = finding(
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
                f, f"not decided: the comparison's budget of {resources.MATCH_BUDGET} template matches was spent"
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
                finding(
                    "resource-template-mime-type-changed",
                    "resource-template",
                    name,
                    "/mimeType",
                    f"mimeType {short_text(o.get('mimeType'))} → {short_text(n.get('mimeType'))}",
                    o.get("mimeType"),
                    n.get("mimeType"),
                )
            )
        out += text_changes(
            "resource-template", name, o, n, "resource-template-description-changed", ("description", "title")
        )
        return out

    def _uri_changed(self, name: str, old_text: str, new_text: str) -> list[Finding]:
        detail = f"{old_text!r} → {new_text!r}"
        try:
            old_t, new_t = uritemplates.parse(old_text), uritemplates.parse(new_text)
        except uritemplates.TemplateError as exc:
            f = finding(
                "resource-template-uri-changed", "resource-template", name, "/uriTemplate", detail, old_text, new_text
            )
            return [self._undecided(f, f"not decided: a uriTemplate cannot be parsed ({exc})")]
        if _shape(old_text) == _shape(new_text) and old_t.variables != new_t.variables:
            return self._renamed(name, old_t, new_t)
        if uritemplates.only_query_added(old_t, new_t):
            added = ", ".join(sorted(new_t.query - old_t.query))
            return [
                finding(
                    "resource-template-uri-compatible",
                    "resource-template",
                    name,
                    "/uriTemplate",
                    f"{detail}: only query variables added ({added})",
                    old_text,
                    new_text,
                )
            ]
        f = finding(
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
                finding(
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
