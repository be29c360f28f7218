"""From a downloaded benchmark to docqa's data model: the part every adapter shares.

An adapter module provides two functions and registers them with :func:`adapter`:

- ``read(root, **options) -> Loaded``: the questions (0-based evidence pages, docqa's answer
  formats, the original row kept) and the rows it had to skip, from a folder in the download's
  layout; ``load_questions(root)`` is ``read(root).questions``;
- ``write_documents(root, doc_ids, docs_dir, max_pages, **options) -> Written``: the documents
  of those ids under ``docs_dir`` (see :mod:`docqa.datasets.documents`).

:func:`convert` applies the options every dataset takes (``root``, ``subdir``,
``max_questions``, ``max_pages``), passes the others (``split``, …) to the adapter, and writes
``questions.jsonl``, ``documents.jsonl``, ``docs/`` and ``failures.jsonl`` (stage ``data``:
skipped rows and documents) under the dataset's output folder.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docqa.core.document import Document
from docqa.core.failures import Failure, write_failures
from docqa.core.jsonl import write_jsonl
from docqa.core.question import Question
from docqa.datasets import PrepareDataset
from docqa.datasets.fields import BadRow

log = logging.getLogger(__name__)

STAGE = "data"


@dataclass
class Loaded:
    """Questions read from a benchmark, and the rows that could not be read."""

    questions: list[Question] = field(default_factory=list)
    skipped: list[Failure] = field(default_factory=list)

    def skip(self, where: str, problem: BadRow, doc_id: str = "") -> None:
        """Record a bad row (``where``: file and row) and go on."""
        failure = Failure(STAGE, doc_id, where, problem.error, problem.fix)
        log.warning("skipped %s", failure.describe())
        self.skipped.append(failure)


@dataclass
class Written:
    """Documents written under ``docs/``, and the documents that could not be."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[Failure] = field(default_factory=list)

    def skip(self, doc_id: str, where: str | Path, problem: BadRow) -> None:
        failure = Failure(STAGE, doc_id, str(where), problem.error, problem.fix)
        log.warning("skipped %s", failure.describe())
        self.skipped.append(failure)


Read = Callable[..., Loaded]
WriteDocuments = Callable[..., Written]


def adapter(read: Read, write_documents: WriteDocuments) -> PrepareDataset:
    """The ``prepare(out_dir, options)`` function the data stage calls for this adapter."""

    def prepare(out_dir: Path, options: dict[str, Any]) -> None:
        convert(read, write_documents, Path(out_dir), options)

    return prepare


def convert(
    read: Read, write_documents: WriteDocuments, out_dir: Path, options: dict[str, Any]
) -> None:
    """Convert the download at ``options['root']`` into the dataset folder ``out_dir``."""
    options = dict(options)
    if options.get("root") is None:
        raise ValueError(
            "dataset option 'root' is missing: the data rule sets it to the download folder; "
            "to convert files you have already, set datasets.<name>.options.root"
        )
    root = Path(options.pop("root")) / str(options.pop("subdir", ""))
    max_questions = _positive(options.pop("max_questions", None), "max_questions")
    max_pages = _positive(options.pop("max_pages", None), "max_pages")
    _check_options(read, write_documents, options)
    read_options = _accepted(read, options)
    if not root.is_dir():
        raise FileNotFoundError(f"dataset folder {root} does not exist: run the download first")

    loaded = read(root, **read_options)
    questions = loaded.questions[:max_questions] if max_questions else loaded.questions
    doc_ids = list(dict.fromkeys(question.doc_id for question in questions))
    written = write_documents(
        root, doc_ids, out_dir / "docs", max_pages, **_accepted(write_documents, options)
    )

    present = {document.doc_id for document in written.documents}
    kept = [q for q in questions if q.doc_id in present]
    if len(kept) < len(questions):
        dropped = len(questions) - len(kept)
        log.warning("%d questions dropped: their document could not be written", dropped)
    if max_pages is not None:
        within = [q for q in kept if all(page < max_pages for page in q.evidence_pages)]
        if len(within) < len(kept):
            dropped = len(kept) - len(within)
            log.info("%d questions dropped: evidence beyond max_pages=%d", dropped, max_pages)
        kept = within
    write_failures(out_dir / "failures.jsonl", loaded.skipped + written.skipped)
    if not kept:
        raise ValueError(
            f"no question of {root} could be converted; the reasons are in "
            f"{out_dir / 'failures.jsonl'} and the log"
        )
    write_jsonl(out_dir / "questions.jsonl", (question.to_dict() for question in kept))
    write_jsonl(out_dir / "documents.jsonl", (document.to_dict() for document in written.documents))
    log.info(
        "converted %d questions on %d documents from %s; %d rows and %d documents skipped "
        "(listed in failures.jsonl)",
        len(kept),
        len(written.documents),
        root,
        len(loaded.skipped),
        len(written.skipped),
    )


FIXED = {"root", "doc_ids", "docs_dir", "max_pages"}  # arguments convert() itself passes


def _check_options(read: Read, write_documents: WriteDocuments, options: dict[str, Any]) -> None:
    """Options beyond the common ones are the adapter's own: its functions' keyword arguments."""
    own = sorted((_parameters(read) | _parameters(write_documents)) - FIXED)
    unknown = sorted(set(options) - set(own))
    if unknown:
        allowed = ", ".join(["root", "subdir", "max_questions", "max_pages", *own])
        raise ValueError(
            f"unknown dataset option(s) {unknown} for adapter {read.__module__}; "
            f"options it takes: {allowed}"
        )


def _accepted(function: Callable[..., Any], options: dict[str, Any]) -> dict[str, Any]:
    names = _parameters(function) - FIXED
    return {name: value for name, value in options.items() if name in names}


def _parameters(function: Callable[..., Any]) -> set[str]:
    return set(inspect.signature(function).parameters)


def _positive(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"dataset option {name!r} must be a positive integer, not {value!r}")
    return value
