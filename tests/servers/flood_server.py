"""A hostile MCP "server" over stdio (raw JSON-RPC, no SDK) whose tools/list reply is huge: ``--objects N`` puts N
empty objects in one tool's inputSchema (``"x-a": [{}, {}, …]``: 2 bytes each, about 60 once parsed),
``--bytes N`` an N-byte description instead. Every other request gets a method-not-found error."""

import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=0)
    parser.add_argument("--bytes", type=int, default=0)
    args = parser.parse_args()
    for line in sys.stdin:
        message = json.loads(line)
        rid = message.get("id")
        if rid is None:
            continue
        if message.get("method") == "initialize":
            info = {"name": "flood", "version": "1"}
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": info}
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
        elif message.get("method") == "tools/list":
            blob = ",".join(["{}"] * args.objects)
            text = "d" * args.bytes
            head = '{"jsonrpc":"2.0","id":' + json.dumps(rid) + ',"result":{"tools":[{"name":"t","description":"'
            sys.stdout.write(head + text + '","inputSchema":{"type":"object","x-a":[' + blob + "]}}]}}\n")
        else:
            error = {"code": -32601, "message": "not found"}
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "error": error}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
