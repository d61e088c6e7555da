"""The state of one capture run: what was reached (stage, URL), the stdio server's process tree and stderr."""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp_schema_audit.capture.process import ProcessTree, StderrTail
from mcp_schema_audit.capture.target import CaptureTarget, redact_url


@dataclass
class RunState:
    """What the failure messages need: the stage reached, HTTP statuses seen, stderr, secrets."""

    target: CaptureTarget
    protocol: str
    stage: str = "starting the server"
    http_error: str | None = None
    errlog: StderrTail | None = None
    tree: ProcessTree | None = None
    secrets: list[str] = field(default_factory=list)

    def where(self) -> str:
        if self.target.transport == "stdio":
            return self.target.command[0]
        return redact_url(self.target.url or "")
