"""The Chromium check itself: it sees a broken image and a console error."""

from __future__ import annotations

import base64
import io
import sys
import time
from pathlib import Path

from helpers.headless_chromium import browser_session, check_page, group_members
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
    assert bad.broken_images
    assert any("boom" in e for e in bad.console_errors)
    assert any("undefinedFunction" in e for e in bad.console_errors)


# A stand-in for Chromium's process tree on shutdown: the "browser" exits at once on SIGTERM,
# its child keeps writing into the profile's Default/ folder for a while before it exits, as
# Chromium's helpers do when they flush their state.
FLUSHING_TREE = r"""
import os, signal, sys, time
profile, done = sys.argv[1], sys.argv[2]
if os.fork() == 0:
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(time.monotonic()))
    os.makedirs(os.path.join(profile, "Default"), exist_ok=True)
    count = 0
    while not stopping or time.monotonic() - stopping[0] < 1.0:
        count += 1
        with open(os.path.join(profile, "Default", f"state-{count}"), "w") as handle:
            handle.write("x")
        time.sleep(0.01)
    open(done, "w").close()
    os._exit(0)
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
while True:
    time.sleep(0.1)
"""


def test_the_profile_is_removed_only_after_every_process_of_the_browser_is_gone(
    tmp_path: Path,
) -> None:
    done = tmp_path / "child-finished"
    command = [sys.executable, "-c", FLUSHING_TREE, "{profile}", str(done)]
    with browser_session(command) as (process, profile):
        while not (profile / "Default").is_dir():
            assert process.poll() is None
            time.sleep(0.01)
    assert done.exists(), "the profile was removed while a child of the browser still ran"
    assert not profile.exists()
    assert group_members(process.pid) == []
