"""SlideVQA and REAL-MM-RAG: decks whose slides come as embedded images, through render."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.benchmark_files import (
    NOT_AN_IMAGE,
    REALMMRAG_SCHEMA,
    SLIDEVQA_SCHEMA,
    image,
    parquet,
    realmmrag_row,
    slidevqa_row,
)

from docqa.core.failures import read_failures
from docqa.core.jsonl import read_jsonl
from docqa.datasets import prepare, resolve_options
from docqa.datasets.realmmrag import RealMMRAGOptions, deck_pages, split_page_name
from docqa.datasets.realmmrag import load_questions as realmmrag_questions
from docqa.datasets.slidevqa import SlideVQAOptions
from docqa.datasets.slidevqa import load_questions as slidevqa_questions
from docqa.datasets.slidevqa import read as slidevqa_read
from docqa.stages.render import render_dataset


@pytest.fixture
def slidevqa(tmp_path: Path) -> Path:
    root = tmp_path / "slidevqa"
    jpeg, png = image((80, 60), "JPEG", dpi=150), image((64, 48))
    test_rows = [
        slidevqa_row("deck-a", 1, [jpeg, png, jpeg], evidence_pages=[1, 3], answer="3.5"),
        slidevqa_row(
            "deck-a",
            2,
            [jpeg, png, jpeg],
            answer="Cloud",
            reasoning_type="multi-hop",
            arithmetic_expression=None,
        ),
        slidevqa_row(
            "deck-b",
            3,
            [png, png],
            answer="12",
            reasoning_type="numerical",
            arithmetic_expression="7 + 5",
            answer_type="Non-span",
        ),
        slidevqa_row("deck-c", 4, [png, NOT_AN_IMAGE, png]),  # a slide that is not an image
        slidevqa_row("deck-d", 5, [png, None, png]),  # a slide missing in the middle
        slidevqa_row("deck-e", 6, [png], evidence_pages=[21]),  # no slide 21 in a deck
        slidevqa_row("deck-f", 7, [png], question=None),
    ]
    parquet(root / "data" / "test-00000-of-00001.parquet", test_rows, SLIDEVQA_SCHEMA)
    val_rows = [slidevqa_row("deck-v", 8, [png, png])]
    parquet(root / "data" / "val-00000-of-00001.parquet", val_rows, SLIDEVQA_SCHEMA)
    return root


def test_slidevqa_questions_pages_and_tags(slidevqa: Path) -> None:
    loaded = slidevqa_read(slidevqa, SlideVQAOptions())
    questions = {q.question_id: q for q in loaded.questions}
    assert list(questions) == ["1", "2", "3", "4", "5"]
    assert questions["1"].evidence == [
        ("deck-a", 0),
        ("deck-a", 2),
    ]  # 1-based slide numbers, converted once
    assert (questions["1"].answer, questions["1"].answer_format) == ("3.5", "Float")
    assert (questions["2"].answer_format, questions["3"].answer_format) == ("Str", "Int")
    assert questions["3"].tags == {
        "reasoning_type": "numerical",
        "answer_type": "Non-span",
        "arithmetic_expression": "7 + 5",
    }
    assert "arithmetic_expression" not in questions["2"].tags
    assert not any(key.startswith("page_") for key in questions["1"].original)
    assert [f.error for f in loaded.skipped] == [
        "field 'evidence_pages': page 21 is not a 1-based page number (1..20)",
        "field 'question' is missing or null",
    ]
    assert [q.question_id for q in slidevqa_questions(slidevqa, SlideVQAOptions(split="val"))] == [
        "8"
    ]


def test_slidevqa_decks_render_as_page_images(slidevqa: Path, tmp_path: Path) -> None:
    out = tmp_path / "data"
    prepare("slidevqa", out, {"root": str(slidevqa), "split": "test"})
    documents = {d["doc_id"]: d for d in read_jsonl(out / "documents.jsonl")}
    assert list(documents) == ["deck-a", "deck-b", "deck-c"]
    deck_a = Path(documents["deck-a"]["path"])
    assert sorted(p.name for p in deck_a.iterdir()) == [
        "page-0000.jpg",
        "page-0001.png",
        "page-0002.jpg",
    ]
    assert documents["deck-a"]["num_pages"] == 3
    assert documents["deck-a"]["doc_type"] == "slides"
    [gap] = read_failures(out / "failures.jsonl")[-1:]
    assert gap.doc_id == "deck-d"
    assert "missing before the last slide" in gap.error
    assert {q["doc_id"] for q in read_jsonl(out / "questions.jsonl")} == set(documents)

    pages_dir = tmp_path / "pages"
    render_dataset(out / "documents.jsonl", pages_dir, dpi=200, thumb_width=32, grid=(2, 2))
    pages = list(read_jsonl(pages_dir / "pages.jsonl"))
    deck_a_pages = [p for p in pages if p["doc_id"] == "deck-a"]
    # each slide at its own size; the JPEG's recorded dpi, the PNG's the default
    assert [(p["index"], p["width"], p["height"], p["dpi"]) for p in deck_a_pages] == [
        (0, 80, 60, 150),
        (1, 64, 48, 96),
        (2, 80, 60, 150),
    ]
    assert all(Path(p["image"]).suffix == ".png" and Path(p["thumbnail"]).is_file() for p in pages)
    overviews = [o for o in read_jsonl(pages_dir / "overviews.jsonl") if o["doc_id"] == "deck-a"]
    assert [o["pages"] for o in overviews] == [[0, 1, 2]]
    [corrupt] = read_failures(pages_dir / "failures.jsonl")
    assert corrupt.doc_id == "deck-c"
    assert "page 1 (0-based) image page-0001.jpg" in corrupt.error
    assert not (pages_dir / "deck-c").exists()


def test_realmmrag_groups_pages_into_decks_and_skips_distractors(tmp_path: Path) -> None:
    rows = [
        realmmrag_row(
            1, "TechSlides_storage_intro_2.png", "What does the tiering do?", "Moves data"
        ),
        realmmrag_row(2, "TechSlides_storage_intro_10.png", None, None),  # distractor page
        realmmrag_row(3, "TechSlides_storage_intro_1.png", "How many nodes?", "16"),
        realmmrag_row(4, "TechSlides_storage_intro_2.png", "Which tier is fastest?", "Flash"),
        realmmrag_row(5, "FinSlides_q3_page_4.png", "What was the Q3 revenue?", "1.2 billion"),
        realmmrag_row(6, "cover.png", "Who presents?", None),  # an answer missing
    ]
    root = tmp_path / "techslides"
    parquet(root / "data" / "test-00000-of-00003.parquet", rows[:3], REALMMRAG_SCHEMA)
    parquet(root / "data" / "test-00001-of-00003.parquet", rows[3:], REALMMRAG_SCHEMA)

    assert split_page_name("FinSlides_q3_page_4.png") == ("FinSlides_q3", 4)
    assert split_page_name("cover.png") == ("cover", 0)
    assert deck_pages(row["image_filename"] for row in rows)["TechSlides_storage_intro"] == [
        "TechSlides_storage_intro_1.png",
        "TechSlides_storage_intro_2.png",
        "TechSlides_storage_intro_10.png",
    ]
    questions = {q.question_id: q for q in realmmrag_questions(root)}
    assert list(questions) == ["1", "3", "4", "5"]
    assert questions["1"].evidence == [("TechSlides_storage_intro", 1)]
    assert [page for _, page in questions["3"].evidence] == [0]
    assert questions["3"].answer_format == "Int"
    assert questions["1"].tags["rephrase_level_2"] == "What does the tiering do? (rewritten)"
    reworded = realmmrag_questions(root, RealMMRAGOptions(query="rephrase_level_1"))
    assert reworded[0].question == "What does the tiering do? (reworded)"

    out = tmp_path / "data"
    prepare("realmmrag", out, {"root": str(root), "max_pages": 2})
    documents = {d["doc_id"]: d for d in read_jsonl(out / "documents.jsonl")}
    # the distractor is page 2 of its deck, beyond the cap of 2 pages
    assert documents["TechSlides_storage_intro"]["num_pages"] == 2
    assert documents["FinSlides_q3"]["num_pages"] == 1
    assert len(list(read_jsonl(out / "questions.jsonl"))) == 4
    with pytest.raises(ValueError, match="options.query: must be one of 'query', 'rephrase_lev"):
        resolve_options("realmmrag", {"query": "rephrase_level_9"})
