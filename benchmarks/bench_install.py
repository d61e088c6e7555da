"""Benchmark the Action's install step: the old step (a venv, then ``pip install`` of the action's checkout,
building the package and resolving its dependencies) against ``scripts/action_install.sh`` cold (building the
wheelhouse) and warm (the wheelhouse actions/cache restores: a venv without pip, the wheels installed with no
index, no resolve, no compilation), with jsoncompat's install (``pip install jsoncompat`` into a fresh venv, one
prebuilt wheel and no dependencies) as the anchor.

Run: ``python benchmarks/bench_install.py [--runs N]`` (prints figures; not a test; about two minutes). pip's
own download cache is warm for every figure (as on a runner that caches ~/.cache/pip; a cold runner downloads
the dependencies once more in the old step and the cold install, never in the warm one). Each figure is the
median of ``--runs`` runs (default 3), in seconds, with the load average before the runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "action_install.sh"
QUIET = ["--quiet", "--disable-pip-version-check"]


def _timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    load = os.getloadavg()[0]
    figures: dict[str, list[float]] = {"old": [], "cold": [], "warm": [], "jsoncompat": []}
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="bench-install-") as tmp:
            temp = Path(tmp)
            env = {**os.environ, "ACTION_PATH": str(ROOT), "RUNNER_TEMP": str(temp)}
            env.pop("PYTHONPATH", None)
            venv = temp / "old-venv"
            figures["old"].append(
                _timed(["sh", "-c", f'python3 -m venv "{venv}" && "{venv}/bin/python" -m pip install -q "{ROOT}"'], env)
            )
            figures["cold"].append(_timed(["bash", str(SCRIPT), "install"], env))
            figures["warm"].append(_timed(["bash", str(SCRIPT), "install"], env))
            anchor = temp / "jsoncompat-venv"
            figures["jsoncompat"].append(
                _timed(
                    ["sh", "-c", f'python3 -m venv "{anchor}" && "{anchor}/bin/python" -m pip install -q jsoncompat'],
                    env,
                )
            )
            shutil.rmtree(temp / "schema-audit-wheels", ignore_errors=True)
    med = {k: statistics.median(v) for k, v in figures.items()}
    print(f"install of schema-audit, median of {runs} run(s), load average {load:.1f} before the runs")
    print(f"{'step':<44}{'seconds':>9}{'x jsoncompat':>14}")
    rows = (
        ("old step (venv + pip install of the checkout)", "old"),
        ("action_install.sh, cold (builds the wheels)", "cold"),
        ("action_install.sh, warm (cached wheels)", "warm"),
        ("anchor: venv + pip install jsoncompat", "jsoncompat"),
    )
    for label, key in rows:
        print(f"{label:<44}{med[key]:>9.1f}{med[key] / med['jsoncompat']:>14.2f}")
    print(f"warm / old step: {med['warm'] / med['old']:.2f}")


if __name__ == "__main__":
    main()
