"""The dataset catalogue: where each dataset's download goes, and what is on disk.

A dataset entry with a ``source:`` (see :mod:`docqa.datasets.download`) is downloaded into
``results/downloads/<key>/``: the key is the Hub repository (``owner/name``) for ``hf``
sources, so datasets that share a repository (PaperTab, PaperText, FetaTab) share one download
of the union of their ``include`` patterns; it is ``manual/<dataset>`` for files placed by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from docqa.datasets.download import read_manifest

DOWNLOADS = "downloads"
DEFAULT_CONFIGS = ("config/config.yaml", "config/datasets.yaml")


def load_config(paths: list[Path]) -> dict[str, Any]:
    """Config files merged in order, nested mappings key by key (as Snakemake merges them)."""
    config: dict[str, Any] = {}
    for path in paths:
        _merge(config, yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {})
    return config


def download_key(name: str, entry: dict[str, Any]) -> str | None:
    """Where dataset ``name``'s download lives under ``results/downloads/``; None if it has
    no source (a dataset generated locally)."""
    source = entry.get("source")
    if source is None:
        return None
    return f"manual/{name}" if "manual" in source else str(source["hf"])


def download_manifests(datasets: dict[str, Any], name: str) -> list[str]:
    """The manifest dataset ``name`` is converted from: the data rule's input (none for a
    generated dataset)."""
    key = download_key(name, datasets[name])
    return [] if key is None else [f"results/{DOWNLOADS}/{key}/manifest.json"]


def prepare_params(datasets: dict[str, Any], name: str) -> dict[str, Any]:
    """The adapter and options of dataset ``name``; a downloaded one's options get ``root``,
    the folder of its download."""
    entry = datasets[name]
    options = dict(entry.get("options", {}))
    key = download_key(name, entry)
    if key is not None:
        options["root"] = f"results/{DOWNLOADS}/{key}"
    return {"adapter": entry["adapter"], "options": options}


def download_keys(datasets: dict[str, Any]) -> list[str]:
    keys = {download_key(name, entry) for name, entry in datasets.items()}
    return sorted(key for key in keys if key is not None)


def download_spec(datasets: dict[str, Any], key: str) -> dict[str, Any]:
    """The source to download for ``key``: for a shared repository, one revision and the
    union of the datasets' ``include`` patterns (no patterns in one of them: every file)."""
    users = {n: e["source"] for n, e in datasets.items() if download_key(n, e) == key}
    if not users:
        raise KeyError(f"no dataset downloads into {key!r}")
    if key.startswith("manual/"):
        return next(iter(users.values()))
    revisions = {str(source["revision"]) for source in users.values()}
    if len(revisions) > 1:
        raise ValueError(
            f"datasets {sorted(users)} download {key} at different revisions {sorted(revisions)}: "
            "give them the same source.revision"
        )
    url_lists = [source["url_list"] for source in users.values() if source.get("url_list")]
    spec: dict[str, Any] = {
        "hf": key,
        "revision": revisions.pop(),
        "gated": any(source.get("gated", False) for source in users.values()),
    }
    if all(source.get("include") for source in users.values()):
        spec["include"] = sorted({p for source in users.values() for p in source["include"]})
    if url_lists:
        spec["url_list"] = url_lists[0]
    return spec


@dataclass(frozen=True)
class Status:
    download: str
    questions: str


def status(name: str, entry: dict[str, Any], datasets: dict[str, Any], results: Path) -> Status:
    """What is on disk for dataset ``name``: its download and its question count."""
    converted = results / "data" / name / "questions.jsonl"
    expected = entry.get("about", {}).get("questions")
    if converted.is_file():
        with open(converted, encoding="utf-8") as handle:
            questions = f"{sum(1 for line in handle if line.strip())} (converted)"
    else:
        questions = f"{expected} (card)" if expected else "-"
    key = download_key(name, entry)
    if key is None:
        return Status("generated locally", questions)
    folder = results / DOWNLOADS / key
    manifest = read_manifest(folder)
    if manifest is None:
        return Status("partial" if folder.is_dir() else "not downloaded", questions)
    if manifest.get("source") != download_spec(datasets, key):
        return Status("outdated (source changed)", questions)
    commit = manifest.get("commit")
    state = f"downloaded @ {commit[:10]}" if commit else "downloaded"
    if manifest.get("missing"):
        state += f", {len(manifest['missing'])} files missing"
    return Status(state, questions)


def _merge(into: dict[str, Any], update: dict[str, Any]) -> None:
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value
