"""Prompts compared: removed or added, an argument newly required, removed, made optional or required, a text
changed. A breaking finding's witness is the ``prompts/get`` params a host that cached the old prompt sends."""

from __future__ import annotations

from typing import Any

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces.common import finding, text_changes

#: Value a witness gives every prompt argument a cached host fills in (prompt arguments are strings).
ARGUMENT_VALUE = "example"


def _arguments(prompt: dict[str, Any]) -> list[dict[str, Any]]:
    args = prompt.get("arguments")
    return args if isinstance(args, list) else []


def _required(arg: dict[str, Any]) -> bool:
    return arg.get("required") is True


def _prompt_request(name: str, args: list[dict[str, Any]]) -> dict[str, Any]:
    """``prompts/get`` params a host sends: the prompt's name and a value for each of ``args``."""
    return {"name": name, "arguments": {a["name"]: ARGUMENT_VALUE for a in args}}


def _missing_witness(name: str, sent: list[dict[str, Any]], new_prompt: dict[str, Any], arg: str) -> dict[str, Any]:
    """The witness of a newly required argument: the ``prompts/get`` params a cached host sends (a value for each
    of ``sent``), confirmed against what the new prompt requires with the python-sdk server's own check
    (required names minus provided names). Raises ``RuntimeError`` if the request does not lack ``arg``
    (a bug: a breaking claim is never made without a confirmed witness)."""
    request = _prompt_request(name, sent)
    missing = {a["name"] for a in _arguments(new_prompt) if _required(a)} - set(request["arguments"])
    if arg not in missing:
        raise RuntimeError(f"prompt {name!r}: witness for {arg!r} not confirmed")
    names = ", ".join(repr(m) for m in sorted(missing))  # every argument the server finds missing, sorted
    return {
        "instance": request,
        "accepted_by": "old",
        "error": f"Missing required arguments: {{{names}}}",
        "instance_pointer": "/arguments",
    }


def prompt_findings(old: Snapshot, new: Snapshot) -> list[Finding]:
    om, nm = old.section_map("prompts") or {}, new.section_map("prompts") or {}
    out: list[Finding] = []
    for name in sorted(set(om) | set(nm)):
        if name not in nm:
            request = _prompt_request(name, _arguments(om[name]))
            out.append(
                finding(
                    "prompt-removed",
                    "prompt",
                    name,
                    "",
                    "hosts that cached it still offer it; prompts/get now fails",
                    om[name],
                    None,
                    witness={
                        "instance": request,
                        "accepted_by": "old",
                        "error": f"Unknown prompt: {name}",
                        "instance_pointer": "/name",
                    },
                )
            )
        elif name not in om:
            out.append(finding("prompt-added", "prompt", name, "", "new prompt", None, nm[name]))
        elif om[name] != nm[name]:
            out += _prompt_changes(name, om[name], nm[name])
    return out


def _prompt_changes(name: str, o: dict[str, Any], n: dict[str, Any]) -> list[Finding]:
    out = text_changes("prompt", name, o, n, "prompt-description-changed", ("description", "title"))
    oargs, nargs = _arguments(o), _arguments(n)
    oidx = {a["name"]: i for i, a in enumerate(oargs)}
    nidx = {a["name"]: i for i, a in enumerate(nargs)}
    for j, arg in enumerate(nargs):
        arg_name, ptr = arg["name"], f"/arguments/{j}"
        if arg_name not in oidx:
            if _required(arg):
                out.append(
                    finding(
                        "prompt-argument-required-added",
                        "prompt",
                        name,
                        ptr,
                        f"new required argument {arg_name!r}: hosts that cached the prompt never send it",
                        None,
                        arg,
                        witness=_missing_witness(name, oargs, n, arg_name),
                        new_pointer=ptr,
                    )
                )
            else:
                out.append(
                    finding(
                        "prompt-argument-added",
                        "prompt",
                        name,
                        ptr,
                        f"new optional argument {arg_name!r}",
                        None,
                        arg,
                        new_pointer=ptr,
                    )
                )
            continue
        i = oidx[arg_name]
        before = oargs[i]
        optr = f"/arguments/{i}"
        if _required(arg) and not _required(before):
            sent = [a for a in oargs if _required(a)]  # the user skipped every optional argument
            out.append(
                finding(
                    "prompt-argument-made-required",
                    "prompt",
                    name,
                    f"{ptr}/required",
                    f"argument {arg_name!r} is now required: hosts that cached it as optional may leave it out",
                    before.get("required"),
                    arg.get("required"),
                    witness=_missing_witness(name, sent, n, arg_name),
                    old_pointer=f"{optr}/required",
                    new_pointer=f"{ptr}/required",
                )
            )
        elif _required(before) and not _required(arg):
            out.append(
                finding(
                    "prompt-argument-made-optional",
                    "prompt",
                    name,
                    f"{ptr}/required",
                    f"argument {arg_name!r} is now optional",
                    before.get("required"),
                    arg.get("required"),
                    old_pointer=f"{optr}/required",
                    new_pointer=f"{ptr}/required",
                )
            )
        out += text_changes(
            "prompt",
            name,
            before,
            arg,
            "prompt-description-changed",
            ("description", "title"),
            prefix=ptr,
            label=f"argument {arg_name!r} ",
        )
    for i, arg in enumerate(oargs):
        if arg["name"] not in nidx:
            out.append(
                finding(
                    "prompt-argument-removed",
                    "prompt",
                    name,
                    f"/arguments/{i}",
                    f"argument {arg['name']!r} removed: hosts that cached the prompt still send it",
                    arg,
                    None,
                    old_pointer=f"/arguments/{i}",
                    delta=arg["name"],
                )
            )
    return out


# --- static resources --------------------------------------------------------------------------------------
