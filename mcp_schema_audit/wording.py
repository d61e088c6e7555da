"""A finding's words as data: a template of ours with named slots, the values for them, and the roles it speaks of.

The engine and the other finding producers never write server text into a sentence. They write a ``Text``: our
own ``template`` (``str.format`` syntax: ``{name}`` slots, literal braces doubled) and ``args`` (the values:
tool names, enum values, patterns, numbers), plus slots for the *roles* the sentence speaks of: the version the
server runs (``{served}``) and the one hosts cached (``{cached}``). The engine speaks of the producing and the
validating side (``{P}``/``{V}``); ``with_roles`` says which role each is for a direction. A report renders the
text once (``render``), with the role words of its mode: ``new``/``cached`` for hosts that cached OLD, labelled
words (``served 0.2.5``, ``cached 0.2.6``) for a forward finding. Values are inserted as they are: a value that
holds ``{V}``, ``%s``, ``\\1`` or Markdown comes out unchanged, and only the format's own escaping applies to it.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: Role words of a backward finding (hosts cached OLD, the server runs NEW), by role slot.
BACKWARD: Mapping[str, str] = {
    "served": "new",
    "cached": "cached",
    "served_server": "new server",
    "served_tool": "new tool",
}
_PARSER = string.Formatter()


def forward_words(cached: str, served: str) -> dict[str, str]:
    """Role words of a forward finding: hosts cached ``cached`` (NEW's label), the server runs ``served`` (OLD's)."""
    return {
        "served": f"served {served}",
        "cached": f"cached {cached}",
        "served_server": f"{served} server",
        "served_tool": f"tool only {served} (served) lists",
    }


@dataclass(frozen=True)
class Text:
    """Words of ours with slots (see the module docstring). ``args``: slot → value (shown with ``str``);
    ``roles``: a slot that names a role (``P`` → ``served``). Immutable, picklable (findings come back from
    worker processes)."""

    template: str
    args: tuple[tuple[str, Any], ...] = ()
    roles: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, template: str, **args: Any) -> Text:
        """``Text(template, args)``; ``template`` is ours (never server text), ``args`` the values of its slots."""
        return cls(template, tuple(args.items()))

    @classmethod
    def literal(cls, words: str) -> Text:
        """Words with no slot (braces in them are literal)."""
        return cls(words.replace("{", "{{").replace("}", "}}"))

    @property
    def identity(self) -> tuple[str, str]:
        """What tells two texts apart (hashable whatever the values are): the template and the values' ``repr``."""
        return self.template, repr(self.args)

    def with_roles(self, **roles: str) -> Text:
        """This text with slots read as roles: ``with_roles(P="served", V="cached")``."""
        return Text(self.template, self.args, tuple({**dict(self.roles), **roles}.items()))

    def plus(self, words: str) -> Text:
        """This text followed by more words of ours (no slot)."""
        return Text(self.template + Text.literal(words).template, self.args, self.roles)

    def render(self, words: Mapping[str, str] = BACKWARD) -> str:
        """The sentence: each slot replaced by its value (``str``, as it is) or its role's word in ``words``.
        Raises ``KeyError`` for a slot that is neither (a bug in the template)."""
        args, roles = dict(self.args), dict(self.roles)
        out = []
        for literal, field, spec, conversion in _PARSER.parse(self.template):
            out.append(literal)
            if field is None:
                continue
            if field in roles:
                value: Any = words[roles[field]]
            elif field in args:
                value = args[field]
            else:
                value = words[field]
            if conversion == "r":
                value = repr(value)
            out.append(format(value, spec) if spec else str(value))
        return "".join(out)


EMPTY = Text("")
