"""Every registered method runs end to end through the infer stage's entry
(:func:`docqa.stages.infer.run_inference`) on a tiny on-disk dataset: once on a tiny random VLM and
once (slow) on the embedded default, Gemma 3 270M. Every question must get a prediction without
an error.

The methods come from the registry, so a method added later is picked up here; it needs a
minimal config in ``CONFIGS`` (a registered type without one fails, naming what to add).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.stage_files import QUESTIONS, write_stage_files
from helpers.tiny_encoders import tiny_colpali
from helpers.tiny_models import build_tiny_vlm, tiny_model_entry

from docqa.backends.model_spec import ModelSpec
from docqa.backends.preparation import prepare_model
from docqa.core.document import Document
from docqa.core.jsonl import read_jsonl, write_jsonl
from docqa.core.prediction import Prediction
from docqa.core.question import Question, documents_fields
from docqa.methods import METHODS
from docqa.stages.index import build_indexes
from docqa.stages.infer import run_inference
from docqa.workflow.snakefile import retriever_names

#: method type -> minimal configs (small top-k, few steps, few new tokens) to run it with
CONFIGS: dict[str, list[dict[str, Any]]] = {
    "text_rag": [{"retriever": "bm25", "top_k": 2, "max_new_tokens": 8}],
    "oracle_pages": [{"max_new_tokens": 8}],
    "mdocagent": [
        {"text_retriever": "bm25", "image_retriever": "colpali", "top_k": 1, "max_new_tokens": 8}
    ],
    "docpilot": [{"max_steps": 2, "orchestrator_tokens": 24}],
    "vanilla": [
        {"mode": "pages", "max_pages": 2, "max_new_tokens": 8},
        {"mode": "grids", "max_images": 1, "max_pixels": 64 * 64, "max_new_tokens": 8},
    ],
    "image_rag": [{"retriever": "colpali", "top_k": 2, "max_new_tokens": 8}],
    "slideagent": [
        {
            "retriever": "bm25",
            "top_k": 2,
            "single_image": True,
            "answer_tokens": 8,
            "subquery_tokens": 16,
            "classifier_tokens": 4,
        }
    ],
}
#: the questions asked: one about a deck with text on every page, one whose deck has a page
#: without OCR text (its evidence), and one over both decks (pages named by document)
OVER_BOTH = Question(
    question_id="q5",
    question="What was the revenue in the north?",
    answer="120",
    answer_format="Int",
    **documents_fields(["deck-b", "deck-a"], [("deck-a", 1)]),
)
ASKED = [q for q in QUESTIONS if q.question_id in ("q1", "q3")] + [OVER_BOTH]

METHODS.load_all()
METHOD_TYPES = sorted(METHODS.names())


def configs_of(method_type: str, tmp_path: Path) -> list[dict[str, Any]]:
    if method_type not in CONFIGS:
        pytest.fail(
            f"method type {method_type!r} is registered but has no minimal config: add it to "
            "CONFIGS in tests/methods/test_every_method.py"
        )
    # the folders a method writes to (crops, page grids), inside the test's folder
    folders = {
        "crops_dir": str(tmp_path / "crops"),
        "images_dir": str(tmp_path / "images"),
        "grids_dir": str(tmp_path / "grids"),
    }
    accepted = METHODS.options(method_type).model_fields
    written = {key: value for key, value in folders.items() if key in accepted}
    return [{"type": method_type, **config, **written} for config in CONFIGS[method_type]]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two decks (one page without text) in the data, render and OCR stages' files, with BM25
    and tiny random ColPali indexes as the index stage writes them."""
    folder = tmp_path_factory.mktemp("dataset")
    files = write_stage_files(folder)
    write_jsonl(files["questions"], (q.to_dict() for q in ASKED))
    files["documents"] = folder / "documents.jsonl"
    pages = list(read_jsonl(files["pages"]))
    write_jsonl(
        files["documents"],
        (
            Document(doc_id, f"{doc_id}.pdf", sum(p["doc_id"] == doc_id for p in pages)).to_dict()
            for doc_id in dict.fromkeys(p["doc_id"] for p in pages)
        ),
    )
    retrievers = {
        "bm25": {"type": "bm25"},
        "colpali": {"type": "colpali", "model": str(tiny_colpali(folder / "colpali"))},
    }
    for name, entry in retrievers.items():
        build_indexes(entry, files["pages"], files["elements"], folder / "index" / name)
    return {"files": files, "retrievers": retrievers, "index": folder / "index"}


def run_every_config(
    method_type: str, dataset: dict[str, Any], model: ModelSpec, tmp_path: Path
) -> None:
    files = dataset["files"]
    for number, config in enumerate(configs_of(method_type, tmp_path)):
        out = tmp_path / f"{method_type}-{number}" / "predictions.jsonl"
        out.parent.mkdir()
        needed = retriever_names(config)
        run_inference(
            questions=files["questions"],
            documents=files["documents"],
            pages=files["pages"],
            elements=files["elements"],
            index_dirs={name: dataset["index"] / name for name in needed},
            failures=tmp_path / "failures.jsonl",
            method_config=config,
            retriever_configs={name: dataset["retrievers"][name] for name in needed},
            model=model,
            role_models={},
            cache=tmp_path / "cache.sqlite",
            out=out,
            concurrency=4,
        )
        predictions = [Prediction.from_dict(row) for row in read_jsonl(out)]
        assert sorted(p.question_id for p in predictions) == sorted(q.question_id for q in ASKED)
        for prediction in predictions:
            assert prediction.error == "", f"{config}: {prediction.question_id}: {prediction.error}"
            assert prediction.usage.calls >= 1, config
            assert prediction.trace, config
            # every call is kept whole in the step that made it: prompt, reply, finish reason
            calls = [call for step in prediction.trace for call in step.get("calls", [])]
            assert len(calls) == prediction.usage.calls, config
            assert all(call["messages"] and "finish_reason" in call for call in calls), config
        over_both = next(p for p in predictions if p.question_id == OVER_BOTH.question_id)
        assert over_both.pages == [], config  # named by document instead
        assert {doc for doc, _ in over_both.page_refs} <= {"deck-a", "deck-b"}, config
        documents = over_both.trace[0]
        assert documents["step"] == "documents", config
        assert [d["doc_id"] for d in documents["documents"]] == ["deck-b", "deck-a"], config


@pytest.fixture(scope="module")
def tiny_vlm(tmp_path_factory: pytest.TempPathFactory) -> ModelSpec:
    folder = tmp_path_factory.mktemp("tiny-vlm")
    entry = tiny_model_entry(build_tiny_vlm("qwen2_5_vl", folder / "weights"))
    prepare_model("tiny-qwen2.5-vl", entry, folder / "prepared")
    return ModelSpec(entry, folder / "prepared")


@pytest.fixture(scope="module")
def gemma(tmp_path_factory: pytest.TempPathFactory) -> ModelSpec:
    """Gemma 3 270M, prepared once for the module (about two minutes)."""
    folder = tmp_path_factory.mktemp("models") / "gemma3-270m"
    prepare_model("gemma3-270m", {"backend": "embedded"}, folder)
    return ModelSpec({"backend": "embedded", "threads": 2}, folder)


def test_every_registered_method_has_a_minimal_config() -> None:
    assert set(METHOD_TYPES) <= set(CONFIGS), (
        f"add minimal configs for {sorted(set(METHOD_TYPES) - set(CONFIGS))} to CONFIGS"
    )


@pytest.mark.parametrize("method_type", METHOD_TYPES)
def test_the_method_runs_end_to_end_on_a_tiny_random_vlm(
    method_type: str, dataset: dict[str, Any], tiny_vlm: ModelSpec, tmp_path: Path
) -> None:
    run_every_config(method_type, dataset, tiny_vlm, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("method_type", METHOD_TYPES)
def test_the_method_runs_end_to_end_on_the_embedded_default(
    method_type: str, dataset: dict[str, Any], gemma: ModelSpec, tmp_path: Path
) -> None:
    run_every_config(method_type, dataset, gemma, tmp_path)
