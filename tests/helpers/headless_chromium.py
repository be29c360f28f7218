"""Open a page in headless Chromium (Debian's ``chromium``) through the DevTools protocol and
report what a reader would see go wrong: images that do not load and console errors.

The DevTools websocket is spoken with tornado's client (installed with ipykernel)."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tornado.websocket import websocket_connect

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking")
# Every image of the page, and every image that the page's source embeds as a data URI (the
# Snakemake report keeps its figures in its script until a result is opened), is loaded.
CHECK_IMAGES = r"""
(async () => {
  const shown = Array.from(document.images).map(img => img.src);
  const embedded = document.documentElement.outerHTML.match(
    /data:image\/(png|jpeg|svg\+xml)[^,"]*;base64,[A-Za-z0-9+\/=]+/g) || [];
  const sources = Array.from(new Set([...shown, ...embedded]));
  const results = await Promise.all(sources.map(src => new Promise(resolve => {
    const img = new Image();
    img.onload = () => resolve({src: src.slice(0, 60), ok: img.naturalWidth > 0});
    img.onerror = () => resolve({src: src.slice(0, 60), ok: false});
    img.src = src;
  })));
  return JSON.stringify({shown: shown.length, checked: results.length,
                         broken: results.filter(r => !r.ok).map(r => r.src)});
})()
"""


@dataclass
class PageCheck:
    images_shown: int
    images_checked: int
    broken_images: list[str]
    console_errors: list[str] = field(default_factory=list)


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class _DevTools:
    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        await self.connection.write_message(
            json.dumps({"id": self.next_id, "method": method, "params": params})
        )
        while True:
            message = json.loads(await self.connection.read_message())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    async def wait_for(self, event: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == event for e in self.events):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {event} within {timeout} s")
            message = await asyncio.wait_for(self.connection.read_message(), left)
            self.events.append(json.loads(message))


def _errors(events: list[dict[str, Any]]) -> list[str]:
    errors = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            errors.append(details.get("exception", {}).get("description") or details["text"])
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            errors.append(
                " ".join(
                    str(arg.get("value", arg.get("description", ""))) for arg in params["args"]
                )
            )
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            errors.append(params["entry"]["text"])
    return errors


async def _check(ws_url: str, url: str, settle: float) -> PageCheck:
    connection = await websocket_connect(ws_url, max_message_size=256 * 2**20)
    tools = _DevTools(connection)
    for domain in ("Page", "Runtime", "Log"):
        await tools.call(f"{domain}.enable")
    await tools.call("Page.navigate", url=url)
    await tools.wait_for("Page.loadEventFired", timeout=60)
    await asyncio.sleep(settle)  # scripts that run after load (the report is a React app)
    result = await tools.call(
        "Runtime.evaluate", expression=CHECK_IMAGES, awaitPromise=True, returnByValue=True
    )
    images = json.loads(result["result"]["value"])
    connection.close()
    return PageCheck(images["shown"], images["checked"], images["broken"], _errors(tools.events))


def check_page(path: Path, settle: float = 2.0) -> PageCheck:
    """Load ``path`` (a local HTML file) in a fresh headless Chromium and check it."""
    binary = chromium()
    if binary is None:
        raise RuntimeError("chromium is not installed: apt-get install chromium (make setup)")
    with tempfile.TemporaryDirectory() as profile:
        process = subprocess.Popen(
            [
                binary,
                *FLAGS,
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + 60
            while not port_file.is_file() or not port_file.read_text().strip():
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("chromium did not start its DevTools server")
                time.sleep(0.1)
            port = int(port_file.read_text().split()[0])
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as r:
                page = next(t for t in json.load(r) if t["type"] == "page")
            return asyncio.run(
                _check(page["webSocketDebuggerUrl"], Path(path).resolve().as_uri(), settle)
            )
        finally:
            process.terminate()
            process.wait(timeout=30)
