"""The knowledge stage: SlideAgent's knowledge base of every document of a dataset, built once
per (dataset, model) and read by every ``slideagent`` question and rerun.

The output is a folder with one ``<doc_id>.json`` per document (see
:mod:`docqa.methods.slideagent.knowledge`) and ``failures.jsonl`` (always written, empty when
nothing failed). The folder is built as ``<out>.partial/`` and renamed when complete, so
Snakemake never sees half a folder; a killed job resumes with the documents already written,
unless the partial folder was made with other settings or inputs (``fingerprint.json``), in
which case it is started again. A document that cannot be read or whose build fails for a
reason of its own is recorded in ``failures.jsonl`` and skipped: its questions fail with an
error that names that file. A build that fails for an infrastructure reason (the model server
down, the key refused: docqa.methods.errors decides) fails the job at once, keeping the partial
folder, so the rerun after the fix builds only the documents not built yet.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from docqa.backends import create_backend
from docqa.backends.cache import ResponseCache
from docqa.backends.client import ModelClient
from docqa.backends.model_spec import ModelSpec
from docqa.core.failures import Failure, write_failures
from docqa.methods.base import DocumentEnv
from docqa.methods.errors import classify
from docqa.methods.slideagent.build import KnowledgeSettings, build_knowledge
from docqa.methods.slideagent.knowledge import VERSION, knowledge_file, write_knowledge
from docqa.methods.store import DocumentStore
from docqa.runtime.checkpoint import fingerprint

log = logging.getLogger(__name__)

STAGE = "knowledge"
FINGERPRINT = ".fingerprint"


def build_dataset_knowledge(
    *,
    documents: Path,
    pages: Path,
    elements: Path,
    model_name: str,
    model: ModelSpec,
    settings: dict[str, Any],
    cache: Path,
    out: Path,
    concurrency: int = 4,
) -> None:
    """Build the knowledge of every readable document of ``documents`` into the folder ``out``
    with the configured model ``model_name``; ``settings`` are :class:`KnowledgeSettings`
    options. ``concurrency`` documents are built at once, so that a GPU backend batches their
    calls. The backend is created only when a document is left to build."""
    backend = None

    def client() -> ModelClient:
        nonlocal backend
        backend = create_backend(model.config, model.folder)
        return ModelClient(backend, ResponseCache(cache))

    try:
        build_knowledge_folder(
            documents=documents,
            pages=pages,
            elements=elements,
            client=client,
            model_name=model_name,
            settings=settings,
            identity={"model": model.config},
            out=out,
            concurrency=concurrency,
        )
    finally:
        if backend is not None:
            backend.close()


def build_knowledge_folder(
    *,
    documents: Path,
    pages: Path,
    elements: Path,
    client: Callable[[], ModelClient],
    model_name: str,
    settings: dict[str, Any],
    identity: dict[str, Any],
    out: Path,
    concurrency: int = 4,
) -> None:
    """:func:`build_dataset_knowledge` with the model client made by ``client`` (called once,
    when a document is left to build); ``identity`` (the model's config) goes into the
    fingerprint of the partial folder."""
    knowledge_settings = KnowledgeSettings(**settings)
    partial = out.with_name(out.name + ".partial")
    stamp = fingerprint(
        {"stage": STAGE, "version": VERSION, "knowledge": settings, **identity}, pages, elements
    )
    _prepare(partial, stamp)
    store = DocumentStore(documents, pages, elements, {}, {})
    failed: list[Failure] = []
    todo = []
    for doc_id, document in store.documents.items():
        if knowledge_file(partial, doc_id).exists():
            continue
        env = store.env(doc_id, ())
        if env is None:
            failed.append(
                _failure(
                    doc_id,
                    Path(document.path),
                    "the document has no rendered pages or no OCR",
                    "see the render and OCR failures.jsonl of the dataset and fix the document",
                )
            )
        else:
            todo.append(env)
    log.info("knowledge of %d of %d documents to build", len(todo), len(store.documents))
    if todo:
        failed += asyncio.run(
            _build_all(todo, client(), model_name, knowledge_settings, partial, concurrency)
        )
    for failure in failed:
        log.warning("skipped %s", failure.describe())
    write_failures(partial / "failures.jsonl", failed)
    (partial / FINGERPRINT).unlink()
    if out.exists():
        shutil.rmtree(out)
    partial.rename(out)


async def _build_all(
    envs: list[DocumentEnv],
    client: ModelClient,
    model_name: str,
    settings: KnowledgeSettings,
    folder: Path,
    concurrency: int,
) -> list[Failure]:
    gate = asyncio.Semaphore(concurrency)
    failed: list[Failure] = []
    held: list[str] = []  # documents that failed for an infrastructure reason

    async def build(env: DocumentEnv) -> None:
        async with gate:
            if held:
                return  # not started: the rerun builds it
            doc_id = env.document.doc_id
            try:
                knowledge = await build_knowledge(env, client, model_name, settings)
            except Exception as error:  # what it is, classify decides (docqa.methods.errors)
                error_of = classify(error)
                if error_of.infrastructure:
                    held.append(error_of.message)
                    return
                failed.append(
                    _failure(
                        doc_id,
                        Path(env.document.path),
                        error_of.message,
                        "fix the document or the model, then rerun the build_knowledge rule",
                    )
                )
                return
            write_knowledge(folder, knowledge)

    try:
        with tqdm(total=len(envs), desc="knowledge", unit="doc") as bar:
            for finished in asyncio.as_completed([build(env) for env in envs]):
                await finished
                bar.update()
    finally:
        await client.close()
    if held:
        raise KnowledgeInfrastructureFailure(held, folder)
    return failed


class KnowledgeInfrastructureFailure(RuntimeError):
    """The build_knowledge job failed because documents failed for an infrastructure reason;
    the message names the first error, where the built documents are kept and the fix."""

    def __init__(self, held: list[str], partial: Path) -> None:
        super().__init__(
            f"the knowledge of {len(held)} document(s) could not be built for an "
            f"infrastructure reason (first: {held[0]}); the job stops rather than record the "
            f"documents as failed. The documents built so far are kept in {partial}: fix the "
            "cause and rerun, and only the documents not built yet are built"
        )


def _prepare(partial: Path, stamp: str) -> None:
    """Keep a partial folder of the same settings and inputs; start any other one again."""
    marker = partial / FINGERPRINT
    if partial.exists() and not (marker.exists() and json.loads(marker.read_text()) == stamp):
        shutil.rmtree(partial)
    partial.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps(stamp) + "\n")


def _failure(doc_id: str, path: Path, error: str, fix: str) -> Failure:
    return Failure(stage=STAGE, doc_id=doc_id, path=str(path), error=error, fix=fix)
