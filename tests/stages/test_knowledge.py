"""The knowledge stage (docqa.stages.knowledge, rule build_knowledge):
one knowledge file per document,
failures recorded and skipped, a killed build resumed without redoing finished documents, other
settings starting again, one build per (dataset, model) in the DAG, and the infer stage handing
the folder to slideagent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.slideagent_script import QUESTION, SlideScript, build

from docqa.backends.errors import InfrastructureError
from docqa.core.jsonl import write_jsonl
from docqa.methods.base import DocumentEnv
from docqa.methods.slideagent.knowledge import read_knowledge
from docqa.stages.knowledge import KnowledgeInfrastructureFailure

DOCS = ("acme", "acme-copy")


def write_stage_inputs(env: DocumentEnv, folder: Path) -> dict[str, Path]:
    """documents/pages/elements files of two readable copies of the acme deck and one document
    whose rendering failed (no pages, no OCR)."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {name: folder / f"{name}.jsonl" for name in ("documents", "pages", "elements")}
    documents = [{**env.document.to_dict(), "doc_id": doc} for doc in DOCS]
    documents.append({**env.document.to_dict(), "doc_id": "broken"})
    write_jsonl(files["documents"], documents)
    write_jsonl(files["pages"], [{**p.to_dict(), "doc_id": doc} for doc in DOCS for p in env.pages])
    write_jsonl(
        files["elements"],
        [
            {"doc_id": doc, "elements": [{**e.to_dict(), "doc_id": doc} for e in env.elements]}
            for doc in DOCS
        ],
    )
    return files


def test_each_document_gets_its_knowledge_and_a_broken_one_is_recorded(
    acme: DocumentEnv, tmp_path: Path
) -> None:
    files = write_stage_inputs(acme, tmp_path / "inputs")
    out = tmp_path / "knowledge" / "scripted"
    build(files, SlideScript(), out, global_pages=2)
    assert sorted(p.name for p in out.iterdir()) == [
        "acme-copy.json",
        "acme.json",
        "failures.jsonl",
    ]
    knowledge = read_knowledge(out, "acme")
    assert knowledge.model == "scripted"
    assert len(knowledge.pages) == len(acme.pages)
    assert knowledge.global_knowledge.startswith("Acme's 2023 annual report")
    assert knowledge.elements
    assert knowledge.usage.calls == 2 + 2 * len(acme.pages)
    [failure] = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert failure["doc_id"] == "broken"
    assert "render and OCR failures" in failure["fix"]
    assert not out.with_name("scripted.partial").exists()


def test_a_document_whose_build_fails_is_skipped_with_its_error(
    acme: DocumentEnv, tmp_path: Path
) -> None:
    files = write_stage_inputs(acme, tmp_path / "inputs")
    out = tmp_path / "knowledge"
    build(files, SlideScript({"refine": RuntimeError("out of memory")}), out)
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert {f["doc_id"] for f in failures} == {"broken", *DOCS}
    assert all("out of memory" in f["error"] for f in failures if f["doc_id"] in DOCS)


def test_an_infrastructure_error_fails_the_build_and_keeps_the_partial_folder(
    acme: DocumentEnv, tmp_path: Path
) -> None:
    """A server that is down says nothing about the documents: no document is recorded as
    failed, the job fails naming the error, and the partial folder stays for the rerun."""
    files = write_stage_inputs(acme, tmp_path / "inputs")
    out = tmp_path / "knowledge"
    down = InfrastructureError("model m: no answer from http://127.0.0.1:9/v1; start it")
    with pytest.raises(KnowledgeInfrastructureFailure) as failed:
        build(files, SlideScript({"refine": down}), out)
    message = str(failed.value)
    assert "1 document(s) could not be built for an infrastructure reason" in message
    assert "InfrastructureError: model m: no answer from http://127.0.0.1:9/v1" in message
    assert str(out.with_name("knowledge.partial")) in message
    assert not out.exists()
    assert not (out.with_name("knowledge.partial") / "failures.jsonl").exists()


#: a build whose second document hangs until the test kills the process
KILLED_BUILD = """
import json, sys, time
from pathlib import Path
from helpers.slideagent_script import SlideScript, build
refined = []
def refine(request):
    refined.append(request)
    if len(refined) == 2:
        time.sleep(600)
    return " Refined."
files = {name: Path(path) for name, path in json.loads(sys.argv[1]).items()}
build(files, SlideScript({"refine": refine}), Path(sys.argv[2]))
"""


def test_a_killed_build_resumes_and_other_settings_start_again(
    acme: DocumentEnv, tmp_path: Path
) -> None:
    files = write_stage_inputs(acme, tmp_path / "inputs")
    out = tmp_path / "knowledge"
    partial = out.with_name(out.name + ".partial")
    path = [str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH", "")]  # + helpers
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_BUILD, json.dumps({k: str(v) for k, v in files.items()})]
        + [str(out)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(path)},
    )
    try:
        deadline = time.monotonic() + 300
        while not list(partial.glob("acme*.json")):
            assert child.poll() is None, "the build ended before it was killed"
            assert time.monotonic() < deadline, "the first document was never written"
            time.sleep(0.2)
    finally:
        child.kill()
        child.wait()
    [finished] = [p.name for p in partial.glob("*.json")]  # the other document hung
    assert not out.exists()

    resumed = SlideScript()
    build(files, resumed, out)
    assert resumed.agents().count("global") == 1  # only acme-copy was built
    kept = read_knowledge(out, finished.removesuffix(".json"))
    assert kept.global_knowledge == "Refined."  # written by the killed job, not rebuilt
    assert not partial.exists()

    # a partial folder left by other settings (its fingerprint differs) is started again
    partial.mkdir()
    shutil.copy(out / finished, partial / finished)
    (partial / ".fingerprint").write_text('"other settings"\n')
    again = SlideScript()
    build(files, again, out)
    assert again.agents().count("global") == 2


def test_the_dag_builds_knowledge_once_per_dataset_and_model(tmp_path: Path) -> None:
    """Two slideagent variants share one build_knowledge job per model; a second model has its
    own; other methods do not wait for any knowledge."""
    from helpers.workflow import default_config, snakemake, workflow_copy

    config = default_config("methods")
    config["models"]["gemma3-270m-copy"] = {**config["models"]["gemma3-270m"], "max_batch_size": 4}
    config["experiments"] = [
        {
            "datasets": ["synthslides"],
            "methods": ["slideagent", "slideagent_without_page", "text_rag_top1"],
            "models": ["gemma3-270m", "gemma3-270m-copy"],
        }
    ]
    work = workflow_copy(tmp_path, config)
    runs = [
        f"results/runs/synthslides/{method}/{model}/predictions.jsonl"
        for method in ("slideagent", "slideagent_without_page", "text_rag_top1")
        for model in ("gemma3-270m", "gemma3-270m-copy")
    ]
    dry = snakemake(work, "-n", "--nolock", *runs, timeout=300)
    assert dry.returncode == 0, dry.stderr[-3000:]
    jobs = []  # (rule, {field: value}) of each planned job
    for block in dry.stdout.split("\nrule ")[1:]:
        lines = block.split("Shell command")[0].splitlines()
        fields = dict(line.strip().split(": ", 1) for line in lines[1:] if ": " in line)
        jobs.append((lines[0].rstrip(":"), fields))
    built = sorted(fields["output"] for rule, fields in jobs if rule == "build_knowledge")
    assert built == [
        "results/knowledge/synthslides/gemma3-270m",
        "results/knowledge/synthslides/gemma3-270m-copy",
    ]
    infers = [fields for rule, fields in jobs if rule == "infer"]
    assert len(infers) == 6
    for fields in infers:
        model = fields["wildcards"].split("model=")[1]
        if "method=text_rag_top1" in fields["wildcards"]:
            assert "results/knowledge" not in fields["input"]
        else:
            assert fields["input"].endswith(f"results/knowledge/synthslides/{model}")


@pytest.mark.slow
def test_the_infer_stage_hands_the_knowledge_folder_to_slideagent(
    acme: DocumentEnv, tmp_path: Path
) -> None:
    """run_inference with a knowledge folder: slideagent reads it, and no knowledge agent runs
    on the run's model (a tiny random VLM)."""
    from helpers.tiny_models import build_tiny_vlm, tiny_model_entry

    from docqa.backends.model_spec import ModelSpec
    from docqa.backends.preparation import prepare_model
    from docqa.core.jsonl import read_jsonl
    from docqa.core.prediction import Prediction
    from docqa.retrievers import IndexedPage, create_retriever
    from docqa.stages.infer import run_inference

    files = write_stage_inputs(acme, tmp_path / "inputs")
    knowledge = tmp_path / "knowledge"
    build(files, SlideScript(), knowledge)
    write_jsonl(tmp_path / "questions.jsonl", [QUESTION.to_dict()])
    create_retriever({"type": "bm25"}).build(
        [IndexedPage(t, Path(p.image)) for t, p in zip(acme.page_texts, acme.pages, strict=True)],
        tmp_path / "index" / "acme",
    )
    entry = tiny_model_entry(build_tiny_vlm("qwen2_vl", tmp_path / "weights"))
    prepare_model("tiny", entry, tmp_path / "model")
    out = tmp_path / "runs" / "predictions.jsonl"

    def infer() -> None:
        run_inference(
            questions=tmp_path / "questions.jsonl",
            index_dirs={"bm25": tmp_path / "index"},
            failures=tmp_path / "failures.jsonl",
            method_config={"type": "slideagent", "retriever": "bm25", "answer_tokens": 4},
            retriever_configs={"bm25": {"type": "bm25"}},
            model=ModelSpec(entry, tmp_path / "model"),
            role_models={},
            cache=tmp_path / "cache.sqlite",
            out=out,
            knowledge=knowledge,
            **files,
        )

    infer()
    [prediction] = [Prediction.from_dict(row) for row in read_jsonl(out)]
    assert prediction.error == ""
    first = prediction.trace[0]
    assert first["step"] == "knowledge"
    assert first["source"] == str(knowledge)
    assert first["model"] == "scripted"  # read from the folder, not built with the VLM
    agents = {s.get("agent") for s in prediction.trace}
    assert not {"global", "page", "element", "refine"} & agents
