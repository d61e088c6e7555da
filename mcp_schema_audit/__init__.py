"""schema-audit: find MCP tool schema changes that break hosts holding a cached ``tools/list``.

Importing this package has no side effects and does not import the ``mcp`` SDK.
"""

import time as _time

#: ``time.monotonic()`` when this package was first imported: for the ``schema-audit`` command, about when the
#: process started, so that ``--timeout`` counts the start-up too (``cli.app.run_started``)
IMPORTED_AT = _time.monotonic()

__version__ = "0.1.0"
