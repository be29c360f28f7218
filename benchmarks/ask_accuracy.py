"""``docqa ask`` as a user runs it, scored on real PDFs: this checkout against another, in one run.

Every question of ``tests/data/real_pdfs/questions-31.jsonl`` (48 questions over five
public-domain or openly licensed PDFs, ``LICENSES-31.md`` beside it) is asked with each
checkout's defaults: one ``docqa ask PDF QUESTION --json`` subprocess a question, no option
but ``--json``, so the method and the model are whatever that checkout's ``config/`` makes
the default. Each checkout runs in its own scratch folder that links its ``config/`` (a fresh
``results/ask/`` and response cache, so no answer comes from an earlier run); the checkouts
take turns question by question, so a busy spell of this machine falls on both. The judge is
the offline-readers benchmark's (``right``: the gold contained in the answer, or SlideAgent's
Num for a numeric gold; Overall: SlideAgent's). The ratio of right answers comes with a paired
bootstrap interval over the questions (``docqa.metrics.bootstrap``'s seed and resamples): on 48
questions one answer moves it by a tenth.

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

import numpy as np
import yaml
from ask_latency import ask, commit_of
from offline_readers import QUESTIONS, judge

from docqa.core.jsonl import read_jsonl
from docqa.metrics.bootstrap import (
    LEVEL,
    PAIRED_RESAMPLES,
    SEED,
    percentile_interval,
    resample_indices,
)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "ask_accuracy.json"


def default_model(checkout: Path) -> str:
    """The model ``checkout``'s ``docqa ask`` answers with when none is named (older checkouts
    do not print it): its config's ``ask.model``, else the first of its models."""
    config = yaml.safe_load((checkout / "config" / "config.yaml").read_text())
    return config.get("ask", {}).get("model") or next(iter(config["models"]))


def ratio_interval(current: list[bool], baseline: list[bool]) -> tuple[float, float, float]:
    """A paired bootstrap of right(current) / right(baseline) over the questions: the interval
    at ``LEVEL`` and the share of resamples where the ratio is 3 or more (resamples where the
    baseline has none right are left out)."""
    rows = resample_indices(len(current), PAIRED_RESAMPLES, SEED)
    mine = np.asarray(current, dtype=float)[rows].sum(axis=1)
    theirs = np.asarray(baseline, dtype=float)[rows].sum(axis=1)
    ratios = mine[theirs > 0] / theirs[theirs > 0]
    low, high = percentile_interval(ratios, LEVEL)
    return low, high, float((ratios >= 3).mean())


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
    models = {label: default_model(checkout) for label, checkout in checkouts.items()}
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
                    "model": answered.get("model") or models[label],
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
            low, high, at_least_3 = ratio_interval(
                [row["right"] for row in rows["current"]], [row["right"] for row in rows[label]]
            )
            results[label]["ratio_of_current"] = {
                "ratio": round(ratio, 3),
                "interval": [round(low, 2), round(high, 2)],
                "share_of_resamples_at_least_3": round(at_least_3, 3),
            }
            print(
                f"current answers {ratio:.2f}x as many right as {label} ({LEVEL:.0%} paired "
                f"bootstrap interval {low:.2f} to {high:.2f}; 3x or more in {at_least_3:.0%} "
                "of resamples)"
            )
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
