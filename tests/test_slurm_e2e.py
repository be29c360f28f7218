"""The default config through profiles/slurm on a real one-node SLURM cluster (Debian's
slurm-wlm and munge, started by tests/helpers/slurm_cluster.py), with the command
docs/scaling-out.md gives, against a local run of the same config:

- every job but the local ones went through sbatch, with the CPUs, memory and partition of the
  cluster file;
- one infer job is cancelled with scancel and another one stopped by its time limit while they
  run: Snakemake reports each as failed, naming its SLURM log, resubmits it (``retries: 1``), and
  the new job asks only the questions the first one left;
- predictions and scores equal the local run's byte for byte, and a second run has nothing to do.

The default config with a smaller dataset (2 decks, 11 questions) keeps it to minutes; its model
answers one question at a time, so that a job can be stopped between two answers.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml
from helpers.slurm_cluster import SlurmCluster, missing_reason
from helpers.workflow import ROOT, default_config, snakemake, workflow_copy

pytestmark = pytest.mark.slow

MODEL = "gemma3-270m"
METHODS = ("oracle_pages", "text_rag_top1", "text_rag_top4")
CANCELLED, TIMED_OUT = "text_rag_top4", "text_rag_top1"
#: the command of docs/scaling-out.md; the test cluster's status is polled every few seconds
#: (the plugin's default first waits 40 s, for a cluster's sake)
SLURM_COMMAND = ("--workflow-profile", "profiles/slurm")
FAST_POLLING = ("--slurm-init-seconds-before-status-checks", "2")


def small_default_config() -> dict:
    """The default config on 2 decks (11 questions), its model answering one question at a
    time: an infer job then runs long enough after its first answer for the test to stop it."""
    config = default_config()
    config["models"][MODEL]["max_batch_size"] = 1
    config["datasets"]["synthslides"]["options"] = {
        "seed": 3,
        "decks": 2,
        "questions_per_deck": 5,
        "corrupt_decks": 1,
    }
    return config


def compared_files() -> list[str]:
    return [
        path
        for method in METHODS
        for path in (
            f"results/runs/synthslides/{method}/{MODEL}/predictions.jsonl",
            f"results/scores/synthslides/{method}/{MODEL}.json",
        )
    ]


def answered(work: Path, method: str) -> int:
    """Questions in the run's checkpoint (its first line is the settings' fingerprint)."""
    files = list((work / f"results/runs/synthslides/{method}/{MODEL}/checkpoints").glob("*"))
    return sum(len(path.read_text().splitlines()) - 1 for path in files)


class FaultInjector(threading.Thread):
    """Waits for the infer jobs of ``CANCELLED`` and ``TIMED_OUT`` to have answered a question,
    freezes each one's processes (SIGSTOP: it answers nothing more, and SLURM still counts it
    as running), then cancels the first and cuts the second's time limit to one minute, which
    SLURM enforces. Records what each had answered."""

    def __init__(self, cluster: SlurmCluster, work: Path) -> None:
        super().__init__(daemon=True)
        self.cluster, self.work = cluster, work
        self.faulted: dict[str, dict] = {}
        self.frozen: list[int] = []
        self.error: BaseException | None = None
        self.done = threading.Event()

    def run(self) -> None:
        try:
            while len(self.faulted) < 2 and not self.done.wait(0.2):
                for job in self.cluster.jobs():
                    method = infer_method(job["comment"])
                    if job["state"] != "RUNNING" or method not in (CANCELLED, TIMED_OUT):
                        continue
                    if method in self.faulted or answered(self.work, method) < 1:
                        continue
                    self.freeze(job["id"])
                    time.sleep(1)  # a row being written when the signal came is finished
                    done = answered(self.work, method)
                    self.faulted[method] = {"job": job["id"], "answered": done}
                    if method == CANCELLED:
                        self.cluster.run("scancel", job["id"])
                    else:
                        self.cluster.run("scontrol", "update", f"JobId={job['id']}", "TimeLimit=1")
        except BaseException as error:  # reported by the test
            self.error = error

    def freeze(self, job: str) -> None:
        """SIGSTOP to every process of the job (``scontrol listpids``: PID JOBID STEPID …)."""
        for line in self.cluster.run("scontrol", "listpids", job).splitlines()[1:]:
            self.frozen.append(int(line.split()[0]))
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.frozen[-1], signal.SIGSTOP)

    def kill_leftovers(self) -> None:
        """SIGKILL what is left of the frozen jobs: SLURM's kill does not reach a process that
        its step lost when the step's srun went (proctrack/linuxproc follows parents)."""
        for pid in self.frozen:
            with contextlib.suppress(OSError):  # gone, or its PID now another's: not ours
                if str(self.work) in Path(f"/proc/{pid}/cmdline").read_text(errors="replace"):
                    os.kill(pid, signal.SIGKILL)


def infer_method(comment: str) -> str | None:
    found = re.match(r"rule_infer_wildcards_synthslides_(\w+?)_" + re.escape(MODEL), comment)
    return found.group(1) if found else None


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    started = SlurmCluster(tmp_path_factory.mktemp("slurm"))
    try:
        started.start()
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = workflow_copy(tmp_path_factory.mktemp("local"), small_default_config())
    done = snakemake(work)
    assert done.returncode == 0, done.stderr[-5000:]
    return work


def cluster_copy(cluster: SlurmCluster, root: Path) -> Path:
    """A workflow copy with the profiles, its cluster file describing the test cluster."""
    work = workflow_copy(root, small_default_config())
    shutil.copytree(ROOT / "profiles", work / "profiles")
    cluster.write_cluster_file(work / "profiles" / "slurm" / "cluster.yaml")
    return work


def slurm_snakemake(cluster: SlurmCluster, work: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "snakemake", *SLURM_COMMAND, *FAST_POLLING, *args],
        cwd=work,
        env=cluster.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.fixture(scope="module")
def slurm_run(cluster: SlurmCluster, tmp_path_factory: pytest.TempPathFactory) -> dict:
    work = cluster_copy(cluster, tmp_path_factory.mktemp("cluster"))
    faults = FaultInjector(cluster, work)
    faults.start()
    run = slurm_snakemake(cluster, work)
    try:
        log, _ = run.communicate(timeout=900)
    finally:
        faults.done.set()
        faults.join(timeout=30)
        faults.kill_leftovers()
    assert run.returncode == 0, log[-8000:] + cluster.logs()
    assert faults.error is None, faults.error
    assert set(faults.faulted) == {CANCELLED, TIMED_OUT}, faults.faulted
    return {
        "work": work,
        "log": log,
        "faulted": faults.faulted,
        "jobs": cluster.jobs(),
        "cluster": (cluster.cpus, cluster.memory_mb),
    }


def test_every_job_but_the_local_ones_went_through_sbatch(slurm_run: dict) -> None:
    work, jobs = slurm_run["work"], slurm_run["jobs"]
    submitted = sorted(
        re.match(r"rule_(\w+?)(_wildcards_|$)", job["comment"]).group(1) for job in jobs
    )
    # each rule's jobs of the default DAG, and the two faulted infer jobs submitted again
    assert submitted == sorted(
        ["prepare_dataset", "render_pages", "text_pages", "build_index", "report"]
        + ["infer"] * 5
        + ["score"] * 3
        + ["traces"] * 3
    )
    # what each asked: the cluster's partition, threads as CPUs (OCR: the node's; the embedded
    # model: one), the rule's memory estimate under the node's
    cluster_cpus, cluster_memory = slurm_run["cluster"]
    asked = {re.match(r"rule_(\w+?)(_wildcards_|$)", job["comment"]).group(1): job for job in jobs}
    assert {job["partition"] for job in jobs} == {"cpu"}
    assert asked["text_pages"]["cpus"] == str(cluster_cpus)
    assert asked["infer"]["cpus"] == "1"
    assert asked["text_pages"]["memory"] == f"{min(16000, cluster_memory)}M"
    assert asked["infer"]["memory"] == "8000M"
    logs = sorted(p.relative_to(work / ".snakemake" / "slurm_logs").parts[0]
                  for p in (work / ".snakemake" / "slurm_logs").rglob("*.log"))  # fmt: skip
    assert "rule_prepare_model" not in logs  # a local rule: run where the network is
    assert "localrule prepare_model" in slurm_run["log"]


def test_predictions_and_scores_equal_a_local_run(slurm_run: dict, local_run: Path) -> None:
    for path in compared_files():
        assert (slurm_run["work"] / path).read_bytes() == (local_run / path).read_bytes(), path


def test_the_cancelled_and_the_timed_out_job_are_reported_with_their_logs(slurm_run: dict) -> None:
    log, work = slurm_run["log"], slurm_run["work"]
    for method, state in ((CANCELLED, "CANCELLED"), (TIMED_OUT, "TIMEOUT")):
        job = slurm_run["faulted"][method]["job"]
        reported = re.search(
            rf"SLURM-job '{job}' failed, SLURM status is: '{state}'.*?"
            rf"(\.snakemake/slurm_logs/rule_infer/\S*/{job}\.log)",
            log,
            re.S,
        )
        assert reported, f"job {job} ({method}) not reported as {state}:\n{log[-6000:]}"
        assert (work / reported.group(1)).is_file()


def test_the_resubmitted_jobs_ask_only_the_unanswered_questions(slurm_run: dict) -> None:
    work = slurm_run["work"]
    for method, fault in slurm_run["faulted"].items():
        # the job's own log, written by its last attempt (the plugin deletes the SLURM logs of
        # jobs that succeeded)
        resumed = (work / f"results/logs/infer/synthslides/{method}/{MODEL}.log").read_text()
        assert 1 <= fault["answered"] < 11, fault
        assert f"{11 - fault['answered']} of 11 questions to answer" in resumed, resumed[-3000:]


def test_a_second_run_has_nothing_to_do(cluster: SlurmCluster, slurm_run: dict) -> None:
    again = slurm_snakemake(cluster, slurm_run["work"])
    log, _ = again.communicate(timeout=300)
    assert again.returncode == 0, log[-3000:]
    assert "Nothing to be done" in log, log[-3000:]


def test_a_gpu_job_on_a_cluster_without_gpus_is_refused_before_anything_is_submitted(
    cluster: SlurmCluster, tmp_path: Path
) -> None:
    work = cluster_copy(cluster, tmp_path)
    gpu_run = {
        "datasets": ["synthslides"],
        "methods": ["oracle_pages"],
        "models": ["qwen2.5-vl-7b"],
    }
    (work / "gpu.yaml").write_text(yaml.safe_dump({"experiments": [gpu_run]}))
    before = len(cluster.jobs())
    files = ("config/config.yaml", "config/models.yaml", "gpu.yaml")
    run = slurm_snakemake(cluster, work, "--configfile", *files)
    log, _ = run.communicate(timeout=300)
    assert run.returncode != 0
    assert "rule infer (model qwen2.5-vl-7b) needs 1 GPU(s) but the cluster has no" in log, log
    assert len(cluster.jobs()) == before


def test_a_slurm_run_whose_config_replaced_the_cluster_file_is_refused(
    cluster: SlurmCluster, tmp_path: Path
) -> None:
    work = cluster_copy(cluster, tmp_path)
    before = len(cluster.jobs())
    # a --config of one's own replaces the profile's `config: [cluster=...]`
    run = slurm_snakemake(cluster, work, "--config", "container_image=other.sif")
    log, _ = run.communicate(timeout=300)
    assert run.returncode != 0
    assert "add cluster=profiles/slurm/cluster.yaml to that --config" in log, log[-3000:]
    assert len(cluster.jobs()) == before
