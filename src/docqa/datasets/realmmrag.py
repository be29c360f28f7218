"""REAL-MM-RAG TechSlides and FinSlides: slide decks as page images, with generated answers.

Layout read: the Hugging Face releases ``ibm-research/REAL-MM-RAG_TechSlides`` and
``…_FinSlides``: parquet files ``<split>-*.parquet`` at any depth under ``root`` (option
``split``, default ``test``), one row per page: ``image`` (embedded), ``image_filename``,
``query``, ``rephrase_level_1`` … ``_3``, ``answer`` (model-generated, not human gold). A row
whose ``query`` is null is a distractor page: it is a page of its deck and asks nothing.

Documents: pages are grouped into decks by file name, ``<deck>_<number>.<ext>`` (also
``<deck>_page_<number>`` or ``<deck>-<number>``); a deck's pages are in number order and the
page index is the position in that order, so gaps and the numbering's base do not matter. A
file name without a number is a one-page document. The page a question was written from is
its evidence page.

Option ``query`` picks the question text: ``query`` (default) or one of the rephrasings
``rephrase_level_1`` … ``_3`` (harder retrieval); all of them are kept as tags. The answer
format is inferred (Int, Float or Str).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal, get_args

from docqa.core.question import Question, page_refs
from docqa.datasets import DATASETS
from docqa.datasets.convert import ConvertedOptions, Loaded, Written, adapter
from docqa.datasets.documents import write_pages
from docqa.datasets.fields import BadRow, answer_text, infer_format, plain, required, safe_id, text
from docqa.datasets.parquet import image_bytes, parquet_files, read_rows
from docqa.runtime.spec import Field

QueryField = Literal["query", "rephrase_level_1", "rephrase_level_2", "rephrase_level_3"]
QUERY_FIELDS: tuple[str, ...] = get_args(QueryField)
REPHRASINGS = QUERY_FIELDS[1:]
COLUMNS = ["id", "image_filename", *QUERY_FIELDS, "answer"]
DOC_TYPE = "slides"
_PAGE_NAME = re.compile(r"(?P<deck>.+?)(?:[ _-]+page)?[ _-]+(?P<number>\d+)")


class RealMMRAGOptions(ConvertedOptions):
    """The options of adapter ``realmmrag``."""

    split: str = Field(default="test", description="the split to convert (parquet files <split>-*)")
    query: QueryField = Field(
        default="query", description="the question as asked, or one of its three rephrasings"
    )


def read(root: Path, options: RealMMRAGOptions) -> Loaded:
    query = options.query
    loaded = Loaded()
    rows = list(read_rows(_files(root, options.split), COLUMNS))
    decks = deck_pages(row.get("image_filename") for _, row in rows)
    for number, (path, row) in enumerate(rows):
        if row.get("query") is None:
            continue  # a distractor page: part of its deck, no question
        try:
            loaded.questions.append(to_question(row, decks, query))
        except BadRow as problem:
            loaded.skip(f"{path.name}#row {number}", problem)
    return loaded


def load_questions(root: Path, options: RealMMRAGOptions | None = None) -> list[Question]:
    return read(root, options or RealMMRAGOptions()).questions


def to_question(row: dict[str, Any], decks: dict[str, list[str]], query: str) -> Question:
    filename = text(row, "image_filename")
    deck, _ = split_page_name(filename)
    answer = answer_text(required(row, "answer"))
    return Question(
        question_id=text(row, "id"),
        doc_id=deck,
        question=text(row, query),
        answer=answer,
        answer_format=infer_format(answer),
        evidence=page_refs(deck, [decks[deck].index(filename)]),
        tags={name: str(row[name]) for name in REPHRASINGS if row.get(name)},
        original=plain(row),
    )


def split_page_name(filename: str) -> tuple[str, int]:
    """``TechSlides_deck_12.png`` → (``TechSlides_deck``, 12); no number → (stem, 0)."""
    stem = filename.rsplit(".", 1)[0]
    match = _PAGE_NAME.fullmatch(stem)
    if match is None:
        return safe_id(stem), 0
    return safe_id(match["deck"]), int(match["number"])


def deck_pages(filenames: Any) -> dict[str, list[str]]:
    """Deck → its page file names in page order (each file once)."""
    pages: dict[str, set[str]] = defaultdict(set)
    for filename in filenames:
        try:
            pages[split_page_name(str(filename or ""))[0]].add(str(filename))
        except BadRow:
            continue  # no usable name: the page cannot be placed (its question is skipped)
    return {
        deck: sorted(names, key=lambda name: (split_page_name(name)[1], name))
        for deck, names in pages.items()
    }


def write_documents(
    root: Path, doc_ids: list[str], docs_dir: Path, options: RealMMRAGOptions
) -> Written:
    written = Written()
    max_pages = options.max_pages
    files = _files(root, options.split)
    decks = deck_pages(row.get("image_filename") for _, row in read_rows(files, ["image_filename"]))
    wanted = {deck: decks.get(deck, []) for deck in doc_ids}
    needed = {name for names in wanted.values() for name in names[:max_pages]}
    images: dict[str, bytes | None] = {}
    for _, row in read_rows(files, ["image_filename", "image"]):
        name = row.get("image_filename")
        if name in needed and images.get(name) is None:
            images[name] = image_bytes(row.get("image"))
    for deck, names in wanted.items():
        names = names[:max_pages]
        missing = [name for name in names if images.get(name) is None]
        try:
            if missing or not names:
                raise BadRow(f"pages without an image: {missing or 'all'}", "check the download")
            pages = [images[name] for name in names]
            written.documents.append(write_pages(deck, pages, docs_dir, None, DOC_TYPE))  # type: ignore[arg-type]
        except BadRow as problem:
            written.skip(deck, root, problem)
    return written


def _files(root: Path, split: str) -> list[Path]:
    files = parquet_files(root, f"**/{split}-*.parquet")
    if not files:
        raise FileNotFoundError(f"{root} has no {split}-*.parquet: is it a REAL-MM-RAG download?")
    return files


DATASETS.register("realmmrag", options=RealMMRAGOptions)(adapter(read, write_documents))
