"""MCP Apps (SEP-1865): tools point at ``ui://`` resources through ``_meta`` (``ui.resourceUri``, the older
``ui/resourceUri``, or any other ``_meta`` member holding a ``ui://`` URI, such as ``openai/outputTemplate``), and
Apps hosts read them with ``resources/read``.

``apps_findings(old, new)``: for every tool either version lists, each ``ui://`` URI its cached (OLD) or served
(NEW) entry references that NEW does not list is breaking for Apps hosts (``apps-ui-resource-missing``; the
witness is the ``resources/read`` they send); a reference NEW adds to a resource NEW lists is info
(``apps-ui-reference-added``). Compared only when NEW's resources were captured.
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.findings import Finding, make_finding
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.vocabulary import SDK_PROFILES
from mcp_schema_audit.wording import Text

SCHEME = "ui://"


def ui_references(tool: dict[str, Any] | None) -> dict[str, str]:
    """``ui://`` URI → the JSON Pointer of the first ``_meta`` member that holds it (nested objects walked)."""
    out: dict[str, str] = {}
    meta = tool.get("_meta") if isinstance(tool, dict) else None
    todo: list[tuple[str, Any]] = [("/_meta", meta)]
    while todo and len(out) < 1000:
        ptr, node = todo.pop(0)
        if isinstance(node, str) and node.startswith(SCHEME):
            out.setdefault(node, ptr)
        elif isinstance(node, dict):
            todo += [(f"{ptr}/{str(k).replace('~', '~0').replace('/', '~1')}", v) for k, v in node.items()]
    return out


def apps_findings(old: Snapshot, new: Snapshot) -> list[Finding]:
    """See the module docstring; tool findings (``direction`` ``tool``), sorted by tool and pointer."""
    if "resources" not in new.captured or new.resources is None:
        return []
    listed = {r.get("uri") for r in new.resources}
    om, nm = old.tool_map(), new.tool_map()
    out: list[Finding] = []
    for name in sorted(set(om) | set(nm)):
        cached, served = ui_references(om.get(name)), ui_references(nm.get(name))
        for uri, ptr in sorted({**served, **cached}.items()):
            if uri in listed:
                if uri in served and uri not in cached and name in om:
                    detail = Text.of("now references {uri}, which the server lists", uri=uri)
                    out.append(make_finding("apps-ui-reference-added", name, ptr, detail, None, uri))
                continue
            who = "cached and served" if uri in cached and uri in served else "cached" if uri in cached else "served"
            detail = Text.of(
                "the {who} entry references {uri}, which the server does not list: MCP Apps hosts cannot render "
                "the tool's UI",
                who=who,
                uri=uri,
            )
            f = make_finding("apps-ui-resource-missing", name, ptr, detail, uri, None)
            f.hosts = list(SDK_PROFILES)  # the server answers the read with an error, whichever client sends it
            f.witness = {
                "instance": {"method": "resources/read", "params": {"uri": uri}},
                "accepted_by": "old",
                "instance_pointer": "/params/uri",
                "error": f"Unknown resource: {uri}",
            }
            out.append(f)
    return out
