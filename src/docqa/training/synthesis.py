"""Trajectory synthesis: the ``docpilot`` method, driven by a teacher, over training questions.

Each training question (it must have a gold answer and evidence pages: the teacher is
conditioned on them, and filtering checks against them) is answered once by the method with
the teacher as its model. One row per question goes to ``trajectories.jsonl``: the question,
the method's prediction (its trace records every step and the closing summary) and every call
the teacher answered, in order, as the student will see it. The orchestrator's calls are the
multi-ability trajectory; every other call is a single-ability trace (one ability's input and
the teacher's output for it). Both modes come from the same runs: the ability calls are made
in the environment, on the pages the trajectory navigated to, with the teacher knowing the
evidence (the paper's "data-grounded reasoning traces").

Questions are answered one at a time (the teacher's note is per question); a question whose
run fails is written with its error and later dropped by filtering (reason ``run_error``), and
a run that fails for an infrastructure reason (the teacher's server down, its key refused:
docqa.methods.errors) fails the job.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from docqa.backends import create_backend
from docqa.backends.client import ModelClient
from docqa.backends.model_spec import ModelSpec
from docqa.core.jsonl import read_jsonl
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.methods import METHODS, create_method
from docqa.methods.base import DocumentEnv, Models
from docqa.methods.errors import classify
from docqa.methods.store import DocumentStore
from docqa.training.teacher import Teacher

log = logging.getLogger(__name__)


def usable(question: Question) -> bool:
    """A training question needs a gold answer and gold evidence pages, in one document: the
    teacher's reference note and the filters name pages of one document (a question over
    several documents is counted under ``over_several_documents`` and left out)."""
    return bool(question.answer) and bool(question.evidence) and not question.over_several


def synthesize(
    *,
    questions: Path,
    documents: Path,
    pages: Path,
    elements: Path,
    overviews: Path | None,
    method_config: dict[str, Any],
    teacher: ModelSpec,
    out: Path,
    max_questions: int | None = None,
) -> dict[str, int]:
    """Write one trajectory row per usable question to ``out``; returns counts."""
    if not METHODS.get(method_config["type"]).trajectory_training:
        raise ValueError(
            f"synthesize_trajectories runs a method that declares trajectory_training, not "
            f"{method_config['type']!r}: set training.<name>.method to a docpilot method entry"
        )
    rows = [Question.from_dict(row) for row in read_jsonl(questions)]
    chosen = [q for q in rows if usable(q)][:max_questions]
    several = sum(q.over_several for q in rows)
    counts = {
        "questions": len(rows),
        "without_gold": sum(not usable(q) and not q.over_several for q in rows),
        "over_several_documents": several,
    }
    if several:
        log.warning(
            "%d question(s) over several documents left out: trajectories are synthesized for "
            "one-document questions only",
            several,
        )
    method = create_method(method_config)
    store = DocumentStore(documents, pages, elements, {}, {}, overviews)
    inner = create_backend(teacher.config, teacher.folder)
    tutor = Teacher(inner)
    out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    try:
        with out.open("w") as handle:
            for question in chosen:
                row = asyncio.run(_one(question, method, store, tutor))
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
                written += 1
    finally:
        tutor.close()
    counts["trajectories"] = written
    log.info("synthesized %d trajectories (%s)", written, counts)
    return counts


async def _one(question: Question, method: Any, store: DocumentStore, tutor: Teacher) -> dict:
    return await run_question(question, store.env(question.doc_id, ()), method, tutor)


async def run_question(
    question: Question, env: DocumentEnv | None, method: Any, tutor: Teacher
) -> dict[str, Any]:
    """One question's trajectory row: the method run with the teacher told its reference."""
    tutor.question, tutor.calls = question, []
    client = ModelClient(tutor)
    try:
        if env is None:
            prediction = Prediction(question.question_id, "", error="document not readable")
        else:
            prediction = await method.answer(question, env, Models(client))
    except Exception as error:  # what it is, classify decides (docqa.methods.errors)
        failed = classify(error)
        if failed.infrastructure:
            raise  # the teacher's server or key: no trajectory is worth writing
        log.warning("question %s failed: %s", question.question_id, failed.message)
        prediction = failed.prediction(question.question_id)
    finally:
        await client.close()
    return {
        "question": question.to_dict(),
        "prediction": prediction.to_dict(),
        "calls": [call.to_dict() for call in tutor.calls],
        "teacher": tutor.inner.identity,
    }
