"""``docqa ask`` without a model: what it refuses, in one line and a non-zero status, before any
stage runs, and the content hash its cache is keyed on. (Answering, twice, with the embedded
model: tests/test_own_documents_e2e.py.)"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers.docqa_ask import ask
from PIL import Image

from docqa.ask import content_hash

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "data" / "real_pdfs"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "config").symlink_to(ROOT / "config")
    return tmp_path


def refusal(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in result.stderr.splitlines() if line.startswith("docqa ask:")]
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_an_encrypted_pdf_is_refused_with_the_reason(work: Path) -> None:
    result = ask(work, str(REAL / "local_encrypted.pdf"), "What is in it?")
    assert result.returncode == 1
    assert result.stdout == ""
    line = refusal(result)
    assert "local_encrypted.pdf" in line
    assert "password" in line
    assert not any((work / "results" / "ask").glob("*/*"))  # nothing half-prepared is kept


def test_a_file_that_is_no_document_is_refused(work: Path) -> None:
    fake = work / "minutes.pdf"
    fake.write_text("plain text, whatever its name says\n")
    result = ask(work, str(fake), "What is in it?", "--json")
    assert result.returncode == 1
    assert "neither a PDF nor an image" in json.loads(result.stdout)["error"]
    assert "neither a PDF nor an image" in refusal(result)
    missing = ask(work, str(work / "nowhere.pdf"), "What is in it?")
    assert missing.returncode == 1
    assert "does not exist" in refusal(missing)


def test_usage_and_config_errors_exit_2(work: Path) -> None:
    alone = ask(work, str(REAL / "local_crazyones.pdf"))
    assert alone.returncode == 2
    assert "the question" in refusal(alone)
    method = ask(work, str(REAL / "local_crazyones.pdf"), "Q?", "--method", "nope")
    assert method.returncode == 2
    assert "text_rag_top1" in refusal(method)
    config = ask(work, str(REAL / "local_crazyones.pdf"), "Q?", "--configfile", "other.yaml")
    assert config.returncode == 2
    assert "other.yaml" in refusal(config)


def test_the_cache_key_is_the_content_not_the_name(tmp_path: Path) -> None:
    copy = tmp_path / "renamed.pdf"
    shutil.copy(REAL / "local_crazyones.pdf", copy)
    assert content_hash(copy) == content_hash(REAL / "local_crazyones.pdf")
    assert content_hash(copy) != content_hash(REAL / "local_vicksburg.pdf")
    pages = tmp_path / "scan"
    pages.mkdir()
    Image.new("RGB", (20, 20)).save(pages / "p1.png")
    before = content_hash(pages)
    Image.new("RGB", (20, 20), (255, 0, 0)).save(pages / "p2.png")
    assert content_hash(pages) != before
