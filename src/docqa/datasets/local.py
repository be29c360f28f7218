"""Your own documents: a folder of PDFs (or folders of page images) and a question file.

``root`` holds the documents and a question file in JSON Lines (``questions.jsonl``) or CSV
(``questions.csv``); option ``questions`` names another file in ``root``. Per row:

- ``question`` (required) and ``document``: the file name in ``root`` (``report.pdf``; the
  ``.pdf`` may be left out), a folder of page images (``scan/``: one page per image, in file-name
  order) or one image file (a one-page document). A list of names (``["a.pdf", "b.pdf"]``, in
  CSV as that JSON text) asks one question over those documents together (a name listed twice
  counts once; the first is the question's ``doc_id``);
- optional ``id`` (default ``line<N>``), ``answer``, ``answer_format`` (Int, Float, Str, List,
  None; inferred from the answer when absent), ``evidence_pages`` (``3``, ``3,5``, ``[3, 5]``;
  1-based unless option ``page_base`` is 0; over several documents each page names its
  document: ``[{"document": "a.pdf", "page": 3}]``, which a one-document row may use too),
  ``tags`` (an object in JSON Lines);
- any other column is kept as a tag (a ``kind`` column gives the score stage its breakdown).

A row without an answer is still asked: it goes through infer and the traces index (the run's
answers table), and the score stage leaves it out of the answer metrics and counts it (see
:mod:`docqa.stages.score`). Bad rows — no question, an unknown or unreadable document, a file that
is neither PDF nor image, a duplicate id, evidence pages out of range or naming a document
the row does not — are recorded in
``failures.jsonl`` (stage ``data``) with their line number and the fix; the other rows run. A PDF
that starts like a PDF but cannot be opened is kept, as for every dataset: the render stage
records it and its questions get an error prediction.

Options: :class:`LocalOptions` (``root``, ``questions``, ``page_base``, ``max_questions``,
``max_pages``).
"""

from __future__ import annotations

import csv
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pypdfium2 as pdfium

from docqa.core.document import Document
from docqa.core.failures import Failure, write_failures
from docqa.core.jsonl import write_jsonl
from docqa.core.question import PageRef, Question, documents_fields
from docqa.datasets import DATASETS
from docqa.datasets.convert import STAGE, SelectionOptions
from docqa.datasets.documents import link_pdf, write_pages
from docqa.datasets.fields import (
    BadRow,
    answer_format,
    answer_text,
    infer_format,
    list_literal,
    plain,
    safe_id,
)
from docqa.runtime.spec import Field

log = logging.getLogger(__name__)

QUESTION_FILES = ("questions.jsonl", "questions.csv")
#: the columns docqa reads; every other column becomes a tag
COLUMNS = ("id", "question", "document", "answer", "answer_format", "evidence_pages", "tags")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".tif", ".tiff", ".bmp", ".webp")
PDF_MAGIC = b"%PDF-"
_PAGE_SPLIT = re.compile(r"[\s,;]+")


@dataclass
class Source:
    """One document as found on disk: a PDF, a single image or a folder of page images."""

    path: Path
    kind: str  # "pdf", "image" or "folder"
    pages: int | None  # None: a PDF that pdfium cannot open (the render stage records why)

    def images(self) -> list[Path]:
        if self.kind == "image":
            return [self.path]
        return sorted(
            (p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES), key=_natural
        )


def inspect_document(path: Path) -> Source:
    """What ``path`` is, or ``BadRow`` saying why docqa cannot read it and what to do.

    Decided from the file's first bytes, not its name: a PDF starts with ``%PDF-`` (within its
    first kilobyte, as PDF readers accept), an image is one of :data:`IMAGE_SUFFIXES`.
    """
    if path.is_dir():
        source = Source(path, "folder", None)
        images = source.images()
        if not images:
            raise BadRow(
                f"folder {path} holds no page images ({', '.join(IMAGE_SUFFIXES)})",
                "put one image per page in it, named in page order (page-01.png, page-02.png…)",
            )
        source.pages = len(images)
        return source
    if not path.is_file():
        raise BadRow(f"{path} does not exist", "check the file name")
    try:
        with open(path, "rb") as handle:
            head = handle.read(1024)
    except OSError as error:
        raise BadRow(f"{path} cannot be read ({error.strerror})", "check its permissions") from None
    if PDF_MAGIC in head:
        return Source(path, "pdf", _pdf_pages(path))
    if path.suffix.lower() in IMAGE_SUFFIXES and _is_image(path):
        return Source(path, "image", 1)
    what = "is empty" if not head else "is neither a PDF nor an image"
    raise BadRow(
        f"{path} {what}",
        "give a PDF, an image (PNG, JPEG, TIFF…) or a folder of page images; "
        "convert other formats to PDF first (e.g. libreoffice --convert-to pdf)",
    )


def place_document(doc_id: str, source: Source, docs_dir: Path, max_pages: int | None) -> Document:
    """The document under ``docs_dir`` as the render stage reads it (see documents.py)."""
    if source.kind == "pdf":
        document = link_pdf(doc_id, source.path, docs_dir, max_pages)
        pages = source.pages if max_pages is None or source.pages is None else document.num_pages
        return Document(document.doc_id, document.path, pages, document.doc_type)
    return write_pages(doc_id, source.images(), docs_dir, max_pages)


@dataclass
class _Row:
    line: int
    values: dict[str, Any]


@dataclass
class _Documents:
    """Document names of the question file → their ids and sources, each inspected once."""

    root: Path
    by_name: dict[str, tuple[str, Source] | BadRow] = field(default_factory=dict)
    ids: dict[str, Path] = field(default_factory=dict)

    def get(self, name: str) -> tuple[str, Source]:
        if name not in self.by_name:
            try:
                self.by_name[name] = self._find(name)
            except BadRow as problem:
                self.by_name[name] = problem
        found = self.by_name[name]
        if isinstance(found, BadRow):
            raise found
        return found

    def _find(self, name: str) -> tuple[str, Source]:
        relative = Path(name.strip().rstrip("/"))
        if relative.is_absolute() or ".." in relative.parts:
            raise BadRow(
                f"document {name!r} is not a name inside {self.root}",
                "give the file name relative to the dataset folder",
            )
        path = self.root / relative
        if not path.exists() and (self.root / f"{relative}.pdf").is_file():
            path = self.root / f"{relative}.pdf"
        if not path.exists():
            raise BadRow(
                f"document {name!r} is not in {self.root} (it has: {_listing(self.root)})",
                "copy the document into the folder or correct the name in the question file",
            )
        source = inspect_document(path)
        stem = relative.with_suffix("") if path.is_file() else relative
        doc_id = safe_id(str(stem))
        if self.ids.get(doc_id, path) != path:  # report.pdf and report.png
            doc_id = safe_id(str(relative).replace(".", "_"))
        self.ids[doc_id] = path
        return doc_id, source


class LocalOptions(SelectionOptions):
    """The options of adapter ``local``."""

    root: str = Field(
        min_length=1, description="the folder that holds your documents and question file"
    )
    questions: str | None = Field(
        default=None,
        description="the question file in root (null: questions.jsonl or questions.csv)",
    )
    page_base: Literal[1, 0] = Field(
        default=1, description="whether evidence_pages count from 1 or from 0"
    )


@DATASETS.register("local", options=LocalOptions)
def prepare(out_dir: Path, options: LocalOptions) -> None:
    """The data stage for a local folder: ``questions.jsonl``, ``documents.jsonl``, ``docs/``
    and ``failures.jsonl`` under ``out_dir``."""
    root = Path(options.root)
    if not root.is_dir():
        raise FileNotFoundError(f"dataset folder {root} (option root) does not exist")
    page_base = options.page_base
    max_questions, max_pages = options.max_questions, options.max_pages
    question_file = _question_file(root, options.questions)

    out_dir = Path(out_dir)
    docs_dir = out_dir / "docs"
    documents = _Documents(root)
    placed: dict[str, Document] = {}
    questions: list[Question] = []
    failures: list[Failure] = []
    seen: dict[str, int] = {}
    for row in _rows(question_file):
        where = f"{question_file} line {row.line}"
        try:
            question, sources = _question(row, documents, page_base)
            if question.question_id in seen:
                raise BadRow(
                    f"id {question.question_id!r} is already used on line "
                    f"{seen[question.question_id]}",
                    "give every row its own id (or leave the id column empty)",
                )
            for doc_id in question.documents:
                if doc_id not in placed:
                    placed[doc_id] = place_document(doc_id, sources[doc_id], docs_dir, max_pages)
        except BadRow as problem:
            failure = Failure(STAGE, _named(row.values.get("document")), where, *_why(problem))
            log.warning("skipped %s", failure.describe())
            failures.append(failure)
            continue
        seen[question.question_id] = row.line
        if max_pages is not None and any(page >= max_pages for _, page in question.evidence):
            log.info("%s: dropped, evidence beyond max_pages=%d", where, max_pages)
            continue
        questions.append(question)
        if max_questions is not None and len(questions) >= max_questions:
            break

    write_failures(out_dir / "failures.jsonl", failures)
    if not questions:
        raise ValueError(
            f"no question of {question_file} could be used; the reasons are in "
            f"{out_dir / 'failures.jsonl'} and the log"
        )
    used = dict.fromkeys(doc for question in questions for doc in question.documents)
    write_jsonl(out_dir / "questions.jsonl", (question.to_dict() for question in questions))
    write_jsonl(out_dir / "documents.jsonl", (placed[doc_id].to_dict() for doc_id in used))
    log.info(
        "read %d questions on %d documents from %s; %d rows skipped (failures.jsonl), "
        "%d without a gold answer",
        len(questions),
        len(used),
        question_file,
        len(failures),
        sum(1 for question in questions if not question.has_gold),
    )


def _question(
    row: _Row, documents: _Documents, page_base: int
) -> tuple[Question, dict[str, Source]]:
    """The row's question, and the source of each of its documents by id."""
    values = row.values
    if "_error" in values:
        raise BadRow(values["_error"], "write the line as one JSON object, or delete it")
    question = _text(values.get("question"))
    if not question:
        raise BadRow("the row has no question", "fill its 'question' column or delete the row")
    names = _document_names(values.get("document"))
    sources = dict(documents.get(name) for name in names)
    doc_ids = list(sources)
    answer: str | list[str] = ""
    raw_answer = values.get("answer")
    if raw_answer is not None and raw_answer != "" and raw_answer != []:
        answer = answer_text(raw_answer)
    fmt_name = _text(values.get("answer_format"))
    fmt = answer_format(fmt_name) if fmt_name else (infer_format(answer) if answer else "Str")
    if fmt == "List" and isinstance(answer, str) and answer:
        answer = list_literal(answer)
    evidence = _evidence(values.get("evidence_pages"), page_base, documents, sources)
    qid = _text(values.get("id")) or f"line{row.line}"
    return (
        Question(
            question_id=qid,
            question=question,
            answer=answer,
            answer_format=fmt,
            **documents_fields(doc_ids, evidence),
            tags=_tags(values),
            original=plain(values),
        ),
        sources,
    )


def _document_names(value: Any) -> list[str]:
    """The names in the row's ``document`` column: one name, or a list (JSON in CSV)."""
    names = value
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            names = json.loads(value)
        except json.JSONDecodeError:
            raise BadRow(
                f"document {value!r} is not a JSON list", 'write it as ["a.pdf", "b.pdf"]'
            ) from None
    found = [_text(name) for name in (names if isinstance(names, list) else [names])]
    if not found or not all(found):
        raise BadRow("the row names no document", "fill its 'document' column with a file name")
    return found


def _named(value: Any) -> str:
    """The row's documents, for its failure record."""
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value or "")


def _evidence(
    value: Any, base: int, documents: _Documents, sources: dict[str, Source]
) -> list[PageRef]:
    """The evidence as (document id, 0-based page) pairs: page numbers of the row's one
    document, or ``{document, page}`` objects naming any of its documents."""
    if isinstance(value, str) and value.strip().startswith("[{"):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise BadRow(
                f"evidence_pages {value!r} is not a JSON list",
                'write it as [{"document": "a.pdf", "page": 3}]',
            ) from None
    if value is None or value == "" or value == []:
        return []
    items = value if isinstance(value, list) else _PAGE_SPLIT.split(str(value).strip("[] "))
    refs = []
    for item in items:
        if isinstance(item, dict):
            refs.append(_named_page(item, documents, sources))
            continue
        if isinstance(item, bool) or str(item).strip() == "":
            continue
        if len(sources) > 1:
            raise BadRow(
                f"evidence page {item!r} does not say which of the row's {len(sources)} "
                "documents it is in",
                'write the evidence as [{"document": "a.pdf", "page": 3}, ...]',
            )
        refs.append((next(iter(sources)), _page_number(item)))
    for doc_id, number in refs:
        _check_page(number, base, sources[doc_id].pages)
    return [(doc_id, number - base) for doc_id, number in refs]


def _named_page(item: dict[str, Any], documents: _Documents, sources: dict[str, Source]) -> PageRef:
    name, page = _text(item.get("document")), item.get("page")
    if not name or page is None:
        raise BadRow(
            f"evidence item {item!r} is not {{document, page}}",
            'write it as {"document": "a.pdf", "page": 3}',
        )
    doc_id, _ = documents.get(name)
    if doc_id not in sources:
        raise BadRow(
            f"evidence names document {name!r}, which is not one of the row's documents",
            "add it to the row's 'document' list or correct the evidence",
        )
    return doc_id, _page_number(page)


def _page_number(item: Any) -> int:
    try:
        if isinstance(item, bool):
            raise ValueError
        return int(str(item).strip())
    except ValueError:
        raise BadRow(
            f"evidence_pages holds {item!r}, not a page number",
            "write page numbers like 3 or 3,5",
        ) from None


def _check_page(number: int, base: int, pages: int | None) -> None:
    last = None if pages is None else pages - 1 + base
    if number < base or (last is not None and number > last):
        counted = "1-based" if base == 1 else "0-based"
        bound = f"{base}..{last}" if last is not None else f">= {base}"
        fix = (
            "correct the page; if your file counts pages from 0, set the dataset option "
            "page_base: 0"
            if base == 1
            else "correct the page; page_base: 0 is set, so the first page is 0"
        )
        raise BadRow(f"evidence page {number} is out of range ({counted}: {bound})", fix)


def _tags(values: dict[str, Any]) -> dict[str, str | list[str]]:
    tags: dict[str, str | list[str]] = {}
    given = values.get("tags")
    if isinstance(given, dict):
        tags.update({str(k): _tag(v) for k, v in given.items()})
    elif given not in (None, ""):
        tags["tags"] = _tag(given)
    for key, value in values.items():
        if key not in COLUMNS and value not in (None, ""):
            tags[str(key)] = _tag(value)
    return tags


def _tag(value: Any) -> str | list[str]:
    if isinstance(value, list):
        return [str(item) for item in value]
    return str(value)


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _why(problem: BadRow) -> tuple[str, str]:
    return problem.error, problem.fix


def _question_file(root: Path, name: str | None) -> Path:
    if name:
        path = root / name
        if not path.is_file():
            raise FileNotFoundError(f"question file {path} (option questions) does not exist")
        return path
    found = [root / candidate for candidate in QUESTION_FILES if (root / candidate).is_file()]
    if len(found) != 1:
        state = "has both" if found else "has neither"
        raise FileNotFoundError(
            f"{root} {state} of {' and '.join(QUESTION_FILES)}: name the question file with "
            "the dataset option 'questions'"
        )
    return found[0]


def _rows(path: Path) -> Iterator[_Row]:
    """The rows of a JSON Lines or CSV file, each with the line it starts on."""
    if path.suffix.lower() == ".csv":
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            if reader.fieldnames is None:  # reads the header line
                return
            line = reader.line_num + 1
            for values in reader:
                yield _Row(line, {k.strip(): v for k, v in values.items() if k is not None})
                line = reader.line_num + 1
        return
    with open(path, encoding="utf-8-sig") as handle:
        for line, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                values = json.loads(text)
            except json.JSONDecodeError as error:
                values = {"_error": f"line is not JSON ({error.msg})"}
            if not isinstance(values, dict):
                values = {"_error": "line is not a JSON object"}
            yield _Row(line, values)


def _pdf_pages(path: Path) -> int | None:
    try:
        pdf = pdfium.PdfDocument(path)
    except pdfium.PdfiumError:
        return None
    try:
        return len(pdf)
    finally:
        pdf.close()


def _is_image(path: Path) -> bool:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError):
        return False
    return True


def _listing(root: Path, shown: int = 8) -> str:
    names = sorted(p.name + ("/" if p.is_dir() else "") for p in root.iterdir())
    names = [n for n in names if n not in QUESTION_FILES]
    more = f", … {len(names) - shown} more" if len(names) > shown else ""
    return (", ".join(names[:shown]) + more) or "nothing"


def _natural(path: Path) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]
