"""``docqa serve`` as a subprocess for the serving tests: a free port, the server started and
awaited like a vLLM server, and a JSON GET."""

from __future__ import annotations

import json
import socket
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from docqa.serving.health import start_server_process, stop_process


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def docqa_serve(
    name: str, entry: dict[str, Any], model_dir: Path, tmp_path: Path
) -> Iterator[tuple[str, Path]]:
    """``docqa serve name`` as a subprocess on a free port of 127.0.0.1, started and awaited
    like a vLLM server (``start_server_process``): yields its base_url and its output file;
    stopped (SIGTERM, which must end it cleanly) afterwards."""
    config = tmp_path / f"{name}-config.yaml"
    config.write_text(json.dumps({"models": {name: entry}}))
    port = free_port()
    command = [sys.executable, "-m", "docqa.cli", "serve", name, "--configfile", str(config)]
    command += ["--model-dir", str(model_dir), "--port", str(port)]
    base_url = f"http://127.0.0.1:{port}/v1"
    log = tmp_path / f"{name}-serve.log"
    with log.open("w") as output:
        process = start_server_process(command, base_url, timeout_s=180, output=output)
        try:
            yield base_url, log
        finally:
            stop_process(process)
    assert process.returncode == 0, log.read_text()[-2000:]


def get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=30) as reply:
        return json.loads(reply.read())


#: the tiny embedded model's entry as ``served`` serves it
ENTRY = {"backend": "embedded", "max_batch_size": 4, "threads": 2}


@contextmanager
def served(model_dir: Path, port: int, folder: Path) -> Iterator[str]:
    """``docqa serve`` on 127.0.0.1:``port`` until the block ends; yields its base_url."""
    config = folder / "serve-config.yaml"
    config.write_text(json.dumps({"models": {"tiny": ENTRY}}))
    command = [sys.executable, "-m", "docqa.cli", "serve", "tiny", "--configfile", str(config)]
    command += ["--model-dir", str(model_dir), "--port", str(port)]
    base_url = f"http://127.0.0.1:{port}/v1"
    with (folder / f"serve-{port}.log").open("a") as output:
        process = start_server_process(command, base_url, timeout_s=180, output=output)
        try:
            yield base_url
        finally:
            stop_process(process)
