"""Annotations and SARIF results on the server's source: each tool's registration found in TypeScript,
JavaScript and Python sources (registerTool("name", server.tool("name", @mcp.tool on def name), else the
snapshot file as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from gate_helpers import cli
from test_renames import SEND_NEW, SEND_OLD

from mcp_schema_audit.sourcemap import registrations

TS = """import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
const server = new McpServer({ name: "x", version: "1" });

server.registerTool(
  "send",
  { description: "Send", inputSchema: { to: z.string() } },
  async () => ({ content: [] }),
);
server.tool('legacy_tool', { q: z.string() }, async () => ({ content: [] }));
"""
PY = """from mcp.server.mcpserver import MCPServer

mcp = MCPServer("x")


@mcp.tool()
def search(q: str) -> str:
    return q


@mcp.tool(name="fetch_page")
@traced
async def fetch(url: str) -> str:
    return url
"""


def write_tree(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    (root / "src" / "index.ts").write_text(TS, encoding="utf-8")
    (root / "server.py").write_text(PY, encoding="utf-8")
    for skipped in ("node_modules/sdk", "dist"):  # a dependency's and the build's copies are never the source
        (root / skipped).mkdir(parents=True)
        (root / skipped / "index.js").write_text('server.registerTool("search", {})\n', encoding="utf-8")


def test_registrations_in_typescript_and_python(tmp_path: Path):
    write_tree(tmp_path)
    found = registrations(tmp_path, {"send", "legacy_tool", "search", "fetch_page", "absent"})
    shown = {name: (str(path.relative_to(tmp_path)), line) for name, (path, line) in found.items()}
    assert shown == {
        "send": ("src/index.ts", 4),
        "legacy_tool": ("src/index.ts", 9),
        "search": ("server.py", 7),
        "fetch_page": ("server.py", 11),
    }


def test_tracked_files_only_in_a_git_checkout(tmp_path: Path):
    write_tree(tmp_path)
    (tmp_path / ".gitignore").write_text("server.py\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert set(registrations(tmp_path, {"send", "search"})) == {"send"}  # an ignored file is not the source


def test_diff_annotations_and_sarif_point_at_the_registration(tmp_path: Path):
    write_tree(tmp_path)
    (tmp_path / "old.json").write_text(json.dumps([SEND_OLD]), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps([SEND_NEW]), encoding="utf-8")
    r = cli("diff", "old.json", "new.json", "-f", "github", "--source-root", ".", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    error = next(ln for ln in r.stdout.splitlines() if ln.startswith("::error "))
    assert error.startswith("::error file=src/index.ts,line=4,"), error
    sarif = json.loads(cli("diff", "old.json", "new.json", "-f", "sarif", "--source-root", ".", cwd=tmp_path).stdout)
    location = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location == {"artifactLocation": {"uri": "src/index.ts"}, "region": {"startLine": 4}}
    # without --source-root, or with a tool the source does not register: the snapshot file, as before
    plain = cli("diff", "old.json", "new.json", "-f", "github", cwd=tmp_path)
    assert next(ln for ln in plain.stdout.splitlines() if ln.startswith("::error ")).startswith(
        "::error file=new.json,"
    )


def test_a_source_file_that_is_a_link_fifo_or_device_is_never_read(tmp_path: Path):
    """A pull request can commit ``src/zero.ts`` as a link to ``/dev/zero`` (its st_size is 0, so the size check
    passed and the read filled memory), to a FIFO (the read hung) or to a file outside the checkout: none is read;
    the real registrations are still found."""
    import os

    write_tree(tmp_path)
    (tmp_path / "a_zero.ts").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "a_pipe.ts")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.py"
    outside.write_text("@mcp.tool()\ndef secret(q: str) -> str:\n    return q\n", encoding="utf-8")
    (tmp_path / "a_outside.py").symlink_to(outside)
    found = registrations(tmp_path, {"send", "search", "secret"})
    assert set(found) == {"send", "search"}, found


def test_a_run_of_decorator_lines_is_read_in_one_pass(tmp_path: Path):
    """40,000 ``@tool`` lines (240 KB, a file a pull request commits) took 45 s: the decorator regex retried the
    whole run from each line, quadratic, and the Action searches sources in four diffs. 150,000 lines (under the
    1 MB file cap, about 13 minutes before) are one pass now; the ``def`` after them is still found."""
    (tmp_path / "big.py").write_text("@tool\n" * 150_000 + "def late(q):\n    return q\n", encoding="utf-8")
    code = (
        "import sys; from pathlib import Path; from mcp_schema_audit.sourcemap import registrations; "
        "found = registrations(Path(sys.argv[1]), {'late', 'absent'}); "
        "print({k: v[1] for k, v in found.items()})"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120
    )  # a bound far above the pass itself (well under a second): the quadratic scan never ends within it
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "{'late': 150001}"


def test_a_tool_several_files_register_has_no_one_source(tmp_path: Path):
    """Four variants of one server all calling ``registerTool("send"``: pointing at the first in name order (as
    before) was a guess; the finding stays on the snapshot and a note names the files (new-user trial)."""
    write_tree(tmp_path)
    (tmp_path / "src" / "variant.ts").write_text(TS, encoding="utf-8")
    assert "send" not in registrations(tmp_path, {"send"})
    (tmp_path / "old.json").write_text(json.dumps([SEND_OLD]), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps([SEND_NEW]), encoding="utf-8")
    r = cli("diff", "old.json", "new.json", "-f", "github", "--source-root", ".", cwd=tmp_path)
    assert next(ln for ln in r.stdout.splitlines() if ln.startswith("::error ")).startswith("::error file=new.json,")
    report = json.loads(cli("diff", "old.json", "new.json", "-f", "json", "--source-root", ".", cwd=tmp_path).stdout)
    assert "--source-root: tool 'send' is registered in 2 files (src/index.ts and src/variant.ts)" in " ".join(
        report["notes"]
    )
