"""SlideVQA: questions over 20-slide decks, the slides embedded as images in parquet.

Layout read: the Hugging Face release ``NTT-hil-insight/SlideVQA`` (gated: NTT's licence for
evaluation), parquet files ``<split>-*.parquet`` at any depth under ``root``, one row per
question with its deck's slides in columns ``page_1`` … ``page_20`` (image structs). Splits:
``train``, ``val``, ``test`` (option ``split``, default ``test``).

Conversions: ``evidence_pages`` are 1-based slide numbers (1–20) → 0-based. A deck is a
document (id: ``deck_name``) whose pages are its slide images, written once per deck as
``docs/<deck>/page-0000.<ext>`` in slide order; the slides after the last present one are not
pages, and a deck with a missing slide in the middle is recorded and skipped (its slide
numbers would shift). SlideVQA labels no answer format: it is inferred from the answer (Int,
Float or Str). ``reasoning_type``, ``answer_type`` and ``arithmetic_expression`` (numerical
questions) are tags; the row without its images is kept in ``Question.original``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docqa.core.question import Question, page_refs
from docqa.datasets import DATASETS
from docqa.datasets.convert import ConvertedOptions, Loaded, Written, adapter
from docqa.datasets.documents import write_pages
from docqa.datasets.fields import (
    BadRow,
    answer_text,
    infer_format,
    one_based,
    page_numbers,
    plain,
    required,
    safe_id,
    text,
)
from docqa.datasets.parquet import image_bytes, parquet_files, read_rows
from docqa.runtime.spec import Field

SLIDES = 20
PAGE_COLUMNS = [f"page_{number}" for number in range(1, SLIDES + 1)]
COLUMNS = [
    "qa_id",
    "deck_name",
    "deck_url",
    "question",
    "answer",
    "arithmetic_expression",
    "evidence_pages",
    "reasoning_type",
    "answer_type",
]
TAGS = ("reasoning_type", "answer_type", "arithmetic_expression")
DOC_TYPE = "slides"


class SlideVQAOptions(ConvertedOptions):
    """The options of adapter ``slidevqa``."""

    split: str = Field(default="test", description="the split to convert: train, val or test")


def read(root: Path, options: SlideVQAOptions) -> Loaded:
    loaded = Loaded()
    for number, (path, row) in enumerate(read_rows(_files(root, options.split), COLUMNS)):
        try:
            loaded.questions.append(to_question(row))
        except BadRow as problem:
            loaded.skip(f"{path.name}#row {number}", problem, str(row.get("deck_name") or ""))
    return loaded


def load_questions(root: Path, options: SlideVQAOptions | None = None) -> list[Question]:
    return read(root, options or SlideVQAOptions()).questions


def to_question(row: dict[str, Any]) -> Question:
    answer = answer_text(required(row, "answer"))
    pages = page_numbers(required(row, "evidence_pages"), "evidence_pages")
    deck = safe_id(text(row, "deck_name"))
    return Question(
        question_id=text(row, "qa_id"),
        doc_id=deck,
        question=text(row, "question"),
        answer=answer,
        answer_format=infer_format(answer),
        evidence=page_refs(deck, one_based(pages, "evidence_pages", SLIDES)),
        tags={name: str(row[name]) for name in TAGS if row.get(name) not in (None, "")},
        original=plain(row),
    )


def write_documents(
    root: Path, doc_ids: list[str], docs_dir: Path, options: SlideVQAOptions
) -> Written:
    written = Written()
    wanted = set(doc_ids)
    for path, row in read_rows(_files(root, options.split), ["deck_name", *PAGE_COLUMNS]):
        try:
            name = safe_id(str(row.get("deck_name") or ""))
        except BadRow:
            continue  # a row without a deck name: read() skipped its question
        if name not in wanted:
            continue
        wanted.discard(name)
        try:
            slides = _slides(row)
            written.documents.append(
                write_pages(name, slides, docs_dir, options.max_pages, DOC_TYPE)
            )
        except BadRow as problem:
            written.skip(name, path, problem)
    for name in sorted(wanted):
        missing = BadRow(f"deck {name} has no row with slides", "check the download")
        written.skip(name, root, missing)
    return written


def _slides(row: dict[str, Any]) -> list[bytes]:
    slides = [image_bytes(row.get(column)) for column in PAGE_COLUMNS]
    while slides and slides[-1] is None:
        slides.pop()
    missing = [number for number, slide in enumerate(slides, start=1) if slide is None]
    if missing:
        raise BadRow(f"slides {missing} are missing before the last slide", "check the download")
    return slides  # type: ignore[return-value]


def _files(root: Path, split: str) -> list[Path]:
    files = parquet_files(root, f"**/{split}-*.parquet")
    if not files:
        raise FileNotFoundError(
            f"{root} has no {split}-*.parquet: download that split (source.include) "
            "or choose another with options.split (train, val, test)"
        )
    return files


DATASETS.register("slidevqa", options=SlideVQAOptions)(adapter(read, write_documents))
