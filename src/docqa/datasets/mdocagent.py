"""PaperTab, PaperText and FetaTab as MDocAgent ships them (``Lillianwei/Mdocagent-dataset``).

Layout read: one subset folder of the bundle (``root``, e.g. the download's ``PaperTab``
through option ``subdir``): ``samples.json``, a JSON array of ``{doc_id, q_uid, question,
answer, …}`` (PaperTab and PaperText add ``answer_2`` and ``answer_3``, FetaTab ``doc_url``),
and the PDFs in ``documents/``. The three sets come from the UDA benchmark (free-form answers,
no evidence pages): answers are Str, alternative answers (``answer_2``, ``answer_3`` when not
blank) go to tag ``answer_variants``.

PaperText's ``documents`` is a broken link upstream (a 78-byte file naming a path on the
authors' machine); its PDFs are PaperTab's. Option ``documents_dir`` (relative to ``root``,
default ``documents``) points elsewhere: the catalogue sets ``../PaperTab/documents`` for
PaperText.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from docqa.core.question import Question
from docqa.datasets import DATASETS
from docqa.datasets.convert import ConvertedOptions, Loaded, Written, adapter
from docqa.datasets.documents import link_pdf
from docqa.datasets.fields import BadRow, plain, safe_id, text
from docqa.runtime.spec import Field

VARIANTS = ("answer_2", "answer_3")


class MDocAgentOptions(ConvertedOptions):
    """The options of adapter ``mdocagent``."""

    documents_dir: str = Field(
        default="documents", description="the folder of the PDFs, relative to the subset's folder"
    )


def read(root: Path, options: MDocAgentOptions) -> Loaded:
    path = root / "samples.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: is {root} a subset folder of the bundle?")
    loaded = Loaded()
    seen: dict[str, int] = {}
    for number, row in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        try:
            question = to_question(row)
        except BadRow as problem:
            loaded.skip(f"samples.json#row {number}", problem, str(row.get("doc_id", "")))
            continue
        # the same q_uid can appear twice (one question asked of two papers); keep both
        count = seen.get(question.question_id, 0)
        seen[question.question_id] = count + 1
        if count:
            question = _renamed(question, f"{question.question_id}-{count}")
        loaded.questions.append(question)
    return loaded


def load_questions(root: Path, options: MDocAgentOptions | None = None) -> list[Question]:
    return read(root, options or MDocAgentOptions()).questions


def to_question(row: dict[str, Any]) -> Question:
    variants = [str(row[name]).strip() for name in VARIANTS if str(row.get(name) or "").strip()]
    tags: dict[str, str | list[str]] = {"answer_variants": variants} if variants else {}
    return Question(
        question_id=text(row, "q_uid"),
        doc_id=doc_id(text(row, "doc_id")),
        question=text(row, "question"),
        answer=text(row, "answer"),
        answer_format="Str",
        tags=tags,
        original=plain(row),
    )


def doc_id(file_name: str) -> str:
    """``Ben Platt (actor).pdf`` → ``Ben Platt (actor)``."""
    return safe_id(file_name[:-4] if file_name.lower().endswith(".pdf") else file_name)


def write_documents(
    root: Path,
    doc_ids: list[str],
    docs_dir: Path,
    options: MDocAgentOptions,
) -> Written:
    written = Written()
    folder = root / options.documents_dir
    if folder.is_file():
        problem = BadRow(
            f"{folder} is a file, not a folder: a broken link in the upstream bundle",
            "set the dataset's options.documents_dir to a folder with the PDFs "
            "(for PaperText: ../PaperTab/documents)",
        )
        for name in doc_ids:
            written.skip(name, folder, problem)
        return written
    for name in doc_ids:
        try:
            written.documents.append(
                link_pdf(name, folder / f"{name}.pdf", docs_dir, options.max_pages)
            )
        except BadRow as problem:
            written.skip(name, folder / f"{name}.pdf", problem)
    return written


def _renamed(question: Question, question_id: str) -> Question:
    return replace(question, question_id=question_id)


DATASETS.register("mdocagent", options=MDocAgentOptions)(adapter(read, write_documents))
