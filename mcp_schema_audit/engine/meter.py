"""``Meter``: the counted work of one tool and direction, shared by every stage that does it.

One tool's comparison of one direction runs in stages (``engine.compare``): the walk and its witness search,
the confirmation of each breaking finding's witness on both whole schemas per host profile (``confirm``), the
sampling oracle (``oracle``), and for inputs the server's validator judging each witness
(``engine.arguments``). Each stage validates values against subschemas, and a validation of a large subschema
costs as much as many node pairs. The stages charge one ``Meter``, so that no stage escapes the budget the
others are held to (a 20 KB ``dependentSchemas`` chain: the walk was counted, the 660 confirmations and 440
server judgements of its 220 witnesses were not, and took as long again as the walk).

Units: ``work`` in node pairs (``WORK_BUDGET``), one more per ``SEARCHES_PER_PAIR`` regex searches;
``validations`` in ``VALIDATION_UNIT_CHARS`` characters of validated subschema (``VALIDATION_BUDGET``). Past
either, ``Budget`` is raised: the stage that raised it decides what its findings become (the walk: one
``schema-undecidable`` warning; a confirmation or a judgement: that finding unproven, a warning). Counts are
work, never seconds: the same input spends the same on any machine.
"""

from __future__ import annotations

from typing import Any

from mcp_schema_audit import guard
from mcp_schema_audit.engine.issue import Budget, canon
from mcp_schema_audit.schema.regex_cost import regex_searches

#: Node pairs compared per tool and direction before the engine gives up with a warning.
WORK_BUDGET = 50_000
#: Validations (one value against one subschema for one host) per tool and direction before the engine gives up;
#: a validation counts once per ``VALIDATION_UNIT_CHARS`` characters of its subschema's JSON (a validation walks
#: its whole subschema: a 20 KB ``dependentSchemas`` chain validated 69,000 times took 15 s and 195 MB).
VALIDATION_BUDGET = 200_000
VALIDATION_UNIT_CHARS = 1_000
#: The sampling oracle's own validations per tool and direction (``engine.oracle``: a second line of defence, held
#: to a tenth of the walk's, so that it never takes the budget the walk's findings are confirmed and judged with).
ORACLE_VALIDATION_BUDGET = VALIDATION_BUDGET // 10
#: Regex searches (one host's reading of one regex on one string: ``schema.regex_cost.count_search``) that count
#: as one node pair of ``WORK_BUDGET``: 4 ``patternProperties`` read for a key by both engines.
SEARCHES_PER_PAIR = 8


class Meter:
    """The work one tool and direction has spent so far (see the module docstring). ``work``: node pairs;
    ``validations``: validation units, at most ``validation_budget``. Regex searches are read off
    ``schema.regex_cost.regex_searches`` (a process-wide count) from the moment the meter is made."""

    def __init__(self, validation_budget: int = VALIDATION_BUDGET) -> None:
        self.validation_budget = validation_budget
        self.work = 0
        self.validations = 0
        self._weights: dict[int, tuple[Any, int]] = {}  # id(node) → (node, what one validation of it counts)
        self._searches = regex_searches()  # regex searches charged so far (``regex_searches()`` when last charged)

    def tick(self) -> None:
        """Count one node pair, and the regex searches run since the last count (``SEARCHES_PER_PAIR`` a pair);
        raises ``Budget`` past ``WORK_BUDGET``."""
        self.work += 1 + self._searched()
        self._check()

    def count_validation(self, node: Any = None) -> None:
        """Count one validation of ``node`` (``1 + len(its JSON) // VALIDATION_UNIT_CHARS``: its size, measured
        once per node; ``None``: 1); raises ``Budget`` past either budget."""
        self.validations += self.weight(node)
        self.work += self._searched()
        self._check()

    def weight(self, node: Any) -> int:
        """What one validation of ``node`` counts (``count_validation``), measured once per node."""
        if node is None:
            return 1
        known = self._weights.get(id(node))
        if known is None or known[0] is not node:
            known = self._weights[id(node)] = (node, 1 + len(canon(node)) // VALIDATION_UNIT_CHARS)
        return known[1]

    def prepay_searches(self, count: int) -> None:
        """Charge ``count`` regex searches about to run (``SEARCHES_PER_PAIR`` a node pair, each pair a ``tick``),
        so that a long run of them is refused before it starts; they are not charged again."""
        self._searches += count  # the next ``count`` searches are paid for here
        for _ in range(count // SEARCHES_PER_PAIR):
            self.tick()

    def spent(self) -> tuple[int, int]:
        """``(work, validations)`` so far, with the regex searches run since the last count."""
        self.work += self._searched()
        return self.work, self.validations

    def add(self, spent: tuple[int, int]) -> None:
        """Charge work done once and answered from a cache since (``spent`` as ``spent()`` gave it), without
        raising: the next count raises if the total is past a budget, as it would have without the cache."""
        self.work += spent[0]
        self.validations += spent[1]

    def _searched(self) -> int:
        """Node pairs the regex searches run since the last charge come to (whole pairs; the rest carried)."""
        pairs = max(0, regex_searches() - self._searches) // SEARCHES_PER_PAIR
        self._searches += pairs * SEARCHES_PER_PAIR
        return pairs

    def _check(self) -> None:
        guard.check()
        if self.work > WORK_BUDGET:
            raise Budget(f"work budget exceeded ({WORK_BUDGET} node pairs)")
        if self.validations > self.validation_budget:
            raise Budget(f"validation budget exceeded ({self.validation_budget} validations)")
