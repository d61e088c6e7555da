"""An MCP "server" that fails during the handshake: it reads the first request, writes a
recognisable error to stderr and exits with status 1 without answering.

If ``CRASH_TOKEN`` is set it also prints that value, as careless servers print their secrets: the
capture's error message must not repeat it.
"""

import os
import sys

MARKER = "crash_server: FATAL config file /etc/demo-mail.toml is missing"


def main() -> int:
    """Read one line (the client's first request), complain on stderr, exit 1."""
    sys.stdin.buffer.readline()
    print("crash_server: starting", file=sys.stderr)
    token = os.environ.get("CRASH_TOKEN")
    if token:
        print(f"crash_server: using token {token}", file=sys.stderr)
    print(MARKER, file=sys.stderr, flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
