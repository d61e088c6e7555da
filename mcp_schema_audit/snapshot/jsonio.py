"""JSON in and out of files: strict parsing of every input, bounded file reads, and the canonical file form.

Reading is strict (``parse_json_text``): no ``NaN``/``Infinity``, no number beyond the range of a double, valid
UTF-8, no escaped lone surrogate, no key twice in one object, no nesting Python cannot parse; every problem is
an ``InputError`` naming the source and, where there is one, the line and column. Writing has one form
(``canonical_json``: sorted keys, indent 2, UTF-8, final newline), the form of every snapshot and probe
recording on disk; the compact form that keys caches is ``mcp_schema_audit.jsontext.canonical``.
"""

from __future__ import annotations

import json
import math
import re
import stat
from pathlib import Path
from typing import Any

import orjson

from mcp_schema_audit.errors import InputError

#: Upper bound on the size of any JSON input we read, in bytes (a tools/list is rarely above 1 MiB).
MAX_INPUT_BYTES = 64 * 1024 * 1024
#: Upper bound on the JSON values (objects, arrays, strings, numbers, literals, and object keys) one input may hold:
#: a file, a server's reply, all pages of a capture. Each is a Python object every later step walks: 13 million
#: ``{}`` in a 40 MB file took 1 GB and crashed the JSON writer, 12.5 million ``"ab"`` in 60 MB 2 GB; a real
#: catalog of 1,000 tools holds about 300,000, the benchmark's 5,000 about 1.1 million.
MAX_JSON_VALUES = 4_000_000
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
#: The bytes that start or separate JSON values: an upper bound on their count, read off the text.
_VALUE_MARKS = (b",", b":", b"[", b"{")


#: The words of every refusal for too many values (a file, a stdio message, an HTTP body, a capture's replies).
TOO_MANY_VALUES = (
    f"holds more than {MAX_JSON_VALUES:,} JSON values (the bound on any input; a catalog of 1,000 tools holds "
    "about 300,000)"
)


def value_marks(data: bytes) -> int:
    """How many ``,``, ``:``, ``[`` and ``{`` ``data`` holds (inside strings too): at least the JSON values in it,
    less one."""
    return sum(data.count(mark) for mark in _VALUE_MARKS)


def too_many_values(data: bytes, limit: int = MAX_JSON_VALUES) -> bool:
    """Does the JSON text ``data`` hold more than ``limit`` values? Counted on the bytes, before any parse: the
    marks outside strings (``value_marks`` of the text with every string emptied)."""
    if value_marks(data) < limit:
        return False  # an upper bound: most inputs stop here
    return value_marks(_STRING.sub(b'""', data)) >= limit


def count_values(value: Any, limit: int = MAX_JSON_VALUES) -> int:
    """The values of parsed JSON ``value`` (keys counted), counting stopped past ``limit`` (iterative)."""
    seen, stack = 0, [value]
    while stack and seen <= limit:
        item = stack.pop()
        seen += 1
        if isinstance(item, dict):
            seen += len(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return seen


#: A ``\uD800``–``\uDFFF`` escape in JSON text (may decode to a lone surrogate no UTF-8 file can hold).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def canonical_json(value: Any, dest: str | None = None) -> str:
    """``value`` (parsed JSON) as the canonical file form: keys sorted at every level, 2-space indent, non-ASCII
    characters as themselves (the text is written as UTF-8), a final newline. Equal JSON, equal text.

    The one definition of the form every snapshot and probe recording is written in. Raises ``InputError`` for
    values JSON cannot represent (NaN, Infinity), strings UTF-8 cannot hold (lone surrogates) and values
    nested too deeply to serialize; its message names ``dest`` (the file the text is for) when given. A value
    of a type JSON has no form for (a set, bytes) raises ``TypeError``.
    """
    what = f"cannot write {dest}" if dest else "cannot write canonical JSON"
    try:
        text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError as exc:
        raise InputError(f"{what}: {exc}") from exc
    except RecursionError as exc:
        raise InputError(f"{what}: a value is nested too deeply") from exc
    if _SURROGATE.search(text):
        raise InputError(f"{what}: a string holds a lone UTF-16 surrogate, which UTF-8 cannot encode")
    return text


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def _parse_int(text: str) -> int:
    """An integer within the range of a double (what JavaScript hosts can represent at all)."""
    if len(text.lstrip("-")) > 309:
        raise ValueError(f"number {text[:40]}… ({len(text)} digits) is out of range")
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise ValueError(f"number {text[:40]} is out of range") from None
    return value


def _lone_surrogate(value: Any) -> str | None:
    """The first string (or key) in ``value`` holding a lone UTF-16 surrogate, or ``None``. Iterative."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


class DuplicateKeyError(ValueError):
    """A JSON object names one key twice: raised by ``unique_keys`` with the key (``.key``, also ``args[0]``).

    ``parse_json_text`` turns it into an ``InputError``; a caller parsing with ``json.loads`` and
    ``object_pairs_hook=unique_keys`` words it itself.
    """

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json.loads``: the object's ``(key, value)`` pairs (in document order) as a dict,
    or ``DuplicateKeyError`` naming the first key that repeats.

    JSON parsers keep the last of two equal keys (Python, orjson) or the first (some others): a file whose
    meaning depends on which is never read (``"format_version": 2, "format_version": 1`` silently dropped
    prompts and resources). ``dict(pairs)`` runs in C; only an object that lost an entry is searched for the key.
    """
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out


#: ``_fast_parse``'s answer when only the strict parse below can tell.
_UNSURE = object()
#: Every digit as ``0``, every other byte as a space: 19 digits in a row are then ``_LONG_DIGITS`` (found by
#: ``bytes.find``, ten times as fast as a regex), an integer ``orjson`` may read as a float (beyond 64 bits).
_DIGITS_ONLY = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))
_LONG_DIGITS = b"0" * 19
#: An escaped colon: the one way a text can hold a ``:`` that ``orjson`` writes back as a colon it did not count.
_ESCAPED_COLON = re.compile(rb"\\u003[aA]")


def _fast_parse(data: bytes) -> Any:
    """``data`` parsed by ``orjson`` (about twice as fast) when that is surely what the strict parse below gives,
    else ``_UNSURE`` (and the strict parse decides, with its words for any problem).

    Sure means: no run of 19 digits (``orjson`` reads an integer beyond 64 bits as a float), no escaped colon,
    ``orjson`` parses it (it refuses NaN, Infinity, numbers beyond a double, lone surrogates, invalid UTF-8, nesting
    past 1,024), writes it back (nesting up to 254 levels: deeper texts take the strict path, which bounds nesting
    as before) and the text written back holds as many colons as ``data``. A key given twice drops a pair, with at
    least its colon; nothing else changes the count (a colon is a separator or inside a string, which is written
    back with every colon it held, and only ``\\u003a`` writes a colon the text did not have)."""
    if _LONG_DIGITS in data.translate(_DIGITS_ONLY) or _ESCAPED_COLON.search(data):
        return _UNSURE
    try:
        value = orjson.loads(data)
        if orjson.dumps(value).count(b":") != data.count(b":"):
            return _UNSURE
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return _UNSURE
    return value


def parse_json_text(text: str | bytes, source: str) -> Any:
    """Parse strict JSON (no NaN/Infinity, no numbers beyond the range of a double, valid UTF-8, no
    ``\\uD800``-style escapes of lone surrogates, no key twice in one object).

    ``text`` is JSON text or its UTF-8 bytes; returns the parsed value (objects as dicts in document order).
    Raises ``InputError`` naming ``source`` and the problem: ``SOURCE: not valid JSON: … at line L column C``
    (1-based), ``SOURCE: not valid JSON: the file is empty``, ``duplicate key 'X' in SOURCE``, a number out of
    range, a lone surrogate, nesting too deep, or more than ``MAX_JSON_VALUES`` values (counted before parsing).
    """
    if too_many_values(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")):
        raise InputError(f"{source}: {TOO_MANY_VALUES}")
    if isinstance(text, bytes):
        value = _fast_parse(text)
        if value is not _UNSURE:
            return value
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{source}: not valid UTF-8 (byte {exc.start})") from exc
    elif _SURROGATE.search(text):
        raise InputError(f"{source}: text holds a lone UTF-16 surrogate (not valid Unicode)")
    if not text.strip():
        raise InputError(f"{source}: not valid JSON: the file is empty" + (" (only whitespace)" if text else ""))
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_parse_float,
            parse_int=_parse_int,
            object_pairs_hook=unique_keys,
        )
    except DuplicateKeyError as exc:
        raise InputError(f"duplicate key {_shown_key(exc.key)} in {source}") from exc
    except json.JSONDecodeError as exc:
        what = exc.msg[:-3] if exc.msg.endswith(" at") else exc.msg  # "Invalid control character at"
        raise InputError(f"{source}: not valid JSON: {what} at line {exc.lineno} column {exc.colno}") from exc
    except RecursionError as exc:
        raise InputError(f"{source}: JSON nested too deeply") from exc
    except ValueError as exc:
        raise InputError(f"{source}: {exc}") from exc
    if _SURROGATE_ESCAPE.search(text):
        bad = _lone_surrogate(value)
        if bad is not None:
            raise InputError(f"{source}: a string escapes a lone UTF-16 surrogate (not valid Unicode): {bad[:40]!r}")
    return value


def _shown_key(key: str) -> str:
    """A key for a one-line message: quoted, escaped (no control characters reach a terminal), shortened."""
    return repr(key if len(key) <= 60 else key[:60] + "…")


def read_json_file(path: Path) -> Any:
    """Read and parse a regular JSON file of at most ``MAX_INPUT_BYTES``. Raises ``InputError``.

    FIFOs, devices (``/dev/zero``) and sockets are refused before they are opened; a file that grows
    past the limit while being read is refused too.
    """
    return parse_json_text(read_file_bytes(path), str(path))


def read_file_bytes(path: Path, kind: str = "a JSON file") -> bytes:
    """The bytes of the regular file ``path``, at most ``MAX_INPUT_BYTES`` of them (see ``read_json_file``).

    Raises ``InputError`` naming ``path``: a folder (``is a directory, not {kind}``), FIFO, device or socket (never
    opened), a file over the limit (also one that grows past it while read), or the OS reason it cannot be read.
    """
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{path}: is a directory, not {kind}")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: not a regular file (a FIFO, device or socket is never read)")
        if info.st_size > MAX_INPUT_BYTES:
            raise InputError(f"{path}: file is {info.st_size} bytes, more than the {MAX_INPUT_BYTES}-byte limit")
        with path.open("rb") as fh:
            data = fh.read(MAX_INPUT_BYTES + 1)
        if len(data) > MAX_INPUT_BYTES:
            raise InputError(f"{path}: file is more than the {MAX_INPUT_BYTES}-byte limit")
    except IsADirectoryError as exc:
        raise InputError(f"{path}: is a directory, not {kind}") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return data
