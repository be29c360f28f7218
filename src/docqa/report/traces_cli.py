"""``docqa traces``: the traces of a predictions file as HTML pages, one per question.

``docqa traces results/runs/synthslides/mdocagent_top1/gemma3-270m/predictions.jsonl`` writes
``traces/<question>.html`` next to the predictions, plus ``traces/index.html`` listing every
question with its answer (marked where it was cut at a token limit), gold answer, whether it
was right (from the run's score file, where it has one), and cost. ``--question ID``
(repeatable) renders only those. The questions, pages and scores files are found from the
results layout (``results/runs/{dataset}/{method}/{model}/…`` →
``results/data/{dataset}/questions.jsonl``, ``results/pages/{dataset}/pages.jsonl`` and
``results/scores/{dataset}/{method}/{model}.json``) unless given. A run still in progress can
be viewed from its ``predictions.jsonl.partial``.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
from html import escape
from pathlib import Path
from typing import Any

from docqa.core.document import Page
from docqa.core.jsonl import read_jsonl
from docqa.core.prediction import Prediction, join_run_varying, read_timings, timings_path
from docqa.core.question import Question
from docqa.core.scores import ScoreRow
from docqa.report.traces import STYLE, cut_badges, render_trace_html, usage_line

log = logging.getLogger(__name__)


def register(commands: Any) -> None:
    parser = commands.add_parser("traces", help="render prediction traces as HTML pages")
    parser.add_argument("predictions", type=Path, help="a predictions.jsonl (or its .partial)")
    parser.add_argument(
        "--question", action="append", default=[], metavar="ID", help="only this question"
    )
    parser.add_argument("--out", type=Path, help="folder for the pages (default: traces/ beside)")
    parser.add_argument("--questions", type=Path, help="questions.jsonl (default: from layout)")
    parser.add_argument("--pages", type=Path, help="pages.jsonl (default: from layout)")
    parser.add_argument(
        "--scores", type=Path, help="the run's score file (default: from layout, if scored)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    predictions_file: Path = args.predictions
    if not predictions_file.is_file():
        print(f"{predictions_file}: no such predictions file")
        return 2
    try:
        questions_file = args.questions or layout_file(predictions_file, "data", "questions.jsonl")
        pages_file = args.pages or layout_file(predictions_file, "pages", "pages.jsonl")
    except ValueError as error:
        print(error)
        return 2
    for path, option in ((questions_file, "--questions"), (pages_file, "--pages")):
        if not path.is_file():
            print(f"{path} not found: give the file with {option}")
            return 2
    if args.scores and not args.scores.is_file():
        print(f"{args.scores} not found: give the run's score file with --scores")
        return 2
    scores_file = args.scores or scores_path(predictions_file)
    out = args.out or predictions_file.parent / "traces"
    try:
        written = render_traces(
            predictions_file, questions_file, pages_file, out, args.question, scores_file
        )
    except ValueError as error:
        print(error)
        return 2
    print(f"wrote {len(written)} trace page(s) and {out / 'index.html'}")
    return 0


def layout_file(predictions: Path, stage: str, name: str) -> Path:
    """``results/<stage>/{dataset}/<name>`` for ``results/runs/{dataset}/{method}/{model}/…``."""
    parts = predictions.resolve().parts
    if len(parts) < 5 or parts[-5] != "runs":
        raise ValueError(
            f"{predictions} is not under results/runs/{{dataset}}/{{method}}/{{model}}/: "
            "give --questions and --pages"
        )
    results, dataset = Path(*parts[:-5]), parts[-4]
    return results / stage / dataset / name


def scores_path(predictions: Path) -> Path | None:
    """``results/scores/{dataset}/{method}/{model}.json`` for a run's predictions file; None
    for a file outside the results layout."""
    try:
        dataset_scores = layout_file(predictions, "scores", "-").parent
    except ValueError:
        return None
    method, model = predictions.resolve().parts[-3:-1]
    return dataset_scores / method / f"{model}.json"


def render_traces(
    predictions_file: Path,
    questions_file: Path,
    pages_file: Path,
    out: Path,
    only: list[str] | None = None,
    scores_file: Path | None = None,
) -> list[Path]:
    """Write one page per prediction (those in ``only`` if given) and an index of them; a
    question in ``only`` that the predictions file lacks is an error. The index says whether
    each answer was right where ``scores_file`` (the run's score file) exists."""
    # the seconds of each step are in the run's timings file, when it has one
    timings = read_timings(predictions_file) if timings_path(predictions_file).is_file() else {}
    predictions = [
        Prediction.from_dict(join_run_varying(row, timings.get(row["question_id"], {})))
        for row in read_jsonl(predictions_file)
        if "fingerprint" not in row
    ]
    if only:
        missing = sorted(set(only) - {p.question_id for p in predictions})
        if missing:
            raise ValueError(f"{predictions_file}: no prediction for question(s) {missing}")
        predictions = [p for p in predictions if p.question_id in set(only)]
    questions = {row["question_id"]: Question.from_dict(row) for row in read_jsonl(questions_file)}
    pages: dict[str, list[Page]] = {}
    for row in read_jsonl(pages_file):
        page = Page.from_dict(row)
        pages.setdefault(page.doc_id, []).append(page)

    written: list[Path] = []
    names: set[str] = set()
    rows = []
    for prediction in predictions:
        question = questions.get(prediction.question_id)
        if question is None:
            log.warning(
                "%s: no question %r; its trace is skipped", questions_file, prediction.question_id
            )
            continue
        name = _file_name(prediction.question_id, names)
        written.append(
            render_trace_html(
                prediction,
                question,
                [page for doc in question.documents for page in pages.get(doc, [])],
                out / name,
            )
        )
        rows.append((name, prediction, question))
    scored = read_verdicts(scores_file) if scores_file and scores_file.is_file() else None
    (out / "index.html").write_text(_index(predictions_file, rows, scored), encoding="utf-8")
    return written


def read_verdicts(scores_file: Path) -> dict[str, str]:
    """Each scored question's verdict: ``right`` (score 1), ``wrong`` (score 0), the score
    itself in between (a partial-credit metric), ``no gold`` where the answer went unscored."""
    rows: list[ScoreRow] = json.loads(scores_file.read_text(encoding="utf-8"))["per_question"]
    return {row["question_id"]: verdict(row) for row in rows}


def verdict(row: ScoreRow) -> str:
    score = row["score"]
    if score is None or "skipped" in row:
        return "no gold"
    return "right" if score >= 1 else "wrong" if score <= 0 else f"{score:.2f}"


def _file_name(question_id: str, taken: set[str]) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", question_id).strip("._") or "question"
    name, number = f"{stem}.html", 2
    while name in taken:
        name, number = f"{stem}-{number}.html", number + 1
    taken.add(name)
    return name


def _index(
    source: Path, rows: list[tuple[str, Prediction, Question]], verdicts: dict[str, str] | None
) -> str:
    right = "<th>right?</th>" if verdicts is not None else ""
    header = (
        f"<tr><th>question</th><th>answer</th><th>gold</th>{right}<th>cost</th><th>error</th></tr>"
    )
    lines = []
    for name, prediction, question in rows:
        gold = question.answer if isinstance(question.answer, str) else ", ".join(question.answer)
        gold = gold if question.has_gold else "(none)"
        judged = ""
        if verdicts is not None:
            said = verdicts.get(question.question_id, "not scored")
            judged = f'<td class="verdict {said.replace(" ", "-")}">{escape(said)}</td>'
        lines.append(
            f'<tr><td><a href="{escape(name)}">{escape(question.question_id)}</a>: '
            f"{escape(question.question)}</td>"
            f"<td>{escape(prediction.answer)}{cut_badges(prediction)}</td>"
            f"<td>{escape(gold)}</td>{judged}"
            f"<td>{escape(usage_line(prediction.usage.to_dict()))}</td>"
            f"<td>{escape(prediction.error)}</td></tr>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>traces of {escape(str(source))}</title><style>{STYLE}"
        "td, th { text-align: left; padding: .2em .6em; border-bottom: 1px solid #eee; }"
        ".verdict.right { color: #2a7a2a; } .verdict.wrong { color: #b22; }"
        f"</style></head>\n<body><h1>Traces of {escape(str(source))}</h1>\n"
        f"<table>{header}{''.join(lines)}</table>\n</body></html>\n"
    )
