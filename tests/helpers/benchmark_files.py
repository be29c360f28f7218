"""Small benchmark files in the real layouts and schemas, built for the adapter tests.

Parquet files use the column names and types of the Hugging Face releases (images as the
``datasets`` library stores them: a struct of ``bytes`` and ``path``); PDFs and images are real
files that the render stage can read, or deliberately broken ones.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pypdfium2 as pdfium
from PIL import Image

DATA = Path(__file__).resolve().parents[1] / "data" / "datasets"
MMLONGBENCH_SAMPLES = DATA / "mmlongbench_doc" / "samples.json"
LONGDOCURL_SAMPLE = DATA / "longdocurl" / "LongDocURL.sample.jsonl"

IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
NOT_AN_IMAGE = b"\xff\xd8 this is not a JPEG, the download broke"


def pdf(path: Path, pages: int = 3) -> Path:
    """A real PDF with ``pages`` blank pages (A4-ish, in points)."""
    document = pdfium.PdfDocument.new()
    for _ in range(pages):
        document.new_page(300, 400)
    path.parent.mkdir(parents=True, exist_ok=True)
    document.save(path)
    document.close()
    return path


def broken_pdf(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"<html>503 Service Unavailable</html>\n" * 20)
    return path


def image(size: tuple[int, int] = (64, 48), fmt: str = "PNG", dpi: int | None = None) -> bytes:
    buffer = io.BytesIO()
    kwargs: dict[str, Any] = {"dpi": (dpi, dpi)} if dpi else {}
    Image.new("RGB", size, (200, 30, 30)).save(buffer, format=fmt, **kwargs)
    return buffer.getvalue()


def image_cell(data: bytes | None, name: str = "slide.png") -> dict[str, Any] | None:
    return None if data is None else {"bytes": data, "path": name}


def parquet(path: Path, rows: list[dict[str, Any]], schema: pa.Schema) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


# SlideVQA (NTT-hil-insight/SlideVQA): one row per question, its deck's 20 slides embedded.
SLIDEVQA_SCHEMA = pa.schema(
    [
        ("deck_name", pa.string()),
        ("deck_url", pa.string()),
        ("qa_id", pa.int64()),
        ("question", pa.string()),
        ("answer", pa.string()),
        ("arithmetic_expression", pa.string()),
        ("evidence_pages", pa.list_(pa.int64())),
        ("reasoning_type", pa.string()),
        ("answer_type", pa.string()),
        *((f"page_{n}", IMAGE) for n in range(1, 21)),
    ]
)


def slidevqa_row(deck: str, qa_id: int, slides: list[bytes | None], **fields: Any) -> dict:
    row = {
        "deck_name": deck,
        "deck_url": f"https://www.slideshare.net/{deck}",
        "qa_id": qa_id,
        "question": f"What is on slide 2 of {deck}?",
        "answer": "42",
        "arithmetic_expression": None,
        "evidence_pages": [2],
        "reasoning_type": "single-hop",
        "answer_type": "Span",
    }
    row.update(fields)
    padded = list(slides) + [None] * (20 - len(slides))
    for number, slide in enumerate(padded, start=1):
        row[f"page_{number}"] = image_cell(slide, f"{deck}-{number}.jpg")
    return row


# REAL-MM-RAG (ibm-research/REAL-MM-RAG_TechSlides, _FinSlides): one row per page.
REALMMRAG_SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("image", IMAGE),
        ("image_filename", pa.string()),
        ("query", pa.string()),
        ("rephrase_level_1", pa.string()),
        ("rephrase_level_2", pa.string()),
        ("rephrase_level_3", pa.string()),
        ("answer", pa.string()),
    ]
)


def realmmrag_row(row_id: int, filename: str, query: str | None, answer: str | None) -> dict:
    return {
        "id": row_id,
        "image": image_cell(image(), filename),
        "image_filename": filename,
        "query": query,
        "rephrase_level_1": f"{query} (reworded)" if query else None,
        "rephrase_level_2": f"{query} (rewritten)" if query else None,
        "rephrase_level_3": f"{query} (restructured)" if query else None,
        "answer": answer,
    }


# MMLongBench-Doc on the Hub (yubo2333/MMLongBench-Doc, data/train-*.parquet): all strings.
MMLONGBENCH_SCHEMA = pa.schema(
    [
        (name, pa.string())
        for name in (
            "doc_id",
            "doc_type",
            "question",
            "answer",
            "evidence_pages",
            "evidence_sources",
            "answer_format",
        )
    ]
)

# MADQA (OxRML/MADQA, data/<split>-*.parquet).
MADQA_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("question", pa.string()),
        ("answer_variants", pa.list_(pa.list_(pa.string()))),
        ("evidence", pa.list_(pa.struct([("document", pa.string()), ("page", pa.int64())]))),
        ("document_category", pa.string()),
        ("domain", pa.string()),
    ]
)
MADQA_URLS_SCHEMA = pa.schema([("document", pa.string()), ("url", pa.string())])
