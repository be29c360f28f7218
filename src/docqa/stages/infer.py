"""The infer stage: one method × one model over every question of a dataset.

Questions run concurrently (up to ``concurrency`` in flight) so that the model client can batch
their requests. Each finished prediction is checkpointed at once; a killed job resumes with the
questions it had not finished. A question that fails — its document could not be rendered, or
the method raised — is recorded as a prediction with ``error`` set and the job goes on.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from docqa.backends import create_backend
from docqa.backends.cache import ResponseCache
from docqa.backends.client import ModelClient
from docqa.core.document import Document, Page
from docqa.core.element import Element
from docqa.core.jsonl import read_jsonl
from docqa.core.prediction import Prediction, write_predictions
from docqa.core.question import Question
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv, Method, Models
from docqa.retrievers import RETRIEVERS
from docqa.runtime.checkpoint import Checkpoint, fingerprint
from docqa.stages.ocr import load_page_texts
from docqa.stages.shards import Shard

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelSpec:
    """A configured model: its config entry and the folder its prepare_model job wrote."""

    config: dict[str, Any]
    folder: Path


class DocumentStore:
    """Builds each document's environment once, on first use."""

    def __init__(
        self,
        documents: Path,
        pages: Path,
        elements: Path,
        index_dirs: dict[str, Path],
        retrievers: dict[str, dict[str, Any]],
        overviews: Path | None = None,
    ) -> None:
        self.documents = {row["doc_id"]: Document.from_dict(row) for row in read_jsonl(documents)}
        self.pages: dict[str, list[Page]] = {}
        for row in read_jsonl(pages):
            page = Page.from_dict(row)
            self.pages.setdefault(page.doc_id, []).append(page)
        self.texts = load_page_texts(elements, pages)
        self.elements_file = elements
        self._element_offsets = _line_offsets(elements)
        self.index_dirs = index_dirs
        self.retrievers = retrievers
        self.overviews: dict[str, list[dict[str, Any]]] = {}
        for row in read_jsonl(overviews) if overviews else ():
            self.overviews.setdefault(row["doc_id"], []).append(row)
        self._envs: dict[str, DocumentEnv] = {}
        self._retrievers: dict[str, Any] = {}

    def retriever(self, name: str) -> Any:
        """The configured retriever ``name``, built once and shared by every document."""
        if name not in self._retrievers:
            options = dict(self.retrievers[name])
            self._retrievers[name] = RETRIEVERS.get(options.pop("type"))(**options)
        return self._retrievers[name]

    def prepare_queries(self, names: tuple[str, ...], queries: list[str]) -> None:
        """Let each retriever that can (``prepare_queries``) encode the job's queries at once."""
        for name in names:
            prepare = getattr(self.retriever(name), "prepare_queries", None)
            if prepare is not None:
                prepare(queries)

    def env(self, doc_id: str, needed: tuple[str, ...]) -> DocumentEnv | None:
        if doc_id not in self.pages or doc_id not in self.texts:
            return None
        if doc_id not in self._envs:
            searchers = {
                name: self.retriever(name).load(self.index_dirs[name] / doc_id) for name in needed
            }
            pages = sorted(self.pages[doc_id], key=lambda p: p.index)
            self._envs[doc_id] = DocumentEnv(
                self.documents[doc_id],
                pages,
                self.texts[doc_id],
                searchers,
                self._elements(doc_id),
                self.overviews.get(doc_id, []),
            )
        return self._envs[doc_id]

    def _elements(self, doc_id: str) -> list[Element]:
        """One document's OCR elements, read from its own line of the elements file."""
        offset = self._element_offsets.get(doc_id)
        if offset is None:
            return []
        with open(self.elements_file, "rb") as handle:
            handle.seek(offset)
            row = json.loads(handle.readline())
        return [Element.from_dict(element) for element in row["elements"]]


def _line_offsets(path: Path) -> dict[str, int]:
    """doc_id → byte offset of its line in a one-line-per-document JSONL file."""
    offsets = {}
    with open(path, "rb") as handle:
        offset = handle.tell()
        for line in iter(handle.readline, b""):
            if line.strip():
                offsets[json.loads(line)["doc_id"]] = offset
            offset = handle.tell()
    return offsets


def run_inference(
    *,
    questions: Path,
    documents: Path,
    pages: Path,
    elements: Path,
    index_dirs: dict[str, Path],
    failures: Path,
    method_config: dict[str, Any],
    retriever_configs: dict[str, dict[str, Any]],
    model: ModelSpec,
    role_models: dict[str, ModelSpec],
    cache: Path,
    out: Path,
    concurrency: int = 32,
    overviews: Path | None = None,
    shard: Shard = Shard(),
    knowledge: Path | None = None,
) -> None:
    """Answer every question of ``questions`` with the method; ``model`` is the run's model and
    ``role_models`` the models that the method's ``<role>_model`` options name; ``overviews``
    is the render stage's overviews.jsonl, if the methods are to see the overview grids;
    ``shard`` picks one block of the questions (docqa.stages.shards). Timings go beside ``out``.
    ``knowledge`` is the build_knowledge folder of the (dataset, model), handed to a method that
    reads one (slideagent) as its ``knowledge_dir`` option."""
    all_questions = shard.select([Question.from_dict(row) for row in read_jsonl(questions)])
    settings = {
        "method": method_config,
        "model": model.config,
        "roles": {role: spec.config for role, spec in role_models.items()},
        **({"shard": shard.name} if shard.count > 1 else {}),
    }
    # a rebuilt knowledge base invalidates the answers checkpointed from the old one
    known = sorted(knowledge.glob("*.json")) if knowledge else []
    checkpoint = Checkpoint(
        out, fingerprint(settings, questions, elements, *known), key="question_id"
    )
    todo = [q for q in all_questions if not checkpoint.done(q.question_id)]
    if todo:
        log.info("%d of %d questions to answer", len(todo), len(all_questions))
        method = create_method(
            {**method_config, "knowledge_dir": str(knowledge)} if knowledge else method_config
        )
        store = DocumentStore(documents, pages, elements, index_dirs, retriever_configs, overviews)
        store.prepare_queries(method.retrievers, [question.question for question in todo])
        responses = ResponseCache(cache)
        backends = []
        try:
            clients = {}
            for role, spec in {"": model, **role_models}.items():
                backends.append(create_backend(spec.config, spec.folder))
                clients[role] = ModelClient(backends[-1], responses)
            models = Models(clients.pop(""), clients)
            asyncio.run(_answer_all(todo, method, store, models, checkpoint, failures, concurrency))
        finally:
            for backend in backends:
                backend.close()
    write_predictions(out, checkpoint.finish(q.question_id for q in all_questions))


async def _answer_all(
    todo: list[Question],
    method: Method,
    store: DocumentStore,
    models: Models,
    checkpoint: Checkpoint,
    failures: Path,
    concurrency: int,
) -> None:
    gate = asyncio.Semaphore(concurrency)

    async def answer(question: Question) -> Prediction:
        async with gate:
            try:  # one broken question must not stop the job
                env = store.env(question.doc_id, method.retrievers)
                if env is None:
                    error = f"document {question.doc_id} could not be read; see {failures}"
                    return Prediction(question.question_id, "", error=error)
                # a question with a page window reads and retrieves only inside it
                return await method.answer(question, env.within(question.page_window), models)
            except Exception as error:
                log.warning("question %s failed: %r", question.question_id, error)
                message = f"{type(error).__name__}: {error}"
                return Prediction(question.question_id, "", error=message)

    try:
        with tqdm(total=len(todo), desc="questions", unit="q") as bar:
            for finished in asyncio.as_completed([answer(q) for q in todo]):
                prediction = await finished
                checkpoint.append(prediction.to_dict())
                bar.update()
    finally:
        for client in (models.main, *models.roles.values()):
            await client.close()
