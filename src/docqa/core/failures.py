"""Failed items: what went wrong with one input and how to fix it.

A stage that meets bad input (an unreadable PDF, an unreadable page image) records the item
here and goes on with the rest. Each stage writes its failures to a ``failures.jsonl`` next to
its outputs, always, empty when nothing failed, so a run can be checked by reading one file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from docqa.core.jsonl import read_jsonl, write_jsonl
from docqa.core.records import Record


@dataclass(frozen=True)
class Failure(Record):
    """One failed item: the stage, the document, the file that failed, the error and the fix."""

    stage: str
    doc_id: str
    path: str
    error: str
    fix: str

    def describe(self) -> str:
        """One line for a log: names the document, the file, the error and what to do."""
        return f"{self.stage}: {self.doc_id} ({self.path}): {self.error}; fix: {self.fix}"


def record_failure(
    failures: str | Path, *, stage: str, doc_id: str, path: str | Path, error: str, fix: str
) -> Failure:
    """Append one failure row to ``failures`` (created if missing) and return it."""
    failure = Failure(stage=stage, doc_id=doc_id, path=str(path), error=error, fix=fix)
    failures = Path(failures)
    failures.parent.mkdir(parents=True, exist_ok=True)
    with open(failures, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(failure.to_dict(), ensure_ascii=False) + "\n")
    return failure


def write_failures(failures: str | Path, rows: Iterable[Failure]) -> None:
    """Write the complete failure list of a stage atomically (an empty file when none failed)."""
    write_jsonl(failures, (row.to_dict() for row in rows))


def read_failures(failures: str | Path) -> list[Failure]:
    """Read a failures file written by ``record_failure`` or ``write_failures``."""
    return [Failure.from_dict(row) for row in read_jsonl(failures)]
