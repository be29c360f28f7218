import json
from pathlib import Path

import pytest
from PIL import Image

from docqa.report.figures import plot_retrieval_recall, plot_score_by_kind


def write_score(
    folder: Path, dataset: str, method: str, model: str, by_kind: dict[str, float]
) -> Path:
    """A score file with just what the figure reads: the per-kind breakdown and summary."""
    overall = sum(by_kind.values()) / len(by_kind)
    path = folder / "scores" / dataset / method / f"{model}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "dataset": dataset,
                "method": method,
                "model": model,
                "metric": "slideagent",
                "summary": {
                    "questions": 10 * len(by_kind),
                    "errors": 0,
                    "missing": 0,
                    "overall": overall,
                },
                "breakdown": {
                    "kind": {k: {"questions": 10, "overall": v} for k, v in by_kind.items()}
                },
                "per_question": [],
            }
        )
    )
    return path


def write_recall(
    folder: Path, dataset: str, retriever: str, recall: list[float], random: list[float]
) -> Path:
    path = folder / "index" / dataset / retriever / "recall.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "dataset": dataset,
                "retriever": retriever,
                "questions": 50,
                "k": list(range(1, len(recall) + 1)),
                "recall": recall,
                "random": random,
            }
        )
    )
    return path


@pytest.fixture
def score_files(tmp_path: Path) -> list[Path]:
    return [
        write_score(
            tmp_path,
            "synthslides",
            "text_rag_top4",
            "gemma3-270m",
            {"chart_value": 50.0, "table_lookup": 70.0, "title": 90.0},
        ),
        write_score(
            tmp_path,
            "synthslides",
            "vanilla",
            "gemma3-270m",
            {"chart_value": 20.0, "table_lookup": 40.0},
        ),
        write_score(
            tmp_path, "mmlongbench", "vanilla", "qwen2.5-vl-7b", {"Chart": 30.0, "Pure-text": 55.0}
        ),
    ]


@pytest.fixture
def recall_files(tmp_path: Path) -> list[Path]:
    random = [10.0 * k for k in range(1, 11)]
    return [
        write_recall(
            tmp_path, "synthslides", "bm25", [40, 55, 65, 72, 78, 82, 86, 89, 92, 94], random
        ),
        write_recall(
            tmp_path, "synthslides", "dense", [35, 50, 62, 70, 77, 83, 87, 90, 93, 95], random
        ),
        write_recall(
            tmp_path,
            "mmlongbench",
            "bm25",
            [20, 30, 38, 44, 50, 54, 58, 61, 64, 66],
            [2.0 * k for k in range(1, 11)],
        ),
    ]


def assert_figure_files(png: Path, pdf: Path) -> None:
    assert pdf.read_bytes().startswith(b"%PDF")
    assert b"CreationDate" not in pdf.read_bytes()
    with Image.open(png) as image:
        assert image.format == "PNG"
        width, height = image.size
        assert width > 1000
        assert height > 500
        assert len(image.getcolors(maxcolors=1 << 16) or range(1 << 16)) > 3  # not blank


def test_score_by_kind_writes_png_and_pdf(score_files, tmp_path: Path) -> None:
    png, pdf = tmp_path / "fig" / "kind.png", tmp_path / "fig" / "kind.pdf"
    plot_score_by_kind(score_files, png, pdf)
    assert_figure_files(png, pdf)


def test_retrieval_recall_writes_png_and_pdf(recall_files, tmp_path: Path) -> None:
    png, pdf = tmp_path / "fig" / "recall.png", tmp_path / "fig" / "recall.pdf"
    plot_retrieval_recall(recall_files, png, pdf)
    assert_figure_files(png, pdf)


def test_figures_are_byte_identical_on_rerun(score_files, recall_files, tmp_path: Path) -> None:
    outputs = []
    for run in ("a", "b"):
        paths = [tmp_path / run / name for name in ("k.png", "k.pdf", "r.png", "r.pdf")]
        plot_score_by_kind(score_files, paths[0], paths[1])
        plot_retrieval_recall(recall_files, paths[2], paths[3])
        outputs.append([path.read_bytes() for path in paths])
    assert outputs[0] == outputs[1]


def test_no_input_still_writes_both_files(tmp_path: Path) -> None:
    """The pipeline declares every figure as an output, even for a grid without retrievers."""
    for plot in (plot_score_by_kind, plot_retrieval_recall):
        png, pdf = tmp_path / f"{plot.__name__}.png", tmp_path / f"{plot.__name__}.pdf"
        plot([], png, pdf)
        assert pdf.read_bytes().startswith(b"%PDF")
        with Image.open(png) as image:
            assert image.format == "PNG"
