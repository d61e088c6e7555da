"""zod's own string checks behind a ``format`` its listing names bare, without the pattern it checks
(``zod3_format_checker``, ``zod4_format_checker``).

A TypeScript server on zod 3 lists ``z.string().email()`` as ``{"format": "email"}`` (zod-to-json-schema's default
``emailStrategy``), ``.datetime()`` as ``"date-time"``, ``.date()``, ``.time()``, ``.uuid()`` alike, but validates
with zod's own checks, not with a JSON Schema format checker, and they disagree: zod 3's ``.email()`` wants a
top-level domain of two or more letters (``a@b.c`` is refused; jsonschema's ``email`` only looks for an ``@``), its
``.datetime()`` wants an upper-case ``T`` and takes a time without seconds (``2020-01-01T00:00Z``), which RFC 3339
does not. Each check below is written from zod 3's documented behaviour (``types.ts``: ``emailRegex``,
``datetimeRegex``, ``dateRegexSource``, ``timeRegexSource``, ``uuidRegex``) and checked against a real zod 3
server in ``tests/test_server_validators.py``.

What the listing cannot tell is read in the server's favour, so that a rejection claimed is one every such server
makes: ``.datetime({offset: true, local: true})`` and ``.time({precision})`` list as plain ``date-time``/``time``,
so the looser options are assumed (an offset taken, ``Z`` optional, any fraction of a second); ``.url()`` is
WHATWG's ``new URL()``, read only as far as it surely refuses (no scheme: ``abc``). Every other format is not
asserted at all (zod 3 checks ``ipv6`` with a regex of its own that takes ``fe80:%a`` and ``::01.2.3.4``, which
jsonschema's checker refuses; ``duration`` and the rest list nothing zod checks this way).

zod 4 lists the pattern it checks beside almost every format (``z.email()`` is ``{"format": "email", "pattern":
…}``, read as that pattern); only ``z.url()``/``z.httpUrl()``/``z.string().url()`` (``"uri"``: ``new URL()`` of the
value after ``trim()``) and ``z.jwt()`` (``"jwt"``: three ``.``-separated parts, a base64url JSON header with an
``alg``) list the format bare (zod 4.6 ``toJSONSchema``, checked with node). ``ZOD4_CHECKS`` reads them only as far
as they surely refuse: no scheme once trimmed; not three parts, or an empty header.
"""

from __future__ import annotations

import functools
import re
from typing import Any

#: zod 3's regexes run without the ``u`` flag: ``\d`` is ASCII, ``.`` no line terminator (\n \r U+2028 U+2029).
_EMAIL = re.compile(
    r"(?![.])(?![^\n\r\u2028\u2029]*[.][.])[A-Za-z0-9_'+.\-]*[A-Za-z0-9_+\-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*[.])+[A-Za-z]{2,}"
)
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
#: hh:mm and any number of :ss(.fraction) groups: ``.time({precision: 3})`` quantifies its seconds group with ``+``
#: (``00:00:00.000:00.000`` is taken), no precision with ``?``; both list as plain ``time``/``date-time``.
_TIME = r"(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:[.][0-9]+)?)*"
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_DATETIME = re.compile(rf"([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})T{_TIME}(?:Z|[+-][0-9]{{2}}:?[0-9]{{2}})?")
_TIME_ONLY = re.compile(_TIME)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _calendar_date(text: str) -> bool:
    """zod 3's date: ``YYYY-MM-DD`` with a real day of that month, 29 February only in a leap year (year 0 is one)."""
    m = _DATE.fullmatch(text)
    if m is None:
        return False
    year, month, day = (int(g) for g in m.groups())
    if not 1 <= month <= 12 or day < 1 or day > _DAYS[month - 1]:
        return False
    return month != 2 or day < 29 or (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0))


def _datetime(text: str) -> bool:
    m = _DATETIME.fullmatch(text)
    return m is not None and _calendar_date(m.group(1))


def _ipv4(text: str) -> bool:
    """zod 3's ``ipv4Regex``: four decimal octets 0–255, ASCII digits, no leading zero."""
    parts = text.split(".")
    return len(parts) == 4 and all(_OCTET.fullmatch(p) is not None and int(p) <= 255 for p in parts)


def _url_may_parse(text: str) -> bool:
    """False only where WHATWG's ``new URL(text)`` surely throws: no scheme (``[A-Za-z][A-Za-z0-9+.-]*:``) once the
    tabs and newlines it removes anywhere (``h\\tttp://x`` is ``http://x``) and the leading and trailing C0 controls
    and spaces it strips are gone."""
    cleaned = text.translate(_TAB_NEWLINE).strip(_C0_AND_SPACE)
    return _SCHEME.match(cleaned) is not None


#: What JavaScript's ``trim()`` removes (WhiteSpace and LineTerminator: U+FEFF too, which ``str.strip()`` keeps).
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def _url_may_parse_trimmed(text: str) -> bool:
    """zod 4's ``z.url()``: ``new URL(value.trim())``; ``_url_may_parse`` once the white space ``trim()`` removes
    and the C0 controls and spaces the URL parser strips are gone from both ends, in any order (in the server's
    favour: ``"\\x01\\u00a0http://x"``, which zod refuses, may parse here)."""
    return _url_may_parse(text.translate(_TAB_NEWLINE).strip(_JS_WHITESPACE + _C0_AND_SPACE))


def _jwt_may_parse(text: str) -> bool:
    """False only where zod 4's ``z.jwt()`` surely refuses: not three ``.``-separated parts, or an empty header."""
    parts = text.split(".")
    return len(parts) == 3 and parts[0] != ""


_OCTET = re.compile(r"0|[1-9][0-9]{0,2}")
_C0_AND_SPACE = "".join(map(chr, range(0x21)))
_TAB_NEWLINE = {0x09: None, 0x0A: None, 0x0D: None}
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")

#: format → zod 3's check of a string (``True``: zod takes it).
ZOD3_CHECKS: dict[str, Any] = {
    "email": lambda s: _EMAIL.fullmatch(s) is not None,
    "date-time": _datetime,
    "date": _calendar_date,
    "time": lambda s: _TIME_ONLY.fullmatch(s) is not None,
    "uuid": lambda s: _UUID.fullmatch(s) is not None,
    "ipv4": _ipv4,
    "uri": _url_may_parse,
}


#: format → zod 4's check of a string it lists that format bare for (``True``: zod may take it).
ZOD4_CHECKS: dict[str, Any] = {"uri": _url_may_parse_trimmed, "jwt": _jwt_may_parse}

#: The checks of each zod version, by its reading (``servers.regex_reading``).
_CHECKS = {"zod3": ZOD3_CHECKS, "zod4": ZOD4_CHECKS}


def _checker(checks: dict[str, Any]) -> Any:
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    for name, check in checks.items():
        checker.checks(name)(lambda value, check=check: not isinstance(value, str) or bool(check(value)))
    return checker


@functools.lru_cache(maxsize=1)
def zod3_format_checker() -> Any:
    """A ``jsonschema.FormatChecker`` asserting formats as a zod 3 server does: ``ZOD3_CHECKS`` only (any other
    format passes); a value that is no string passes (as every format check)."""
    return _checker(ZOD3_CHECKS)


@functools.lru_cache(maxsize=1)
def zod4_format_checker() -> Any:
    """A ``jsonschema.FormatChecker`` asserting formats as a zod 4 server does where its listing names no pattern:
    ``ZOD4_CHECKS`` only (every other format is read by the pattern listed beside it)."""
    return _checker(ZOD4_CHECKS)


def bare_format_texts(framework: str | None) -> tuple[str, ...]:
    """The JSON texts (compact, as ``jsontext.canonical`` writes them) of the ``format`` entries ``framework``'s own
    checks read: any ``"format"`` for zod 3, ``"format":"uri"`` and ``"format":"jwt"`` for zod 4, none else."""
    if framework == "zod3":
        return ('"format"',)
    return tuple(f'"format":"{name}"' for name in _CHECKS.get(framework or "", {}))


#: Input rules that are warnings only because hosts assert the keyword differently (``format``): on arguments the
#: server alone decides, so on a server that checks its listed bare formats (``checks_bare_formats``) a witness its
#: validator rejects (a call the cached schema allowed) is breaking (``engine.arguments``; ``engine.confirm`` builds
#: the witness).
SERVER_DECIDED_RULES = frozenset({"input-format-changed"})


def checks_bare_formats(framework: str | None) -> bool:
    """Does a server of ``framework`` (a wording or reading: ``zod3``, ``zod4``, ``pydantic``) check a ``format`` it
    lists without a pattern with its own code? zod 3 (``ZOD3_CHECKS``) and zod 4 (``ZOD4_CHECKS``)."""
    return framework in _CHECKS
