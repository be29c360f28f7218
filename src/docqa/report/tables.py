"""The results table: one row per (dataset, method, model), written as CSV and Markdown."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from docqa.core.error_kinds import DOCUMENT
from docqa.metrics.bootstrap import PAIRED_RESAMPLES, RESAMPLES, SEED, paired_bootstrap
from docqa.report.inputs import Scores, load_failed_documents, load_scores

CI_COLUMN = "Overall 95% CI"
P_COLUMN = "p vs best"
COLUMNS = (
    "dataset",
    "method",
    "model",
    "questions",
    "errors",
    "infra errors",
    "missing",
    "Num",
    "F1",
    "Overall",
    CI_COLUMN,
    P_COLUMN,
    "page recall",
    "page precision",
    "calls/question",
    "seconds/question",
)
# Summary field behind each score column (all percentages).
SCORE_FIELDS = {
    "Num": "num",
    "F1": "f1",
    "Overall": "overall",
    "page recall": "page_recall",
    "page precision": "page_precision",
}
HIGHER_IS_BETTER = ("Num", "F1", "Overall", "page recall", "page precision")
LOWER_IS_BETTER = ("errors", "infra errors", "missing", "calls/question", "seconds/question")
DECIMALS = {
    "questions": 0,
    "errors": 0,
    "infra errors": 0,
    "missing": 0,
    **{column: 1 for column in SCORE_FIELDS},
    "calls/question": 2,
    "seconds/question": 2,
}
# Where failures are listed: DataFrame.attrs key, {dataset: [failed doc ids]}.
FAILED_DOCUMENTS = "failed_documents"
# Where the documents that questions name but no stage rendered are: DataFrame.attrs key,
# {dataset: [doc ids]} (questions with error_kind "document" whose document no failures file
# lists: not in the dataset at all).
UNKNOWN_DOCUMENTS = "unknown_documents"
# Where the scoring notes are: DataFrame.attrs key, [one line per run scored by a model step].
SCORING_NOTES = "scoring_notes"
# Which metric scored each dataset: DataFrame.attrs key, {dataset: metric name}.
METRICS_USED = "metrics"
# Each benchmark's own names for the score columns in the Markdown table (None: the metric
# has no such number, the column is left out); a metric not listed keeps Num / F1 / Overall.
# The CSV keeps the generic names for every dataset.
_OFFICIAL = {"Num": None, "F1": "Generalized F1", "Overall": "Acc"}
_JUDGED = {"Num": None, "F1": None}
METRIC_LABELS: dict[str, dict[str, str | None]] = {
    "mmlongbench_doc": _OFFICIAL,
    "longdocurl": _OFFICIAL,
    "judge": {**_JUDGED, "Overall": "Accuracy"},
    "docbench_judge": {**_JUDGED, "Overall": "Acc"},
    "finragbench_v_judge": {**_JUDGED, "Overall": "LasJ"},
    "slidevqa": {"Num": None, "F1": None, "Overall": "QA F1"},
    "madqa": {**_JUDGED, "Overall": "Accuracy"},
}


def scores_by_question(scores: Scores) -> dict[str, float]:
    """Each question's headline score (a fraction), by question id; undefined ones left out.

    A value outside [0, 1] means the score stage changed units, which would silently shift
    every comparison: an error naming the file.
    """
    by_id = {}
    for row in scores.per_question:
        value = row.get("score")
        if value is None:
            continue
        if not 0.0 <= float(value) <= 1.0:
            raise ValueError(
                f"{scores.path}: per_question score {value} of {row.get('question_id')} is "
                "outside [0, 1]; the report expects fractions there and percentages in the "
                "summary"
            )
        by_id[str(row["question_id"])] = float(value)
    return by_id


def headline_interval(scores: Scores) -> str:
    """The score stage's 95% interval of the headline score, as '[low, high]' (percent)."""
    intervals = scores.summary.get("intervals")
    if intervals is None:
        raise ValueError(
            f"{scores.path}: summary has no intervals; it was written by an older score stage, "
            "rerun the score stage (snakemake --forcerun score)"
        )
    interval = intervals.get("overall")
    return "" if interval is None else f"[{interval[0]:.1f}, {interval[1]:.1f}]"


def _p_values(runs: list[Scores]) -> dict[int, str]:
    """Per run, the paired bootstrap p-value of its difference to the best run of its dataset
    (highest Overall), on the questions both scored; '' for the best run and for runs that
    share no question with it."""
    per_run = [scores_by_question(run) for run in runs]
    shown: dict[int, str] = {}
    by_dataset: dict[str, list[int]] = {}
    for index, run in enumerate(runs):
        by_dataset.setdefault(run.dataset, []).append(index)
    for members in by_dataset.values():
        defined = {
            i: overall for i in members if (overall := runs[i].summary.get("overall")) is not None
        }
        if len(defined) < 2:
            continue
        best = max(defined, key=defined.__getitem__)
        for index in defined:
            if index == best:
                continue
            shared = sorted(set(per_run[best]) & set(per_run[index]))
            test = paired_bootstrap(
                [per_run[best][q] for q in shared], [per_run[index][q] for q in shared]
            )
            if test is not None:
                shown[index] = "<0.001" if test.p_value < 0.001 else f"{test.p_value:.3f}"
    return shown


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def _per_question(total: Any, questions: int) -> float:
    return math.nan if total is None or questions == 0 else float(total) / questions


def _row(scores: Scores, p_value: str) -> dict[str, Any]:
    summary = scores.summary
    questions = int(summary["questions"])
    return {
        "dataset": scores.dataset,
        "method": scores.method,
        "model": scores.model,
        "questions": questions,
        "errors": int(summary["errors"]),
        # of the errors, those of the infrastructure (server, key, cache, memory)
        "infra errors": int(summary.get("infrastructure_errors", 0)),
        "missing": int(summary["missing"]),
        **{column: _number(summary.get(field)) for column, field in SCORE_FIELDS.items()},
        CI_COLUMN: headline_interval(scores),
        P_COLUMN: p_value,
        "calls/question": _per_question(summary.get("calls"), questions),
        "seconds/question": _per_question(summary.get("seconds"), questions),
    }


def results_table(
    score_files: list[Path], failure_files: list[Path], runs_dir: Path | None = None
) -> pd.DataFrame:
    """One row per (dataset, method, model), sorted by those three; seconds per question come
    from the runs' timings files under ``runs_dir`` (:func:`docqa.report.inputs.load_scores`).

    The failed documents of each failures file go to ``df.attrs["failed_documents"]``
    ({dataset: sorted doc ids}), where :func:`write_tables` finds them.
    """
    all_scores = [load_scores(Path(path), runs_dir) for path in score_files]
    seen: dict[tuple[str, str, str], Path] = {}
    for scores in all_scores:
        key = (scores.dataset, scores.method, scores.model)
        if key in seen:
            raise ValueError(f"{scores.path} and {seen[key]} both score {'/'.join(key)}")
        seen[key] = scores.path
    p_values = _p_values(all_scores)
    df = pd.DataFrame(
        [_row(scores, p_values.get(i, "")) for i, scores in enumerate(all_scores)],
        columns=list(COLUMNS),
    )
    df = df.sort_values(["dataset", "method", "model"], ignore_index=True)
    failed: dict[str, set[str]] = {}
    for path in failure_files:  # one file per stage (render, OCR) and dataset
        dataset, doc_ids = load_failed_documents(Path(path))
        failed.setdefault(dataset, set()).update(doc_ids)
    df.attrs[FAILED_DOCUMENTS] = {dataset: sorted(ids) for dataset, ids in failed.items()}
    unknown: dict[str, set[str]] = {}
    for scores in all_scores:
        for row in scores.per_question:
            doc_id = row.get("doc_id")
            if row.get("error_kind") == DOCUMENT and doc_id not in failed.get(scores.dataset, ()):
                unknown.setdefault(scores.dataset, set()).add(str(doc_id))
    df.attrs[UNKNOWN_DOCUMENTS] = {dataset: sorted(ids) for dataset, ids in unknown.items()}
    df.attrs[SCORING_NOTES] = sorted(
        note for note in (_scoring_note(scores) for scores in all_scores) if note
    )
    df.attrs[METRICS_USED] = {scores.dataset: scores.metric for scores in all_scores}
    return df


def column_labels(metric: str) -> dict[str, str | None]:
    """Each column's name in ``metric``'s benchmark's words (``None``: left out)."""
    labels: dict[str, str | None] = {column: column for column in COLUMNS}
    names = METRIC_LABELS.get(metric, {})
    labels.update(names)
    headline = labels["Overall"] or "Overall"
    labels[CI_COLUMN] = f"{headline} 95% CI"
    return labels


def _scoring_note(scores: Scores) -> str:
    """How a run was scored, where that needs saying: its model step, questions left out."""
    return "\n".join(note for note in (_model_step_note(scores), _skipped_note(scores)) if note)


def _skipped_note(scores: Scores) -> str:
    """Questions without a gold answer (your own documents): answered, not scored."""
    skipped = scores.summary.get("skipped")
    without = skipped["answer"] if skipped else 0
    if not without:
        return ""
    return (
        f"- {scores.dataset} / {scores.label}: {without} of {scores.summary['questions']} "
        "question(s) have no gold answer: answered (see the traces), left out of the answer "
        "scores"
    )


def _model_step_note(scores: Scores) -> str:
    """How a run's answers were extracted or judged, when a model step scored it."""
    scorer = scores.summary.get("scorer") or {}
    run = f"{scores.dataset} / {scores.label}"
    failures = int(scorer.get("step_failures", 0))
    if scorer.get("extractor") == "rules":
        return (
            f"- {run} ({scores.metric}): short answers extracted by docqa's rules, not by "
            "the benchmark's model extractor (no extraction model configured)"
        )
    if scorer.get("extractor") == "model":
        return (
            f"- {run} ({scores.metric}): short answers extracted by {scorer['model']} "
            f"(prompt sha256 {scorer['prompt_sha256'][:12]}); {failures} failed "
            "extraction(s) scored 0"
        )
    if "judge" in scorer:
        fate = "scored 0" if scorer.get("unjudged") == "wrong" else "left out"
        return (
            f"- {run} ({scores.metric}): judged by {scorer['judge']} ({scorer['prompt']} "
            f"prompt, sha256 {scorer['prompt_sha256'][:12]}); {failures} answer(s) without "
            f"a verdict (unparseable reply or failed call), {fate}"
        )
    return ""


def _format(column: str, value: Any) -> str:
    if column not in DECIMALS:
        return str(value)
    if pd.isna(value):
        return "–"
    return f"{value:.{DECIMALS[column]}f}"


def _best_cells(df: pd.DataFrame) -> set[tuple[int, str]]:
    """(row, column) of the best displayed value per column within each dataset.

    Values are compared as displayed, so ties after rounding are all marked; a column whose
    defined values within the dataset are all equal (or a single one) marks nothing.
    """
    best: set[tuple[int, str]] = set()
    for _, group in df.groupby("dataset", sort=False):
        for column in HIGHER_IS_BETTER + LOWER_IS_BETTER:
            shown = group[column].astype(float).round(DECIMALS[column]).dropna()
            if shown.nunique() < 2:
                continue
            target = shown.max() if column in HIGHER_IS_BETTER else shown.min()
            best.update((index, column) for index in shown.index[shown == target])
    return best


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _markdown_table(df: pd.DataFrame) -> list[str]:
    """One table per set of column names: datasets whose benchmarks name their scores alike
    share a table (all of them, when every dataset keeps Num / F1 / Overall)."""
    best = _best_cells(df)
    metrics: dict[str, str] = df.attrs.get(METRICS_USED, {})
    groups: dict[tuple[tuple[str, str | None], ...], list[int]] = {}
    for index, row in df.iterrows():
        labels = column_labels(metrics.get(row["dataset"], ""))
        groups.setdefault(tuple(labels.items()), []).append(index)
    lines: list[str] = []
    for key, indices in groups.items():
        labels = dict(key)
        shown = [column for column in COLUMNS if labels[column] is not None]
        if len(groups) > 1:
            datasets = ", ".join(dict.fromkeys(df.loc[indices, "dataset"]))
            lines += [f"### {datasets}", ""]
        right = {column for column in shown if column in DECIMALS}
        lines += [
            "| " + " | ".join(str(labels[column]) for column in shown) + " |",
            "|" + "|".join("---:" if column in right else "---" for column in shown) + "|",
        ]
        for index in indices:
            row = df.loc[index]
            cells = []
            for column in shown:
                text = _cell(_format(column, row[column]))
                cells.append(f"**{text}**" if (index, column) in best else text)
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return lines[:-1] if lines else lines


def _failure_line(dataset: str, failed: list[str] | None) -> str:
    if failed is None:
        return f"- {dataset}: failures not recorded (no failures file given)"
    if not failed:
        return f"- {dataset}: 0 documents failed"
    noun = "document" if len(failed) == 1 else "documents"
    return f"- {dataset}: {len(failed)} {noun} failed and were skipped: {', '.join(failed)}"


def to_markdown(df: pd.DataFrame) -> str:
    """The Markdown report: header, table with best values in bold, failed documents, and how
    runs scored through a model step (answer extraction, judging) were scored."""
    failed: dict[str, list[str]] = df.attrs.get(FAILED_DOCUMENTS, {})
    datasets = sorted(set(df["dataset"]) | set(failed))
    lines = [
        "## Results",
        "",
        *_markdown_table(df),
        "",
        "Scores in percent. Bold: best per dataset (highest score; fewest errors, missing "
        "answers, calls and seconds). Overall 95% CI: percentile bootstrap over questions "
        f"({RESAMPLES} resamples, seed {SEED}), from the score files. p vs best: two-sided "
        "paired bootstrap p-value of the difference in Overall to the dataset's best run, on "
        f"the questions both scored ({PAIRED_RESAMPLES} resamples, seed {SEED}).",
        "",
        "Documents that failed rendering or OCR and were skipped:",
        "",
        *(_failure_line(dataset, failed.get(dataset)) for dataset in datasets),
        *(
            f"- {dataset}: questions name {len(ids)} document(s) that the dataset does not "
            f"have, answered as errors: {', '.join(ids)}"
            for dataset, ids in sorted(df.attrs.get(UNKNOWN_DOCUMENTS, {}).items())
        ),
    ]
    notes: list[str] = df.attrs.get(SCORING_NOTES, [])
    if notes:
        lines += ["", "How answers were scored:", "", *notes]
    return "\n".join(lines) + "\n"


def write_tables(df: pd.DataFrame, csv: Path, markdown: Path) -> None:
    """Write ``df`` as CSV (full precision) and as Markdown (see :func:`to_markdown`)."""
    for path in (csv, markdown):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(csv, index=False, lineterminator="\n")
    Path(markdown).write_text(to_markdown(df), encoding="utf-8")
