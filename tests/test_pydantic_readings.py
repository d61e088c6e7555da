"""pydantic's own reading of arguments, checked on real pydantic models (attack round 8).

Each case is a field of a real ``MCPServer``-style arguments model (``create_model("tArguments", x=...)``) before
and after a release. The diff runs on the models' own ``model_json_schema()`` (the server validator inferred:
``pydantic-ignore``), and every breaking input finding's witness is handed to the real models: the old one takes
it and the new one refuses it, or the claim is false. Where the release breaks calls, a breaking finding exists.

What the cases pin down: pydantic parses ``format`` fields with its own parsers (``0`` is a datetime, a UUID
without dashes is a UUID, an integer an IPv4 address); a float field takes ``2**53 + 1`` as ``2**53``; a value
lax mode takes as another type still meets (or fails) the field's bounds and steps; and lax mode is
pydantic-core's, not Python's (``" t "`` is no boolean, ``"٣"`` no integer).
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import uuid
from pathlib import Path
from typing import Annotated, Any, Literal

import pydantic
import pytest
from gate_helpers import cli

BIG = 2**53 + 1

#: case → (old field, new field, does the release break a call the old server took?)
CASES: dict[str, tuple[Any, Any, bool]] = {
    "epoch-as-datetime": (Literal[0, 1700000000], datetime.datetime, False),
    "naive-datetime": (Literal["2020-01-01T00:00:00"], datetime.datetime, False),
    "datetime-as-date": (Literal["2020-01-01T00:00:00Z", 0], datetime.date, False),
    "hex-uuid": (Literal["12345678123456781234567812345678"], uuid.UUID, False),
    "integer-ipv4": (Literal[167772161], ipaddress.IPv4Address, False),
    "seconds-duration": (Literal[60], datetime.timedelta, False),
    "short-time": (Literal["10:00"], datetime.time, False),
    "float-field-big-integer": (
        Annotated[float, pydantic.Field(ge=BIG, le=BIG)],
        Annotated[float, pydantic.Field(ge=BIG, le=BIG, multiple_of=2)],
        False,
    ),
    "lax-integer-below-a-new-minimum": (Literal["3"], Annotated[int, pydantic.Field(ge=5)], True),
    "lax-number-above-a-new-maximum": (Literal["9"], Annotated[float, pydantic.Field(le=5)], True),
    "lax-integer-off-a-new-step": (Literal["3"], Annotated[int, pydantic.Field(multiple_of=2)], True),
    "padded-boolean-word": (Literal[" t "], bool, True),
    "arabic-indic-digit": (Literal["\u0663"], int, True),
    "integer-to-boolean": (int, bool, True),
    # a constrained-key dict: the pattern pydantic holds every key to, beside the key's other constraint
    "key-pattern-beside-min-length": (
        dict[Annotated[str, pydantic.StringConstraints(min_length=2)], int],
        dict[Annotated[str, pydantic.StringConstraints(pattern="^[a-z]+$", min_length=2)], int],
        True,
    ),
}


def _model(field: Any) -> type[pydantic.BaseModel]:
    model: type[pydantic.BaseModel] = pydantic.create_model("tArguments", x=(field, ...))
    return model


def _accepts(model: type[pydantic.BaseModel], arguments: Any) -> bool:
    try:
        model.model_validate(arguments)
    except pydantic.ValidationError:
        return False
    return True


@pytest.mark.parametrize("case", list(CASES))
def test_every_claim_holds_for_real_pydantic_models(case: str, tmp_path: Path) -> None:
    old_field, new_field, breaks = CASES[case]
    old, new = _model(old_field), _model(new_field)
    files = []
    for side, model in (("old", old), ("new", new)):
        path = tmp_path / f"{side}.json"
        tool = {"name": "t", "inputSchema": model.model_json_schema()}
        path.write_text(json.dumps({"server": {"name": "s", "version": "1"}, "tools": [tool]}))
        files.append(str(path))
    run = cli("diff", *files, "--format", "json", cwd=tmp_path)
    assert run.returncode in (0, 1), run.stderr[-500:]
    report = json.loads(run.stdout)
    assert report["server_validators"][0]["validator"] == "pydantic-ignore"
    claims = [f for f in report["findings"] if f["severity"] == "breaking" and f["direction"] == "input"]
    for f in claims:
        witness = f["witness"]["instance"]
        assert _accepts(old, witness) and not _accepts(new, witness), (case, f["rule"], witness)
    assert bool(claims) is breaks, (case, report["findings"])
    assert run.returncode == (1 if breaks else 0)
