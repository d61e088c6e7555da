"""Every test that measures time carries the ``timing`` marker, so that ``scripts/under_load.py`` (``pytest -m
timing`` beside two busy loops) runs it, and a new timed test cannot be left out of that run.

A test measures time (read from its module's source with ``ast``) when it, a helper or fixture of its module
that it uses, or the module itself:

- subtracts a clock reading from a clock reading (``time.monotonic() - started`` where ``started`` was read
  from a clock; ``monotonic``, ``perf_counter``, ``time``, ``process_time``, ``thread_time`` and their
  ``_ns`` forms);
- uses ``tests/timing.py`` (``import timing``, ``from timing import …``) or reads a measured duration
  (``.unloaded(…)``, ``.waited(…)``, ``.describe(…)``, ``.timing`` of a run);
- gives hypothesis a ``deadline`` other than ``None``, or sets an interval timer (``signal.setitimer``).

The marker is a decorator of the test (or of its class) or the module's ``pytestmark``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
CLOCKS = {"monotonic", "perf_counter", "time", "process_time", "thread_time"}
CLOCKS |= {f"{name}_ns" for name in CLOCKS}
DURATION_ATTRIBUTES = {"unloaded", "waited", "describe", "timing"}


def _is_timing_mark(node: ast.expr) -> bool:
    """``pytest.mark.timing`` (also called, or in a list of marks)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_is_timing_mark(e) for e in node.elts)
    return isinstance(node, ast.Attribute) and node.attr == "timing" and ast.unparse(node.value) == "pytest.mark"


class _Module:
    """The names a module binds to clocks and to ``tests/timing.py``."""

    def __init__(self, tree: ast.Module) -> None:
        self.time_modules = {"time"}  # names bound to the time module
        self.clock_names: set[str] = set()  # names bound to a clock function (from time import monotonic)
        self.timing_names: set[str] = set()  # names bound to tests/timing.py or to something in it
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == "time":
                        self.time_modules.add(alias.asname or "time")
                    if alias.name == "timing":
                        self.timing_names.add(alias.asname or "timing")
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                for alias in node.names:
                    if node.module == "time" and alias.name in CLOCKS:
                        self.clock_names.add(alias.asname or alias.name)
                    if node.module == "timing":
                        self.timing_names.add(alias.asname or alias.name)

    def is_clock_call(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        if isinstance(func, ast.Name):
            return func.id in self.clock_names
        return (
            isinstance(func, ast.Attribute)
            and func.attr in CLOCKS
            and isinstance(func.value, ast.Name)
            and func.value.id in self.time_modules
        )

    def measures(self, scope: ast.AST, *, module_level: bool = False) -> bool:
        """Does ``scope`` (a function, or the module's own statements) measure time?"""
        nodes = list(_own_nodes(scope) if module_level else ast.walk(scope))
        read_from_clock = {
            target.id
            for node in nodes
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            and node.value is not None
            and self.is_clock_call(node.value)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name)
        }
        for node in nodes:
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and self.is_clock_call(node.left):
                right = node.right
                if self.is_clock_call(right) or (isinstance(right, ast.Name) and right.id in read_from_clock):
                    return True
            if isinstance(node, ast.Name) and node.id in self.timing_names:
                return True
            if isinstance(node, ast.Attribute) and node.attr in DURATION_ATTRIBUTES and not _is_timing_mark(node):
                return True
            if isinstance(node, ast.Attribute) and node.attr == "setitimer":
                return True
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg == "deadline" and not (isinstance(kw.value, ast.Constant) and kw.value.value is None):
                        return True
        return False


def _own_nodes(tree: ast.Module) -> list[ast.AST]:
    """The nodes of a module outside its functions and classes (and outside imports)."""
    out: list[ast.AST] = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            continue
        out.extend(ast.walk(stmt))
    return out


def _used_names(node: ast.AST) -> set[str]:
    """Names a function reads, and its parameters (fixtures are used by naming them)."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        names |= {a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
    return names


def unmarked_timed_tests(source: str, name: str = "<source>") -> list[str]:
    """``name::test`` of each test in ``source`` that measures time without the ``timing`` marker."""
    tree = ast.parse(source)
    module = _Module(tree)
    module_marked = any(
        isinstance(stmt, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets)
        and _is_timing_mark(stmt.value)
        for stmt in tree.body
    )
    functions: dict[str, ast.AST] = {}  # top-level functions, and methods of test classes (Class.method)
    marked: dict[str, bool] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[stmt.name] = stmt
            marked[stmt.name] = any(_is_timing_mark(d) for d in stmt.decorator_list)
        elif isinstance(stmt, ast.ClassDef):
            class_marked = any(_is_timing_mark(d) for d in stmt.decorator_list)
            for item in stmt.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    key = f"{stmt.name}::{item.name}"
                    functions[key] = item
                    marked[key] = class_marked or any(_is_timing_mark(d) for d in item.decorator_list)
    if module.measures(tree, module_level=True) and not module_marked:
        return [f"{name} (module level)"]
    timed = {key for key, node in functions.items() if module.measures(node)}
    changed = True
    while changed:  # a helper or fixture that uses a timed one measures time too
        changed = False
        for key, node in functions.items():
            if key not in timed and _used_names(node) & {k.split("::")[-1] for k in timed if "::" not in k}:
                timed.add(key)
                changed = True
    return [
        f"{name}::{key}"
        for key in sorted(timed)
        if key.split("::")[-1].startswith("test") and not (marked[key] or module_marked)
    ]


def test_every_timed_test_carries_the_timing_marker() -> None:
    offenders = []
    for path in sorted(TESTS.glob("test_*.py")):
        offenders += unmarked_timed_tests(path.read_text(encoding="utf-8"), path.name)
    assert offenders == [], (
        "these tests measure time: mark them @pytest.mark.timing (or the module: pytestmark = pytest.mark.timing) "
        f"so that scripts/under_load.py runs them: {offenders}"
    )


def test_the_check_finds_what_it_looks_for() -> None:
    """The detector itself: each way of measuring time is found, unmarked, and accepted once marked."""
    cases = {
        "difference": "import time\ndef test_a():\n    t0 = time.monotonic()\n    assert time.monotonic() - t0 < 3\n",
        "imported clock": (
            "from time import perf_counter as pc\ndef test_a():\n    s = pc()\n    work()\n    assert pc() - s < 1\n"
        ),
        "helper": (
            "import time\ndef _timed():\n    s = time.time()\n    return time.time() - s\n"
            "def test_a():\n    assert _timed() < 4\n"
        ),
        "fixture": (
            "import time, pytest\n@pytest.fixture\ndef run():\n    s = time.monotonic()\n"
            "    return time.monotonic() - s\ndef test_a(run):\n    assert run < 4\n"
        ),
        "timing helper": "from timing import measure\ndef test_a():\n    with measure() as t:\n        work()\n",
        "duration read": "def test_a():\n    run = cli()\n    assert run.timing.unloaded() < 9\n",
        "deadline": "from hypothesis import settings\n@settings(deadline=500)\ndef test_a():\n    pass\n",
        "itimer": "import signal\ndef test_a():\n    signal.setitimer(signal.ITIMER_REAL, 1)\n",
        "method": (
            "import time\nclass TestX:\n    def test_a(self):\n        s = time.monotonic()\n"
            "        assert time.monotonic() - s < 1\n"
        ),
    }
    for what, source in cases.items():
        found = unmarked_timed_tests(source, what)
        assert found and all(f.startswith(what) for f in found), (what, found)
        marked = "import pytest\npytestmark = pytest.mark.timing\n" + source
        assert unmarked_timed_tests(marked, what) == [], what
    # not measuring: a deadline loop, a timestamp in the past, a deadline of None, a sleep
    calm = (
        "import time, os\nfrom hypothesis import settings\n@settings(deadline=None)\ndef test_a(p):\n"
        "    end = time.monotonic() + 30\n    while time.monotonic() < end:\n        time.sleep(0.05)\n"
        "    os.utime(p, (time.time() - 3 * 86400, time.time() - 60))\n"
    )
    assert unmarked_timed_tests(calm) == []
    marked_one = (
        "import pytest, time\n@pytest.mark.timing\ndef test_a():\n    s = time.monotonic()\n    time.monotonic() - s\n"
    )
    assert unmarked_timed_tests(marked_one) == []


def test_the_marker_is_registered() -> None:
    """``timing`` is declared in pyproject.toml (``-m timing`` selects it, and a typo in it would warn)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    markers = config["tool"]["pytest"]["ini_options"]["markers"]
    assert any(m.split(":", 1)[0].strip() == "timing" for m in markers), markers
