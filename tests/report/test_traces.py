"""Trace pages: any method's trace as self-contained HTML, and the ``docqa traces`` command."""

from __future__ import annotations

import base64
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers.headless_chromium import check_page
from PIL import Image

from docqa.cli import main
from docqa.core.document import Page
from docqa.core.jsonl import write_jsonl
from docqa.core.prediction import Prediction, Usage
from docqa.core.question import Question, documents_fields
from docqa.report.traces import cut_marks, render_trace_html, usage_line

QUESTION = Question("q<1>", "deck", "What is <b>2020</b> revenue?", "42", "Int", [("deck", 1)])


def make_pages(folder: Path, count: int = 3, thumbnails: bool = True) -> list[Page]:
    folder.mkdir(parents=True, exist_ok=True)
    pages = []
    for index in range(count):
        image = folder / f"page-{index}.png"
        Image.new("RGB", (60, 40), (index * 60, 0, 0)).save(image)
        thumb = folder / f"thumb-{index}.png"
        if thumbnails:
            Image.new("RGB", (12, 8), (index * 60, 0, 0)).save(thumb)
        pages.append(Page("deck", index, str(image), 60, 40, 72, str(thumb)))
    return pages


PREDICTION = Prediction(
    "q<1>",
    "42",
    pages=[1, 2],
    trace=[
        {"step": "retrieve", "retriever": "bm25", "pages": [1, 2]},
        {
            "step": "agent",
            "agent": "critical",
            "model": "vlm",
            "input": "[user]\n<script>alert(1)</script>",
            "output": '{"text": "a"}',
            "usage": {"calls": 1, "tokens_in": 812, "tokens_out": 40, "seconds": 2.125},
            "fallbacks": ["clue_incomplete"],
            "clues": {"text": "a", "image": ""},
            "pages": [],
        },
        {"action": "navigate", "pages": [7]},  # a page the document does not have
        {"output": "no name"},
    ],
    usage=Usage(calls=5, tokens_in=900, tokens_out=80, seconds=3.5, fallbacks=1),
)


#: the prompt a text-only model read: exact characters matter (spaces, markup, a blank line)
PROMPT = "Read the pages.\n\n### Page 1\n  Ann & Bo <b>lead</b>\n\nQ: Who?\nA:"
OTHER = Question("q/2", "deck", "Who?", ["Ann", "Bo"], "List", [("deck", 0)])


def read_prediction(pages: list[Page]) -> Prediction:
    """An answer read from page 1 (shown as an image after the text), its reply cut at the
    4-token limit and its prompt cut by 12 tokens."""
    call = {
        "messages": [
            {"role": "user", "parts": [{"text": PROMPT}, {"image": pages[0].image}]},
        ],
        "max_new_tokens": 4,
        "reply": " Ann, Bo and",
        "finish_reason": "length",
        "truncated_tokens": 12,
    }
    step = {"step": "read", "pages": [0], "output": " Ann, Bo and", "calls": [call]}
    return Prediction("q/2", "Ann, Bo and", [0], [step], Usage(calls=1, tokens_out=4))


class Tags(HTMLParser):
    """Collects start tags and checks that every opened section is closed."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.open_sections = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self.open_sections += tag == "section"

    def handle_endtag(self, tag: str) -> None:
        self.open_sections -= tag == "section"


def parse(html: str) -> Tags:
    tags = Tags()
    tags.feed(html)
    return tags


def test_a_trace_page_shows_every_step_with_its_fields(tmp_path: Path) -> None:
    pages = make_pages(tmp_path / "pages")
    out = render_trace_html(PREDICTION, QUESTION, pages, tmp_path / "html" / "q1.html")
    html = out.read_text()
    tags = parse(html)
    assert [t for t, _ in tags.tags].count("section") == 4
    assert tags.open_sections == 0
    assert "1. retrieve</h2>" in html
    assert "2. agent: critical</h2>" in html
    assert "3. navigate</h2>" in html
    assert "4. step</h2>" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>" not in html
    assert "What is &lt;b&gt;2020&lt;/b&gt; revenue?" in html
    assert '<span class="fallback">clue_incomplete</span>' in html
    assert "calls 1 · tokens in 812 · tokens out 40 · 2.12 s" in html
    assert "&quot;image&quot;: &quot;&quot;" in html  # a dict field shown as JSON
    assert "page 8<br>no image" in html  # a page the document lacks
    assert "evidence pages</td><td>2</td>" in html  # 1-based for the reader


def test_thumbnails_are_embedded_and_link_to_the_page_image(tmp_path: Path) -> None:
    pages = make_pages(tmp_path / "pages")
    out = render_trace_html(PREDICTION, QUESTION, pages, tmp_path / "html" / "q1.html")
    images = [attrs for tag, attrs in parse(out.read_text()).tags if tag == "img"]
    links = [attrs["href"] for tag, attrs in parse(out.read_text()).tags if tag == "a"]
    # pages used (1, 2), then the retrieve step's pages (1, 2)
    assert [a["alt"] for a in images] == ["page 2 (evidence)", "page 3"] * 2
    data = images[1]["src"]
    assert data.startswith("data:image/png;base64,")
    assert base64.b64decode(data.split(",", 1)[1]) == Path(pages[2].thumbnail).read_bytes()
    assert links[:2] == ["../pages/page-1.png", "../pages/page-2.png"]


def test_without_thumbnails_the_page_image_is_embedded(tmp_path: Path) -> None:
    pages = make_pages(tmp_path / "pages", thumbnails=False)
    out = render_trace_html(PREDICTION, QUESTION, pages, tmp_path / "q1.html")
    image = next(attrs for tag, attrs in parse(out.read_text()).tags if tag == "img")
    assert base64.b64decode(image["src"].split(",", 1)[1]) == Path(pages[1].image).read_bytes()


def test_an_error_and_an_empty_answer_are_shown(tmp_path: Path) -> None:
    failed = Prediction("q<1>", "", error="RuntimeError: out of memory")
    html = render_trace_html(failed, QUESTION, [], tmp_path / "q.html").read_text()
    assert '<p class="error">error: RuntimeError: out of memory</p>' in html
    assert "predicted answer</td><td>(empty)</td>" in html
    assert "cost</td><td>no model calls</td>" in html


def test_a_model_call_shows_its_prompt_reply_and_where_it_was_cut(tmp_path: Path) -> None:
    pages = make_pages(tmp_path / "pages")
    prediction = read_prediction(pages)
    html = render_trace_html(prediction, OTHER, pages, tmp_path / "html" / "q2.html").read_text()
    escaped = PROMPT.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert f'<pre class="prompt">{escaped}</pre>' in html  # verbatim, as sent
    assert '<pre class="reply"> Ann, Bo and</pre>' in html
    assert html.count("Ann, Bo and</pre>") == 1  # the step's output is the reply: shown once
    assert "length: cut at 4 new tokens" in html
    assert "prompt cut by 12 tokens from its middle" in html
    # the answer is marked beside it
    assert '<span class="cut">cut at the 4-token limit</span>' in html
    assert cut_marks(prediction) == ["cut at the 4-token limit", "prompt cut by 12 tokens"]
    # page 1 as a thumbnail: pages used, the step's pages, and the call's image part
    alts = [attrs["alt"] for tag, attrs in parse(html).tags if tag == "img"]
    assert alts == ["page 1 (evidence)"] * 3


def test_only_the_last_call_cuts_the_answer() -> None:
    call = {"messages": [], "max_new_tokens": 8, "reply": "x", "finish_reason": "length"}
    last = {**call, "finish_reason": "stop"}
    earlier_cut = Prediction("q", "x", trace=[{"calls": [call]}, {"calls": [last]}])
    assert cut_marks(earlier_cut) == []
    assert cut_marks(Prediction("q", "x", trace=[{"calls": [last, call]}])) == [
        "cut at the 8-token limit"
    ]
    assert cut_marks(Prediction("q", "x")) == []


def test_usage_line_leaves_out_zeros() -> None:
    assert usage_line(Usage(calls=2, cached_calls=2).to_dict()) == "calls 2 · cached 2"
    assert usage_line({}) == "no model calls"


# --- the command ------------------------------------------------------------------------------


@pytest.fixture
def run_folder(tmp_path: Path) -> Path:
    """A results folder laid out as the pipeline writes it, with two predictions (the second
    read by a model call cut at its token limit) and their scores: right, then wrong."""
    results = tmp_path / "results"
    pages = make_pages(results / "pages" / "ds" / "deck")
    write_jsonl(results / "pages" / "ds" / "pages.jsonl", [p.to_dict() for p in pages])
    write_jsonl(results / "data" / "ds" / "questions.jsonl", [QUESTION.to_dict(), OTHER.to_dict()])
    run = results / "runs" / "ds" / "mdocagent_top1" / "tiny"
    write_jsonl(run / "predictions.jsonl", [PREDICTION.to_dict(), read_prediction(pages).to_dict()])
    scores = results / "scores" / "ds" / "mdocagent_top1" / "tiny.json"
    scores.parent.mkdir(parents=True)
    rows = [{"question_id": "q<1>", "score": 1.0}, {"question_id": "q/2", "score": 0.0}]
    scores.write_text(json.dumps({"per_question": rows}))
    return run


def test_docqa_traces_renders_every_question_and_an_index(run_folder: Path) -> None:
    assert main(["traces", str(run_folder / "predictions.jsonl")]) == 0
    traces = run_folder / "traces"
    assert sorted(p.name for p in traces.iterdir()) == ["index.html", "q_1.html", "q_2.html"]
    index = (traces / "index.html").read_text()
    assert [a["href"] for t, a in parse(index).tags if t == "a"] == ["q_1.html", "q_2.html"]
    assert "<td>Ann, Bo</td>" in index
    assert "calls 5" in index
    assert "<th>right?</th>" in index
    assert '<td class="verdict right">right</td>' in index  # from the run's score file
    assert '<td class="verdict wrong">wrong</td>' in index
    assert '<td>Ann, Bo and<span class="cut">cut at the 4-token limit</span>' in index


def test_docqa_traces_renders_chosen_questions_of_a_partial_file(
    run_folder: Path, tmp_path: Path
) -> None:
    partial = run_folder / "predictions.jsonl.partial"
    partial.write_text(
        json.dumps({"fingerprint": "x"}) + "\n" + json.dumps(PREDICTION.to_dict()) + "\n"
    )
    out = tmp_path / "chosen"
    assert main(["traces", str(partial), "--question", "q<1>", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "q_1.html"]


def test_an_index_without_a_score_file_has_no_verdict_column(run_folder: Path) -> None:
    (run_folder.parents[3] / "scores" / "ds" / "mdocagent_top1" / "tiny.json").unlink()
    assert main(["traces", str(run_folder / "predictions.jsonl")]) == 0
    index = (run_folder / "traces" / "index.html").read_text()
    assert "right?" not in index
    assert "cut at the 4-token limit" in index


#: what a reader of a trace page sees: each prompt block's text, whether it is on screen, the
#: marks of cut replies and answers; of the index, its header and each row's verdict
READ_TRACE = """JSON.stringify({
  prompts: Array.from(document.querySelectorAll("pre.prompt")).map(p => p.textContent),
  shown: Array.from(document.querySelectorAll("pre.prompt")).every(p => p.offsetHeight > 0),
  cuts: Array.from(document.querySelectorAll(".cut")).map(c => c.innerText),
})"""
READ_INDEX = """JSON.stringify({
  header: Array.from(document.querySelectorAll("th")).map(th => th.innerText),
  verdicts: Array.from(document.querySelectorAll("td.verdict")).map(td => td.innerText),
  cuts: Array.from(document.querySelectorAll(".cut")).map(c => c.innerText),
})"""


def test_chromium_shows_the_exact_prompt_the_verdicts_and_the_cut_answer(
    run_folder: Path,
) -> None:
    assert main(["traces", str(run_folder / "predictions.jsonl")]) == 0
    page = check_page(run_folder / "traces" / "q_2.html", settle=0.2, evaluate=READ_TRACE)
    assert (page.broken_images, page.console_errors) == ([], []), page
    seen = json.loads(page.value)
    assert seen["prompts"] == [PROMPT]  # character for character, markup and spaces included
    assert seen["shown"]
    assert "cut at the 4-token limit" in seen["cuts"]  # the answer
    assert "length: cut at 4 new tokens" in seen["cuts"]  # the reply
    index = check_page(run_folder / "traces" / "index.html", settle=0.2, evaluate=READ_INDEX)
    listed = json.loads(index.value)
    assert listed["header"] == ["question", "answer", "gold", "right?", "cost", "error"]
    assert listed["verdicts"] == ["right", "wrong"]
    assert listed["cuts"] == ["cut at the 4-token limit", "prompt cut by 12 tokens"]


def test_docqa_traces_errors_name_what_to_do(
    run_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    predictions = run_folder / "predictions.jsonl"
    assert main(["traces", str(predictions), "--question", "nope"]) == 2
    assert "no prediction for question(s) ['nope']" in capsys.readouterr().out
    elsewhere = tmp_path / "predictions.jsonl"
    elsewhere.write_text(predictions.read_text())
    assert main(["traces", str(elsewhere)]) == 2
    assert "give --questions and --pages" in capsys.readouterr().out
    assert main(["traces", str(tmp_path / "missing.jsonl")]) == 2


def test_crops_a_step_looked_at_are_shown(tmp_path: Path) -> None:
    pages = make_pages(tmp_path / "pages")
    crop = tmp_path / "crop-p2-zoom.png"
    Image.new("RGB", (20, 10), (0, 0, 255)).save(crop)
    prediction = Prediction(
        "q<1>", "42", trace=[{"action": "focus", "images": [str(crop), str(tmp_path / "gone.png")]}]
    )
    html = render_trace_html(prediction, QUESTION, pages, tmp_path / "out" / "q.html").read_text()
    encoded = base64.b64encode(crop.read_bytes()).decode("ascii")
    assert f"data:image/png;base64,{encoded}" in html
    assert "gone.png<br>no image" in html


def test_a_trace_over_several_documents_names_pages_by_document(tmp_path: Path) -> None:
    deck = make_pages(tmp_path / "deck", count=2)
    memo = [
        Page("memo", page.index, page.image, 60, 40, 72, page.thumbnail)
        for page in make_pages(tmp_path / "memo", count=2)
    ]
    asked = Question(
        question_id="q2",
        question="Which is larger?",
        answer="42",
        answer_format="Int",
        **documents_fields(["memo", "deck"], [("deck", 1)]),
    )
    documents = [
        {"label": "D1", "doc_id": "memo", "first_page": 0, "pages": 2},
        {"label": "D2", "doc_id": "deck", "first_page": 2, "pages": 2},
    ]
    answered = Prediction(
        "q2",
        "42",
        page_refs=[("deck", 1), ("memo", 0)],
        trace=[
            {"step": "documents", "documents": documents, "missing": []},
            {"step": "retrieve", "pages": [3, 0]},  # the set's numbers
        ],
    )
    out = render_trace_html(answered, asked, deck + memo, tmp_path / "html" / "q2.html")
    html = out.read_text()
    alts = [attrs["alt"] for tag, attrs in parse(html).tags if tag == "img"]
    # pages used, then the retrieve step's: D2:2 is deck's page 2, the gold one
    assert alts == ["page D2:2 (evidence)", "page D1:1"] * 2
    assert "deck p. 2" in html  # the evidence, named by document
