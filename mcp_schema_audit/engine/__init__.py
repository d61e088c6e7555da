"""The compatibility engine: one tool's schemas of one direction, compared (DESIGN.md §2-3).

``compare_schemas`` is the entry point. Inside, one module per stage and keyword family:
``normalize`` (nodes made comparable), ``walk`` (the lockstep walk), ``objects``, ``arrays``,
``scalars``, ``unions``, ``applicators`` (``not``, conditionals, ``contains``), ``witness`` (values
around a difference), ``sampler`` (instances of a schema), ``confirm`` (issues become findings,
witnesses checked per host profile).
"""

from mcp_schema_audit.engine.compare import RUN_TIME_BUDGET_S, compare_schemas, removed_tool_finding

__all__ = ["RUN_TIME_BUDGET_S", "compare_schemas", "removed_tool_finding"]
