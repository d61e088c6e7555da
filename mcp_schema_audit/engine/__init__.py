"""The compatibility engine: one tool's schemas of one direction, compared (docs/verdicts.md).

``compare_schemas`` is the entry point. Inside, one module per stage and keyword family:
``normalize`` (nodes made comparable; with ``merge`` and ``settle``), ``walk`` (the lockstep walk and
its table of keyword families), ``context`` (what the families share), the families as plain
functions (``values``, ``scalars``, ``arrays``, ``objects``, ``unions``, ``applicators`` for
``allOf``/``not``/conditionals, ``contains``), ``witness`` (values around a difference), ``sampler``
(instances of a schema), ``confirm`` (issues become findings, witnesses checked per host profile),
``oracle`` (the sampling oracle).
"""

from mcp_schema_audit.engine.compare import RUN_TIME_BUDGET_S, compare_schemas, removed_tool_finding

__all__ = ["RUN_TIME_BUDGET_S", "compare_schemas", "removed_tool_finding"]
