"""zod 3's ``floatSafeRemainder`` (``engine.frameworks._zod3_remainder``) and JavaScript's number texts it reads
(``js_string``), checked against Node's own ``String()``, ``toFixed`` and ``parseInt`` (attack round 11: Python's
``repr`` switches to exponent form below 1e-4, JavaScript only below 1e-6, so ``0.00007`` had no decimal places)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import pytest

from mcp_schema_audit.engine.frameworks import _zod3_remainder, js_string

NODE = shutil.which("node")
PAIRS = [
    (0.00007, 0.00001),
    (0.00021, 0.00001),
    (0.00005, 1),
    (1.5e21, 3),
    (0.3, 0.1),
    (0.7, 0.1),
    (2.5, 0.5),
    (1e-7, 1e-8),
    (4e15 + 7, 7),
    (123.456, 0.001),
    (-0.3, 0.1),
    (0.5, 0.25),
    (1e20, 7),
    (5e-324, 1),
]
NUMBERS = [0.00007, 7e-7, 1e-6, 1.5e21, 1e21, 123.456, 1e20, 0.1, 5e-324, 1.7976931348623157e308, 100.0, 2.5, -0.00042]
SCRIPT = """
const {pairs, numbers} = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const rem = (val, step) => {
  const a = (val.toString().split('.')[1] || '').length, b = (step.toString().split('.')[1] || '').length;
  const d = a > b ? a : b;
  return (parseInt(val.toFixed(d).replace('.', '')) % parseInt(step.toFixed(d).replace('.', ''))) / Math.pow(10, d);
};
process.stdout.write(JSON.stringify({rem: pairs.map(([v, s]) => String(rem(v, s))), str: numbers.map(String)}));
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_zod3_remainder_and_number_texts_are_javascripts() -> None:
    assert NODE is not None
    payload = json.dumps({"pairs": PAIRS, "numbers": NUMBERS})
    real = json.loads(
        subprocess.run([NODE, "-e", SCRIPT], input=payload, capture_output=True, text=True, check=True).stdout
    )
    assert [js_string(x) for x in NUMBERS] == real["str"]
    ours = ["NaN" if math.isnan(r) else js_string(r) for r in (_zod3_remainder(v, s) for v, s in PAIRS)]
    assert ours == real["rem"]
    assert real["rem"][0] == "0" and real["rem"][2] != "0"  # 0.00007 is a multiple of 0.00001; 0.00005 not of 1
