"""Capture a live MCP server's ``tools/list`` as a :class:`~mcp_schema_audit.snapshot.Snapshot`.

This is the only module that uses the ``mcp`` SDK, and it imports it (and ``anyio``/``httpx2``)
inside functions only: importing the SDK costs ~0.7 s, which commands that never talk to a server
must not pay.

Tools are kept exactly as the server sent them. The SDK's models drop unknown fields (``x-…`` vendor
keys) and reject a whole ``tools/list`` page when a single tool does not fit the negotiated
revision's wire model, so the capture taps the transport streams and records the raw JSON-RPC
``result`` of every ``tools/list`` page; a page the SDK refuses to parse is still kept, and paging
continues from its raw ``nextCursor``.

Never stored or printed: header values, environment values, URL credentials, the command line.
"""

from mcp_schema_audit.capture.session import SERVER_INFO_META_KEY, capture
from mcp_schema_audit.capture.target import PROTOCOLS, TRANSPORTS, CaptureTarget, connect_url_and_headers, redact_url

__all__ = [
    "PROTOCOLS",
    "SERVER_INFO_META_KEY",
    "TRANSPORTS",
    "CaptureTarget",
    "capture",
    "connect_url_and_headers",
    "redact_url",
]
