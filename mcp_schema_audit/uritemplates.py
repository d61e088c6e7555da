"""RFC 6570 URI templates as MCP servers match them: expansion of a cached template, matching by the served one.

Hosts build resource URIs by expanding a cached ``uriTemplate``; a server routes ``resources/read`` by
matching the URI against its current templates. RFC 6570 defines expansion only; the matching used here is
the MCP Python SDK's own (``mcp.shared.uri_template``, the code a python-sdk ``MCPServer`` routes with).
That module needs only the standard library, so it is loaded from the installed SDK by file, without
running the SDK package's ``__init__`` (which costs ~0.7 s): ``diff`` stays fast and never imports the
SDK. Should the module ever need the package, it is imported normally.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.shared.uri_template import UriTemplate  # the module _sdk_module loads, as mypy reads it

_MODULE = "mcp.shared.uri_template"
_PRIVATE_NAME = "_schema_audit_sdk_uri_template"
#: Values tried for each variable when looking for a URI the cached template builds and the served one
#: rejects: plain, with digits, with a dot, with a reserved character (kept by ``{+var}``), with a space.
SAMPLE_VALUES = ("a1", "b2", "x.y", "p/q", "s t")
#: URIs built per template at most (one value for every variable per round, values rotated).
MAX_SAMPLES = 32


@functools.lru_cache(maxsize=1)
def _sdk_module() -> ModuleType:
    """The SDK's ``mcp.shared.uri_template`` module. Raises ``ImportError`` when the SDK is not installed."""
    if _MODULE in sys.modules:
        return sys.modules[_MODULE]
    spec = importlib.util.find_spec("mcp")  # a top-level spec: nothing of the SDK runs
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in locations:
        path = f"{folder}/shared/uri_template.py"
        file_spec = importlib.util.spec_from_file_location(_PRIVATE_NAME, path)
        if file_spec is None or file_spec.loader is None:
            continue
        module = importlib.util.module_from_spec(file_spec)
        sys.modules[_PRIVATE_NAME] = module  # dataclasses resolve annotations through sys.modules
        try:
            file_spec.loader.exec_module(module)
        except (ImportError, OSError):
            sys.modules.pop(_PRIVATE_NAME, None)
            continue
        return module
    return importlib.import_module(_MODULE)


class TemplateError(ValueError):
    """A ``uriTemplate`` the SDK's parser refuses (malformed, or an RFC 6570 feature it does not match)."""


@dataclass(frozen=True)
class Template:
    """A parsed ``uriTemplate``: ``variables`` in order, ``query`` the names of its trailing ``{?…}``/``{&…}``
    variables (matched leniently), ``path`` the template text without that trailing query expression."""

    text: str
    variables: tuple[str, ...]
    query: frozenset[str]
    path: str
    _parsed: UriTemplate

    def expand(self, values: dict[str, str]) -> str:
        """The URI for ``values`` (variable name → string; absent names are omitted, as RFC 6570 says)."""
        return str(self._parsed.expand(values))

    def match(self, uri: str) -> dict[str, str | list[str]] | None:
        """The variables the template reads from ``uri`` (name → str or list), or ``None`` when it does not match."""
        return self._parsed.match(uri)


def parse(text: str) -> Template:
    """Parse ``text`` with the SDK's RFC 6570 parser. Raises ``TemplateError`` (with the parser's message)."""
    module = _sdk_module()
    try:
        parsed: UriTemplate = module.UriTemplate.parse(text)
    except module.InvalidUriTemplate as exc:
        raise TemplateError(str(exc)) from None
    query = frozenset(parsed.query_variable_names)
    path = text
    if query:
        cut = text.rfind("{?")
        path = text[:cut] if cut >= 0 else text
    return Template(text, tuple(parsed.variable_names), query, path, parsed)


def sample_uris(template: Template, limit: int = MAX_SAMPLES) -> list[tuple[dict[str, str], str]]:
    """URIs a host may build from ``template``: ``[(values, uri)]``, every variable set, deterministic order.

    Round ``i`` gives the variable at ``position`` the value ``SAMPLE_VALUES[(i + position) % n]``, so
    different variables get different values and each value is tried for each variable (at most
    ``limit`` rounds; duplicate URIs are dropped). A round whose expansion fails is skipped.
    """
    out: list[tuple[dict[str, str], str]] = []
    seen: set[str] = set()
    n = len(SAMPLE_VALUES)
    for i in range(min(limit, n * max(1, len(template.variables)))):
        values = {v: SAMPLE_VALUES[(i + k) % n] for k, v in enumerate(template.variables)}
        try:
            uri = template.expand(values)
        except (TypeError, ValueError):
            continue
        if uri not in seen:
            seen.add(uri)
            out.append((values, uri))
    return out


def only_query_added(old: Template, new: Template) -> bool:
    """True when ``new`` is ``old`` with query variables added (same text before the query expression, every
    old query variable kept): every URI ``old`` builds still matches ``new``, whose query is matched
    leniently (absent and unknown parameters are fine)."""
    return old.path == new.path and old.query <= new.query and old.text != new.text
