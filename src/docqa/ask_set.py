"""``docqa ask`` over several documents: their prepared files joined into one folder.

Each document is prepared in its own cache folder (:mod:`docqa.ask`); a question over several
reads them through one folder, ``results/ask/sets/<key>/`` (the key hashes the documents' cache
keys in order): ``data/documents.jsonl``, ``pages/`` and ``text/`` hold the documents' rows one
after the other, ``index/<retriever>/<doc_id>`` and ``knowledge/<model>/<doc_id>.json`` link to
each document's own, so nothing is rendered, read or indexed twice. The folder is rewritten on
every question (it is only a view of the documents' folders).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docqa.ask_prepared import AskError, Prepared
from docqa.core.jsonl import read_jsonl, write_jsonl

#: the files of a prepared document, one row a document or page, that a set concatenates
JOINED = (
    ("data", "documents.jsonl"),
    ("pages", "pages.jsonl"),
    ("pages", "overviews.jsonl"),
    ("pages", "failures.jsonl"),
    ("text", "elements.jsonl"),
    ("text", "failures.jsonl"),
)


@dataclass(frozen=True)
class SetFiles:
    """What the infer stage reads for a set, as :class:`docqa.ask_prepared.Prepared` gives it
    for one."""

    cache: Path
    documents: Path
    pages_dir: Path
    text_dir: Path
    index_dirs: dict[str, Path]
    knowledge: Path | None


def join_prepared(prepared: list[Prepared], root: Path) -> SetFiles:
    """One folder under ``root`` that reads as one dataset of the ``prepared`` documents."""
    names: dict[str, Path] = {}
    for one in prepared:
        if one.doc_id in names:
            raise AskError(
                f"{names[one.doc_id]} and {one.path} both become document {one.doc_id!r}; "
                "rename one of them"
            )
        names[one.doc_id] = one.path
    key = hashlib.sha256("\n".join(one.cache.name for one in prepared).encode()).hexdigest()
    folder = root / key[:16]
    for part, name in JOINED:
        write_jsonl(folder / part / name, _rows(one.cache / part / name for one in prepared))
    index_dirs = {
        retriever: _links(
            folder / "index" / retriever,
            [(one.index_dirs[retriever], one.doc_id) for one in prepared],
        )
        for retriever in prepared[0].index_dirs
    }
    knowledge = None
    if prepared[0].knowledge is not None:
        knowledge = _links(
            folder / "knowledge" / prepared[0].knowledge.name,
            [(Path(str(one.knowledge)), f"{one.doc_id}.json") for one in prepared],
        )
    return SetFiles(
        folder, folder / "data" / "documents.jsonl", folder / "pages", folder / "text",
        index_dirs, knowledge,
    )  # fmt: skip


def _rows(paths: Iterator[Path]) -> Iterator[dict[str, Any]]:
    for path in paths:
        if path.is_file():
            yield from read_jsonl(path)


def _links(folder: Path, sources: list[tuple[Path, str]]) -> Path:
    """``folder/<name>`` linked to ``<source>/<name>`` for each (source folder, name)."""
    folder.mkdir(parents=True, exist_ok=True)
    for source, name in sources:
        link = folder / name
        target = source / name
        if link.is_symlink() or link.exists():
            link.unlink()
        os.symlink(os.path.relpath(target.resolve(), folder.resolve()), link)
    return folder
