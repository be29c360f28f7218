"""Offline readers: which packaged GGUF model answers questions about real PDFs best per second.

The question set is ``tests/data/real_pdfs/questions-31.jsonl`` (48 questions over five
public-domain or openly licensed PDFs, every answer quote-checked against its page's text;
``LICENSES-31.md`` beside it). Each document is prepared as ``docqa ask`` prepares it (render,
page text, index; cached under ``results/ask/``); then, for each page budget
(``max_chars_per_page`` of the method: ``docqa ask``'s, ``ask.method``, unless ``--method``
names another) and each candidate model, in the same order, every question of a document is
answered in one ``run_inference`` call, as the infer rule answers a dataset, with a fresh
response cache (no answer is reused). Seconds per question are the wall time of those calls
(model load included) over the questions; the models are prepared before any clock starts.

Scores per question: ``right`` (the gold answer, lower-cased with dashes and spaces unified,
is contained in the answer; for a numeric gold, SlideAgent's Num: the first number stated
equals it) and SlideAgent's Overall (token F1 or Num, ``docqa.metrics.slideagent``);
``in_prompt``: the gold occurs in the text the model was handed, so a wrong answer with it is
the reader's and one without it the retrieval's.

    PYTHONPATH=src python benchmarks/offline_readers.py [--models gemma3-270m ...]
        [--budgets 1500 6000] [--method M] [--top-k K] [--limit N] [--max-new-tokens 24]
        [--keep DIR]

Prints a table and writes ``benchmarks/results/offline_readers.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from docqa.ask import infer_prepared, pick, prepare
from docqa.backends.gguf_packages import DEFAULT_GGUF
from docqa.core.jsonl import read_jsonl, write_jsonl
from docqa.core.question import Question, documents_fields
from docqa.metrics.slideagent import score
from docqa.workflow.jobs import model_spec
from docqa.workflow.loader import load_config
from docqa.workflow.pipeline import alone_threads
from docqa.workflow.prepared_models import model_folder

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "tests" / "data" / "real_pdfs" / "questions-31.jsonl"
RESULTS = Path(__file__).parent / "results" / "offline_readers.json"

#: candidates without an entry in config/config.yaml (whose embedded entries are the others)
EXTRA_CANDIDATES: dict[str, dict[str, Any]] = {
    "smollm2-135m": {
        "backend": "embedded",
        "gguf": "smollm2-135m-instruct-q4_1",
        "prompt_format": "chat",
    },
}


def candidates(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every packaged GGUF (docqa.backends.gguf_packages) as a model entry: the config's
    embedded entries, then the extra ones."""
    embedded = {
        name: entry for name, entry in config["models"].items() if entry["backend"] == "embedded"
    }
    return embedded | EXTRA_CANDIDATES


def normalise(text: str) -> str:
    text = re.sub(r"[\u2010-\u2015\u2212]", "-", text.lower())
    return re.sub(r"\s+", " ", text).strip(" .,;:\"'")


def prompt_text(prediction: dict[str, Any]) -> str:
    """Every text the model was handed for one question, over all its calls."""
    return " ".join(
        part.get("text", "")
        for step in prediction.get("trace", [])
        for call in step.get("calls", [])
        for message in call["messages"]
        for part in message["parts"]
    )


def judge(gold: str, answer: str) -> dict[str, Any]:
    scored = score(gold, answer)
    right = normalise(gold) in normalise(answer) or scored["num"] == 1.0
    return {"right": bool(right), "overall": scored["overall"]}


def run_one(
    config: dict[str, Any],
    method: str,
    model: str,
    budget: int,
    top_k: int | None,
    max_new_tokens: int,
    prepared: dict[str, Any],
    questions: list[dict[str, Any]],
    work: Path,
) -> dict[str, Any]:
    """Every question answered by ``model`` at page budget ``budget``; wall seconds and scores."""
    entry = config["models"][model]
    method_config = {
        **config["methods"][method],
        "max_chars_per_page": budget,
        "max_new_tokens": max_new_tokens,
        **({"top_k": top_k} if top_k else {}),
    }
    spec = model_spec(entry, model_folder(model, entry), alone_threads(entry, os.cpu_count() or 1))
    rows, seconds = [], 0.0
    for document, asked in _by_document(questions).items():
        one = prepared[document]
        run = work / f"{model}-{budget}-{top_k}-{one.doc_id}"
        write_jsonl(
            run / "questions.jsonl",
            [
                Question(
                    question_id=q["id"],
                    question=q["question"],
                    answer=q["answer"],
                    answer_format="Str",
                    **documents_fields([one.doc_id], []),
                ).to_dict()
                for q in asked
            ],
        )
        started = time.perf_counter()
        infer_prepared(
            one.files,
            config,
            method_config,
            spec,
            {},
            questions=run / "questions.jsonl",
            cache=run / "responses.sqlite",
            out=run / "predictions.jsonl",
        )
        seconds += time.perf_counter() - started
        answers = {row["question_id"]: row for row in read_jsonl(run / "predictions.jsonl")}
        for q in asked:
            prediction = answers[q["id"]]
            rows.append(
                {
                    "id": q["id"],
                    "kind": q["kind"],
                    "gold": q["answer"],
                    "answer": prediction["answer"],
                    "pages": [page + 1 for page in prediction["pages"]],
                    "evidence_pages": q["evidence_pages"],
                    "error": prediction.get("error", ""),
                    "in_prompt": normalise(q["answer"]) in normalise(prompt_text(prediction)),
                    **judge(q["answer"], prediction["answer"]),
                }
            )
    right = sum(row["right"] for row in rows)
    return {
        "in_prompt": sum(row["in_prompt"] for row in rows),
        "model": model,
        "gguf": entry.get("gguf", DEFAULT_GGUF),
        "max_chars_per_page": budget,
        "top_k": top_k,
        "questions": len(rows),
        "right": right,
        "accuracy": right / len(rows),
        "overall": sum(row["overall"] for row in rows) / len(rows),
        "seconds": round(seconds, 1),
        "seconds_per_question": round(seconds / len(rows), 2),
        "right_per_minute": round(60 * right / seconds, 2),
        "rows": rows,
    }


def _by_document(questions: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for q in questions:
        grouped.setdefault(q["document"], []).append(q)
    return grouped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=None, help="default: every candidate")
    parser.add_argument("--budgets", nargs="+", type=int, default=[1500, 6000])
    parser.add_argument(
        "--method", default=None, help="a method of the config (default: docqa ask's)"
    )
    parser.add_argument(
        "--top-k", type=int, default=None, help="pages the method reads (default: its top_k)"
    )
    parser.add_argument(
        "--keep", type=Path, default=None, help="keep each run's questions and predictions here"
    )
    parser.add_argument("--limit", type=int, default=None, help="the first N questions only")
    parser.add_argument("--max-new-tokens", type=int, default=24)
    args = parser.parse_args()

    config = load_config([])
    method, _ = pick(config, args.method, None)
    every = candidates(config)
    args.models = args.models or list(every)
    config["models"] = {name: every[name] for name in args.models}
    questions = list(read_jsonl(QUESTIONS))[: args.limit]
    documents = {q["document"] for q in questions}
    prepared = {
        doc: prepare(QUESTIONS.parent / doc, config, method, args.models[0])
        for doc in sorted(documents)
    }
    for name in args.models:  # prepared before any clock starts
        model_folder(name, config["models"][name])

    runs = []
    with tempfile.TemporaryDirectory(prefix="offline-readers-") as tmp:
        work = args.keep or Path(tmp)
        for budget in args.budgets:
            for name in args.models:
                run = run_one(
                    config,
                    method,
                    name,
                    budget,
                    args.top_k,
                    args.max_new_tokens,
                    prepared,
                    questions,
                    work,
                )
                runs.append(run)
                print(
                    f"{name:20s} {budget:>6d} chars  right {run['right']:>2d}/{run['questions']}"
                    f"  overall {run['overall']:.3f}  {run['seconds_per_question']:6.2f} s/q"
                    f"  (gold in the prompt {run['in_prompt']})",
                    flush=True,
                )

    print()
    print("| model | max_chars_per_page | right | accuracy | Overall | s/question | right/min |")
    print("|---|---|---|---|---|---|---|")
    for run in runs:
        print(
            f"| {run['model']} | {run['max_chars_per_page']} | {run['right']}/{run['questions']} "
            f"| {run['accuracy']:.1%} | {run['overall']:.3f} | {run['seconds_per_question']} "
            f"| {run['right_per_minute']} |"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    summary = {
        "command": "PYTHONPATH=src python benchmarks/offline_readers.py "
        + " ".join(
            [
                f"--models {' '.join(args.models)}",
                f"--budgets {' '.join(map(str, args.budgets))}",
                f"--max-new-tokens {args.max_new_tokens}",
            ]
            + ([f"--limit {args.limit}"] if args.limit else [])
        ),
        "method": method,
        "cpus": os.cpu_count(),
        "load_average_at_end": os.getloadavg(),
        "runs": runs,
    }
    RESULTS.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    print(f"\nwritten: {RESULTS}")


if __name__ == "__main__":
    main()
