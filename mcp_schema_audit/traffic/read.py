"""Traffic files (``--traffic FILE``), read as a stream of tool calls whatever their format.

Three formats, told apart by their first bytes (``detect``):

- ``recording``: a recording by ``record`` or ``probe --record`` (one JSON object, ``format:
  schema-audit/probe-recording``): its ``calls`` items, read one at a time (``ijson``);
- ``otlp``: an OTLP/JSON trace export, as the OpenTelemetry Collector's file exporter writes it (one
  ``{"resourceSpans": …}`` export request per line, or one such object for the whole file): every span with
  ``mcp.method.name`` = ``tools/call`` (or ``gen_ai.operation.name`` = ``execute_tool``) is a call of the tool
  ``gen_ai.tool.name``, its arguments and result the JSON text of ``gen_ai.tool.call.arguments`` and
  ``gen_ai.tool.call.result`` (opt-in attributes of the GenAI semantic conventions; a result that is not a
  ``CallToolResult`` object, with ``content`` or ``structuredContent``, is taken as its ``structuredContent``);
  a span whose status is an error has no result;
- ``jsonl``: JSON Lines, ``{"tool": …, "arguments": {…}, "result": {…}}`` per line (``result``, the raw
  ``CallToolResult``, may be absent), as gateways log calls.

Nothing is loaded whole: a file of any size streams. Limits, each an ``InputError`` (exit 2) naming the file
and line: a line over ``MAX_LINE_BYTES``, a line that is not JSON, a value nested deeper than ``MAX_DEPTH``,
a file that is none of the formats.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from mcp_schema_audit.errors import InputError

#: Longest line of a JSON Lines or OTLP file (bytes).
MAX_LINE_BYTES = 64 * 1024 * 1024
#: Deepest nesting of one call's arguments or result.
MAX_DEPTH = 128
FORMATS = ("recording", "otlp", "jsonl")
_RECORDING = b'"schema-audit/probe-recording"'
_NO_ARGS = object()


@dataclass(frozen=True, slots=True)
class Call:
    """One recorded tool call: ``tool``; ``arguments`` (None when the source does not hold them); ``result`` (the
    raw ``CallToolResult`` dict, None when there is none: an error, not recorded); ``where``: ``FILE:LINE`` or
    ``FILE#calls/N``, for messages and witnesses."""

    tool: str
    arguments: Any
    result: dict[str, Any] | None
    where: str


def detect(path: Path) -> str:
    """The format of the traffic file ``path`` (one of ``FORMATS``). Raises ``InputError`` for a file that cannot
    be read or is none of them."""
    try:
        with path.open("rb") as f:
            head = f.read(1 << 16)
    except OSError as exc:
        raise InputError(f"--traffic {path}: cannot read it: {exc.strerror or exc}") from None
    stripped = head.lstrip()
    if not stripped:
        raise InputError(f"--traffic {path}: the file is empty")
    if _RECORDING in head or re.match(rb'\{\s*"calls"\s*:\s*\[', stripped):
        return "recording"  # canonical JSON sorts the keys: a long recording's "format" comes after its calls
    first = stripped.split(b"\n", 1)[0]
    if b'"resourceSpans"' in head[:4096] or first.startswith(b'{"resourceSpans"'):
        return "otlp"
    if stripped[:1] == b"{" and (b'"tool"' in first or b'"tool"' in head[:4096]):
        return "jsonl"
    raise InputError(
        f"--traffic {path}: not a traffic file (a recording of 'schema-audit record' or 'probe --record', "
        'an OTLP/JSON trace export, or JSON Lines of {"tool", "arguments", "result"})'
    )


def read_calls(path: Path, progress: Callable[[int, int], None] | None = None) -> Iterator[Call]:
    """The tool calls of the traffic file ``path``, in file order, streamed (see the module docstring).
    ``progress(bytes read, file size)`` is called now and then. Raises ``InputError`` (exit 2) as the module
    docstring says, when the bad part is reached."""
    kind = detect(path)
    size = path.stat().st_size
    with path.open("rb") as f:
        if kind == "recording":
            yield from _recording(f, path, size, progress)
        else:
            yield from _lines(f, path, kind, size, progress)


def _recording(f: IO[bytes], path: Path, size: int, progress: Callable[[int, int], None] | None) -> Iterator[Call]:
    import ijson

    try:
        for n, call in enumerate(ijson.items(f, "calls.item", use_float=True)):
            if progress is not None and n % 2000 == 0:
                progress(f.tell(), size)
            if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
                raise InputError(f"--traffic {path}: calls[{n}] needs a string tool")
            where = f"{path}#calls/{n}"
            _check_depth(call, where)
            result = call.get("result") if call.get("outcome") == "result" else None
            arguments = call.get("arguments", _NO_ARGS)
            yield Call(call["tool"], None if arguments is _NO_ARGS else arguments, _dict(result), where)
    except ijson.JSONError as exc:
        raise InputError(f"--traffic {path}: not valid JSON ({_short(exc)})") from None
    except RecursionError:
        raise InputError(f"--traffic {path}: nested too deeply") from None


def _lines(
    f: IO[bytes], path: Path, kind: str, size: int, progress: Callable[[int, int], None] | None
) -> Iterator[Call]:
    if kind == "otlp" and not _whole_line(f.readline(MAX_LINE_BYTES + 1)):
        f.seek(0)
        yield from _otlp_whole(f, path)  # one pretty-printed export request
        return
    f.seek(0)
    done = 0
    for number, line in enumerate(_bounded_lines(f, path), start=1):
        done += len(line)
        if progress is not None and number % 2000 == 0:
            progress(done, size)
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            why = "nested too deeply" if any(w in str(exc).lower() for w in ("recursion", "depth")) else "not JSON"
            raise InputError(f"--traffic {where}: {why} ({_short(exc)})") from None
        if kind == "otlp":
            yield from _spans(value, where)
            continue
        if not isinstance(value, dict) or not isinstance(value.get("tool"), str):
            raise InputError(f'--traffic {where}: each line must be an object with a string "tool"')
        _check_depth(value, where)
        yield Call(value["tool"], value.get("arguments"), _dict(value.get("result")), where)


def _whole_line(line: bytes) -> bool:
    """Is ``line`` (the first of an OTLP file) a whole export request, as the file exporter writes one per line?"""
    try:
        return isinstance(orjson.loads(line), dict)
    except orjson.JSONDecodeError:
        return False


def _bounded_lines(f: IO[bytes], path: Path) -> Iterator[bytes]:
    number = 0
    while True:
        line = f.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            raise InputError(f"--traffic {path}:{number}: a line over {MAX_LINE_BYTES // (1024 * 1024)} MiB")
        yield line


def _otlp_whole(f: IO[bytes], path: Path) -> Iterator[Call]:
    import ijson

    try:
        for n, resource in enumerate(ijson.items(f, "resourceSpans.item", use_float=True)):
            yield from _spans({"resourceSpans": [resource]}, f"{path}#resourceSpans/{n}")
    except ijson.JSONError as exc:
        raise InputError(f"--traffic {path}: not valid JSON ({_short(exc)})") from None


def _spans(request: Any, where: str) -> Iterator[Call]:
    """The tool calls among the spans of one OTLP export request."""
    if not isinstance(request, dict):
        raise InputError(f"--traffic {where}: an OTLP line must be an export request object")
    for resource in _list(request.get("resourceSpans")):
        for scope in _list(_obj(resource).get("scopeSpans")):
            for span in _list(_obj(scope).get("spans")):
                attrs = {a.get("key"): _any_value(a.get("value")) for a in _list(_obj(span).get("attributes"))}
                tool = attrs.get("gen_ai.tool.name")
                is_call = attrs.get("mcp.method.name") == "tools/call" or attrs.get("gen_ai.operation.name") == (
                    "execute_tool"
                )
                if not is_call or not isinstance(tool, str):
                    continue
                failed = _obj(_obj(span).get("status")).get("code") in (2, "STATUS_CODE_ERROR")
                arguments = _json_attr(attrs.get("gen_ai.tool.call.arguments"), where)
                result = None if failed else _json_attr(attrs.get("gen_ai.tool.call.result"), where)
                if result is not None and not (
                    isinstance(result, dict) and ("content" in result or "structuredContent" in result)
                ):
                    result = {"content": [], "structuredContent": result}
                yield Call(tool, arguments, _dict(result), where)


def _json_attr(value: Any, where: str) -> Any:
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return value  # plain text: kept as it is
    _check_depth(value, where)
    return value


def _any_value(v: Any) -> Any:
    """An OTLP ``AnyValue`` (``{"stringValue": …}``, ``{"intValue": "7"}``, ``arrayValue``, ``kvlistValue`` …)
    as plain JSON (iteratively deep values are cut by ``_check_depth`` later)."""
    if not isinstance(v, dict):
        return None
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        try:
            return int(v["intValue"])
        except (TypeError, ValueError):
            return None
    for key in ("boolValue", "doubleValue", "bytesValue"):
        if key in v:
            return v[key]
    if "arrayValue" in v:
        return [_any_value(x) for x in _list(_obj(v["arrayValue"]).get("values"))]
    if "kvlistValue" in v:
        return {kv.get("key"): _any_value(kv.get("value")) for kv in _list(_obj(v["kvlistValue"]).get("values"))}
    return None


def _check_depth(value: Any, where: str) -> None:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputError(f"--traffic {where}: a call nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            stack.extend((x, depth + 1) for x in item.values() if isinstance(x, (dict, list)))
        elif isinstance(item, list):
            stack.extend((x, depth + 1) for x in item if isinstance(x, (dict, list)))


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:120]
