"""Layout grouping on real rendered and OCRed pages, and on hand-placed OCR lines; and the
reply parsers with each of their fallbacks."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

from docqa.core.element import Element
from docqa.methods.base import DocumentEnv
from docqa.methods.slideagent.layout import LAYOUT_KINDS, layout_elements
from docqa.methods.slideagent.parsing import (
    parse_answer,
    parse_descriptions,
    parse_query_type,
    parse_subqueries,
)


def test_a_real_slide_has_its_title_and_its_chart_region(acme: DocumentEnv) -> None:
    page = acme.pages[3]
    elements = layout_elements(3, page.image, acme.elements)
    assert {e.kind for e in elements} <= set(LAYOUT_KINDS)
    title, graphic = elements
    assert (title.kind, title.text) == ("title", "Quarterly Orders")
    # the bars drawn at x 300-1080, y 380-800 of a 1600 x 900 page, at 60 of 200 dpi
    assert graphic.kind in ("chart", "figure")
    x0, y0, x1, y1 = graphic.bbox
    assert x0 <= 95
    assert y0 <= 120
    assert x1 >= 320
    assert y1 >= 235
    text_page = layout_elements(1, acme.pages[1].image, acme.elements)
    assert [(e.kind, e.text) for e in text_page] == [
        ("title", "Revenue by Region"),
        ("text", "North 120\nSouth 95"),
    ]


def line(text: str, box: tuple[float, float, float, float], order: int) -> list[Element]:
    """One OCR line and its words (spread evenly over the box, split at double spaces)."""
    cells = text.split("  ")
    width = (box[2] - box[0]) / len(cells)
    words = [
        Element(
            "d",
            0,
            "word",
            cell,
            (box[0] + i * width, box[1], box[0] + (i + 0.6) * width, box[3]),
            order * 10 + i,
            95.0,
        )
        for i, cell in enumerate(cells)
    ]
    return [Element("d", 0, "line", " ".join(cells), box, order, 95.0), *words]


def test_a_borderless_table_and_a_drawn_figure_are_found(tmp_path: Path) -> None:
    image = Image.new("RGB", (1000, 560), "white")
    ImageDraw.Draw(image).ellipse((700, 300, 900, 500), fill="darkgreen")  # a picture
    ImageDraw.Draw(image).rectangle((40, 90, 960, 94), fill="black")  # a rule under the title
    path = tmp_path / "page.png"
    image.save(path)
    elements = [
        *line("Regional Results", (50, 30, 500, 70), 0),
        *line("Region  Sales  Margin", (60, 120, 600, 140), 1),
        *line("North  120  12%", (60, 160, 600, 180), 2),
        *line("South  95  9%", (60, 200, 600, 220), 3),
        *line("Figures are unaudited.", (60, 400, 400, 420), 4),
    ]
    found = layout_elements(0, str(path), elements)
    assert [e.kind for e in found] == ["title", "table", "figure", "text"]
    table = found[1]
    assert table.bbox == (60, 120, 600, 220)
    assert table.text.startswith("Region Sales Margin")
    figure = found[2]
    assert abs(figure.bbox[0] - 700) < 10
    assert abs(figure.bbox[3] - 500) < 10


def test_replies_are_parsed_or_given_their_fallback() -> None:
    assert parse_query_type(" Layout.\nQuestion: next") == ("layout", ())
    assert parse_query_type("it is MULTIHOP") == ("multi-hop", ())
    assert parse_query_type("no idea") == ("ambiguous", ("classifier_unparsed",))
    queries, fallbacks = parse_subqueries(" churn 2023\n2. churn 2023\n3. Q?\nNote: x", "Q?", 3)
    assert (queries, fallbacks) == (["churn 2023"], ())
    assert parse_subqueries(" \n- \n", "Q?", 3) == ([], ("subqueries_unparsed",))
    assert parse_subqueries(" a\n2. b\n3. c\n4. d", "Q?", 2)[0] == ["a", "b"]
    assert parse_descriptions(" Title.\nE3: Chart.\nE9: none\nE2 - Text.", 3) == {
        1: "Title.",
        3: "Chart.",
        2: "Text.",
    }
    assert parse_answer("\n Answer: 42 million\nmore") == "42 million"
    assert parse_answer("  \n") == ""
