"""DocBench: 229 PDFs and 1,102 questions in five domains (used by DocPilot).

Layout read: the release of ``Anni-Zou/DocBench`` (a Google Drive folder linked from its
README, not on the Hugging Face Hub), one folder per document: ``<n>/<n>_qa.jsonl`` and the
document's PDF (``<n>/*.pdf``). Each line is ``{question, answer, type, evidence}``; ``type``
is the question category (text-only, multimodal, meta-data, unanswerable, …).

Conversions: the document id is the folder number; the question id ``<n>-<line>``. DocBench
gives no page numbers (``evidence`` is the supporting text, kept as tag) and scores with an LLM
judge: answers are Str, and None for a question whose ``type`` says it is unanswerable.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docqa.core.question import Question
from docqa.datasets import DATASETS
from docqa.datasets.convert import ConvertedOptions, Loaded, Written, adapter
from docqa.datasets.documents import link_pdf
from docqa.datasets.fields import BadRow, answer_text, plain, required, text


def read(root: Path, options: ConvertedOptions) -> Loaded:
    loaded = Loaded()
    folders = _folders(root)
    for folder in folders:
        qa = folder / f"{folder.name}_qa.jsonl"
        if not qa.is_file():
            loaded.skip(str(qa), BadRow("the questions file is missing", "check the download"))
            continue
        lines = qa.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                loaded.questions.append(to_question(_object(line), folder.name, number))
            except BadRow as problem:
                loaded.skip(f"{qa}:{number}", problem, folder.name)
    return loaded


def load_questions(root: Path, options: ConvertedOptions | None = None) -> list[Question]:
    return read(root, options or ConvertedOptions()).questions


def is_unanswerable(kind: str) -> bool:
    """DocBench's type of an unanswerable question: ``una`` in its data and evaluation notebook
    (``eval_result.ipynb``), spelled out elsewhere."""
    kind = kind.strip().lower()
    return kind == "una" or "unanswerable" in kind


def to_question(row: dict[str, Any], folder: str, number: int) -> Question:
    kind = str(row.get("type") or "")
    tags: dict[str, str | list[str]] = {"type": kind}
    if row.get("evidence"):
        tags["evidence"] = str(row["evidence"])
    return Question(
        question_id=f"{folder}-{number}",
        doc_id=folder,
        question=text(row, "question"),
        answer=answer_text(required(row, "answer")),
        answer_format="None" if is_unanswerable(kind) else "Str",
        tags=tags,
        original=plain(row),
    )


def write_documents(
    root: Path, doc_ids: list[str], docs_dir: Path, options: ConvertedOptions
) -> Written:
    written = Written()
    for name in doc_ids:
        pdfs = sorted((root / name).glob("*.pdf"))
        source = pdfs[0] if pdfs else root / name / "<no PDF>"
        try:
            if len(pdfs) > 1:
                raise BadRow(f"folder {name} holds {len(pdfs)} PDFs, not one", "check the download")
            written.documents.append(link_pdf(name, source, docs_dir, options.max_pages))
        except BadRow as problem:
            written.skip(name, source, problem)
    return written


def _folders(root: Path) -> list[Path]:
    numbered = (path for path in root.iterdir() if path.is_dir() and path.name.isdigit())
    folders = sorted(numbered, key=lambda path: int(path.name))
    if not folders:
        raise FileNotFoundError(f"{root} has no numbered document folders: is it DocBench's data?")
    return folders


def _object(line: str) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as error:
        raise BadRow(f"not valid JSON ({error.msg})") from None
    if not isinstance(row, dict):
        raise BadRow("the line is not a JSON object")
    return row


DATASETS.register("docbench", options=ConvertedOptions)(adapter(read, write_documents))
