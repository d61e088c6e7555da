"""Will hosts notice the release? The server's version held against the verdicts, the version every source
names, and the version the release should carry.

Hosts decide whether to re-list by the server's version (VS Code offers a refresh when it changes), and people
read it as semver. ``version_findings(old, new, findings)``: a breaking finding without a major bump (for 0.x
a minor bump) is ``version-bump-too-small`` (breaking; its witness is the first breaking finding's), a change
with the version unchanged is ``version-unchanged`` (warning). ``suggested_version`` is the smallest version
that satisfies semver for those findings. ``read_version_sources`` reads the versions of ``package.json``,
``pyproject.toml`` (``[project]`` or ``[tool.poetry]``) and ``server.json`` (the MCP registry's);
``sources_findings`` reports them disagreeing with each other or with ``serverInfo.version``
(``version-sources-disagree``). Versions are parsed by ``packaging.version`` (PEP 440, which reads
``1.2.3``, ``v1.2.3`` and semver pre-releases such as ``1.0.0-rc.1``); one that does not parse is left out
with a note.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp_schema_audit.errors import InputError
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces.common import finding, short_text

#: The rules about versions themselves (never counted as changes of the listing).
VERSION_RULES = ("version-bump-too-small", "version-unchanged", "version-sources-disagree")
_LEVELS = ("none", "patch", "minor", "major")


def parse_version(text: Any) -> Any:
    """A ``packaging.version.Version`` of ``text`` (``None`` for a missing or unparsable version)."""
    from packaging.version import InvalidVersion, Version

    if not isinstance(text, str) or not text.strip():
        return None
    try:
        return Version(text.strip())
    except InvalidVersion:
        return None


def server_version(snap: Snapshot) -> str | None:
    """``serverInfo.version`` as the server sent it (``None`` when it sent none)."""
    v = snap.server.get("version") if isinstance(snap.server, dict) else None
    return v if isinstance(v, str) else None


def required_level(findings: list[Finding]) -> str:
    """The semver level ``findings`` need: ``major`` (a breaking one), ``minor`` (something added: a rule
    ending in ``-added``), ``patch`` (any other change), ``none``. Forward findings (hosts cached NEW) and the
    version rules themselves do not count."""
    level = "none"
    for f in findings:
        if "forward" in f.tags or f.rule in VERSION_RULES:
            continue
        here = "major" if f.severity == "breaking" else "minor" if f.rule.endswith("-added") else "patch"
        level = max(level, here, key=_LEVELS.index)
    return level


def _bump(old: Any, level: str) -> tuple[int, int, int]:
    """OLD's release bumped by ``level`` (0.x: major → minor, minor → patch), as ``(major, minor, patch)``."""
    major, minor, patch = (list(old.release) + [0, 0, 0])[:3]
    if major == 0 and level != "none":
        level = {"major": "minor", "minor": "patch", "patch": "patch"}[level]
    if level == "major":
        return (major + 1, 0, 0)
    if level == "minor":
        return (major, minor + 1, 0)
    if level == "patch":
        return (major, minor, patch + 1)
    return (major, minor, patch)


def _release(v: Any) -> tuple[int, int, int]:
    major, minor, patch = (list(v.release) + [0, 0, 0])[:3]
    return (major, minor, patch)


def suggested_version(old: Snapshot, new: Snapshot, findings: list[Finding]) -> str | None:
    """The version NEW should carry: NEW's own when it is high enough for ``findings`` (``required_level``),
    else OLD's bumped (``2.0.0`` after ``1.4.2`` with a breaking change, ``0.3.0`` after ``0.2.6``). ``None``
    when OLD's version is missing or unparsable."""
    ov, nv = parse_version(server_version(old)), parse_version(server_version(new))
    if ov is None:
        return None
    level = required_level(findings)
    need = _bump(ov, level)
    if nv is not None and _release(nv) >= need and (level == "none" or nv > ov):
        return server_version(new)
    return ".".join(map(str, need))


def version_findings(old: Snapshot, new: Snapshot, findings: list[Finding]) -> tuple[list[Finding], list[str]]:
    """The version rules for a diff of OLD → NEW with ``findings`` (before ignore entries: an accepted breaking
    change still needs its bump). Returns ``(findings, notes)``; the notes say why versions were not judged."""
    os_, ns = server_version(old), server_version(new)
    if os_ is None or ns is None:
        missing = " and ".join(s.label for s, v in ((old, os_), (new, ns)) if v is None)
        return [], [f"versions not judged: {missing} sent no serverInfo.version"]
    level = required_level(findings)
    if level == "none":
        return [], []
    out: list[Finding] = []
    if os_ == ns:
        detail = (
            f"the listing changed but the version is still {short_text(ns)}: hosts that refresh on a version "
            "change keep the old listing"
        )
        out.append(finding("version-unchanged", "server", "serverInfo", "/version", detail, os_, ns))
    ov, nv = parse_version(os_), parse_version(ns)
    if ov is None or nv is None:
        bad = " and ".join(short_text(v) for v, p in ((os_, ov), (ns, nv)) if p is None)
        return out, [f"version bump not judged: {bad} is not a version (PEP 440 / semver)"]
    if level == "major" and (_release(nv) < _bump(ov, "major") or not nv > ov):
        first = next(f for f in findings if f.severity == "breaking" and "forward" not in f.tags)
        need = "minor" if _release(ov)[0] == 0 else "major"
        detail = (
            f"{short_text(os_)} → {short_text(ns)} is not a {need} bump, yet the release breaks hosts "
            f"({first.rule} at {first.tool or first.name or 'the server'}): suggested "
            f"{'.'.join(map(str, _bump(ov, 'major')))}"
        )
        f = finding("version-bump-too-small", "server", "serverInfo", "/version", detail, os_, ns)
        f.witness = dict(first.witness) if isinstance(first.witness, dict) else None
        f.hosts = list(first.hosts)
        if f.witness is None:
            f.severity, f.reason = "warning", "the breaking finding it rests on carries no witness"
        out.append(f)
    return out, []


def _version_of(path: Path) -> str | None:
    """The version a ``package.json``, ``pyproject.toml`` or ``server.json`` names (by file name; any other
    ``.json`` is read like ``package.json``). Raises ``InputError`` for an unreadable or malformed file, or JSON nested
    too deeply; ``UsageError`` (``tomltext.toml_loads``, as the configuration) for invalid or too deeply nested TOML;
    both exit 2 with one line naming the file."""
    from mcp_schema_audit.snapshot.jsonio import read_file_bytes, read_json_file
    from mcp_schema_audit.tomltext import toml_loads

    if path.name.endswith(".toml"):
        try:  # read as a JSON source is: a regular file (no FIFO, no device), at most MAX_INPUT_BYTES
            text = read_file_bytes(path).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: cannot read the version: {exc}") from None
        data: Any = toml_loads(text, str(path), "a version source")
        project = data.get("project") if isinstance(data.get("project"), dict) else {}
        poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
        v = project.get("version") or (poetry.get("version") if isinstance(poetry, dict) else None)
    else:
        data = read_json_file(path)
        v = data.get("version") if isinstance(data, dict) else None
    return v if isinstance(v, str) else None


def read_version_sources(paths: tuple[str, ...] | list[str]) -> list[tuple[str, str | None]]:
    """``(path, version or None)`` for each file of ``paths`` (``--version-source``, config ``version_sources``).
    Raises ``InputError`` (exit 2) for a file that cannot be read or parsed."""
    out = []
    for p in paths:
        path = Path(p)
        if not path.is_file():
            raise InputError(f"version source {p} (--version-source, or the config's version_sources): no such file")
        out.append((p, _version_of(path)))
    return out


def sources_findings(snap: Snapshot, sources: list[tuple[str, str | None]]) -> list[Finding]:
    """``version-sources-disagree`` when ``serverInfo.version`` and the sources' versions (those that name one)
    are not all the same version (``1.2.0`` and ``v1.2.0`` agree)."""
    named = [("serverInfo.version", server_version(snap))] + list(sources)
    versions = [(where, v) for where, v in named if v is not None]
    if len(versions) < 2:
        return []
    keys = {str(parse_version(v) or v) for _, v in versions}
    if len(keys) == 1:
        return []
    detail = "versions disagree: " + ", ".join(f"{where} {short_text(v)}" for where, v in versions)
    values = dict(versions)
    return [finding("version-sources-disagree", "server", "serverInfo", "/version", detail, None, values)]
