"""Static resources compared: removed (a cached host still reads its uri: does a template of the new version
match it?), added, a mimeType or text changed."""

from __future__ import annotations

from mcp_schema_audit import uritemplates
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces.common import finding, short_text, text_changes

#: Template matches (URI × template) one comparison may run; past it, templates are left undecided.
MATCH_BUDGET = 200_000


def resource_findings(old: Snapshot, new: Snapshot) -> list[Finding]:
    om, nm = old.section_map("resources") or {}, new.section_map("resources") or {}
    matcher = Router(new)
    out: list[Finding] = []
    for uri in sorted(set(om) | set(nm)):
        if uri not in nm:
            f = finding(
                "resource-removed", "resource", uri, "", "no longer listed: hosts may have it pinned", om[uri], None
            )
            via = matcher.template_for(uri)
            if via is not None:
                f.severity = "info"
                f.reason = f"resources/read of {uri} still matches resource template {via!r} of {new.label}"
            out.append(f)
        elif uri not in om:
            out.append(finding("resource-added", "resource", uri, "", "new resource", None, nm[uri]))
        elif om[uri] != nm[uri]:
            o, n = om[uri], nm[uri]
            if o.get("mimeType") != n.get("mimeType"):
                out.append(
                    finding(
                        "resource-mime-type-changed",
                        "resource",
                        uri,
                        "/mimeType",
                        f"mimeType {short_text(o.get('mimeType'))} → {short_text(n.get('mimeType'))}",
                        o.get("mimeType"),
                        n.get("mimeType"),
                    )
                )
            out += text_changes("resource", uri, o, n, "resource-description-changed", ("description", "title", "name"))
    return out


# --- resource templates ------------------------------------------------------------------------------------


class Router:
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
