"""Each page's text, read back from the text stage's output (``elements.jsonl``).

The index stage, the methods (through :class:`docqa.methods.store.DocumentStore`) and the
benchmarks read page texts here; the text stage that writes them is :mod:`docqa.stages.text`.
"""

from __future__ import annotations

from pathlib import Path

from docqa.core.jsonl import read_jsonl


def load_page_texts(elements_path: Path, pages_path: Path) -> dict[str, list[str]]:
    """doc_id -> the text of each page: its lines in reading order joined with newlines.

    Every page of pages.jsonl gets an entry ("" for a page without text). Documents that have
    no row in the text output are absent.
    """
    page_counts: dict[str, int] = {}
    for row in read_jsonl(pages_path):
        page_counts[row["doc_id"]] = max(page_counts.get(row["doc_id"], 0), row["index"] + 1)
    texts = {}
    for row in read_jsonl(elements_path):
        doc_id = row["doc_id"]
        if doc_id not in page_counts:
            raise ValueError(
                f"{elements_path}: document {doc_id!r} is not in {pages_path}; "
                "the text output is from other pages, rerun the text stage"
            )
        lines: list[list[tuple[int, str]]] = [[] for _ in range(page_counts[doc_id])]
        for element in row["elements"]:
            if element["kind"] != "line":
                continue
            if not 0 <= element["page"] < page_counts[doc_id]:
                raise ValueError(
                    f"{elements_path}: document {doc_id!r} has text on page {element['page']} "
                    f"but {pages_path} lists {page_counts[doc_id]} pages; rerun the text stage"
                )
            lines[element["page"]].append((element["order"], element["text"]))
        texts[doc_id] = ["\n".join(text for _, text in sorted(page)) for page in lines]
    return texts
