"""Each running job its own GPUs on one machine: one file lock per GPU index.

``snakemake --resources gpu=4`` only counts: it never runs jobs asking for more than four GPUs
at once, but it does not say which GPUs a job gets. A job asking for N takes an exclusive
``flock`` on N free lock files ``<lock dir>/gpu<index>.lock`` and sets ``CUDA_VISIBLE_DEVICES``
to those indices before torch initialises CUDA. The kernel drops a ``flock`` when its process
ends, so a crashed or killed job never keeps a GPU. A job asking for none sees no GPU
(``CUDA_VISIBLE_DEVICES=""``), so it cannot land on a GPU another job holds.

Which GPUs there are, first match wins:

- ``DOCQA_GPUS`` (comma-separated indices, e.g. ``0,1,2,3``): lock among these;
- under a SLURM job (``SLURM_JOB_ID``) without ``DOCQA_GPUS``: the scheduler already gave the job
  its own GPUs in ``CUDA_VISIBLE_DEVICES``; nothing is locked or changed;
- ``CUDA_VISIBLE_DEVICES``, else every GPU ``nvidia-smi`` lists.

Locks live in ``DOCQA_GPU_LOCK_DIR`` (default: ``docqa-gpu-locks-<uid>`` in the temp folder).
"""

from __future__ import annotations

import fcntl
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

log = logging.getLogger(__name__)


def default_lock_dir() -> Path:
    configured = os.environ.get("DOCQA_GPU_LOCK_DIR")
    if configured:
        return Path(configured)
    return Path(tempfile.gettempdir()) / f"docqa-gpu-locks-{os.getuid()}"


def _indices(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def machine_gpus() -> list[str] | None:
    """The GPU indices jobs share on this machine; None when a scheduler assigns them."""
    if "DOCQA_GPUS" in os.environ:
        return _indices(os.environ["DOCQA_GPUS"])
    if "SLURM_JOB_ID" in os.environ:
        return None
    if "CUDA_VISIBLE_DEVICES" in os.environ:
        return _indices(os.environ["CUDA_VISIBLE_DEVICES"])
    try:
        listed = subprocess.run(
            ["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return _indices(listed.stdout.replace("\n", ",")) if listed.returncode == 0 else []


def _try_lock(path: Path) -> IO[str] | None:
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - the lock outlives this call
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    handle.truncate(0)
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def _release(handles: list[IO[str]]) -> None:
    for handle in handles:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()


@contextmanager
def gpus_for_job(
    count: int,
    *,
    gpus: list[str] | None = None,
    lock_dir: Path | None = None,
    wait_s: float = 24 * 3600,
    poll_s: float = 0.5,
) -> Iterator[list[str] | None]:
    """Hold ``count`` GPUs of ``gpus`` (default: ``machine_gpus()``) for the ``with`` block, with
    ``CUDA_VISIBLE_DEVICES`` set to them; yields their indices (None under a scheduler).

    Waits while other jobs hold them (Snakemake's gpu resource keeps that short) and fails after
    ``wait_s`` with the holders' lock files named."""
    if "torch" in sys.modules and sys.modules["torch"].cuda.is_initialized():
        raise RuntimeError(
            "CUDA is already initialised in this process, so CUDA_VISIBLE_DEVICES can no longer "
            "take effect: take the GPUs (docqa.runtime.gpu_lock.gpus_for_job) before any CUDA call"
        )
    gpus = machine_gpus() if gpus is None else gpus
    if gpus is None:
        yield None
        return
    if count > len(gpus):
        raise RuntimeError(
            f"the job asks for {count} GPU(s) but this machine has {len(gpus)} ({gpus or 'none'}):"
            " lower the model's gpus in the config, or list the GPUs in DOCQA_GPUS"
        )
    lock_dir = lock_dir or default_lock_dir()
    lock_dir.mkdir(parents=True, exist_ok=True)
    held = _acquire(count, gpus, lock_dir, wait_s, poll_s)
    previous = os.environ.get("CUDA_VISIBLE_DEVICES")
    os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(index for index, _ in held)
    log.info("GPUs %s (locks in %s)", os.environ["CUDA_VISIBLE_DEVICES"] or "none", lock_dir)
    try:
        yield [index for index, _ in held]
    finally:
        _release([handle for _, handle in held])
        if previous is None:
            os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = previous


def _acquire(
    count: int, gpus: list[str], lock_dir: Path, wait_s: float, poll_s: float
) -> list[tuple[str, IO[str]]]:
    """All ``count`` locks or none: a job never sits on some GPUs while waiting for more, so two
    jobs waiting for two GPUs each cannot block each other."""
    deadline = time.monotonic() + wait_s
    while True:
        held: list[tuple[str, IO[str]]] = []
        for index in gpus:
            if len(held) == count:
                break
            handle = _try_lock(lock_dir / f"gpu{index}.lock")
            if handle is not None:
                held.append((index, handle))
        if len(held) == count:
            return held
        _release([handle for _, handle in held])
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"no {count} free GPU(s) among {gpus} after {wait_s:.0f} s; the lock files in "
                f"{lock_dir} name the process holding each: is a job outside Snakemake using "
                "them? Run Snakemake with --resources gpu=<number of GPUs>"
            )
        time.sleep(poll_s)
