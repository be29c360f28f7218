"""The infer stage: one method × one model over every question of a dataset.

Questions run concurrently (up to ``concurrency`` in flight) so that the model client can batch
their requests. Each finished prediction is checkpointed at once; a killed job resumes with the
questions it had not finished. A question that fails — its document could not be rendered, or
the method raised — is recorded as a prediction with ``error`` set and the job goes on.

A question that fails for an infrastructure reason (server down, key refused, cache corrupt,
out of memory after the retry: docqa.backends.errors) is not recorded: past
``max_infrastructure_errors`` such questions the job starts no new question, lets those in
flight finish and raises ``InfrastructureFailure``. Its answered questions stay in the
checkpoint, which lives outside Snakemake's outputs (docqa.runtime.checkpoint, ``keep``), so
the rerun after the fix asks only the failed and unstarted questions. At or under the threshold
they are recorded with ``error_kind`` "infrastructure" and the job succeeds.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from docqa.backends import create_backend
from docqa.backends.cache import ResponseCache
from docqa.backends.client import ModelClient
from docqa.backends.errors import DOCUMENT, INFRASTRUCTURE, error_kind
from docqa.core.document import Document, Page
from docqa.core.element import Element
from docqa.core.jsonl import read_jsonl
from docqa.core.prediction import Prediction, write_predictions
from docqa.core.question import Question
from docqa.core.trace import TraceStep
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv, Method, Models
from docqa.methods.document_set import env_over
from docqa.retrievers import RETRIEVERS
from docqa.runtime.checkpoint import Checkpoint, fingerprint
from docqa.stages.shards import Shard
from docqa.stages.text import load_page_texts

log = logging.getLogger(__name__)

#: environments over a set of documents kept built at once (DocumentStore.set_env)
KEPT_SETS = 64


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
        self._sets: OrderedDict[tuple[str, ...], DocumentEnv] = OrderedDict()
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

    def set_env(self, doc_ids: list[str], needed: tuple[str, ...]) -> DocumentEnv:
        """One environment over the documents ``doc_ids`` (each has an env). The last
        :data:`KEPT_SETS` sets are kept: a set copies its documents' elements onto its own page
        numbers, and most sets (MADQA's) belong to one question."""
        key = tuple(doc_ids)
        if key not in self._sets:
            envs = [self.env(doc_id, needed) for doc_id in doc_ids]
            self._sets[key] = env_over([env for env in envs if env is not None])
            while len(self._sets) > KEPT_SETS:
                self._sets.popitem(last=False)
        self._sets.move_to_end(key)
        return self._sets[key]

    def question_env(self, question: Question, needed: tuple[str, ...]) -> QuestionEnv:
        """The environment a question is answered in, or why it cannot be: its document's, its
        page window's, or, for a question over several documents, the set's. A set with some
        documents missing is answered over the others only when the question's tag
        ``missing_documents`` is ``answer`` (a dataset option); otherwise the question fails
        naming every missing document."""
        present = [d for d in question.documents if self.env(d, needed) is not None]
        missing = [d for d in question.documents if d not in present]
        allowed = question.tags.get("missing_documents", "fail") == "answer"
        if not present or (missing and not allowed):
            return QuestionEnv(None, missing)
        if len(present) == 1:
            env = self.env(present[0], needed)
            assert env is not None
            return QuestionEnv(env.within(question.page_window), missing)
        return QuestionEnv(self.set_env(present, needed), missing)

    def _elements(self, doc_id: str) -> list[Element]:
        """One document's OCR elements, read from its own line of the elements file."""
        offset = self._element_offsets.get(doc_id)
        if offset is None:
            return []
        with open(self.elements_file, "rb") as handle:
            handle.seek(offset)
            row = json.loads(handle.readline())
        return [Element.from_dict(element) for element in row["elements"]]


@dataclass(frozen=True)
class QuestionEnv:
    """A question's environment (``None`` when it cannot be answered) and its documents that
    have no pages."""

    env: DocumentEnv | None
    missing: list[str]


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
    max_infrastructure_errors: int = 0,
) -> None:
    """Answer every question of ``questions`` with the method; ``model`` is the run's model and
    ``role_models`` the models that the method's ``<role>_model`` options name; ``overviews``
    is the render stage's overviews.jsonl, if the methods are to see the overview grids;
    ``shard`` picks one block of the questions (docqa.stages.shards). Timings go beside ``out``.
    ``knowledge`` is the build_knowledge folder of the (dataset, model), handed to a method that
    reads one (slideagent) as its ``knowledge_dir`` option. More than
    ``max_infrastructure_errors`` questions failed for an infrastructure reason raise
    ``InfrastructureFailure`` (module docstring)."""
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
        out, fingerprint(settings, questions, elements, *known), key="question_id", keep=True
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
            held = asyncio.run(
                _answer_all(
                    todo, method, store, models, checkpoint, failures, concurrency,
                    max_infrastructure_errors,
                )
            )  # fmt: skip
        except BaseException:
            checkpoint.close()
            raise
        finally:
            for backend in backends:
                backend.close()
        if len(held) > max_infrastructure_errors or len(held) + len(checkpoint.rows) < len(
            all_questions
        ):
            checkpoint.close()
            raise InfrastructureFailure(held, len(all_questions), checkpoint.partial)
        for prediction in held:  # under the threshold: recorded like other errors
            checkpoint.append(prediction.to_dict())
    write_predictions(out, checkpoint.finish(q.question_id for q in all_questions))


async def _answer_all(
    todo: list[Question],
    method: Method,
    store: DocumentStore,
    models: Models,
    checkpoint: Checkpoint,
    failures: Path,
    concurrency: int,
    max_infrastructure_errors: int = 0,
) -> list[Prediction]:
    """Answer ``todo`` into the checkpoint; returns the questions that failed for an
    infrastructure reason, which are not checkpointed. Past ``max_infrastructure_errors`` of
    them no new question starts (a server that is down would fail every one, slowly)."""
    gate = asyncio.Semaphore(concurrency)
    held: list[Prediction] = []

    async def answer(question: Question) -> Prediction | None:
        async with gate:
            if len(held) > max_infrastructure_errors:
                return None  # not started: the rerun asks it
            try:  # one broken question must not stop the job
                # a question with a page window reads and retrieves only inside it
                found = store.question_env(question, method.retrievers)
                if found.env is None:
                    error = "; ".join(
                        missing_document_error(doc_id, store, failures) for doc_id in found.missing
                    )
                    if question.over_several:
                        error = (
                            f"missing documents {found.missing} of {question.documents}: {error}"
                        )
                    return Prediction(question.question_id, "", error=error, error_kind=DOCUMENT)
                prediction = await method.answer(question, found.env, models)
                if question.over_several:
                    return over_documents(prediction, found.env, found.missing)
                return prediction
            except Exception as error:
                log.warning("question %s failed: %r", question.question_id, error)
                message = f"{type(error).__name__}: {error}"
                return Prediction(
                    question.question_id, "", error=message, error_kind=error_kind(error)
                )

    def record(prediction: Prediction) -> None:
        """Record one answer. A row that cannot be written (whatever a method put in it) is
        recorded as that question's error: nothing a question produced stops the job."""
        try:
            replaced = checkpoint.append(prediction.to_dict())
            if replaced:
                log.warning(
                    "question %s: %d characters that UTF-8 cannot carry were replaced",
                    prediction.question_id,
                    replaced,
                )
        except Exception as error:
            log.warning(
                "question %s: its answer could not be recorded: %r", prediction.question_id, error
            )
            if not checkpoint.done(prediction.question_id):
                message = f"{type(error).__name__}: {error}"
                checkpoint.append(Prediction(prediction.question_id, "", error=message).to_dict())

    try:
        with tqdm(total=len(todo), desc="questions", unit="q") as bar:
            for finished in asyncio.as_completed([answer(q) for q in todo]):
                prediction = await finished
                if prediction is not None and prediction.error_kind == INFRASTRUCTURE:
                    held.append(prediction)
                elif prediction is not None:
                    record(prediction)
                bar.update()
    finally:
        for client in (models.main, *models.roles.values()):
            await client.close()
    return held


def over_documents(prediction: Prediction, env: DocumentEnv, missing: list[str]) -> Prediction:
    """A set's prediction with its pages named by document (``page_refs``), and a first trace
    step that maps the set's page numbers, which the method's own steps use, to documents."""
    documents: TraceStep = {
        "step": "documents",
        "documents": [
            {"label": m.label, "doc_id": m.document.doc_id, "first_page": m.start, "pages": m.pages}
            for m in env.members
        ]
        or [{"label": "", "doc_id": env.document.doc_id, "first_page": 0, "pages": len(env.pages)}],
        "missing": missing,
    }
    return replace(
        prediction,
        pages=[],
        page_refs=[env.locate(page) for page in prediction.pages],
        trace=[documents, *prediction.trace],
    )


def missing_document_error(doc_id: str, store: DocumentStore, failures: Path) -> str:
    """Why a question's document has no pages: the failure that the render stage (``failures``)
    or the text stage (its failures file beside the elements) recorded for it, or, when neither
    did, that the dataset has no such document."""
    text = store.elements_file.parent
    for path in (
        failures,
        text / "failures.jsonl",
        text / f"{store.elements_file.stem}.failures.jsonl",
    ):
        for row in read_jsonl(path) if path.exists() else ():
            if row.get("doc_id") == doc_id:
                return (
                    f"document {doc_id} could not be read ({row['stage']}: {row['error']}); "
                    f"fix: {row['fix']} (recorded in {path})"
                )
    if doc_id not in store.documents:
        return (
            f"document {doc_id} is not in the dataset: the question names a document that "
            "documents.jsonl does not list; check the dataset's files (a missing or renamed "
            "document) and rerun prepare_dataset"
        )
    return (
        f"document {doc_id} has no rendered pages or OCR text, and no failures file records "
        "it; rerun the render and OCR jobs of the dataset"
    )


class InfrastructureFailure(RuntimeError):
    """The infer job failed because questions failed for an infrastructure reason; the message
    names the first error, the counts, where the answered questions are kept and the fix."""

    def __init__(self, held: list[Prediction], total: int, checkpoint: Path) -> None:
        self.held = held
        first = held[0].error if held else "none"
        super().__init__(
            f"{len(held)} question(s) failed for an infrastructure reason (first: {first}); "
            f"the job stops rather than score them as wrong answers. The questions answered "
            f"so far are kept in {checkpoint}: fix the cause and rerun, and only the "
            f"questions not answered yet are asked (of {total}). To record such failures as "
            f"errors instead, raise infer.max_infrastructure_errors in the config"
        )
