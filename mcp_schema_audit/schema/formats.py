"""``format`` as each host profile asserts it: nothing for python-sdk (its validators get no format checker),
ajv-formats 3 in its default ("full") mode for the TS profiles (``addFormats(ajv)`` in both SDKs).

``AJV_FORMATS`` is ajv-formats' ``fullFormats`` (``dist/formats.js``) ported check by check: its regular
expressions run as ECMAScript regexes with their own flags (``regress``), its functions (``date``, ``time``,
``date-time``, ``uri``, ``byte``, ``regex``, ``int32`` …) rewritten line by line. A format applies to the JSON
type its definition names (``int32``/``int64``/``float``/``double``: numbers; every other one: strings), as Ajv
compiles it; a format ajv-formats does not define is ignored (``strict: false`` only logs "unknown format").
``tests/test_ajv_crosscheck.py`` compares every check with real ajv-formats on the engine's example strings.

``asserting_profiles`` answers which profiles a format binds at all: a format no profile asserts (an unknown
name, or ``password``/``binary``/``float``/``double``, which accept every value) constrains nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp_schema_audit.schema.dialects import HOST_PROFILES
from mcp_schema_audit.schema.regex import ecma_compile_error

if TYPE_CHECKING:
    import regress
    from jsonschema import FormatChecker

#: A format check: is this value (of the format's JSON type) valid?
Check = Callable[[Any], bool]

#: A lone surrogate, which regress (UTF-8) cannot take: searched as U+FFFD, which every class here treats alike.
_SURROGATE = re.compile("[\ud800-\udfff]")
#: The characters outside ASCII whose simple case folding is an ASCII letter (KELVIN SIGN, LATIN SMALL LETTER LONG
#: S). Without the ``u`` flag, an ECMAScript ``/i`` regex never matches them to an ASCII letter (Canonicalize keeps
#: a character that would cross into ASCII); regress folds them: they are searched as U+FFFD, which every class of
#: these regexes treats as it treats them.
_FOLDS_INTO_ASCII = re.compile("[\u212a\u017f]")


@functools.lru_cache(maxsize=64)
def _ecma(source: str, flags: str) -> regress.Regex:
    import regress

    return regress.Regex(source, flags)


def _ecma_test(source: str, flags: str) -> Check:
    """``/source/flags.test(value)`` (a string: ajv-formats' regex formats)."""

    legacy_fold = "i" in flags and "u" not in flags

    def test(value: Any) -> bool:
        text = _SURROGATE.sub("\ufffd", value)
        if legacy_fold:
            text = _FOLDS_INTO_ASCII.sub("\ufffd", text)
        return _ecma(source, flags).find(text) is not None

    return test


# -- the functions of ajv-formats' formats.ts ----------------------------------------------------------------
_DATE = re.compile(r"^(\d\d\d\d)-(\d\d)-(\d\d)\Z", re.ASCII)
_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_TIME = re.compile(r"^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?\Z", re.ASCII | re.IGNORECASE)
#: ``/t|\s/i`` (ECMAScript ``\s``: WhiteSpace and LineTerminator)
_DATE_TIME_SEPARATOR = re.compile("[tT\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _date(value: str) -> bool:
    m = _DATE.match(value)
    if m is None:
        return False
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    return 1 <= month <= 12 and 1 <= day <= (29 if month == 2 and _leap(year) else _DAYS[month])


def _time(strict_time_zone: bool) -> Check:
    def time(value: str) -> bool:
        m = _TIME.match(value)
        if m is None:
            return False
        hr, minute, sec = int(m[1]), int(m[2]), float(m[3])
        tz = m[4]
        sign = -1 if m[5] == "-" else 1
        tz_h, tz_m = int(m[6] or 0), int(m[7] or 0)
        if tz_h > 23 or tz_m > 59 or (strict_time_zone and not tz):
            return False
        if hr <= 23 and minute <= 59 and sec < 60:
            return True
        # a leap second
        utc_min = minute - tz_m * sign
        utc_hr = hr - tz_h * sign - (1 if utc_min < 0 else 0)
        return utc_hr in (23, -1) and utc_min in (59, -1) and sec < 61

    return time


def _date_time(strict_time_zone: bool) -> Check:
    time = _time(strict_time_zone)

    def date_time(value: str) -> bool:
        parts = _DATE_TIME_SEPARATOR.split(value)
        return len(parts) == 2 and _date(parts[0]) and time(parts[1])

    return date_time


_IPV6_IN_URI = (
    r"(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|"
    r"(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::"
    r"(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|"
    r"(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|"
    r"(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|"
    r"(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)"
)
_URI = (
    r"^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:"
    + _IPV6_IN_URI
    + r"|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}"
    r"(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?"
    r"(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+"
    r"(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+"
    r"(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?"
    r"(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$"
)
_URI_REFERENCE = (
    r"^(?:[a-z][a-z0-9+\-.]*:)?(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:"
    + _IPV6_IN_URI
    + r"|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}"
    r"(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|"
    r"""(?:[a-z0-9\-._~!$&'"()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*|"""
    r"""\/(?:(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*)?|"""
    r"""(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*)?"""
    r"""(?:\?(?:[a-z0-9\-._~!$&'"()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'"()*+,;=:@/?]|%[0-9a-f]{2})*)?$"""
)
_URI_TEMPLATE = (
    r"""^(?:(?:[^\x00-\x20"'<>%\\^`{|}]|%[0-9a-f]{2})|\{[+#./;?&=,!@|]?(?:[a-z0-9_]|%[0-9a-f]{2})+"""
    r"(?::[1-9][0-9]{0,3}|\*)?(?:,(?:[a-z0-9_]|%[0-9a-f]{2})+(?::[1-9][0-9]{0,3}|\*)?)*\})*$"
)
_URL = (
    r"^(?:https?|ftp):\/\/(?:\S+(?::\S*)?@)?(?:(?!(?:10|127)(?:\.\d{1,3}){3})(?!(?:169\.254|192\.168)(?:\.\d{1,3}){2})"
    r"(?!172\.(?:1[6-9]|2\d|3[0-1])(?:\.\d{1,3}){2})(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])(?:\.(?:1?\d{1,2}|2[0-4]\d|25[0-5]))"
    r"{2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))|(?:(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)"
    r"(?:\.(?:[a-z0-9\u{00a1}-\u{ffff}]+-)*[a-z0-9\u{00a1}-\u{ffff}]+)*(?:\.(?:[a-z\u{00a1}-\u{ffff}]{2,})))"
    r"(?::\d{2,5})?(?:\/[^\s]*)?$"
)
_EMAIL = (
    r"^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+"
    r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$"
)
_HOSTNAME = r"^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$"
_IPV4 = r"^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$"
_IPV4_PART = r"(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}"
_IPV6 = (
    r"^((([0-9a-f]{1,4}:){7}([0-9a-f]{1,4}|:))|(([0-9a-f]{1,4}:){6}(:[0-9a-f]{1,4}|(" + _IPV4_PART + r")|:))|"
    r"(([0-9a-f]{1,4}:){5}(((:[0-9a-f]{1,4}){1,2})|:(" + _IPV4_PART + r")|:))|"
    r"(([0-9a-f]{1,4}:){4}(((:[0-9a-f]{1,4}){1,3})|((:[0-9a-f]{1,4})?:(" + _IPV4_PART + r"))|:))|"
    r"(([0-9a-f]{1,4}:){3}(((:[0-9a-f]{1,4}){1,4})|((:[0-9a-f]{1,4}){0,2}:(" + _IPV4_PART + r"))|:))|"
    r"(([0-9a-f]{1,4}:){2}(((:[0-9a-f]{1,4}){1,5})|((:[0-9a-f]{1,4}){0,3}:(" + _IPV4_PART + r"))|:))|"
    r"(([0-9a-f]{1,4}:){1}(((:[0-9a-f]{1,4}){1,6})|((:[0-9a-f]{1,4}){0,4}:(" + _IPV4_PART + r"))|:))|"
    r"(:(((:[0-9a-f]{1,4}){1,7})|((:[0-9a-f]{1,4}){0,5}:(" + _IPV4_PART + r"))|:)))$"
)
_NOT_URI_FRAGMENT = re.compile(r"/|:")
_BYTE = r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
_Z_ANCHOR = re.compile(r"[^\\]\\Z")
#: The regular expressions of ajv-formats (source, flags), by format name; ``URI`` and ``BYTE`` are the ones its
#: ``uri`` and ``byte`` functions test (``BYTE`` is ``/…/gm`` with ``lastIndex`` reset: a search in multiline mode).
ECMA_SOURCES: dict[str, tuple[str, str]] = {
    "duration": (r"^P(?!$)((\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)$", ""),
    "uri-reference": (_URI_REFERENCE, "i"),
    "uri-template": (_URI_TEMPLATE, "i"),
    "url": (_URL, "iu"),
    "email": (_EMAIL, "i"),
    "hostname": (_HOSTNAME, "i"),
    "ipv4": (_IPV4, ""),
    "ipv6": (_IPV6, "i"),
    "uuid": (r"^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$", "i"),
    "json-pointer": (r"^(?:\/(?:[^~/]|~0|~1)*)*$", ""),
    "json-pointer-uri-fragment": (r"^#(?:\/(?:[a-z0-9_\-.!$&'()*+,;:=@]|%[0-9a-f]{2}|~0|~1)*)*$", "i"),
    "relative-json-pointer": (r"^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$", ""),
    "URI": (_URI, "i"),
    "BYTE": (_BYTE, "m"),
}
_uri_regex = _ecma_test(*ECMA_SOURCES["URI"])


def _uri(value: str) -> bool:
    return _NOT_URI_FRAGMENT.search(value) is not None and _uri_regex(value)


def _regex(value: str) -> bool:
    return _Z_ANCHOR.search(value) is None and ecma_compile_error(value, unicode=False) is None


def _is_integer(value: Any) -> bool:
    """``Number.isInteger`` of a JSON number (an integer of any size is one; JSON has no infinities)."""
    return isinstance(value, int) or float(value).is_integer()


def _int32(value: Any) -> bool:
    return _is_integer(value) and -(2**31) <= value <= 2**31 - 1


def _accept(value: Any) -> bool:
    return True


#: ajv-formats 3 ``fullFormats``: name → (the JSON type it applies to, its check).
AJV_FORMATS: dict[str, tuple[str, Check]] = {
    "date": ("string", _date),
    "time": ("string", _time(True)),
    "date-time": ("string", _date_time(True)),
    "iso-time": ("string", _time(False)),
    "iso-date-time": ("string", _date_time(False)),
    "uri": ("string", _uri),
    "regex": ("string", _regex),
    "byte": ("string", _ecma_test(*ECMA_SOURCES["BYTE"])),
    **{name: ("string", _ecma_test(*src)) for name, src in ECMA_SOURCES.items() if name not in ("URI", "BYTE")},
    "int32": ("number", _int32),
    "int64": ("number", _is_integer),
    "float": ("number", _accept),
    "double": ("number", _accept),
    "password": ("string", _accept),
    "binary": ("string", _accept),
}
#: Formats whose check accepts every value of its type (``true`` in ajv-formats, or a function returning true).
_ACCEPT_ALL = frozenset({"float", "double", "password", "binary"})
#: Format names each host profile asserts (a check that can reject a value).
ASSERTED: dict[str, frozenset[str]] = {
    profile: frozenset() if profile == "python-sdk" else frozenset(AJV_FORMATS) - _ACCEPT_ALL
    for profile in HOST_PROFILES
}


def asserting_profiles(fmt: Any) -> tuple[str, ...]:
    """The host profiles that can reject a value for ``format: fmt`` (none for a name no profile checks)."""
    return tuple(p for p in HOST_PROFILES if isinstance(fmt, str) and fmt in ASSERTED[p])


def format_type(fmt: Any) -> str | None:
    """The JSON type ``format: fmt`` applies to for the profiles that assert it (``"string"``/``"number"``), or
    None when no profile asserts it."""
    return AJV_FORMATS[fmt][0] if asserting_profiles(fmt) else None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def ajv_conforms(value: Any, fmt: Any) -> bool:
    """Does ``value`` meet ``format: fmt`` as ajv-formats checks it (a value of another JSON type, or a format it
    does not define: yes)?"""
    entry = AJV_FORMATS.get(fmt) if isinstance(fmt, str) else None
    if entry is None:
        return True
    kind, check = entry
    if kind == "string":
        return not isinstance(value, str) or check(value)
    return not _is_number(value) or check(value)


def _conforms_to(fmt: str, value: Any) -> bool:
    return ajv_conforms(value, fmt)


_AJV_FORMAT_CHECKER: FormatChecker | None = None


def ajv_format_checker() -> FormatChecker:
    """A jsonschema ``FormatChecker`` with exactly ajv-formats' checks (``AJV_FORMATS``), as the TS SDKs enforce
    formats; any other format name is not checked (Ajv ignores an unknown format under ``strict: false``)."""
    global _AJV_FORMAT_CHECKER
    if _AJV_FORMAT_CHECKER is None:
        from jsonschema import FormatChecker

        checker = FormatChecker(formats=())
        for name in AJV_FORMATS:
            checker.checkers[name] = (functools.partial(_conforms_to, name), ())
        _AJV_FORMAT_CHECKER = checker
    return _AJV_FORMAT_CHECKER
