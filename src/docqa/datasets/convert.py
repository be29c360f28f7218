"""From a downloaded benchmark to docqa's data model: the part every adapter shares.

An adapter module declares its options as :class:`ConvertedOptions` (the options every
downloaded dataset takes: ``root``, ``subdir``, ``max_questions``, ``max_pages``,
``missing_documents``) or a subclass with its own (``split``, …), provides two functions and
registers them with :func:`adapter` under its spec
(``DATASETS.register("slidevqa", options=SlideVQAOptions)(adapter(read, write_documents))``):

- ``read(root, options) -> Loaded``: the questions (0-based evidence pages, docqa's answer
  formats, the original row kept) and the rows it had to skip, from a folder in the download's
  layout; ``load_questions(root, options=None)`` is ``read(root, options).questions`` (None:
  the defaults);
- ``write_documents(root, doc_ids, docs_dir, options) -> Written``: the documents of those ids
  under ``docs_dir``, at most ``options.max_pages`` pages each (see
  :mod:`docqa.datasets.documents`).

:func:`convert` applies the common options and writes ``questions.jsonl``,
``documents.jsonl``, ``docs/`` and ``failures.jsonl`` (stage ``data``: skipped rows and
documents) under the dataset's output folder.

The documents written are those of every question (``Question.documents``, each once). A
question none of whose documents could be written is dropped (logged; the documents are in
``failures.jsonl``). A question over several documents is kept while at least one of them was
written: the infer stage decides what becomes of it, by the option ``missing_documents``, which
every question over several documents carries in its tag of that name: ``fail`` (the default)
records it as failed, naming the missing documents; ``answer`` answers it over the documents
that are there. Documents can also go missing later (a PDF the render stage cannot open), which
is why the decision is the infer stage's and not made here. ``max_pages`` drops a question
whose evidence names a page beyond the cap in any of its documents.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypeVar

from docqa.core.document import Document
from docqa.core.failures import Failure, write_failures
from docqa.core.jsonl import write_jsonl
from docqa.core.question import Question
from docqa.datasets.fields import BadRow
from docqa.runtime.spec import Field, Options

log = logging.getLogger(__name__)

STAGE = "data"


class SelectionOptions(Options):
    """How much of a dataset to keep: the options every adapter with questions from files
    takes (the downloaded benchmarks' and ``local``)."""

    max_questions: int | None = Field(
        default=None, ge=1, description="keep the first N questions (null: all)"
    )
    max_pages: int | None = Field(
        default=None,
        ge=1,
        description="keep each document's first N pages and drop questions with evidence "
        "beyond them (null: all)",
    )


class ConvertedOptions(SelectionOptions):
    """The options every adapter of a downloaded benchmark takes."""

    root: str | None = Field(
        default=None,
        description="the folder of the download (set by the data rule for a dataset with a "
        "source); set it to convert files you have already",
    )
    subdir: str = Field(
        default="", description="the dataset's folder inside root (a shared download)"
    )
    missing_documents: Literal["fail", "answer"] = Field(
        default="fail",
        description="a question over several documents some of which are missing: recorded "
        "as failed, or answered over the others",
    )


SpecT = TypeVar("SpecT", bound=ConvertedOptions)


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


Read = Callable[[Path, SpecT], Loaded]
WriteDocuments = Callable[[Path, list[str], Path, SpecT], Written]


def adapter(
    read: Read[SpecT], write_documents: WriteDocuments[SpecT]
) -> Callable[[Path, SpecT], None]:
    """The ``prepare(out_dir, options)`` function the data stage calls for this adapter."""

    def prepare(out_dir: Path, options: SpecT) -> None:
        convert(read, write_documents, Path(out_dir), options)

    return prepare


def convert(
    read: Read[SpecT], write_documents: WriteDocuments[SpecT], out_dir: Path, options: SpecT
) -> None:
    """Convert the download at ``options.root`` into the dataset folder ``out_dir``."""
    if options.root is None:
        raise ValueError(
            "dataset option 'root' is missing: the data rule sets it to the download folder; "
            "to convert files you have already, set datasets.<name>.options.root"
        )
    root = Path(options.root) / options.subdir
    max_questions, max_pages = options.max_questions, options.max_pages
    missing = options.missing_documents
    if not root.is_dir():
        raise FileNotFoundError(f"dataset folder {root} does not exist: run the download first")

    loaded = read(root, options)
    questions = loaded.questions[:max_questions] if max_questions else loaded.questions
    doc_ids = list(dict.fromkeys(doc for question in questions for doc in question.documents))
    written = write_documents(root, doc_ids, out_dir / "docs", options)

    present = {document.doc_id for document in written.documents}
    kept = [q for q in questions if any(doc in present for doc in q.documents)]
    if len(kept) < len(questions):
        dropped = len(questions) - len(kept)
        log.warning("%d questions dropped: none of their documents could be written", dropped)
    partly = sum(1 for q in kept if not all(doc in present for doc in q.documents))
    if partly:
        log.warning(
            "%d questions over several documents lack some of them; kept with "
            "missing_documents=%s (the infer stage %s)",
            partly,
            missing,
            "records them as failed" if missing == "fail" else "answers over the others",
        )
    if max_pages is not None:
        within = [q for q in kept if all(page < max_pages for _, page in q.evidence)]
        if len(within) < len(kept):
            dropped = len(kept) - len(within)
            log.info("%d questions dropped: evidence beyond max_pages=%d", dropped, max_pages)
        kept = within
    kept = [_with_missing_documents(q, missing) for q in kept]
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


def _with_missing_documents(question: Question, missing: str) -> Question:
    """The question with tag ``missing_documents`` when it is over several documents (a
    question about one document has no document to answer over once its one is missing)."""
    if not question.over_several:
        return question
    return replace(question, tags={**question.tags, "missing_documents": missing})
