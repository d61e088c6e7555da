"""What to capture: a server command (stdio) or URL (Streamable HTTP, SSE), with headers and env kept out of logs."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

import orjson

from mcp_schema_audit.errors import UsageError
from mcp_schema_audit.outputlines import secret_pattern
from mcp_schema_audit.words import oneline

TRANSPORTS = ("stdio", "http", "sse")


PROTOCOLS = ("auto", "legacy", "2026-07-28")


#: Secret values shorter than this (characters) are not masked in what a server sends.
MIN_SECRET_LEN = 4


@dataclass
class CaptureTarget:
    """Where the server is and how to reach it.

    ``transport`` is ``"stdio"`` (spawn ``command``: program then arguments, with ``env`` merged onto
    the SDK's small inherited allow-list ``HOME, LOGNAME, PATH, SHELL, TERM, USER``, in ``cwd``),
    ``"http"`` (Streamable HTTP at ``url``) or ``"sse"`` (the legacy HTTP+SSE transport at ``url``).
    ``headers`` are sent on every HTTP request. ``env`` and ``headers`` values are secrets: they are
    never stored in a snapshot nor shown in an error message.
    """

    transport: str
    command: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:  # keep secrets out of tracebacks and logs
        where = redact_url(self.url) if self.url else (self.command[:1] or ["?"])[0]
        return f"CaptureTarget(transport={self.transport!r}, target={where!r})"


def redact_url(url: str) -> str:
    """Return ``url`` safe to store or print: no ``user:password@`` part, query values masked.

    ``https://u:p@host/mcp?token=abc`` becomes ``https://host/mcp?token=REDACTED``; the fragment is
    dropped. A URL that cannot be parsed becomes ``"<invalid URL>"``.
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "<invalid URL>"
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port is not None else host
    query = "&".join(f"{key}=REDACTED" for key, _ in parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def connect_url_and_headers(url: str, headers: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The URL to connect to (no ``user:password@``) and the headers to send.

    Credentials embedded in the URL become an HTTP Basic ``Authorization`` header, unless
    ``headers`` already has an ``Authorization`` header (an explicit ``--header`` always wins; HTTP
    clients would otherwise let the URL's credentials silently replace it). The credential-free URL
    is all the MCP SDK ever sees, so its messages and logs cannot carry the password.
    """
    import base64

    try:
        parts = urlsplit(url)
        user, password = parts.username, parts.password
    except ValueError:
        return url, dict(headers)
    out = dict(headers)
    if user is None and password is None:
        return url, out
    netloc = parts.netloc.rpartition("@")[2]
    clean = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    if not any(k.lower() == "authorization" for k in out):
        token = base64.b64encode(f"{unquote(user or '')}:{unquote(password or '')}".encode()).decode("ascii")
        out["Authorization"] = f"Basic {token}"
    return clean, out


def check_arguments(target: CaptureTarget, protocol: str, timeout_s: float, max_pages: int) -> None:
    """Raise ``UsageError`` for what no capture can start with: an unknown transport or protocol, a timeout or
    page limit out of range, no command (stdio) or no usable http(s) URL."""
    if target.transport not in TRANSPORTS:
        raise UsageError(f"unknown transport {target.transport!r}: use one of {', '.join(TRANSPORTS)}")
    if protocol not in PROTOCOLS:
        raise UsageError(f"unknown protocol {protocol!r}: use one of {', '.join(PROTOCOLS)}")
    if not timeout_s > 0:
        raise UsageError(f"timeout must be a positive number of seconds, got {timeout_s!r}")
    if max_pages < 1:
        raise UsageError(f"max pages must be at least 1, got {max_pages!r}")
    if target.transport == "stdio":
        if not target.command or not target.command[0]:
            raise UsageError("no server command given (stdio transport)")
    else:
        if not target.url:
            raise UsageError(f"no server URL given ({target.transport} transport)")
        try:
            parts = urlsplit(target.url)
            parts.port  # noqa: B018 - raises ValueError for a bad port
        except ValueError:
            raise UsageError(f"invalid server URL {redact_url(target.url)!r}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"server URL must be http:// or https://, got {redact_url(target.url)!r}")


#: Names of headers, variables and query parameters whose values are credentials whatever they look like.
_SECRET_NAME = re.compile(
    r"(?i)token|secret|passw|passphrase|pwd|key|auth|credential|cookie|session|private|cert|sign|bearer|"
    r"(?<![a-z])pat(?![a-z])"
)


def secret_name(name: str) -> bool:
    """Does ``name`` (a header, variable, query parameter or JSON key) say its value is a credential?"""
    return bool(_SECRET_NAME.search(name))


def looks_secret(name: str, value: str) -> bool:
    """Is ``value`` (of header, variable or query parameter ``name``) masked in what a server sends back?

    Yes when it has at least ``MIN_SECRET_LEN`` characters and either its name says it is a credential
    (``_SECRET_NAME``: ``Authorization``, ``X-Api-Key``, ``GITHUB_TOKEN``, ``DB_PASSWORD`` …) or it is shaped
    like one: 8 characters or more mixing letters and digits, or 20 or more without a space. Everyday settings
    (``MODE=fast``, ``LOG_LEVEL=info``, ``Accept: application/json``) are not: masking them wherever they occur
    would mangle the listing (``information`` → ``***rmation``)."""
    if len(value) < MIN_SECRET_LEN:
        return False
    if _SECRET_NAME.search(name):
        return True
    letters, digits = any(c.isalpha() for c in value), any(c.isdigit() for c in value)
    return (len(value) >= 8 and letters and digits) or (len(value) >= 20 and not any(c.isspace() for c in value))


def environment_secrets(environ: dict[str, str]) -> list[str]:
    """The values of ``environ`` (the environment a proxied server inherits, or the headers a client sends)
    whose names say they are credentials (``GITHUB_TOKEN``, ``Authorization``, ``X-Api-Key`` …), each also
    without its scheme (``Bearer <token>`` → ``<token>``), longest first: what ``record`` masks in what it
    keeps. Only names are trusted here: an everyday variable shaped like a token (a long ``PATH``) is left, and so
    is a value under 8 characters (``XDG_SESSION_CLASS=user`` would mask every "user")."""
    values: set[str] = set()
    for name, value in environ.items():
        if _SECRET_NAME.search(name):
            values.update(part for part in [value, *value.split()[1:]] if len(part) >= 8)
    return sorted(values, key=len, reverse=True)


_URL_PASSWORD = re.compile(r"://[^/:@\s]*:([^/@\s]+)@")
#: A header as a command line writes it (``--header "Authorization: Bearer X"``, mcp-remote's usage).
_HEADER_ARG = re.compile(r"\s*([A-Za-z0-9_.-]+)\s*:\s*(\S.*)")
#: A URL on a command line (its path may carry a key: ``/mcp/key/SECRET``, ``/v1;token=SECRET``).
_URL_ARG = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"]+")


def _header_secrets(arg: str) -> list[str]:
    """The credential of a ``Name: value`` argument whose name says it is one: the value and the parts after its
    scheme (``Bearer X`` → also ``X``)."""
    m = _HEADER_ARG.fullmatch(arg)
    if m is None or not _SECRET_NAME.search(m.group(1)) or "//" in m.group(1):
        return []
    value = m.group(2).strip()
    return [part for part in [value, *value.split()[1:]] if len(part) >= MIN_SECRET_LEN]


def _url_path_secrets(arg: str) -> list[str]:
    """Credentials in a URL's path: the segment after one named like a credential (``/key/SECRET``,
    ``/token/SECRET``) and matrix parameters so named (``;api_key=SECRET``)."""
    out: list[str] = []
    for url in _URL_ARG.findall(arg):
        path = urlsplit(url).path
        segments = [seg for seg in path.split("/") if seg]
        for i, seg in enumerate(segments):
            name, _, params = seg.partition(";")
            for param in params.split(";") if params else ():
                key, eq, value = param.partition("=")
                if eq and _SECRET_NAME.search(key) and len(value) >= MIN_SECRET_LEN:
                    out.append(value)
            if _SECRET_NAME.search(name) and i + 1 < len(segments):
                following = segments[i + 1].partition(";")[0]
                if len(following) >= MIN_SECRET_LEN:
                    out.append(following)
    return out


def command_secrets(command: list[str]) -> list[str]:
    """The credentials on a server's command line: the value of an option whose name says it is one
    (``--api-key=VALUE``, ``--token VALUE``, ``--pat VALUE``, ``-p`` is not a name, ``API_KEY=VALUE`` as ``env``
    takes it; ``_SECRET_NAME``), a header so named (``--header "Authorization: Bearer VALUE"``, also after
    ``=``, or as two arguments: ``--header X-Api-Key VALUE``), a URL's password (``postgres://user:PASSWORD@host``),
    the credentials in a URL's path (``/key/VALUE``, ``;token=VALUE``) and query (``?region=eu&api_key=VALUE``),
    and the values under keys so named in a JSON argument (``--config '{"githubToken": "VALUE"}'``), each of
    ``MIN_SECRET_LEN`` characters or more, and each also without its scheme (``Bearer VALUE`` → ``VALUE``). The
    program itself (``command[0]``) is never one."""
    values: list[str] = []
    args = command[1:]
    for i, arg in enumerate(args):
        values += [m for m in _URL_PASSWORD.findall(arg) if len(m) >= MIN_SECRET_LEN]
        values += _url_path_secrets(arg) + _header_secrets(arg) + _header_secrets(arg.partition("=")[2])
        values += _url_query_secrets(arg) + _json_secrets(arg) + _json_secrets(arg.partition("=")[2])
        name, eq, value = arg.partition("=")
        following = args[i + 1] if i + 1 < len(args) else ""
        if (
            eq
            and name
            and not any(c.isspace() for c in name)
            and looks_secret(name, value)
            and _SECRET_NAME.search(name)
        ):
            values.append(value)
        elif not eq and arg.startswith("-") and _SECRET_NAME.search(arg) and following:
            if not following.startswith("-") and len(following) >= MIN_SECRET_LEN:
                values.append(following)
        elif arg in _HEADER_OPTIONS and ":" not in following and _SECRET_NAME.search(following) and i + 2 < len(args):
            values.append(args[i + 2])  # --header NAME VALUE, as two arguments
    # a value with a scheme ("Bearer X") is also masked without it: a server may echo the token alone
    parts = [part for value in values for part in value.split()[1:] if len(part) >= MIN_SECRET_LEN]
    return sorted(set(values + parts), key=len, reverse=True)


#: The options that take a header on the command lines of MCP bridges (mcp-remote, supergateway, curl-like tools).
_HEADER_OPTIONS = frozenset({"--header", "-H", "--headers"})


def _url_query_secrets(arg: str) -> list[str]:
    """The values of a URL's query parameters named like credentials (every parameter, not only the first)."""
    out: list[str] = []
    for url in _URL_ARG.findall(arg):
        for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True):
            if len(value) >= MIN_SECRET_LEN and looks_secret(key, value) and _SECRET_NAME.search(key):
                out.append(value)
    return out


def _json_secrets(arg: str) -> list[str]:
    """The string values under keys named like credentials in an argument that is a JSON object or array
    (``--config '{"githubToken": "…"}'``), at any depth."""
    text = arg.strip()
    if not text.startswith(("{", "[")) or len(text) > 1_000_000:
        return []
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return []
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, sub in item.items():
                if isinstance(sub, str) and _SECRET_NAME.search(str(key)) and len(sub) >= MIN_SECRET_LEN:
                    out.append(sub)
                else:
                    stack.append(sub)
        elif isinstance(item, list):
            stack.extend(item)
    return out


def reply_secrets(target: CaptureTarget) -> list[str]:
    """Every secret value the user gave, longest first: the ``--env``, header (``--header``, ``--header-env``)
    and URL query values that ``looks_secret``, each also without its scheme (``Bearer <token>`` → ``<token>``),
    the URL's password (as written and percent-decoded) and the HTTP Basic value derived from the URL's
    credentials (``base64(user:password)``), these last always. The URL's user name is not a secret (see
    ``message_secrets``); the credentials on a stdio server's command line (``command_secrets``)."""
    values: list[str] = command_secrets(list(target.command)) if target.command else []
    derived = connect_url_and_headers(target.url, target.headers)[1] if target.url else {}
    named = [*target.env.items(), *target.headers.items()]
    named += [(k, v) for k, v in derived.items() if k not in target.headers]  # Basic auth from the URL
    for name, value in named:
        for part in [value, *value.split()[1:]]:  # "Bearer <token>" → also the token alone
            if looks_secret(name, part) or (name.lower() == "authorization" and len(part) >= MIN_SECRET_LEN):
                values.append(part)
    if target.url:
        try:
            parts = urlsplit(target.url)
            if parts.password:
                values.extend(v for v in (parts.password, unquote(parts.password)) if len(v) >= MIN_SECRET_LEN)
            for k, v in parse_qsl(parts.query, keep_blank_values=True):
                if looks_secret(k, v):
                    values.append(v)
        except ValueError:
            pass
    return sorted(set(values), key=len, reverse=True)


def message_secrets(target: CaptureTarget) -> list[str]:
    """``reply_secrets`` plus every other ``--env`` and header value and the URL's user name (each of
    ``MIN_SECRET_LEN`` characters or more): what an error message (one line of ours) never shows. A line of
    ours can afford to over-mask; the listing cannot (``looks_secret``)."""
    values = reply_secrets(target)
    for value in [*target.env.values(), *target.headers.values()]:
        for part in [value, *value.split()[1:]]:
            if len(part) >= MIN_SECRET_LEN and part not in values:
                values.append(part)
    if target.url:
        try:
            user = urlsplit(target.url).username
        except ValueError:
            user = None
        for v in (user, unquote(user or "")):
            if v and len(v) >= MIN_SECRET_LEN and v not in values:
                values.append(v)
    return sorted(values, key=len, reverse=True)


def scrub_secrets(value: Any, secrets: list[str]) -> Any:
    """``value`` (parsed JSON) with every secret inside a string or an object key replaced by ``***`` (in any letter
    case, and reversed: ``secret_pattern``), and every
    number whose value is a numeric secret's (a credential echoed back as a number: ``100000000000000000000``
    also as ``1e20``, ``1.0E+20`` or ``100000000000000000000.0``) replaced by the string ``***``.

    Containers are changed in place (pass a copy) and walked iteratively, so no nesting depth is too deep;
    the same object is returned unless ``value`` itself is a string.
    """
    if not secrets:
        return value
    pattern = secret_pattern(secrets)

    def clean(text: str) -> str:
        return pattern.sub("***", text)

    numbers = _secret_numbers(secrets)

    def secret_number(item: Any) -> bool:  # a credential echoed back as a JSON number: 12345678901234567890
        if not numbers or not isinstance(item, (int, float)) or isinstance(item, bool):
            return False
        exact, nearest = numbers
        return item in exact or isinstance(item, float) and item in nearest

    if isinstance(value, str):
        return clean(value)
    if secret_number(value):
        return "***"
    if not isinstance(value, (dict, list)):
        return value
    root = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        holder, key = stack.pop()
        item = holder[key]
        if isinstance(item, str):
            cleaned = clean(item)
            if cleaned is not item and cleaned != item:
                holder[key] = cleaned
        elif secret_number(item):
            holder[key] = "***"
        elif isinstance(item, list):
            stack.extend((item, i) for i in range(len(item)))
        elif isinstance(item, dict):
            if any(clean(k) != k for k in item):
                item = {clean(k): v for k, v in item.items()}
                holder[key] = item
            stack.extend((item, k) for k in item)
    return root[0]


#: A secret that reads as a JSON number (what a server may echo back as one).
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def _secret_numbers(secrets: list[str]) -> tuple[set[int | float], set[float]] | None:
    """The values of the secrets that read as JSON numbers: each one exactly (an ``int`` for an integer literal,
    compared exactly with a float, ``10**20 == 1e20``) and as the nearest float (what a parser makes of the
    secret echoed as ``1.2345678901234567e19``); ``None`` when no secret is a number."""
    exact: set[int | float] = set()
    nearest: set[float] = set()
    for secret in secrets:
        if len(secret) > 400 or not _JSON_NUMBER.fullmatch(secret):  # past 400 digits no float is finite
            continue
        as_float = float(secret)
        integer = "." not in secret and "e" not in secret.lower()
        if integer:
            exact.add(int(secret))
        if math.isfinite(as_float):
            nearest.add(as_float)
            if not integer and as_float.is_integer():
                exact.add(as_float)
    return (exact, nearest) if exact or nearest else None


def scrub_message(message: str, secrets: list[str]) -> str:
    """``message`` with every one of ``secrets`` replaced by ``***`` (``secret_pattern``), on one line
    (``oneline``)."""
    if secrets:
        message = secret_pattern(secrets).sub("***", message)
    return oneline(message)


def masked(value: Any) -> Any:
    """``value`` (recorded arguments or a result) with the values of keys named like credentials (``password``,
    ``api_key``, ``token`` …) replaced by ``***`` wherever they occur, in a copy: what a report may show of real
    traffic."""
    found = secrets_in(value)
    copy = orjson.loads(orjson.dumps(value))
    return scrub_secrets(copy, found) if found else copy


def secrets_in(value: Any) -> list[str]:
    """The string values of keys named like credentials anywhere in ``value``, longest first."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for k, v in item.items():
                if isinstance(v, str) and secret_name(str(k)) and looks_secret(str(k), v):
                    found.add(v)
                elif isinstance(v, (dict, list)):
                    stack.append(v)
        elif isinstance(item, list):
            stack.extend(x for x in item if isinstance(x, (dict, list)))
    return sorted(found, key=len, reverse=True)
