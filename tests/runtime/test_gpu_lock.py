"""docqa.runtime.gpu_lock on four simulated GPUs (DOCQA_GPUS=0,1,2,3): real concurrent processes
and a real Snakemake run with --resources gpu=4 record the GPUs each job held, and no two
overlap."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from itertools import combinations
from pathlib import Path

import pytest

from docqa.runtime.gpu_lock import gpus_for_job, machine_gpus

FOUR = "0,1,2,3"

#: a job: take N GPUs, record which and when, hold them a moment
JOB = textwrap.dedent(
    """
    import json, os, sys, time
    from pathlib import Path
    from docqa.runtime.gpu_lock import gpus_for_job

    count, record, hold = int(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
    with gpus_for_job(count, poll_s=0.05) as held:
        start = time.time()
        visible = os.environ["CUDA_VISIBLE_DEVICES"]
        time.sleep(hold)
        end = time.time()
    record.write_text(json.dumps({"held": held, "visible": visible, "start": start, "end": end}))
    """
)


def job_env(lock_dir: Path) -> dict[str, str]:
    env = {**os.environ, "DOCQA_GPUS": FOUR, "DOCQA_GPU_LOCK_DIR": str(lock_dir)}
    env.pop("SLURM_JOB_ID", None)
    return env


def check_no_gpu_shared(records: list[dict]) -> None:
    for record in records:
        assert record["visible"] == ",".join(record["held"])
        assert len(set(record["held"])) == len(record["held"])
    for a, b in combinations(records, 2):
        overlap = a["start"] < b["end"] and b["start"] < a["end"]
        if overlap:
            assert not set(a["held"]) & set(b["held"]), f"two jobs at once on one GPU: {a} {b}"


def max_concurrent(records: list[dict]) -> int:
    return max(sum(r["start"] <= s["start"] < r["end"] for r in records) for s in records)


def test_concurrent_processes_never_share_a_gpu(tmp_path: Path) -> None:
    script = tmp_path / "job.py"
    script.write_text(JOB)
    counts = [1, 2, 1, 1, 2, 1, 1, 1, 3, 1]
    processes = [
        subprocess.Popen(
            [sys.executable, str(script), str(count), str(tmp_path / f"r{i}.json"), "0.4"],
            env=job_env(tmp_path / "locks"),
        )
        for i, count in enumerate(counts)
    ]
    assert all(p.wait(timeout=120) == 0 for p in processes)
    records = [json.loads((tmp_path / f"r{i}.json").read_text()) for i in range(len(counts))]
    assert [len(r["held"]) for r in records] == counts
    check_no_gpu_shared(records)
    assert max_concurrent(records) > 1  # they did run side by side, on different GPUs


def test_a_killed_job_releases_its_gpus(tmp_path: Path) -> None:
    script = tmp_path / "job.py"
    script.write_text(JOB)
    env = job_env(tmp_path / "locks")
    holder = subprocess.Popen(
        [sys.executable, str(script), "4", str(tmp_path / "never.json"), "600"], env=env
    )
    deadline = time.monotonic() + 60
    while not all((tmp_path / "locks" / f"gpu{i}.lock").exists() for i in range(4)):
        assert time.monotonic() < deadline
        assert holder.poll() is None
        time.sleep(0.05)
    time.sleep(0.3)
    with (
        pytest.raises(TimeoutError, match="no 1 free GPU"),
        gpus_for_job(1, gpus=["0", "1", "2", "3"], lock_dir=tmp_path / "locks", wait_s=0.2),
    ):
        pass
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    with gpus_for_job(4, gpus=["0", "1", "2", "3"], lock_dir=tmp_path / "locks", wait_s=5) as held:
        assert held == ["0", "1", "2", "3"]


def test_visible_devices_are_set_inside_and_restored_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "7")
    with gpus_for_job(2, gpus=["5", "6", "7"], lock_dir=tmp_path) as held:
        assert held == ["5", "6"]
        assert os.environ["CUDA_VISIBLE_DEVICES"] == "5,6"
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "7"
    with gpus_for_job(0, gpus=["5"], lock_dir=tmp_path) as held:
        assert held == []
        assert os.environ["CUDA_VISIBLE_DEVICES"] == ""


def test_asking_for_more_gpus_than_there_are_names_the_fix(tmp_path: Path) -> None:
    with (
        pytest.raises(RuntimeError, match="asks for 3 GPU.*has 2.*gpus in the config"),
        gpus_for_job(3, gpus=["0", "1"], lock_dir=tmp_path),
    ):
        pass


def test_which_gpus_the_machine_has(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCQA_GPUS", "0, 2")
    assert machine_gpus() == ["0", "2"]
    monkeypatch.delenv("DOCQA_GPUS")
    monkeypatch.setenv("SLURM_JOB_ID", "42")  # the scheduler gave this job its GPUs
    assert machine_gpus() is None
    monkeypatch.delenv("SLURM_JOB_ID")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,1")
    assert machine_gpus() == ["3", "1"]


def test_under_slurm_nothing_is_locked_or_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DOCQA_GPUS", raising=False)
    monkeypatch.setenv("SLURM_JOB_ID", "42")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    with gpus_for_job(1, lock_dir=tmp_path / "locks") as held:
        assert held is None
        assert os.environ["CUDA_VISIBLE_DEVICES"] == "0"
    assert not (tmp_path / "locks").exists()


SNAKEFILE = textwrap.dedent(
    """
    JOBS = {f"j{i}": gpus for i, gpus in enumerate([1, 1, 2, 1, 1, 1, 2, 1])}

    rule all:
        input: expand("records/{job}.json", job=JOBS)

    rule job:
        output: "records/{job}.json"
        resources: gpu=lambda wildcards: JOBS[wildcards.job]
        shell: "{PYTHON} job.py {resources.gpu} {output} 1.0"
    """
)


def test_snakemake_with_four_gpus_keeps_each_job_on_its_own(tmp_path: Path) -> None:
    (tmp_path / "job.py").write_text(JOB)
    (tmp_path / "Snakefile").write_text(f"PYTHON = {sys.executable!r}\n" + SNAKEFILE)
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "8", "--resources", "gpu=4"],
        cwd=tmp_path,
        env=job_env(tmp_path / "locks"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(path.read_text()) for path in sorted(tmp_path.glob("records/*.json"))]
    assert len(records) == 8
    check_no_gpu_shared(records)
    assert max_concurrent(records) > 1
