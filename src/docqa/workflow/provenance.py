"""What a run was made from and where it ran: ``provenance.json`` beside its predictions.

Every infer run writes ``results/runs/{dataset}/{method}/{model}/provenance.json`` with:

- ``run``: ``{"dataset", "method", "model", "shards"}``, the run it describes (``shards``: how
  many shard jobs made it; 1 for an unsharded run).
- ``code``: ``{"commit", "dirty"}``: the git commit of the working tree (null
  outside a git checkout) and whether it had uncommitted changes.
- ``packages``: ``{"requirements_lock_sha256", "docqa_version"}``: the hash of
  ``requirements.lock``, the exact pins of every installed package (null when absent).
- ``config``: ``{"sha256", "slice"}``: the config entries the run used (its dataset, method,
  model, the method's role models and retrievers) and the sha256 of their canonical JSON; two
  runs with the same hash were made with the same settings.
- ``dataset``: ``{"source", "questions_sha256", "documents_sha256"}``: ``source`` is the
  download manifest's ``repo`` and resolved ``commit`` (``{"generated": true}`` for a dataset
  made locally, such as synthslides); the hashes pin the exact converted files.
- ``model``: ``{"card"}``: the model card ``results/models/{model}/model.json`` that
  prepare_model wrote (Hub revision, or the package version and the GGUF's sha256).
- ``hardware``: ``{"platform", "cpu", "cpu_count", "python", "torch", "torch_cuda", "gpus"}``;
  ``gpus`` lists the name and memory of each GPU this job could see (``CUDA_VISIBLE_DEVICES``,
  see docqa.runtime.gpu_lock), empty on CPU.
- ``usage``: ``{"questions", "seconds", "peak_memory_mb", "cached_calls"}``: from the run's
  timings file (``predictions.timings.jsonl``, see docqa.core.prediction): seconds of model time
  summed over all questions, the highest peak memory of any question, and the model calls the
  response cache answered (which depends on which job ran first).
- ``shard_jobs`` (sharded runs only, see docqa.stages.shards): ``[{"shard", "hardware", "usage"}]``
  of each shard job; the top-level ``hardware`` is then the first shard's.

Provenance describes the run, so unlike predictions.jsonl it is not byte-identical across
reruns (hardware, time and the git state may differ).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from docqa import __version__
from docqa.backends.preparation import read_model_card
from docqa.core.prediction import usage_summary
from docqa.datasets.download import read_manifest

PROVENANCE = "provenance.json"
#: the checkout docqa runs from (an editable install): its commit and requirements.lock
SOURCE_ROOT = Path(__file__).resolve().parents[3]


def sha256_of(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def config_hash(config_slice: dict[str, Any]) -> str:
    canonical = json.dumps(config_slice, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def git_state(root: Path) -> dict[str, Any]:
    """The commit of the checkout at ``root`` and whether it has uncommitted changes."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {"commit": commit, "dirty": bool(status) if commit else None}


def hardware() -> dict[str, Any]:
    """The CPU, the torch build and the GPUs this process can see."""
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
    }
    try:
        import torch
    except ImportError:
        return {**info, "torch": None, "torch_cuda": None, "gpus": []}
    gpus = []
    if torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(index)
            gpus.append({"name": props.name, "memory_mb": props.total_memory // 2**20})
    return {**info, "torch": torch.__version__, "torch_cuda": torch.version.cuda, "gpus": gpus}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def dataset_source(manifests: list[Path]) -> dict[str, Any]:
    """The download's repository and resolved commit, or ``generated`` without a download."""
    if not manifests:
        return {"generated": True}
    manifest = read_manifest(Path(manifests[0]).parent)
    if manifest is None:
        raise FileNotFoundError(f"{manifests[0]} is missing or broken; rerun download_dataset")
    return {key: manifest.get(key) for key in ("repo", "commit", "source")}


def build_provenance(
    *,
    run: dict[str, Any],
    config_slice: dict[str, Any],
    predictions: Path,
    questions: Path,
    documents: Path,
    manifests: list[Path],
    model_dir: Path,
    root: Path = SOURCE_ROOT,
) -> dict[str, Any]:
    """Everything ``provenance.json`` holds (fields in the module docstring)."""
    lock = root / "requirements.lock"
    return {
        "run": run,
        "code": git_state(root),
        "packages": {
            "requirements_lock_sha256": sha256_of(lock) if lock.is_file() else None,
            "docqa_version": __version__,
        },
        "config": {"sha256": config_hash(config_slice), "slice": config_slice},
        "dataset": {
            "source": dataset_source(manifests),
            "questions_sha256": sha256_of(questions),
            "documents_sha256": sha256_of(documents),
        },
        "model": {"card": read_model_card(model_dir)},
        "hardware": hardware(),
        "usage": usage_summary(predictions),
    }


def merge_shard_provenance(shards: list[Path], predictions: Path) -> dict[str, Any]:
    """A sharded run's provenance: its first shard's, for the whole run, with each shard job's
    hardware and usage under ``shard_jobs``."""
    parts = [json.loads(Path(path).read_text(encoding="utf-8")) for path in shards]
    merged = dict(parts[0])
    merged["run"] = {key: value for key, value in parts[0]["run"].items() if key != "shard"}
    merged["usage"] = usage_summary(predictions)
    merged["shard_jobs"] = [
        {"shard": part["run"]["shard"], "hardware": part["hardware"], "usage": part["usage"]}
        for part in parts
    ]
    return merged


def write_provenance(path: Path, provenance: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(provenance, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_provenance(run_dir: Path) -> dict[str, Any]:
    """A run's provenance; a clear error when the run predates provenance."""
    path = Path(run_dir) / PROVENANCE
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: infer writes it with the predictions; rerun the run "
            "(snakemake --forcerun infer) to record it"
        )
    return json.loads(path.read_text(encoding="utf-8"))
