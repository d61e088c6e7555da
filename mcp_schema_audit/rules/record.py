"""What one rule is: the record every catalog entry is, and the sources several rules cite.

A ``Rule`` holds every fact about one rule, declared once in the catalog (``rules.tools``, ``rules.outputs``,
``rules.inputs``, ``rules.results``, ``rules.surfaces``): the ``schema-audit rules`` list, ``explain``,
docs/rules.md, the SARIF rule metadata, the witness confirmation (which engine issue kind is which rule, per
direction) and the report's special cases (listing-time breakers, rules that read alike for either cached
version, cached value sets) are all read from it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: How the Python SDK client validates a result (a source cited by the output rules).
PY_CLIENT = (
    "python-sdk: jsonschema validation of structuredContent against the cached outputSchema (mcp client session)"
)
#: How the TypeScript SDK clients validate a result.
TS_CLIENT = (
    "TS SDK: Ajv validation of structuredContent (-32602 Structured content does not match the tool's output schema)"
)
#: What the spec says of results and output schemas.
SPEC_OUTPUT = "MCP spec 2025-06-18+ server/tools §Output Schema: clients SHOULD validate structured results"
#: Where arguments come from and who checks them (the input rules' source).
ARGUMENTS = (
    "Arguments are built from the cached inputSchema; the server's own validator (its framework's reading of the "
    "current schema: docs/verdicts.md, Server validators) decides"
)
#: What the spec says of prompts.
SPEC_PROMPTS = (
    "MCP spec server/prompts: hosts offer prompts from prompts/list and send prompts/get with "
    "arguments; an invalid prompt name or missing required arguments is an error (spec: -32602; python-sdk "
    "MCPServer: 'Unknown prompt', 'Missing required arguments')"
)
#: What the spec says of resources and templates.
SPEC_RESOURCES = (
    "MCP spec server/resources: hosts read resources by uri (resources/read) and build URIs from "
    "resource templates (RFC 6570); an unknown resource is an error (spec: -32002; python-sdk MCPServer: "
    "-32602 'Unknown resource')"
)
#: How URI templates are expanded and matched.
URI_MATCHER = "URIs expanded and matched with the MCP python-sdk's RFC 6570 implementation (mcp.shared.uri_template)"
#: What the spec says of capabilities.
SPEC_CAPABILITIES = (
    "MCP spec basic/lifecycle §Capability Negotiation: a host uses only the capabilities the server "
    "advertised; a request for a feature the server does not serve is -32601 (Method not found)"
)


#: How each framework opens an object (checked: TS SDK 1.x lists zod 3 ``.passthrough()`` as
#: ``additionalProperties: true``; pydantic lists no ``additionalProperties`` unless ``extra='forbid'``).
OPEN_OBJECT = "zod 3: .passthrough(), zod 4: z.looseObject(); pydantic: no extra='forbid'"


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One rule of the catalog.

    - ``id``: stable kebab-case id, never reused; ``surface``: what a host cached (``tool``, ``prompt``,
      ``resource``, ``resource-template``, ``server``); ``direction``: for tools ``input``, ``output`` or
      ``tool``, for every other surface the surface itself; ``severity``: the default (``breaking`` provably
      breaks a host profile and carries a witness, ``warning`` may break or is a hazard for the next release,
      ``info`` is compatible but worth seeing).
    - ``family``: the code that decides it (``engine.objects``, ``engine.scalars``, ``engine.unions``,
      ``engine.compare``, ``engine.walk``, ``engine.oracle``, ``diff``, ``metadata``, ``lint``,
      ``lint.listing``, ``surfaces``, ``probe``).
    - ``title``: the one-line summary; ``rationale``: why it breaks (or does not break) hosts that cached the old
      listing; ``before``/``after``: an example (JSON Schema snippets as JSON text, or words); ``error``: what a
      host raises; ``source``: where that behaviour is specified or observed; ``fix``: how to ship the change
      without breaking cached hosts (empty for info rules).
    - ``kinds``: the engine issue kinds (``engine.issue.Issue.kind``, in P/V terms) this rule reports for its
      direction (a rule of direction ``tool`` reports them for both).
    - ``listing``: its witness is a tool entry SDK clients refuse with the whole ``tools/list`` (``per_call``: the
      host profiles that list the tool but fail every call of it instead); ``rollback``: the rule that reports,
      for hosts that cached the new version, the break this warning's rollback hazard is (``--mode full`` shows
      that finding in its place); ``symmetric``:
      its finding says the same whichever version hosts cached (``--mode full`` lists it once); ``value_set``:
      it is about a closed value set hosts cached (``history`` looks for conflicts between cohorts there).
    """

    id: str
    surface: str = "tool"
    direction: str
    severity: str
    family: str
    title: str
    rationale: str
    before: str = ""
    after: str = ""
    error: str = ""
    source: str = ""
    fix: str = ""
    kinds: tuple[str, ...] = ()
    listing: bool = False
    per_call: tuple[str, ...] = ()
    rollback: str = ""
    symmetric: bool = False
    value_set: bool = False

    @property
    def error_label(self) -> str:
        """Who writes ``error``: ``server error`` for a rule whose witness is a call the server answers (inputs,
        a tool gone or renamed), else ``host error`` (a client validating a listing or a result)."""
        return (
            "server error" if self.direction == "input" or self.id in ("tool-removed", "tool-renamed") else "host error"
        )
