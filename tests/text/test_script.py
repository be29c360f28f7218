"""OCR in the page's script: a Chinese page without a text layer is not read as English; with
no Chinese traineddata installed it is recorded as unread, naming the package that reads it.

The page (tests/data/non_latin/lunyu-xueer-scan.pdf) is the Analects set in Droid Sans Fallback
and written as one image a page, a scan without a text layer (its README says from what, and
under which licences): no openly licensed real scan of a Chinese page was found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docqa.core.failures import read_failures
from docqa.core.jsonl import read_jsonl
from docqa.stages.render import render_dataset
from docqa.stages.text import text_dataset
from docqa.text.script import Script, installed_languages, layer_script

SCAN = Path(__file__).parents[1] / "data" / "non_latin" / "lunyu-xueer-scan.pdf"
LUNYU = "子曰：学而时习之，不亦说乎？有朋自远方来，不亦乐乎？"


def test_the_text_layer_tells_the_script_from_ten_letters() -> None:
    assert layer_script(LUNYU) == Script("Han", "text layer")
    assert layer_script("みんなのおのおののなかのすべてですから宇宙塵") == Script(
        "Japanese", "text layer"
    )
    assert layer_script("Привет, как дела? Всё хорошо.") == Script("Cyrillic", "text layer")
    assert layer_script("The Siege of Vicksburg, page 49") is None  # Latin: the config's lang
    assert layer_script("子曰：学而") is None  # too few letters to tell
    assert layer_script("3 + 4 = 7 ....") is None


def test_a_script_names_its_languages_and_package() -> None:
    han = Script("Han", "tesseract OSD")
    assert han.languages == ("chi_sim", "chi_tra")
    assert han.package() == "tesseract-ocr-chi-sim"
    assert han.read_by("chi_tra+eng")
    assert not han.read_by("eng")
    assert Script("Latin", "tesseract OSD").read_by("eng")


@pytest.fixture(scope="module")
def read_scan(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The Chinese scan rendered and read as the default config reads it (auto, eng)."""
    root = tmp_path_factory.mktemp("script")
    documents = root / "documents.jsonl"
    documents.write_text(json.dumps({"doc_id": "lunyu", "path": str(SCAN)}) + "\n")
    render_dataset(documents, root / "pages", dpi=200, thumb_width=32)
    out = root / "text" / "elements.jsonl"
    failures = root / "text" / "failures.jsonl"
    text_dataset(documents, root / "pages" / "pages.jsonl", out, 1, "auto", 11, "eng", failures)
    [row] = read_jsonl(out)
    return {"row": row, "failures": read_failures(failures), "pages": root / "pages"}


@pytest.mark.skipif("osd" not in installed_languages(), reason="needs tesseract-ocr-osd")
def test_a_chinese_scan_is_read_in_chinese_or_recorded_unread_with_the_package(
    read_scan: dict,
) -> None:
    row, failures = read_scan["row"], read_scan["failures"]
    [page] = row["pages"]
    assert page["script"] == "Han"
    assert page["reason"] == "the page has no text layer"
    if {"chi_sim", "chi_tra"} & installed_languages():
        assert page["source"] == "ocr"
        assert page["lang"] in {"chi_sim", "chi_tra"}
        text = "".join(e["text"] for e in row["elements"] if e["kind"] == "word")
        assert "学而" in text or "子曰" in text
        assert failures == []
    else:  # what the English OCR would have made of it is not passed off as the page's text
        assert page["source"] == ""
        assert page["lang"] == ""
        assert row["elements"] == []
        [failure] = failures
        assert "Han script (tesseract OSD)" in failure.error
        assert "chi_sim or chi_tra" in failure.error
        assert "apt-get install tesseract-ocr-chi-sim" in failure.fix


def test_a_script_the_text_layer_names_is_read_in_its_language_without_osd(
    read_scan: dict,
) -> None:
    from docqa.text.ocr import read_page

    image = next((Path(read_scan["pages"]) / "lunyu").glob("page-*.png"))
    read = read_page(image, 200, 11, "eng", Script("Han", "text layer"))
    assert read.script == Script("Han", "text layer")
    if {"chi_sim", "chi_tra"} & installed_languages():
        assert read.lang in {"chi_sim", "chi_tra"}
        assert read.words
    else:
        assert read.missing
        assert read.words == []
