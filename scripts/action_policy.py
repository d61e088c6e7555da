"""Whose configuration decides the Action's gate: the base revision's by default, not the pull request's own.

A pull request could otherwise turn its own breaking changes into a green check by editing ``.schema-audit.toml``
(or ``[tool.schema-audit]`` in ``pyproject.toml``): ``[severity]`` overrides, ``hosts``, ``exclude_tools``,
``[[ignore]]`` entries, ``fail_on``. So, as the base snapshot comes from the base revision, the policy does too:
the configuration file is read from that commit (``git show``). The pull request's own file applies only when
it lowers nothing (the same, or stricter), when the pull request carries the approval label, or when the
``policy`` input says ``pull-request`` (a repository whose every pull request is trusted). Every override of
the pull request's that lowers the gate is listed in the summary either way. Used by ``action_run.py``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mcp_schema_audit.config import Config, load_config
from mcp_schema_audit.errors import UsageError
from mcp_schema_audit.prcheck import base as action_base
from mcp_schema_audit.report.markdown import md_escape
from mcp_schema_audit.vocabulary import SDK_PROFILES

sys.path.insert(0, str(Path(__file__).resolve().parent))
from action_inputs import ActionError, input_value  # noqa: E402

POLICIES = ("base", "pull-request")
#: fail_on values from the strictest gate to the loosest
_FAIL_ON_ORDER = ("info", "warning", "breaking", "never")
_SEVERITY_RANK = {"info": 0, "warning": 1, "breaking": 2}
_CANDIDATES = (".schema-audit.toml", "pyproject.toml")


#: Lowering lines shown in the job summary and the log (a pull request adding 20,000 ignore entries would
#: otherwise push the summary past GitHub's 1 MiB step-summary limit, and the runner drops it whole)
LOWERING_SHOWN = 50


@dataclass
class Policy:
    """The outcome: ``config`` (a ``--config`` file for ``diff``, or ``None``: the pull request's own lookup),
    ``source`` (whose policy applies, in words), ``lowering`` (the pull request's overrides that lower the gate,
    one line each) and ``applied`` (whether those apply)."""

    config: str | None = None
    source: str = "the pull request's checkout"
    lowering: list[str] = field(default_factory=list)
    applied: bool = True

    def markdown(self) -> str:
        """The summary's policy section: ``""`` when the pull request lowers nothing."""
        if not self.lowering:
            return ""
        head = (
            "> **Policy:** this pull request changes the schema-audit configuration in ways that lower the gate"
            + (", and they apply" if self.applied else f"; the gate uses {md_escape(self.source)} instead")
            + ":\n"
        )
        more = len(self.lowering) - LOWERING_SHOWN
        tail = f">\n> - … and {more} more (the log lists the first {LOWERING_SHOWN} too)\n" if more > 0 else ""
        return "\n" + head + "".join(f">\n> - {md_escape(line)}\n" for line in self.shown()) + tail

    def shown(self) -> list[str]:
        """The lowering lines the summary and the log show: the first ``LOWERING_SHOWN``."""
        return self.lowering[:LOWERING_SHOWN]


def choice() -> str:
    """The ``policy`` input: ``base`` (default) or ``pull-request``; else ``ActionError`` (exit 2)."""
    value = input_value("policy", "base")
    if value not in POLICIES:
        raise ActionError(f"input policy must be one of {', '.join(POLICIES)} (got {value!r})")
    return value


def _effective_severity(cfg: Config, rule: str) -> str:
    from mcp_schema_audit.rules import RULES

    known = RULES.get(rule)
    return cfg.severity.get(rule) or (known.severity if known else "breaking")


def lowering(base: Config, head: Config, *, fail_on_input: bool = False) -> list[str]:
    """The settings of ``head`` (the pull request's configuration) that make its gate looser than ``base``'s,
    one line each: a looser ``fail_on`` (each file's own, a key left out meaning the default ``breaking``; none
    with ``fail_on_input``: the ``fail-on`` input then decides, whichever file applies); an SDK profile no longer
    counted (as the run counts them: naming none counts all three) or a host dropped; another ``mode``,
    ``server_validator`` or ``store``; ``tools`` limited, more ``exclude_tools``; the version gate or a version
    source dropped; a traffic threshold set or raised; a rule's effective severity lowered (a lowered entry, or a
    raising entry of the base's removed); an ``[[ignore]]``/``[[allow]]`` entry added (the two names of one
    list)."""
    out: list[str] = []
    b_fail, h_fail = base.fail_on or "breaking", head.fail_on or "breaking"
    if not fail_on_input and _FAIL_ON_ORDER.index(h_fail) > _FAIL_ON_ORDER.index(b_fail):
        out.append(f"fail_on {b_fail} → {h_fail}")
    b_hosts, h_hosts = _counted_hosts(base), _counted_hosts(head)
    if not h_hosts >= b_hosts:
        out.append(f"hosts: {', '.join(sorted(b_hosts - h_hosts))} no longer counted")
    for key in ("mode", "server_validator", "store"):
        if getattr(head, key) != getattr(base, key):
            out.append(f"{key} {getattr(base, key) or '(default)'} → {getattr(head, key) or '(default)'}")
    if (head.tools or []) != (base.tools or []) and head.tools:
        out.append(f"tools limited to {', '.join(head.tools)}")
    known_globs = set(base.exclude_tools or [])
    added = [g for g in head.exclude_tools or [] if g not in known_globs]
    if added:
        out.append(f"exclude_tools adds {', '.join(added)}")
    if (base.version_gate or "off") != "off" and (head.version_gate or "off") == "off":
        out.append(f"version_gate {base.version_gate} → off")
    dropped_sources = sorted(set(base.version_sources or []) - set(head.version_sources or []))
    if dropped_sources:
        out.append(f"version_sources drops {', '.join(dropped_sources)}")
    if head.traffic_threshold and head.traffic_threshold != base.traffic_threshold:
        out.append(f"traffic_threshold {base.traffic_threshold or '(none)'} → {head.traffic_threshold}")
    for rule in sorted(set(head.severity) | set(base.severity)):
        before, after = _effective_severity(base, rule), _effective_severity(head, rule)
        if _SEVERITY_RANK.get(after, 2) < _SEVERITY_RANK.get(before, 2):
            out.append(f"severity of {rule}: {before} → {after}")
    known = [e.describe() for e in [*base.ignore, *base.allow]]
    for entry in [*head.ignore, *head.allow]:
        if entry.describe() not in known:
            fields = ", ".join(f"{k}={v}" for k, v in entry.describe().items())
            out.append(f"ignore entry added: {fields}")
    return out


def _counted_hosts(cfg: Config) -> set[str]:
    """The profiles a run with ``cfg`` counts: the SDK profiles it names (all three when it names none), and the
    hosts and model providers it names."""
    named = set(cfg.hosts or [])
    return (named & set(SDK_PROFILES) or set(SDK_PROFILES)) | (named - set(SDK_PROFILES))


#: Symbolic links followed to reach a configuration file in the base revision (as the kernel's 40).
MAX_LINKS = 40


def _tree_entry(sha: str, path: str) -> tuple[str, str] | None:
    """``(mode, object id)`` of ``path`` (from the repository's root) at commit ``sha``, or ``None``."""
    line = action_base.git("ls-tree", "--full-tree", sha, "--", path, check=False)
    if not line:
        return None
    mode, _kind, rest = line.split(" ", 2)
    return mode, rest.split("\t", 1)[0]


def resolve_in_tree(sha: str, path: str) -> str | None:
    """``path`` (from the repository's root) at commit ``sha`` with every symbolic link on its way followed inside
    that commit's tree (as a checkout would have them; ``git show`` alone gives a link's text), or ``None`` when
    nothing is there. Raises ``ActionError`` (exit 2) for a link that leaves the repository (an absolute target,
    or ``..`` past its root), more than ``MAX_LINKS`` links (a loop), or a folder at the end."""
    done: list[str] = []
    todo = path.split("/")
    links = 0
    while todo:
        part = todo.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not done:
                raise ActionError(f"{path}: a symbolic link on its way leaves the repository")
            done.pop()
            continue
        entry = _tree_entry(sha, "/".join([*done, part]))
        if entry is None:
            return None
        mode, oid = entry
        if mode == "120000":
            links += 1
            if links > MAX_LINKS:
                raise ActionError(f"{path}: more than {MAX_LINKS} symbolic links on its way (a loop)")
            target = action_base.git("cat-file", "blob", oid)
            if target.startswith("/"):
                raise ActionError(f"{path}: a symbolic link on its way leaves the repository ({target})")
            todo = target.split("/") + todo
            continue
        if mode == "040000" and not todo:
            raise ActionError(f"{path}: a folder, not a configuration file")
        done.append(part)
    return "/".join(done) or None


def _base_file(sha: str, config: str) -> tuple[str, str] | None:
    """``(file name, text)`` of the configuration file at commit ``sha`` (``config``, else the default lookup:
    ``.schema-audit.toml``, then ``pyproject.toml``), or ``None`` when that commit has none. A symbolic link
    (committed as the file, or a folder on its way) is followed inside that commit (``resolve_in_tree``): its
    target's text is the configuration; one that leaves the repository or loops is ``ActionError`` (exit 2),
    as an invalid base configuration is."""
    prefix = action_base.repo_prefix()
    for name in [config] if config else list(_CANDIDATES):
        where = f"{prefix}{Path(name).as_posix().removeprefix('./')}"
        try:
            found = resolve_in_tree(sha, where)
        except ActionError as exc:
            raise ActionError(f"the base revision's configuration: {exc}") from None
        if found is not None:
            return Path(name).name, action_base.git("show", f"{sha}:{found}") + "\n"
    return None


def _frozen(folder: Path, config: str, cfg: Config | None) -> str:
    """A copy of the pull request's configuration in ``folder``, as it is now: the file ``config`` names (its text,
    valid or not, so the CLI reports the same error later), else the file ``cfg`` was read from, else an empty
    ``.schema-audit.toml`` (no file: the defaults). Under the same file name, so a ``pyproject.toml`` is still read
    by its ``[tool.schema-audit]`` table; its path. A file that cannot be read now is frozen as missing: one its
    commands write later is never read."""
    folder.mkdir(parents=True, exist_ok=True)
    given = Path(config) if config else (Path(cfg.source) if cfg is not None and cfg.source else None)
    name, text = (given.name, None) if given is not None else (".schema-audit.toml", "")
    if given is not None:
        try:
            text = given.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
    if text is None:  # the file the input names is missing now: the defaults, not what a build writes there
        name, text = ".schema-audit.toml", ""
    (folder / name).write_text(text, encoding="utf-8")
    return str(folder / name)


def _in_repository(config: str) -> str | None:
    """``config`` (the ``config`` input) as a path relative to the current folder when it is absolute and inside
    the repository's work tree (``${{ github.workspace }}/ci/sa.toml``): the pull request's file, whose base
    version decides; ``None`` for a path outside the repository (a file a workflow step wrote, not the pull
    request's). Decided from the path as written (normalised): only the folders above the repository, which are
    the workflow's, are resolved; a link inside the repository is the pull request's content and is never
    followed here (the pull request's file made a link to ``/dev/null`` would otherwise pass for the workflow's
    own file, and apply with no comparison)."""
    try:
        root = Path(action_base.git("rev-parse", "--show-toplevel")).resolve()
    except Exception:  # noqa: BLE001 (no repository: no base file to read either)
        return None
    parts = Path(os.path.normpath(config)).parts
    for depth in range(1, len(parts)):
        if Path(*parts[:depth]).resolve() == root:  # the shallowest folder that is the repository's root
            return os.path.relpath(root.joinpath(*parts[depth:]), Path.cwd().resolve())
    return None


def _policy_folder() -> Path:
    """A temporary folder for this run's frozen configuration files, removed at exit (read by every diff)."""
    folder = Path(tempfile.mkdtemp(prefix="schema-audit-policy-", dir=os.environ.get("RUNNER_TEMP") or None))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _head_config(config: str) -> Config:
    """The pull request's configuration as its checkout has it now: the file ``config`` names (relative to the
    current folder), else the default lookup. A file that is not there at all (deleted) is the defaults, compared
    with the base's as they would be. Raises ``ActionError`` (exit 2) for a file that is there but does not load
    (invalid TOML, an unknown key, a folder, not UTF-8, a device, a link to nothing): it used to be frozen as the
    defaults and applied with nothing compared, so a pull request breaking its own configuration passed a gate the
    base's policy fails; and for a link that leaves the repository (as in the base revision: the pull request
    could otherwise have the runner read, and quote in errors, a file outside its checkout)."""
    for name in [config] if config else list(_CANDIDATES):
        _inside_checkout(name)
    try:
        return load_config(Path(config) if config else None)
    except UsageError as exc:
        if config and not os.path.lexists(config):  # deleted
            return Config()
        raise ActionError(f"the pull request's configuration: {exc}") from None


def _inside_checkout(name: str) -> None:
    """``ActionError`` when the file ``name`` (relative to the current folder) is reached through a symbolic link
    that leaves the repository's work tree; nothing when it stays inside, is not there, or there is no repository."""
    if not os.path.lexists(name):
        return
    try:
        root = Path(action_base.git("rev-parse", "--show-toplevel")).resolve()
    except Exception:  # noqa: BLE001 (no repository: nothing to stay inside)
        return
    target = Path(os.path.realpath(name))
    if not target.is_relative_to(root):
        raise ActionError(
            f"the pull request's configuration: {name}: a symbolic link on its way leaves the repository ({target})"
        )


def _base_config(sha: str, config: str, why: str, folder: Path) -> tuple[Config, str]:
    """The base revision's configuration (``_base_file``; none: the defaults) and the path of its frozen copy in
    ``folder``. Raises ``ActionError`` (exit 2) when it cannot be read or does not load."""
    found = _base_file(sha, config)
    name, text = found if found else (".schema-audit.toml", "")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    try:
        return load_config(path), str(path)
    except UsageError as exc:
        raise ActionError(f"the base revision's configuration ({why}): {exc}") from None


def decide(sha: str | None, why: str, approved_by_label: bool) -> Policy:
    """The policy for this run. ``sha``: the base revision (``None``: none known, the pull request's own file
    applies and the summary says so); ``approved_by_label``: the pull request carries the approval label.
    Raises ``ActionError`` (exit 2) for a bad ``policy`` input, a base configuration that cannot be read, or a
    pull request's configuration that is there and does not load (the base's is read first: it is the one that
    decides)."""
    mode = choice()
    config = input_value("config")
    if config and Path(config).is_absolute():
        inside = _in_repository(config)
        if inside is None:  # outside the repository: not the pull request's content, read before its commands run
            try:
                load_config(Path(config))
            except UsageError as exc:
                raise ActionError(f"the config input's file: {exc}") from None
            frozen = _frozen(_policy_folder() / "given", config, None)
            return Policy(config=frozen, source=f"{config} (outside the repository: the config input's own file)")
        config = inside
    folder = _policy_folder()
    base = _base_config(sha, config, why, folder / "base") if sha is not None else None
    head = _head_config(config)
    # the pull request's file as it is now, before any of its install, build or start commands run: a command
    # that rewrites it later (or writes one where there was none) changes nothing
    mine = _frozen(folder / "head", config, head)
    if base is None:
        return Policy(config=mine, source="the pull request's checkout (no base revision to read a policy from)")
    lowered = lowering(base[0], head, fail_on_input=bool(input_value("fail-on")))
    source = f"the base revision's configuration ({why})"
    if not lowered:
        return Policy(config=mine)
    if mode == "pull-request" or approved_by_label:
        return Policy(config=mine, lowering=lowered)
    return Policy(config=base[1], source=source, lowering=lowered, applied=False)


def policy_base() -> tuple[str | None, str]:
    """The revision whose configuration is the gate's policy when ``base`` gives OLD as a snapshot: ``(sha, why)``
    on a pull request or merge group event (the merge base with the target branch, else the target branch's tip
    the event names when the clone has only that commit: ``git fetch --depth=1 origin main``), ``(None, "")``
    outside such events (the checkout is the repository's own), outside a git work tree (a workflow diffing
    downloaded snapshots has no checkout to read a policy from), or with ``policy: pull-request`` and no base in
    the clone (the base's, when there, is still read: the summary lists what the pull request lowers).

    Raises ``ActionError`` (exit 2) on such an event when neither commit is in the clone: the pull request's own
    file applied then, with nothing said, so a pull request setting ``fail_on = "never"`` passed (a
    ``merge_group`` event was not looked at at all)."""
    env = dict(os.environ)
    if env.get("GITHUB_EVENT_NAME") not in ("pull_request", "pull_request_target", "merge_group"):
        return None, ""
    if not _in_work_tree():
        return None, ""
    try:
        found = action_base.resolve_base("", env)
    except action_base.FirstRelease:  # a tag push only: not one of these events
        return None, ""
    except action_base.BaseError:
        tip = action_base.event_commit(env)
        if tip is None and choice() == "pull-request":
            return None, ""  # the workflow trusts the pull request's file: nothing to compare it with here
        if tip is None:
            raise ActionError(
                "the gate's policy is read from the base revision, which is not in this clone: use actions/checkout "
                "with fetch-depth: 0 (or git fetch the target branch), or input policy: pull-request for a "
                "repository whose every pull request is trusted"
            ) from None
        return tip
    return found.sha, found.why


def _in_work_tree() -> bool:
    try:
        return action_base.git("rev-parse", "--is-inside-work-tree", check=False) == "true"
    except action_base.BaseError:  # no git at all
        return False
