"""What a run of the schema-audit GitHub Action publishes: the job summary, the step outputs, the annotations,
and with several configurations the combined Markdown report and SARIF log.

Text of the Action's own (labels, configuration names, notes, error messages) is escaped by the package's
escapers, as every report is: ``report.escape.inert`` (control, bidi, zero-width and lone-surrogate
characters as visible escapes), ``report.markdown.md_escape``/``md_fence`` and ``report.github.gh_data``.
Used by ``action_run.py``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from mcp_schema_audit.errors import InputError
from mcp_schema_audit.report.escape import inert
from mcp_schema_audit.report.github import gh_data
from mcp_schema_audit.report.markdown import md_escape, md_fence
from mcp_schema_audit.report.sarif import merge_logs
from mcp_schema_audit.snapshot.jsonio import read_json_file

sys.path.insert(0, str(Path(__file__).resolve().parent))
from action_inputs import ActionError, Configuration, input_value, lenient_flag  # noqa: E402


@dataclass
class Checked:
    """One configuration's outcome: its folder, files, counts, gate, or the error that stopped it."""

    cfg: Configuration
    folder: Path
    exit_code: int = 4
    passed: bool = False
    counts: dict[str, int] = field(default_factory=lambda: {"breaking": 0, "warning": 0, "info": 0})
    files: dict[str, str] = field(default_factory=dict)  #: output name (``json-file``, …) → path
    new_ref: str = ""  #: NEW as given to diff
    base_ref: str = ""  #: OLD as given to diff
    github: str = ""  #: its workflow-command annotations
    error: str = ""  #: why it could not run (its ``exit_code`` 2-4)


@dataclass
class Result:
    """What one run of the action found (written to the outputs and the summary)."""

    exit_code: int = 4
    passed: bool = False
    approved: bool = False
    counts: dict[str, int] = field(default_factory=lambda: {"breaking": 0, "warning": 0, "info": 0})
    files: dict[str, str] = field(default_factory=dict)
    new_ref: str = ""
    base_revision: str = ""  #: the commit captured as OLD (base-ref mode)
    base_snapshot: str = ""  #: OLD as given to diff (the base input, or the captured base.json)
    note: str = ""  #: why nothing was compared (a first release)
    policy: str = ""  #: the summary's policy section (the pull request's overrides that lower the gate)
    checks: list[Checked] = field(default_factory=list)  #: each configuration's outcome


def approved_annotations(text: str) -> str:
    """Workflow-command annotations of a gate the approval label let through: every ``::error`` is a
    ``::warning`` (the findings stay visible, without the red failure marks of a failed check)."""
    return "".join(
        "::warning " + line[len("::error ") :] if line.startswith("::error ") else line
        for line in text.splitlines(keepends=True)
    )


def combine(result: Result, checks: list[Checked], single: bool, out_dir: Path, approved: bool = False) -> None:
    """The run's counts, files, annotations (``approved``: errors as warnings) and (several configurations)
    combined Markdown and SARIF."""
    for c in checks:
        if approved:
            c.github = approved_annotations(c.github)
    for c in checks:
        for key in result.counts:
            result.counts[key] += c.counts[key]
    result.checks = checks
    if single:
        c = checks[0]
        result.files, result.new_ref, result.base_snapshot = dict(c.files), c.new_ref, c.base_ref
        sys.stdout.write(c.github)
        sys.stdout.flush()
        return
    result.new_ref = "\n".join(c.new_ref for c in checks if c.new_ref)
    result.base_snapshot = "\n".join(c.base_ref for c in checks if c.base_ref)
    for key in {k for c in checks for k in c.files}:
        result.files[key] = "\n".join(c.files[key] for c in checks if key in c.files)
    for c in checks:  # each annotation names its configuration
        for line in c.github.splitlines():
            parts = line.split("::", 2)
            if len(parts) == 3 and line.startswith("::"):
                line = f"::{parts[1]}::[{gh_data(c.cfg.name)}] {parts[2]}"
            sys.stdout.write(line + "\n")
    sys.stdout.flush()
    md = out_dir / "schema-audit.md"
    _write_new(md, combined_markdown(result, checks))
    result.files["markdown-file"] = str(md)
    sarifs = [c for c in checks if "sarif-file" in c.files]
    if sarifs:
        path = out_dir / "schema-audit.sarif"
        _write_new(path, merged_sarif(sarifs))
        result.files["sarif-file"] = str(path)


#: Characters a pull-request comment may hold (GitHub's limit on a comment body): the combined report fits it.
COMMENT_LIMIT = 65_536


def _write_new(path: Path, text: str) -> None:
    """Write ``text`` to a new file ``path``: what was there (a file, or a symbolic link a pull request committed,
    which would be written through to its target) is removed first, and the file is created exclusively."""
    try:
        path.unlink(missing_ok=True)
        with path.open("x", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise ActionError(f"cannot write {path}: {exc.strerror or exc}", 4) from None


def combined_markdown(result: Result, checks: list[Checked], limit: int = COMMENT_LIMIT) -> str:
    """One Markdown document of at most ``limit`` characters: the overall verdict, then each configuration's
    report (or its error). The configurations share the budget: a report longer than its share is cut at a line
    (open fences and ``<details>`` closed) with a note naming its whole file in the output folder (upload it as
    an artifact: the note links the run's page, where artifacts are listed)."""
    c = result.counts
    failed = any(x.exit_code != 0 for x in checks)
    icon = "❌" if failed else "✅"
    head = (
        f"### {icon} schema-audit: {c['breaking']} breaking, {c['warning']} warning, {c['info']} info in "
        f"{len(checks)} configurations — {'gate failed' if failed else 'gate passed'}"
    )
    sections = []
    for x in checks:
        title = f"---\n\n**Configuration {md_escape(x.cfg.name)}**"
        if x.error:
            body = f"⚠️ could not run (exit {x.exit_code}):\n\n{md_fence(inert(x.error))}"
        else:
            text = Path(x.files["markdown-file"]).read_text(encoding="utf-8")
            body = text.replace("### ", "#### ", 1).rstrip("\n")
        sections.append((x, title, body))
    whole = "\n\n".join([head] + [f"{t}\n\n{b}" for _, t, b in sections]) + "\n"
    if len(whole) <= limit:
        return whole
    parts = [head]
    left = limit - len(head) - 2
    for i, (x, title, body) in enumerate(sections):
        share = left // (len(sections) - i) - len(title) - 4
        if len(body) > share:
            body = _cut(body, share, x.files.get("markdown-file", ""))
        parts.append(f"{title}\n\n{body}")
        left -= len(parts[-1]) + 2
    return "\n\n".join(parts) + "\n"


def _cut(markdown: str, budget: int, path: str) -> str:
    """``markdown`` cut at a line to fit ``budget`` characters with its note, its open code fences and
    ``<details>`` blocks closed."""
    run = "/".join(os.environ.get(k, "") for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY"))
    run_id = os.environ.get("GITHUB_RUN_ID", "")
    where = f"[the run's artifacts]({run}/actions/runs/{run_id})" if run_id and run != "/" else "the artifact"
    note = (
        f"\n\n> ✂️ Cut to fit one comment: the whole report is `{md_escape(Path(path).name)}` of this configuration "
        f"in the output folder ({md_escape(str(Path(path).parent.name))}/, in {where})."
    )
    kept: list[str] = []
    used, fence, details = 0, "", 0
    closers = 0
    for line in markdown.split("\n"):
        closers = len(fence) + 1 + details * len("</details>\n") + len(note) + 16
        if used + len(line) + 1 + closers > budget:
            break
        kept.append(line)
        used += len(line) + 1
        stripped = line.lstrip()
        if fence:
            if stripped.startswith(fence) and not stripped.strip("`"):
                fence = ""
        elif stripped.startswith("```"):
            fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
        elif stripped.startswith("<details"):
            details += 1
        elif stripped.startswith("</details>"):
            details = max(0, details - 1)
    tail = ([fence] if fence else []) + ["</details>"] * details
    return "\n".join(kept + tail) + note


def merged_sarif(checks: list[Checked]) -> str:
    """One SARIF log text with one run holding the results of every configuration in ``checks`` that wrote one
    (``report.sarif.merge_logs``: each message starts with ``[name]``, ``properties.configuration`` names it
    and ``partialFingerprints["schemaAudit/configuration"]`` keeps the same finding of two configurations
    apart). Raises ``ActionError`` (exit 4) when a log cannot be read."""
    logs = []
    for c in checks:
        try:
            logs.append((c.cfg.name, read_json_file(Path(c.files["sarif-file"]))))
        except InputError as exc:
            raise ActionError(f"cannot read the SARIF report: {exc}", 4) from None
    return merge_logs(logs)


def summary_tail(result: Result, label: str) -> str:
    """The quote after the report in the job summary: that the failure was approved by ``label``, or how to
    approve it (on pull request events only: a tag push has no pull request to label); ``""`` when the gate passed
    or no approval label is set."""
    if result.passed:
        return ""
    if result.approved:
        return (
            f"\n> **Approved:** the pull request carries the label **{md_escape(label)}**, so this gate failure "
            "is accepted. Hosts holding a cached `tools/list` still break until they reconnect.\n"
        )
    if label and os.environ.get("GITHUB_EVENT_NAME", "pull_request") in ("pull_request", "pull_request_target"):
        return (
            f"\n> To accept these changes, fix them or add the label **{md_escape(label)}** to the pull request "
            "and re-run this check.\n"
        )
    return ""  # a tag push, a merge group, a push: no pull request to label here


def approved_headline(markdown: str, label: str) -> str:
    """``markdown`` (a report whose gate failed) with its headline saying the failure was approved:
    ``### ☑️ schema-audit diff: … — gate failed, approved by label **L** (fail-on: breaking)``, so the job
    summary does not open with a red failure for a check that passed."""
    head, sep, rest = markdown.partition("\n")
    if head.startswith("### ❌") and "gate failed" in head:
        approved = f"gate failed, approved by label **{md_escape(label)}**"
        head = "### ☑️" + head[len("### ❌") :].replace("gate failed", approved, 1)
    return head + sep + rest


#: The GitHub files an ``append`` could not write (``$GITHUB_STEP_SUMMARY`` …): the run is exit 2 when its gate
#: passed (``action_run._finish``).
WRITE_FAILURES: list[str] = []


def append(path: str | None, text: str) -> bool:
    """Append ``text`` (UTF-8) to the file ``path`` (a GitHub file: summary, outputs, path); nothing without one.
    Never raises: a write that fails (a full disk, a read-only file) is undone (the file cut back to its size
    before, so no half-written summary or output block is left), said in one ``::error`` line, and counted in
    ``WRITE_FAILURES``; False then."""
    if not path:
        return True
    size = None
    try:
        size = os.path.getsize(path) if os.path.exists(path) else 0
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
        return True
    except OSError as exc:
        if size is not None:
            with contextlib.suppress(OSError):
                os.truncate(path, size)
        why = exc.strerror or type(exc).__name__
        WRITE_FAILURES.append(path)
        sys.stdout.write(f"::error title=schema-audit::cannot write {gh_data(path)}: {gh_data(why)}\n")
        sys.stderr.write(f"schema-audit: cannot write {path}: {why}\n")
        return False


def write_outputs(result: Result) -> None:
    """Append ``result`` to ``$GITHUB_OUTPUT`` as ``key=value`` lines (``key<<EOF_<hex>`` blocks for values with
    line breaks): every output ``action.yml`` declares, ``""`` for a file not written."""
    path = os.environ.get("GITHUB_OUTPUT")
    if not path:
        return
    values = {
        "exit-code": str(result.exit_code),
        "passed": str(result.passed).lower(),
        "approved": str(result.approved).lower(),
        **{k: str(v) for k, v in result.counts.items()},
        "report-dir": input_value("output-dir", "schema-audit-report"),
        "json-file": "",
        "markdown-file": "",
        "html-file": "",
        "sarif-file": "",
        "snapshot": result.new_ref,
        "base-ref": result.base_revision,
        "base-snapshot": result.base_snapshot,
        "upload-sarif": str(lenient_flag("upload-sarif", False)).lower(),
        **result.files,
    }
    lines = []
    for key, value in values.items():
        if "\n" in value or "\r" in value:
            delim = f"EOF_{uuid.uuid4().hex}"
            lines.append(f"{key}<<{delim}\n{value}\n{delim}")
        else:
            lines.append(f"{key}={value}")
    append(path, "\n".join(lines) + "\n")


def publish_cli() -> None:
    """Append the bin folder of the venv ``action.yml`` installs schema-audit into
    (``$RUNNER_TEMP/schema-audit-venv/bin``) to ``$GITHUB_PATH`` when it holds ``schema-audit``, so later steps
    of the job find the CLI (the action's own steps call it by path)."""
    path_file, temp = os.environ.get("GITHUB_PATH"), os.environ.get("RUNNER_TEMP")
    if not path_file or not temp:
        return
    bin_dir = Path(temp) / "schema-audit-venv" / "bin"
    if (bin_dir / "schema-audit").is_file():
        append(path_file, f"{bin_dir}\n")
