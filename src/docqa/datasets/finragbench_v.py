"""FinRAGBench-V: financial documents as page images, human-annotated questions (DocPilot).

Layout read, as the authors' README lays it out: the questions from the GitHub repository
``zhaosuifeng/FinRAGBench-V`` in ``data/dataset/queries_<language>.json`` (``query-id``,
``query``, ``answer``, ``category``, ``answer_type``, ``from_pages``) with the page judgements in
``data/qrels/qrels_<language>.tsv`` (``query-id``, ``corpus-id``, ``score``), and the corpus from
the Hugging Face dataset ``zsfhhh/FinRAGBench-V`` unpacked into ``data/corpus/<language>/`` as
page images ``<document>_<page>.png``. Option ``language``: ``en`` (default) or ``ch``.

Conversions: a document is the pages sharing a ``<document>`` prefix; the number after the
last ``_`` is taken as the 1-based page number (``from_pages`` carries the same number), so the
evidence page index is that number minus one. A document whose page numbers do not run 1..N
in the corpus is recorded and skipped, as its indices would not match. The evidence pages are
the qrels' corpus ids of the question (or its own id's page when the qrels lack it). Answers are
Str; ``category`` and ``answer_type`` (short/long) are tags.
"""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

from docqa.core.question import Question, page_refs
from docqa.datasets import DATASETS
from docqa.datasets.convert import ConvertedOptions, Loaded, Written, adapter
from docqa.datasets.documents import write_pages
from docqa.datasets.fields import BadRow, answer_text, plain, required, safe_id, text
from docqa.runtime.spec import Field

_PAGE = re.compile(r"(?P<doc>.+)_(?P<page>\d+)\.png")
_QUERY = re.compile(r"(?P<corpus>.+\.png)-\d+")


class FinRAGBenchVOptions(ConvertedOptions):
    """The options of adapter ``finragbench_v``."""

    language: Literal["en", "ch"] = Field(
        default="en", description="the English or the Chinese set"
    )


def read(root: Path, options: FinRAGBenchVOptions) -> Loaded:
    language = options.language
    queries = root / "data" / "dataset" / f"queries_{language}.json"
    if not queries.is_file():
        raise FileNotFoundError(f"{queries} is missing: see the catalogue entry for the layout")
    qrels = _qrels(root / "data" / "qrels" / f"qrels_{language}.tsv")
    loaded = Loaded()
    for number, row in enumerate(json.loads(queries.read_text(encoding="utf-8"))):
        try:
            loaded.questions.append(to_question(row, qrels))
        except BadRow as problem:
            loaded.skip(f"{queries.name}#row {number}", problem)
    return loaded


def load_questions(root: Path, options: FinRAGBenchVOptions | None = None) -> list[Question]:
    return read(root, options or FinRAGBenchVOptions()).questions


def to_question(row: dict[str, Any], qrels: dict[str, list[str]]) -> Question:
    query_id = text(row, "query-id")
    own = _QUERY.fullmatch(query_id)
    corpus_ids = qrels.get(query_id) or ([own["corpus"]] if own else [])
    pages = [page_of(corpus_id) for corpus_id in corpus_ids]
    if not pages:
        raise BadRow(f"no evidence page for query {query_id} (no qrels row, no page in its id)")
    documents = {doc for doc, _ in pages}
    if len(documents) > 1:
        raise BadRow(f"evidence spans documents {sorted(documents)}; docqa asks about one")
    return Question(
        question_id=query_id,
        doc_id=pages[0][0],
        question=text(row, "query"),
        answer=answer_text(required(row, "answer")),
        answer_format="Str",
        evidence=page_refs(pages[0][0], sorted(index for _, index in pages)),
        tags={name: str(row[name]) for name in ("category", "answer_type") if row.get(name)},
        original=plain(row),
    )


def page_of(corpus_id: str) -> tuple[str, int]:
    """``NASDAQ_AMBC_2020_129.png`` → (``NASDAQ_AMBC_2020``, 128)."""
    match = _PAGE.fullmatch(corpus_id)
    if match is None or int(match["page"]) < 1:
        raise BadRow(f"corpus id {corpus_id!r} is not <document>_<page>.png with a 1-based page")
    return safe_id(match["doc"]), int(match["page"]) - 1


def write_documents(
    root: Path, doc_ids: list[str], docs_dir: Path, options: FinRAGBenchVOptions
) -> Written:
    written = Written()
    corpus = root / "data" / "corpus" / options.language
    pages: dict[str, dict[int, Path]] = defaultdict(dict)
    for image in corpus.glob("*.png") if corpus.is_dir() else []:
        try:
            doc, index = page_of(image.name)
        except BadRow:
            continue
        pages[doc][index] = image
    for name in doc_ids:
        found = pages.get(name, {})
        try:
            if not found:
                raise BadRow(f"no page of {name} in {corpus}", "unpack the corpus there")
            gaps = sorted(set(range(max(found) + 1)) - set(found))
            if gaps:
                numbers = [gap + 1 for gap in gaps]
                raise BadRow(f"pages {numbers} of {name} are missing", "check the corpus")
            ordered = [found[index] for index in sorted(found)]
            written.documents.append(write_pages(name, ordered, docs_dir, options.max_pages))
        except BadRow as problem:
            written.skip(name, corpus, problem)
    return written


def _qrels(path: Path) -> dict[str, list[str]]:
    judged: dict[str, list[str]] = defaultdict(list)
    if path.is_file():
        with open(path, encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                if row.get("query-id") and row.get("corpus-id") and str(row.get("score")) != "0":
                    judged[row["query-id"]].append(row["corpus-id"])
    return judged


DATASETS.register("finragbench_v", options=FinRAGBenchVOptions)(adapter(read, write_documents))
