"""Open a page in headless Chromium (Debian's ``chromium``) through the DevTools protocol and
report what a reader would see go wrong: images that do not load and console errors; and, where
asked, the value of a script run on the loaded page (what a reader sees of its text).

The DevTools websocket is spoken with tornado's client (installed with ipykernel).

Chromium runs as a tree of processes (browser, zygote, renderers, crash handler) that keep
writing to the profile folder while they shut down; the browser's own exit does not mean the
tree is done. ``browser_session`` starts it in a process group of its own, and on the way out
stops the whole group and waits until no process of it is left before it removes the profile
(removing it earlier failed the suite under load: "Directory not empty: 'Default'")."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
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
    #: what the ``evaluate`` expression returned on the loaded page
    value: Any = None


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


async def _check(ws_url: str, url: str, settle: float, evaluate: str | None) -> PageCheck:
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
    value = None
    if evaluate is not None:
        found = await tools.call("Runtime.evaluate", expression=evaluate, returnByValue=True)
        if "exceptionDetails" in found:
            raise RuntimeError(f"{evaluate!r} failed: {found['exceptionDetails']}")
        value = found["result"].get("value")
    connection.close()
    errors = _errors(tools.events)
    return PageCheck(images["shown"], images["checked"], images["broken"], errors, value)


def check_page(path: Path, settle: float = 2.0, evaluate: str | None = None) -> PageCheck:
    """Load ``path`` (a local HTML file) in a fresh headless Chromium and check it; ``evaluate``
    is a JavaScript expression run on the loaded page, its JSON value kept in ``value``."""
    binary = chromium()
    if binary is None:
        raise RuntimeError("chromium is not installed: apt-get install chromium (make setup)")
    command = [binary, *FLAGS, "--remote-debugging-port=0", "--user-data-dir={profile}"]
    with browser_session([*command, "about:blank"]) as (process, profile):
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.is_file() or not port_file.read_text().strip():
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("chromium did not start its DevTools server")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        return asyncio.run(
            _check(page["webSocketDebuggerUrl"], Path(path).resolve().as_uri(), settle, evaluate)
        )


@contextmanager
def browser_session(
    command: list[str], grace_s: float = 30.0
) -> Iterator[tuple[subprocess.Popen, Path]]:
    """Run ``command`` (``{profile}`` in its words becomes a fresh profile folder) in a process
    group of its own; afterwards stop the group, wait for every process of it, then remove the
    profile."""
    profile = Path(tempfile.mkdtemp(prefix="chromium-profile-"))
    process = subprocess.Popen(
        [word.replace("{profile}", str(profile)) for word in command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the whole tree can be stopped
    )
    try:
        yield process, profile
    finally:
        stop_group(process, grace_s)
        shutil.rmtree(profile)


def stop_group(process: subprocess.Popen, grace_s: float = 30.0) -> None:
    """SIGTERM to the process group that ``process`` leads; wait until none of its processes
    is left (zombies aside), SIGKILL to what is still there after ``grace_s``."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, grace_s)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass
        if process.poll() is None:
            try:
                process.wait(wait_s)
            except subprocess.TimeoutExpired:
                continue
        deadline = time.monotonic() + wait_s
        while group_members(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not group_members(process.pid):
            return
    raise RuntimeError(
        f"processes of group {process.pid} outlived SIGKILL: {group_members(process.pid)}"
    )


def group_members(group: int) -> list[int]:
    """Live (not zombie) processes of process group ``group``, from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # it ended while we looked
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (name)": state, ppid, pgrp, ...
        if fields[0] != "Z" and int(fields[2]) == group:
            members.append(int(entry.name))
    return members
