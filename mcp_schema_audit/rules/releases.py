"""Rules about whether hosts notice a release: the server's version, the 2026-07-28 caching contract, the
``x-mcp-header`` annotation, extensions, MCP Apps' ``ui://`` resources and deprecated protocol features.

Every record names the section of the spec (revision 2026-07-28 unless said) or the SEP it rests on.
"""

from __future__ import annotations

from mcp_schema_audit.rules.record import Rule

#: What hosts do with a server's version.
HOSTS_VERSION = (
    "VS Code caches a server's tools, starts servers lazily and offers a refresh when the server's version "
    "changes (microsoft/vscode#244680, #256421); Claude Code keeps a stale list across sessions "
    "(anthropics/claude-code#92858); MCP spec basic/lifecycle Implementation.version (2026-07-28: "
    "server/discover _meta io.modelcontextprotocol/serverInfo)"
)
#: The caching contract.
SPEC_CACHING = "MCP spec 2026-07-28 server/utilities/caching (SEP-2549)"
#: The x-mcp-header annotation.
SPEC_HEADER = (
    "MCP spec 2026-07-28 server/tools §x-mcp-header and basic/transports/streamable-http §Custom Headers from Tool "
    "Parameters (SEP-2243): Streamable HTTP clients MUST exclude a tool whose x-mcp-header is invalid from "
    "tools/list"
)
#: The extension identifiers.
SPEC_EXTENSIONS = (
    "SEP-2133 Extensions §Definition: 'Breaking changes MUST use a new identifier'; MCP spec 2026-07-28 "
    "ServerCapabilities.extensions"
)
#: MCP Apps.
SPEC_APPS = (
    "SEP-1865 MCP Apps (Extensions Track, io.modelcontextprotocol/ui): tools reference predeclared ui:// resources "
    "through _meta (ui.resourceUri; ui/resourceUri before it); hosts read them with resources/read"
)
#: The deprecation registry.
SPEC_DEPRECATED = "MCP spec 2026-07-28 deprecated.mdx (the registry of Deprecated features, SEP-2596)"

_HEADER_DROP = "Streamable HTTP clients drop this tool from tools/list"
_HEADER_FIX = "fix the x-mcp-header annotation (or remove it) before hosts list the tool over Streamable HTTP"


def _header_rule(rid: str, title: str, why: str, before: str, after: str) -> Rule:
    return Rule(
        id=rid,
        direction="input",
        severity="breaking",
        family="lint.header",
        title=title,
        rationale=f"{why} A Streamable HTTP client MUST reject the tool definition: the tool vanishes from its list.",
        before=before,
        after=after,
        error=_HEADER_DROP,
        source=SPEC_HEADER,
        fix=_HEADER_FIX,
    )


VERSION_RULES = [
    Rule(
        id="version-bump-too-small",
        surface="server",
        direction="server",
        severity="breaking",
        family="versioning",
        title="Breaking change without a major version bump",
        rationale=(
            "Hosts and users read the server's version as semver: a breaking release needs a major bump "
            "(for 0.x, a minor bump), or hosts that pin or refresh by version treat it as compatible. The "
            "witness is the first breaking finding's."
        ),
        before='{"serverInfo": {"name": "mail", "version": "1.2.0"}, "tools": [{"name": "send", '
        '"inputSchema": {"type": "object"}}]}',
        after='{"serverInfo": {"name": "mail", "version": "1.3.0"}, "tools": []}',
        error="hosts that trust the version keep calling the removed tool",
        source=HOSTS_VERSION,
        fix="release it as the next major version (0.x: the next minor) — the report's suggested_version",
    ),
    Rule(
        id="version-unchanged",
        fix="bump serverInfo.version with every release that changes the listing",
        surface="server",
        direction="server",
        severity="warning",
        family="versioning",
        title="Listing changed, version unchanged",
        rationale=(
            "Hosts that refresh on a version change keep the old listing: VS Code offers its refresh only "
            "when the version moves."
        ),
        before='{"serverInfo": {"name": "mail", "version": "1.2.0"}, "tools": []}',
        after='{"serverInfo": {"name": "mail", "version": "1.2.0"}, "tools": [{"name": "send", '
        '"inputSchema": {"type": "object"}}]}',
        source=HOSTS_VERSION,
    ),
    Rule(
        id="version-sources-disagree",
        fix=("release one version everywhere: serverInfo.version, package.json or pyproject.toml, and server.json"),
        surface="server",
        direction="server",
        severity="warning",
        family="versioning",
        title="Versions disagree across their sources",
        rationale=(
            "serverInfo.version, package.json, pyproject.toml and the registry's server.json name "
            "different versions: registries, installers and hosts each see another release (the "
            "registry's server.json frozen while the package moved on)."
        ),
        before='{"serverInfo": {"version": "1.3.0"}} with package.json {"version": "1.3.0"}',
        after='{"serverInfo": {"version": "1.3.0"}} with server.json {"version": "1.2.0"}',
        source=(
            "MCP registry server.json version (modelcontextprotocol/registry docs/reference/server-json); "
            + HOSTS_VERSION
        ),
    ),
]

CACHE_RULES = [
    Rule(
        id="cache-ttl-increased",
        fix="raise ttlMs in small steps, and lower it ahead of a release that must reach hosts fast",
        surface="server",
        direction="server",
        severity="warning",
        family="surfaces.cache",
        title="List TTL increased",
        rationale=(
            "A client treats a list as fresh for ttlMs (§Time-to-Live): a longer TTL means the next breaking "
            "release reaches cached hosts later, and a rollback cannot reach them sooner."
        ),
        before='{"tools": [], "ttlMs": 60000}',
        after='{"tools": [], "ttlMs": 86400000}',
        source=SPEC_CACHING + " §Time-to-Live (TTL) Field",
    ),
    Rule(
        id="cache-scope-changed",
        fix="keep the old cacheScope until every shared cache's TTL has passed, then change it",
        surface="server",
        direction="server",
        severity="warning",
        family="surfaces.cache",
        title="List cacheScope changed",
        rationale=(
            "cacheScope says who may share a cached list (§Cache Scope Field): public lets gateways and "
            "proxies serve one copy to every user, private keys it by authorization. A list that turned "
            "private may still be served from shared caches that stored it as public, up to its TTL; one "
            "that turned public is shared from now on."
        ),
        before='{"tools": [], "cacheScope": "private"}',
        after='{"tools": [], "cacheScope": "public"}',
        source=SPEC_CACHING + " §Cache Scope Field",
    ),
    Rule(
        id="cache-scope-public-list-varies",
        fix='say cacheScope "private" for a list that depends on who asks, or list the same items to everyone',
        surface="server",
        direction="server",
        severity="warning",
        family="lint.cache",
        title='cacheScope "public" on a list that varies by credentials',
        rationale=(
            "Two captures of the same release with different credentials list different items, yet the list "
            'says cacheScope "public": a shared gateway or proxy MAY serve one user\'s list to every user '
            "(§Choosing a Cache Scope: public only when identical for all users)."
        ),
        before='{"serverInfo": {"name": "mail", "version": "1.3.0"}, "tools": [{"name": "admin_reset", '
        '"inputSchema": {"type": "object"}}], "cacheScope": "public"}',
        after='{"serverInfo": {"name": "mail", "version": "1.3.0"}, "tools": [], "cacheScope": "public"}',
        source=SPEC_CACHING + " §Cache Scope Field, §Choosing a Cache Scope",
    ),
]

HEADER_RULES = [
    _header_rule(
        "header-empty",
        "x-mcp-header is empty",
        "The header name MUST NOT be empty.",
        '{"region": {"type": "string", "x-mcp-header": "Region"}}',
        '{"region": {"type": "string", "x-mcp-header": ""}}',
    ),
    _header_rule(
        "header-not-token",
        "x-mcp-header is not an HTTP field-name token",
        "The header name MUST match RFC 9110 §5.1 token syntax (1*tchar): no spaces, colons, control characters "
        "or non-ASCII.",
        '{"region": {"type": "string", "x-mcp-header": "Region"}}',
        '{"region": {"type": "string", "x-mcp-header": "Cloud Region"}}',
    ),
    _header_rule(
        "header-duplicate",
        "x-mcp-header used twice (case-insensitively)",
        "Header names MUST be case-insensitively unique among the inputSchema's x-mcp-header values.",
        '{"a": {"type": "string", "x-mcp-header": "Region"}, "b": {"type": "string"}}',
        '{"a": {"type": "string", "x-mcp-header": "Region"}, "b": {"type": "string", "x-mcp-header": "region"}}',
    ),
    _header_rule(
        "header-not-primitive",
        "x-mcp-header on a property that is not integer, string or boolean",
        "The annotation MUST only be on primitive integer, string or boolean properties; number is not permitted.",
        '{"limit": {"type": "integer", "x-mcp-header": "Limit"}}',
        '{"limit": {"type": "number", "x-mcp-header": "Limit"}}',
    ),
    _header_rule(
        "header-integer-unsafe",
        "x-mcp-header integer beyond ±(2^53−1)",
        "Integer values MUST be within the IEEE 754 safe range; a declared bound (or enum value) beyond it "
        "allows values a header cannot carry exactly.",
        '{"id": {"type": "integer", "maximum": 9007199254740991, "x-mcp-header": "Id"}}',
        '{"id": {"type": "integer", "maximum": 18446744073709551615, "x-mcp-header": "Id"}}',
    ),
    _header_rule(
        "header-not-reachable",
        "x-mcp-header not statically reachable",
        "The annotated property MUST be reachable from the root through properties keys only: not through "
        "items, anyOf/oneOf/allOf/not, if/then/else or $ref.",
        '{"region": {"type": "string", "x-mcp-header": "Region"}}',
        '{"items": {"type": "array", "items": {"type": "string", "x-mcp-header": "Region"}}}',
    ),
    Rule(
        id="header-added",
        fix=(
            "keep the server working without the header (hosts that cached the old listing do not send it), and "
            "update gateway and WAF rules first"
        ),
        direction="input",
        severity="warning",
        family="surfaces.header",
        title="x-mcp-header added",
        rationale=(
            "Streamable HTTP clients now mirror the parameter into an Mcp-Param-* header: load balancers, "
            "gateways and WAF rules see a new header, and hosts that cached the old listing do not send it "
            "(the server must not require it from them)."
        ),
        before='properties.region {"type": "string"}',
        after='properties.region {"type": "string", "x-mcp-header": "Region"}',
        source=SPEC_HEADER,
    ),
    Rule(
        id="header-renamed",
        fix="accept both header names for a while, and update intermediaries' rules before the release",
        direction="input",
        severity="warning",
        family="surfaces.header",
        title="x-mcp-header renamed",
        rationale=(
            "Intermediaries route on the Mcp-Param-* header name: a rule keyed on the old name stops "
            "matching, and hosts that cached the old listing keep sending the old header."
        ),
        before='properties.region {"x-mcp-header": "Region"}',
        after='properties.region {"x-mcp-header": "Cloud-Region"}',
        source=SPEC_HEADER,
    ),
    Rule(
        id="header-removed",
        fix=(
            "keep the x-mcp-header until intermediaries' rules stop using it, and tolerate the header from "
            "hosts that still send it"
        ),
        direction="input",
        severity="warning",
        family="surfaces.header",
        title="x-mcp-header removed",
        rationale=(
            "Load balancer, gateway and WAF rules keyed on the Mcp-Param-* header no longer see it; hosts "
            "that cached the old listing still send it."
        ),
        before='properties.region {"x-mcp-header": "Region"}',
        after='properties.region {"type": "string"}',
        source=SPEC_HEADER,
    ),
]

EXTENSION_RULES = [
    Rule(
        id="extension-removed",
        surface="server",
        direction="server",
        severity="breaking",
        family="surfaces.extension",
        title="Extension no longer offered",
        rationale=(
            "Hosts that negotiated the extension keep using its requests, _meta keys and result shapes; the "
            "server no longer offers it, so it must fall back to core behaviour or reject them (SEP-2133 "
            "§Negotiation). The witness is the capabilities a cached host still relies on."
        ),
        before='{"extensions": {"io.modelcontextprotocol/ui": {}}}',
        after='{"extensions": {}}',
        error="extension io.modelcontextprotocol/ui not offered by the server",
        source=SPEC_EXTENSIONS,
        fix="keep offering the extension until hosts re-negotiate; a new version of it gets a new identifier",
    ),
    Rule(
        id="extension-settings-changed",
        fix="publish the new settings shape under a new extension identifier (SEP-2133), keeping the old one",
        surface="server",
        direction="server",
        severity="warning",
        family="surfaces.extension",
        title="Extension settings changed shape under the same identifier",
        rationale=(
            "A settings key removed or retyped under the same extension identifier is a breaking change to "
            "the extension, which MUST use a new identifier (SEP-2133): hosts that read the old settings "
            "misbehave."
        ),
        before='{"extensions": {"com.example/search": {"maxResults": 10}}}',
        after='{"extensions": {"com.example/search": {"maxResults": "10"}}}',
        source=SPEC_EXTENSIONS,
    ),
    Rule(
        id="extension-added",
        surface="server",
        direction="server",
        severity="info",
        family="surfaces.extension",
        title="Extension added",
        rationale="Hosts negotiate it on their next discovery; nothing they cached is invalidated.",
        before='{"extensions": {}}',
        after='{"extensions": {"io.modelcontextprotocol/ui": {}}}',
        source=SPEC_EXTENSIONS,
    ),
]

APPS_RULES = [
    Rule(
        id="apps-ui-resource-missing",
        direction="tool",
        severity="breaking",
        family="surfaces.apps",
        title="Tool references a ui:// resource the server does not list",
        rationale=(
            "MCP Apps hosts render a tool's UI from the ui:// resource its _meta references, and read it with "
            "resources/read; the version the server runs does not list it (seen in a rollback: a cached tool "
            "pointing at a preview the older version does not serve). The witness is that read."
        ),
        before='tool _meta {"ui": {"resourceUri": "ui://mail/preview"}}, resources [ui://mail/preview]',
        after='tool _meta {"ui": {"resourceUri": "ui://mail/preview"}}, resources []',
        error="Unknown resource: ui://mail/preview",
        source=SPEC_APPS,
        fix="keep serving the ui:// resource as long as any listed or cached tool references it",
    ),
    Rule(
        id="apps-ui-reference-added",
        direction="tool",
        severity="info",
        family="surfaces.apps",
        title="Tool now references a ui:// resource",
        rationale="Apps hosts show the UI from their next listing; the resource exists, nothing cached breaks.",
        before="tool _meta {}",
        after='tool _meta {"ui": {"resourceUri": "ui://mail/preview"}}',
        source=SPEC_APPS,
    ),
]

DEPRECATION_RULES = [
    Rule(
        id="deprecated-feature-used",
        fix="migrate as the message says before the earliest removal date",
        surface="server",
        direction="server",
        severity="warning",
        family="lint.deprecation",
        title="Server uses a Deprecated protocol feature",
        rationale=(
            "The feature stays in the spec until its earliest removal, then a revision may drop it and hosts "
            "stop serving it: migrate before that date (the message names the feature, its migration path "
            "and the earliest removal)."
        ),
        before='{"tools": {}}',
        after='{"tools": {}, "logging": {}}',
        source=SPEC_DEPRECATED,
    ),
]

#: What the spec says of multi round-trip results.
SPEC_MRTR = (
    "MCP spec 2026-07-28 basic/patterns/mrtr (SEP-2322): servers MUST NOT send inputRequests the client has not "
    "declared support for; server/tools §Input Required Tool Results"
)

PROBE_RULES = [
    Rule(
        id="probe-input-required",
        direction="tool",
        severity="warning",
        family="probe",
        title="Tool call answered input_required",
        rationale=(
            "The tool asks the client for more input (elicitation, sampling, roots) before it completes: a host "
            "without that capability cannot finish the call, and clients before 2026-07-28 cannot read the "
            "result at all. A tool that starts doing this in a release breaks hosts that called it in one step."
        ),
        before='{"resultType": "complete", "content": [{"type": "text", "text": "sent"}]}',
        after='{"resultType": "input_required", "inputRequests": {"confirm": {"method": "elicitation/create"}}}',
        error="MissingRequiredClientCapability (-32021)",
        source=SPEC_MRTR,
        fix="complete the call without input when the client did not declare the capability, or add a new tool",
    ),
    Rule(
        id="probe-input-required-introduced",
        direction="tool",
        severity="breaking",
        family="probe",
        title="Tool call newly answers input_required",
        rationale=(
            "The same call completed in one step in the cached version's recording and now answers input_required "
            "(or, to a client that has not declared the capability, the MissingRequiredClientCapability error): a "
            "host that did not declare the capabilities its input requests need (elicitation, sampling, roots), "
            "or that speaks a revision before 2026-07-28, can no longer complete a call that worked for it. The "
            "witness is the new answer and the call the recording shows completing."
        ),
        before='call "f1" → {"resultType": "complete", "content": [{"type": "text", "text": "forwarded"}]}',
        after='call "f1" → {"resultType": "input_required", "inputRequests": {"confirm": {"method": '
        '"elicitation/create"}}}',
        error="MissingRequiredClientCapability (-32021), or a call that never completes",
        source=SPEC_MRTR,
        fix=(
            "complete the call without input when the client did not declare the capability (the input stays "
            "optional), or ask for it in a new tool and keep the old one"
        ),
    ),
    Rule(
        id="probe-elicitation-schema-unsupported",
        fix=(
            "keep requestedSchema to the restricted subset: a flat object of string, number/integer, boolean "
            "and enum properties"
        ),
        direction="tool",
        severity="warning",
        family="probe",
        title="Elicitation requestedSchema outside the restricted subset",
        rationale=(
            "Form elicitation schemas are limited to flat objects with string, number/integer, boolean and enum "
            "properties (four enum forms): a client builds its form from that subset and cannot render, or "
            "refuses, anything else."
        ),
        before='{"type": "object", "properties": {"name": {"type": "string"}}}',
        after='{"type": "object", "properties": {"address": {"type": "object", "properties": {}}}}',
        source="MCP spec 2026-07-28 client/elicitation §Requested Schema (SEP-1330)",
    ),
]

#: Every rule of this module, in catalog order.
RULES = VERSION_RULES + CACHE_RULES + HEADER_RULES + EXTENSION_RULES + APPS_RULES + DEPRECATION_RULES + PROBE_RULES
