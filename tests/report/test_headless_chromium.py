"""The Chromium check itself: it sees a broken image and a console error."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from helpers.headless_chromium import check_page
from PIL import Image


def _png() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "white").save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def test_a_clean_page_passes_and_a_broken_one_is_caught(tmp_path: Path) -> None:
    clean = tmp_path / "clean.html"
    clean.write_text(f'<html><body><img src="{_png()}"></body></html>')
    broken = tmp_path / "broken.html"
    broken.write_text(
        '<html><body><img src="missing.png">'
        '<script>console.error("boom"); undefinedFunction();</script></body></html>'
    )
    ok = check_page(clean, settle=0.2)
    assert (ok.images_shown, ok.broken_images, ok.console_errors) == (1, [], [])
    bad = check_page(broken, settle=0.2)
    assert bad.broken_images and any("boom" in e for e in bad.console_errors)
    assert any("undefinedFunction" in e for e in bad.console_errors)
