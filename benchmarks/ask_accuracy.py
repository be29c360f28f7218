"""``docqa ask`` as a user runs it, scored on real PDFs: this checkout against another, in one run.

Every question of ``tests/data/real_pdfs/questions-31.jsonl`` (48 questions over five
public-domain or openly licensed PDFs, ``LICENSES-31.md`` beside it) is asked with each
checkout's defaults: one ``docqa ask PDF QUESTION --json`` subprocess a question, no option
but ``--json``, so the method and the model are whatever that checkout's ``config/`` makes
the default. Each checkout runs in its own scratch folder that links its ``config/`` (a fresh
``results/ask/`` and response cache, so no answer comes from an earlier run); the checkouts
take turns question by question, so a busy spell of this machine falls on both. The judge is
the offline-readers benchmark's (``right``: the gold contained in the answer, or SlideAgent's
Num for a numeric gold; Overall: SlideAgent's).

Seconds per question are whole subprocesses (interpreter start, imports, model load, the
answer); a document's first question also renders and indexes it. A checkout whose default
model is not prepared yet prepares it on its first question (once, counted there).

    PYTHONPATH=src python benchmarks/ask_accuracy.py --checkout before=PATH [--limit N]

Prints a table and writes ``benchmarks/results/ask_accuracy.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ask_latency import ask, commit_of
from offline_readers import QUESTIONS, judge

from docqa.core.jsonl import read_jsonl

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "ask_accuracy.json"


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    right = sum(row["right"] for row in rows)
    seconds = sum(row["seconds"] for row in rows)
    return {
        "right": right,
        "questions": len(rows),
        "overall": round(sum(row["overall"] for row in rows) / len(rows), 3),
        "seconds_per_question": round(seconds / len(rows), 2),
        "models": sorted({row["model"] for row in rows if row["model"]}),
        "errors": sum(bool(row["error"]) for row in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--checkout",
        action="append",
        required=True,
        help="another checkout of docqa to score side by side with this one (before=PATH)",
    )
    parser.add_argument("--limit", type=int, default=None, help="the first N questions only")
    args = parser.parse_args()
    checkouts = {"current": ROOT} | {
        label: Path(path).resolve()
        for label, path in (item.split("=", 1) for item in args.checkout)
    }
    questions = list(read_jsonl(QUESTIONS))[: args.limit]
    rows: dict[str, list[dict[str, Any]]] = {label: [] for label in checkouts}
    with tempfile.TemporaryDirectory(prefix="ask-accuracy-") as tmp:
        works = {}
        for label, checkout in checkouts.items():
            works[label] = Path(tmp, label)
            works[label].mkdir()
            (works[label] / "config").symlink_to(checkout / "config")
        for number, q in enumerate(questions, 1):
            for label, checkout in checkouts.items():  # in turn, question by question
                answered = ask(
                    works[label], checkout, QUESTIONS.parent / q["document"], q["question"]
                )
                row = {
                    "id": q["id"],
                    "kind": q["kind"],
                    "gold": q["answer"],
                    "answer": answered.get("answer", ""),
                    "pages": answered.get("pages", []),
                    "evidence_pages": q["evidence_pages"],
                    "model": answered.get("model", ""),
                    "error": answered.get("error", ""),
                    "seconds": answered["wall_seconds"],
                    **judge(q["answer"], answered.get("answer", "")),
                }
                rows[label].append(row)
                print(
                    f"[{number}/{len(questions)}] {label:8s} {'right' if row['right'] else 'wrong'}"
                    f"  {row['seconds']:5.1f} s  {q['id']}: {row['answer'][:60]!r}",
                    flush=True,
                )

    results = {label: summary(done) for label, done in rows.items()}
    print()
    print("| checkout | commit | model | right | Overall | s/question | errors |")
    print("|---|---|---|---|---|---|---|")
    for label, result in results.items():
        print(
            f"| {label} | {commit_of(checkouts[label])} | {', '.join(result['models'])} "
            f"| {result['right']}/{result['questions']} | {result['overall']:.3f} "
            f"| {result['seconds_per_question']} | {result['errors']} |"
        )
    baseline = [label for label in results if label != "current"]
    for label in baseline:
        if results[label]["right"]:
            ratio = results["current"]["right"] / results[label]["right"]
            print(f"current answers {ratio:.2f}x as many right as {label}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "command": "PYTHONPATH=src python benchmarks/ask_accuracy.py "
                + " ".join(f"--checkout {label}=PATH" for label in baseline)
                + (f" --limit {args.limit}" if args.limit else ""),
                "questions": str(QUESTIONS.relative_to(ROOT)),
                "cpus": os.cpu_count(),
                "load_average_at_end": os.getloadavg(),
                "checkouts": {
                    label: {"commit": commit_of(checkouts[label]), **results[label]}
                    for label in checkouts
                },
                "rows": rows,
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n"
    )
    print(f"\nwritten: {RESULTS}")


if __name__ == "__main__":
    main()
