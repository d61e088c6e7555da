"""Schema model: dialect detection, local ``$ref`` resolution with no network, and host-profile validators.

A ``SchemaDoc`` wraps one tool schema (inputSchema or outputSchema) as a document with a
``referencing.Registry`` that holds only that document: remote references (``http://…``,
``https://…``, ``file://…``) are never retrieved — resolving one raises ``RefError``.

Host profiles (docs/verdicts.md, Host profiles) are emulated with python ``jsonschema`` validator classes extended
(``jsonschema.validators.extend``) per profile:

- ``python-sdk``: validator chosen by ``$schema`` (default 2020-12), formats not checked, ``pattern``
  searched with Python ``re`` semantics (what ``jsonschema`` does), ``nullable`` ignored;
- ``ts-sdk-v1``: Ajv's draft-07 class for every schema (2020-12-only keywords ignored), formats checked;
- ``ts-sdk-v2``: Ajv2020/2019/draft-07 chosen by ``$schema``, formats checked.

Both TS profiles follow Ajv 8 (``strict:false``, ``allErrors:true``, ajv-formats) where jsonschema
differs: ``pattern``/``patternProperties`` are ECMAScript regexes compiled with the ``u`` flag
(``ecma_search``, run by the ``regress`` package), OpenAPI ``nullable`` is honoured, and what Ajv
refuses to compile (an invalid regex, ``nullable`` without ``type``, a keyword value of the wrong
type, …) makes the whole schema uncompilable for that profile (``SchemaCompileError``).

Every regex search, in every profile and keyword (``pattern``, ``patternProperties``,
``additionalProperties``, ``unevaluatedProperties``), goes through a guarded search that cannot hang
on a hostile pattern (``safe_search`` / ``ecma_search``).
"""

from mcp_schema_audit.schema.compile import (
    AJV_COMPILE_MAX_NODES,
    INPLACE_BUDGET,
    SchemaCompileError,
    SchemaCostError,
    inplace_cost,
)
from mcp_schema_audit.schema.dialects import (
    DEFAULT_DIALECT,
    DIALECTS,
    HOST_PROFILES,
    MODERN_ONLY_KEYWORDS,
    RefError,
    dialect_of,
    dialect_sensitive,
    json_type,
    subschemas,
    type_set,
)
from mcp_schema_audit.schema.doc import SchemaDoc
from mcp_schema_audit.schema.formats import (
    AJV_FORMATS,
    ajv_conforms,
    ajv_format_checker,
    asserting_profiles,
    format_type,
)
from mcp_schema_audit.schema.hosts import js_numbers
from mcp_schema_audit.schema.regex import (
    REGEX_TIMEOUT_S,
    EcmaRegexError,
    RegexBudgetError,
    ecma_compile_error,
    ecma_search,
    safe_search,
)
from mcp_schema_audit.schema.regex_cost import REGEX_PROGRAM_LIMIT, REGEX_STEP_BUDGET, oversized, regex_compiles

__all__ = [
    "AJV_COMPILE_MAX_NODES",
    "DEFAULT_DIALECT",
    "DIALECTS",
    "HOST_PROFILES",
    "INPLACE_BUDGET",
    "MODERN_ONLY_KEYWORDS",
    "REGEX_PROGRAM_LIMIT",
    "REGEX_STEP_BUDGET",
    "REGEX_TIMEOUT_S",
    "EcmaRegexError",
    "RefError",
    "RegexBudgetError",
    "SchemaCompileError",
    "SchemaCostError",
    "SchemaDoc",
    "AJV_FORMATS",
    "ajv_conforms",
    "ajv_format_checker",
    "asserting_profiles",
    "dialect_of",
    "dialect_sensitive",
    "ecma_compile_error",
    "ecma_search",
    "format_type",
    "inplace_cost",
    "js_numbers",
    "json_type",
    "oversized",
    "regex_compiles",
    "safe_search",
    "subschemas",
    "type_set",
]
