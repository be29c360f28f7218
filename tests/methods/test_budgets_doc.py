"""docs/methods.md's table of text and page budgets names every budget option of every method
(and of SlideAgent's knowledge build) with the default its spec declares: a budget added,
renamed or given another default fails here until the table says so."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from docqa.methods import METHODS
from docqa.methods.slideagent.build import KnowledgeSettings
from docqa.runtime.spec import describe

METHODS_MD = Path(__file__).parents[2] / "docs" / "methods.md"
HEADING = "## Text and page budgets"
#: option names that limit the text or the pages a method reads
BUDGET = re.compile(r"chars|pages|lines|^top_k$")
KNOWLEDGE = "`slideagent` (`knowledge:`)"


def declared() -> dict[tuple[str, str], str]:
    """(method cell, option cell) → default, from the specs of the methods docqa declares."""
    rows = {}
    for name in sorted(METHODS.modules):
        for row in describe(METHODS.options(name)):
            if BUDGET.search(row.name) and row.default not in ("true", "false"):
                rows[(f"`{name}`", f"`{row.name}`")] = row.default
    for field in dataclasses.fields(KnowledgeSettings):
        if BUDGET.search(field.name) and not isinstance(field.default, bool):
            rows[(KNOWLEDGE, f"`{field.name}`")] = str(field.default)
    return rows


def documented() -> dict[tuple[str, str], str]:
    """The table under HEADING: (method cell, option cell) → default cell."""
    section = METHODS_MD.read_text("utf-8").split(HEADING, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if line.startswith("| `") and len(cells) == 4:
            rows[(cells[0], cells[1])] = cells[2]
    return rows


def test_the_budget_table_holds_every_budget_with_its_default() -> None:
    expected, table = declared(), documented()
    assert ("`text_rag`", "`max_chars_per_page`") in expected  # the pattern finds the budgets
    missing = {key: value for key, value in expected.items() if table.get(key) != value}
    extra = sorted(set(table) - set(expected))
    assert not missing, f"{METHODS_MD} ({HEADING}): rows to add or correct: {missing}"
    assert not extra, f"{METHODS_MD} ({HEADING}): rows naming no budget option: {extra}"
