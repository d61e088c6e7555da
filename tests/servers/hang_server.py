"""An MCP "server" that starts and never answers anything (stdio).

It reads and discards stdin, so the client's requests go nowhere; it exits when stdin closes,
like most real servers do. With ``--ignore-eof`` it keeps sleeping after stdin closes, so the
client has to kill it.
"""

import sys
import time


def main() -> int:
    """Swallow stdin; never write to stdout."""
    print("hang_server: started, will not answer", file=sys.stderr, flush=True)
    for _ in sys.stdin.buffer:
        pass
    if "--ignore-eof" in sys.argv[1:]:
        while True:
            time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
