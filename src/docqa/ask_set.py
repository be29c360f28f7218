"""``docqa ask`` over several documents: their prepared files joined into one folder.

Each document is prepared in its own cache folder (:mod:`docqa.ask`); a question over several
reads them through one folder, ``<results>/ask/sets/<key>/`` (the key hashes the documents' cache
keys in order), laid out like theirs (:class:`~docqa.workflow.layout.Layout`): the documents,
pages, overviews, text and failures files hold the documents' rows one after the other, and each
retriever's index folder and the knowledge folder link to each document's own
(``<doc_id>``, ``<doc_id>.json``), so nothing is rendered, read or indexed twice. The folder is
rewritten on every question (it is only a view of the documents' folders).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from docqa.ask_prepared import AskError, Prepared
from docqa.core.jsonl import read_jsonl, write_jsonl
from docqa.workflow.layout import Layout

#: the files of a prepared document, one row a document or page, that a set concatenates
JOINED: tuple[Callable[[Layout, str], str], ...] = (
    Layout.documents,
    Layout.pages,
    Layout.overviews,
    Layout.render_failures,
    Layout.elements,
    Layout.text_failures,
)


def join_prepared(prepared: list[Prepared], root: Path, dataset: str) -> Layout:
    """The layout of one folder under ``root`` that reads as one dataset (``dataset``) of the
    ``prepared`` documents."""
    names: dict[str, Path] = {}
    for one in prepared:
        if one.doc_id in names:
            raise AskError(
                f"{names[one.doc_id]} and {one.path} both become document {one.doc_id!r}; "
                "rename one of them"
            )
        names[one.doc_id] = one.path
    key = hashlib.sha256("\n".join(one.cache.name for one in prepared).encode()).hexdigest()
    files = Layout(str(root / key[:16]))
    for place in JOINED:
        write_jsonl(
            Path(place(files, dataset)), _rows(Path(place(one.files, dataset)) for one in prepared)
        )
    for retriever in prepared[0].retrievers:
        _links(
            Path(files.index_docs(dataset, retriever)),
            [(Path(one.files.index_docs(dataset, retriever)), one.doc_id) for one in prepared],
        )
    model = prepared[0].knowledge
    if model is not None:
        _links(
            Path(files.knowledge(dataset, model)),
            [(Path(one.files.knowledge(dataset, model)), f"{one.doc_id}.json") for one in prepared],
        )
    return files


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
