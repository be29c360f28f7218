"""The infer stage: one method × one model over every question of a dataset.

Questions run concurrently (up to ``concurrency`` in flight) so that the model client can batch
their requests. Each finished prediction is checkpointed at once; a killed job resumes with the
questions it had not finished. A question that fails — its document could not be rendered, or
the method raised for a reason of the question (docqa.methods.errors decides) — is recorded as
a prediction with ``error`` set, with the trace the method kept, and the job goes on.

A question that fails for an infrastructure reason (server down, key refused, cache corrupt,
out of memory after the retry: docqa.methods.errors) is not recorded: past
``max_infrastructure_errors`` such questions the job starts no new question, lets those in
flight finish and raises ``InfrastructureFailure``. Its answered questions stay in the
checkpoint, which lives outside Snakemake's outputs (docqa.runtime.checkpoint, ``keep``), so
the rerun after the fix asks only the failed and unstarted questions. At or under the threshold
they are recorded with ``error_kind`` "infrastructure" and the job succeeds.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from docqa.backends import create_backend
from docqa.backends.cache import ResponseCache
from docqa.backends.client import ModelClient
from docqa.backends.model_spec import ModelSpec
from docqa.core.error_kinds import DOCUMENT, INFRASTRUCTURE
from docqa.core.jsonl import read_jsonl
from docqa.core.prediction import Prediction, write_predictions
from docqa.core.question import Question
from docqa.core.trace import TraceStep
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv, Method, Models
from docqa.methods.errors import classify
from docqa.methods.partial import PartialAnswer
from docqa.methods.store import DocumentStore
from docqa.runtime.checkpoint import Checkpoint, fingerprint
from docqa.stages.shards import Shard

log = logging.getLogger(__name__)


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
            try:
                return await answer_question(question, method, store, models, failures)
            except Exception as error:  # what it is, classify decides (docqa.methods.errors)
                failed = classify(error)
                log.warning("question %s failed: %s", question.question_id, failed.message)
                return failed.prediction(question.question_id)

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


async def answer_question(
    question: Question, method: Method, store: DocumentStore, models: Models, failures: Path
) -> Prediction:
    """The method's prediction for ``question``, or the error prediction of a question whose
    documents have no pages; whatever the method raised goes up to the caller, with the trace
    it kept (:class:`PartialAnswer`) named by document for a question over several."""
    # a question with a page window reads and retrieves only inside it
    found = store.question_env(question, method.retrievers)
    if found.env is None:
        error = "; ".join(
            missing_document_error(doc_id, store, failures) for doc_id in found.missing
        )
        if question.over_several:
            error = f"missing documents {found.missing} of {question.documents}: {error}"
        return Prediction(question.question_id, "", error=error, error_kind=DOCUMENT)
    if not question.over_several:
        return await method.answer(question, found.env, models)
    try:
        prediction = await method.answer(question, found.env, models)
    except PartialAnswer as failed:
        partial = over_documents(failed.partial, found.env, found.missing)
        raise PartialAnswer(partial, failed.error) from failed.error
    return over_documents(prediction, found.env, found.missing)


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
