"""Waiting until a model server answers ``GET /health`` (``docqa serve`` and ``vllm serve``)."""

from __future__ import annotations

import subprocess
import time
import urllib.error
import urllib.request
from typing import IO


def server_root(base_url: str) -> str:
    """``http://host:port`` of an OpenAI-style ``base_url`` (which ends in ``/v1``)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def is_healthy(base_url: str, timeout_s: float = 2.0) -> bool:
    """Whether ``{root}/health`` answers 200 now."""
    try:
        with urllib.request.urlopen(server_root(base_url) + "/health", timeout=timeout_s) as reply:
            return reply.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def wait_until_healthy(
    base_url: str,
    timeout_s: float,
    process: subprocess.Popen | None = None,
    poll_s: float = 0.5,
) -> None:
    """Return once the server at ``base_url`` is healthy. ``RuntimeError`` if ``process`` (the
    server, when this caller started it) exits first, ``TimeoutError`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        if process is not None and process.poll() is not None:
            raise RuntimeError(
                f"the server for {base_url} exited with status {process.returncode} before it "
                "was healthy; its output above says why"
            )
        if is_healthy(base_url):
            return
        if time.monotonic() >= deadline:
            raise TimeoutError(
                f"{server_root(base_url)}/health did not answer within {timeout_s:.0f} s; a large "
                "model can take minutes to load: raise --health-timeout, or look at the server's "
                "output"
            )
        time.sleep(poll_s)


def start_server_process(
    command: list[str], base_url: str, timeout_s: float, output: IO[str] | None = None
) -> subprocess.Popen:
    """Start the server ``command`` and return it once ``base_url`` is healthy; a server that
    exits or stays unhealthy is stopped and its failure raised. Its stdout and stderr go to
    ``output`` (default: this process's)."""
    try:
        process = subprocess.Popen(command, stdout=output, stderr=output)
    except FileNotFoundError:
        raise RuntimeError(
            f"{command[0]}: no such program; install it (vLLM: conda env create -f "
            "envs/vllm/environment.yaml) or say how to reach it (--vllm-command 'conda run "
            "--no-capture-output -n docqa-vllm vllm')"
        ) from None
    try:
        wait_until_healthy(base_url, timeout_s, process)
    except BaseException:
        stop_process(process)
        raise
    return process


def stop_process(process: subprocess.Popen, grace_s: float = 30.0) -> None:
    """Ask ``process`` to stop (SIGTERM), then kill it after ``grace_s``."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(grace_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
