import json
from pathlib import Path

import pandas as pd
import pytest

from docqa.metrics.bootstrap import bootstrap_ci
from docqa.report.tables import CI_COLUMN, P_COLUMN, results_table, to_markdown, write_tables


def write_score(
    folder: Path,
    dataset: str,
    method: str,
    model: str,
    scores: list[float | None],
    *,
    errors: int = 0,
    missing: int = 0,
    f1: float | None = 50.0,
    calls: int | None = None,
    seconds: float = 10.0,
    scorer: dict | None = None,
    metric: str = "slideagent",
) -> Path:
    """A score file as the score stage writes it; Overall is the mean of ``scores``, with the
    bootstrap interval of that mean."""
    defined = [s for s in scores if s is not None]
    interval = bootstrap_ci(defined)
    summary = {
        "questions": len(scores),
        "predictions": len(scores) - missing,
        "errors": errors,
        "missing": missing,
        "num": 40.0,
        "num_questions": 2,
        "f1": f1,
        "f1_questions": 2,
        "overall": 100.0 * sum(defined) / len(defined),
        "page_recall": 80.0,
        "page_precision": 30.0,
        "calls": len(scores) if calls is None else calls,
        "seconds": seconds,
        "tokens_in": 1000,
        "tokens_out": 10,
        "scorer": scorer or {},
        "intervals": {"overall": None if interval is None else [100 * b for b in interval]},
    }
    per_question = [
        {
            "question_id": f"q{i}",
            "kind": "chart_value",
            "answer_format": "Int",
            "numeric": True,
            "score": s,
            "num": s,
            "f1": None,
            "page_recall": 100.0,
            "page_precision": 25.0,
            "answer": "1",
            "gold": "1",
            "error": "",
        }
        for i, s in enumerate(scores)
    ]
    path = folder / "scores" / dataset / method / f"{model}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "dataset": dataset,
                "method": method,
                "model": model,
                "metric": metric,
                "options": {},
                "summary": summary,
                "breakdown": {
                    "kind": {
                        "chart_value": {"questions": len(scores), "overall": summary["overall"]}
                    }
                },
                "per_question": per_question,
            }
        )
    )
    return path


def write_failures(folder: Path, dataset: str, doc_ids: list[str]) -> Path:
    path = folder / "pages" / dataset / "failures.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(
            json.dumps(
                {"stage": "render", "doc_id": d, "path": f"{d}.pdf", "error": "bad", "fix": "x"}
            )
            + "\n"
            for d in doc_ids
        )
    )
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[list[Path], list[Path]]:
    scores = [
        write_score(
            tmp_path, "synth", "vanilla", "m1", [1.0, 0.0, 0.0, 1.0], errors=1, calls=8, seconds=2.0
        ),
        write_score(tmp_path, "synth", "rag", "m1", [1.0, 1.0, 1.0, 0.0], f1=None),
        write_score(tmp_path, "other", "rag", "m1", [0.5, 0.5]),
    ]
    failures = [
        write_failures(tmp_path, "synth", ["deck_b", "deck_a", "deck_b"]),
        write_failures(tmp_path, "other", []),
    ]
    return scores, failures


def test_one_row_per_run_with_summary_values(files) -> None:
    df = results_table(*files)
    assert list(zip(df["dataset"], df["method"], strict=True)) == [
        ("other", "rag"),
        ("synth", "rag"),
        ("synth", "vanilla"),
    ]
    vanilla = df.iloc[2]
    assert vanilla["questions"] == 4
    assert vanilla["errors"] == 1
    assert vanilla["Overall"] == pytest.approx(50.0)
    assert vanilla["calls/question"] == pytest.approx(2.0)
    assert vanilla["seconds/question"] == pytest.approx(0.5)
    assert df.iloc[1]["Overall"] == pytest.approx(75.0)
    assert pd.isna(df.iloc[1]["F1"])


def test_ci_comes_from_the_score_file(files) -> None:
    df = results_table(*files)
    for _, row in df.iterrows():
        low, high = json.loads(row[CI_COLUMN])
        assert low <= row["Overall"] <= high
    assert json.loads(df.iloc[0][CI_COLUMN]) == [50.0, 50.0]  # constant scores
    low, high = json.loads(df.iloc[2][CI_COLUMN])
    assert low < 50.0 < high


def test_a_score_file_without_intervals_names_the_fix(tmp_path: Path) -> None:
    path = write_score(tmp_path, "synth", "rag", "m1", [1.0])
    data = json.loads(path.read_text())
    del data["summary"]["intervals"]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="m1.json.*rerun the score stage"):
        results_table([path], [])


def test_p_values_against_the_best_run_of_each_dataset(tmp_path: Path) -> None:
    strong = [1.0] * 45 + [0.0] * 5
    weak = [0.0] * 40 + [1.0] * 10
    paths = [
        write_score(tmp_path, "synth", "best", "m", strong),
        write_score(tmp_path, "synth", "weak", "m", weak),
        write_score(tmp_path, "synth", "same", "m", strong[:49] + [0.0]),
        write_score(tmp_path, "other", "alone", "m", weak),
    ]
    df = results_table(paths, []).set_index("method")
    assert df.loc["best", P_COLUMN] == ""
    assert df.loc["alone", P_COLUMN] == ""  # nothing to compare with
    assert df.loc["weak", P_COLUMN] == "<0.001"
    assert float(df.loc["same", P_COLUMN]) > 0.5
    assert "p vs best: two-sided paired bootstrap" in to_markdown(results_table(paths, []))


def test_undefined_question_scores_are_left_out_of_the_comparison(tmp_path: Path) -> None:
    paths = [
        write_score(tmp_path, "synth", "rag", "m1", [1.0, None, 1.0]),
        write_score(tmp_path, "synth", "bm25", "m1", [1.0, 0.0, 1.0]),
    ]
    df = results_table(paths, []).set_index("method")
    assert df.loc["rag", CI_COLUMN] == "[100.0, 100.0]"
    assert float(df.loc["bm25", P_COLUMN]) == 1.0  # equal on the two shared questions


def test_score_outside_unit_interval_names_the_file(tmp_path: Path) -> None:
    path = write_score(tmp_path, "synth", "rag", "m1", [100.0, 0.0])
    with pytest.raises(ValueError, match="m1.json.*outside"):
        results_table([path], [])


def test_markdown_says_how_answers_were_scored(tmp_path: Path) -> None:
    paths = [
        write_score(
            tmp_path, "mmlb", "rag", "m1", [1.0], scorer={"extractor": "rules", "step_failures": 0}
        ),
        write_score(
            tmp_path,
            "ldu",
            "rag",
            "m1",
            [1.0],
            scorer={
                "extractor": "model",
                "model": "gpt",
                "prompt_sha256": "96a22c30" * 8,
                "step_failures": 2,
            },
        ),
        write_score(
            tmp_path,
            "feta",
            "rag",
            "m1",
            [1.0],
            scorer={
                "judge": "qwen",
                "prompt": "paper",
                "prompt_sha256": "ab" * 32,
                "unjudged": "wrong",
                "step_failures": 3,
            },
        ),
        write_score(tmp_path, "synth", "rag", "m1", [1.0]),
    ]
    text = to_markdown(results_table(paths, []))
    notes = text.split("How answers were scored:\n\n")[1].splitlines()
    assert notes == [
        "- feta / rag / m1 (slideagent): judged by qwen (paper prompt, sha256 abababababab); "
        "3 answer(s) without a verdict (unparseable reply or failed call), scored 0",
        "- ldu / rag / m1 (slideagent): short answers extracted by gpt (prompt sha256 "
        "96a22c3096a2); 2 failed extraction(s) scored 0",
        "- mmlb / rag / m1 (slideagent): short answers extracted by docqa's rules, not by the "
        "benchmark's model extractor (no extraction model configured)",
    ]
    only_synth = to_markdown(results_table(paths[3:], []))
    assert "How answers were scored" not in only_synth


def test_duplicate_run_is_an_error(tmp_path: Path) -> None:
    first = write_score(tmp_path, "synth", "rag", "m1", [1.0])
    second = write_score(tmp_path / "copy", "synth", "rag", "m1", [0.0])
    with pytest.raises(ValueError, match="both score synth/rag/m1"):
        results_table([first, second], [])


def test_markdown_bolds_best_per_dataset(files) -> None:
    lines = to_markdown(results_table(*files)).splitlines()
    header = [cell.strip() for cell in lines[2].strip("|").split("|")]
    rows = {
        line.split("|")[2].strip(): [c.strip() for c in line.strip("|").split("|")]
        for line in lines
        if line.startswith("| synth") or line.startswith("| other")
    }
    column = {name: header.index(name) for name in header}
    rag, vanilla = rows["rag"], rows["vanilla"]
    assert rag[column["Overall"]] == "**75.0**"
    assert vanilla[column["Overall"]] == "50.0"
    assert rag[column["errors"]] == "**0**"
    assert vanilla[column["errors"]] == "1"
    assert rag[column["calls/question"]] == "**1.00**"
    assert rag[column["F1"]] == "–"  # undefined, and a single defined value marks nothing
    assert vanilla[column["F1"]] == "50.0"
    assert rag[column["page recall"]] == "80.0"  # a tie everywhere marks nothing
    assert "**" not in " ".join(rows["rag"][:3])


def test_markdown_lists_failed_documents(files, tmp_path: Path) -> None:
    text = to_markdown(results_table(*files))
    assert text.startswith("## Results\n")
    assert "- other: 0 documents failed\n" in text
    assert "- synth: 2 documents failed and were skipped: deck_a, deck_b\n" in text


def test_dataset_without_failures_file_says_so(tmp_path: Path) -> None:
    path = write_score(tmp_path, "synth", "rag", "m1", [1.0])
    assert "- synth: failures not recorded" in to_markdown(results_table([path], []))


def test_write_tables(files, tmp_path: Path) -> None:
    df = results_table(*files)
    csv, markdown = tmp_path / "out" / "results.csv", tmp_path / "out" / "results.md"
    write_tables(df, csv, markdown)
    back = pd.read_csv(csv)
    assert list(back.columns) == list(df.columns)
    assert back["Overall"].tolist() == pytest.approx(df["Overall"].tolist())
    assert markdown.read_text() == to_markdown(df)


def test_each_benchmark_names_its_columns_as_it_does(tmp_path: Path) -> None:
    """MMLongBench-Doc's Acc and generalized F1, not an empty Num beside an 'Overall'."""
    paths = [
        write_score(tmp_path / "a", "mmlb", "vanilla", "m1", [1.0, 0.0], metric="mmlongbench_doc"),
        write_score(tmp_path / "b", "synth", "rag", "m1", [1.0, 1.0]),
    ]
    text = to_markdown(results_table(paths, []))
    tables = {}
    for block in text.split("### ")[1:]:
        name, _, rest = block.partition("\n")
        header = next(line for line in rest.splitlines() if line.startswith("| "))
        tables[name] = [cell.strip() for cell in header.strip("|").split("|")]
    assert "Acc" in tables["mmlb"]
    assert "Generalized F1" in tables["mmlb"]
    assert "Acc 95% CI" in tables["mmlb"]
    assert "Num" not in tables["mmlb"]
    assert "Overall" not in tables["mmlb"]
    assert {"Num", "F1", "Overall"} <= set(tables["synth"])
