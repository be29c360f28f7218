"""The catalogue, the data rules and `docqa datasets`, end to end against a local Hub."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from helpers.benchmark_files import MMLONGBENCH_SAMPLES, MMLONGBENCH_SCHEMA, parquet, pdf
from helpers.fake_hub import FakeHub
from helpers.workflow import ROOT, workflow_copy

from docqa.cli import main
from docqa.datasets import DATASETS
from docqa.datasets.catalogue import download_keys, download_spec, load_config
from docqa.metrics import METRICS
from docqa.workflow.config_check import check_references

CONFIGS = [ROOT / "config" / "config.yaml", ROOT / "config" / "datasets.yaml"]


def test_catalogue_is_valid_and_names_registered_adapters_and_metrics() -> None:
    config = load_config(CONFIGS)
    jsonschema.validate(
        config, yaml.safe_load((ROOT / "config" / "config.schema.yaml").read_text())
    )
    check_references(config)
    DATASETS.load_all()
    METRICS.load_all()
    datasets = config["datasets"]
    for name, entry in datasets.items():
        assert entry["adapter"] in DATASETS.names(), name
        assert entry["metric"] in METRICS.names(), name
        if name != "synthslides":
            assert {"url", "licence", "size"} <= set(entry["about"]), name
    for key in download_keys(datasets):
        download_spec(datasets, key)  # no two datasets pin one repository differently
    # the default run stays offline: no experiment of config.yaml uses a downloaded dataset
    default = yaml.safe_load(CONFIGS[0].read_text())
    assert all("source" not in entry for entry in default["datasets"].values())


def test_shared_repository_downloads_the_union_at_one_revision() -> None:
    source = {"hf": "org/bundle", "revision": "abc1234"}
    datasets = {
        "a": {"source": {**source, "include": ["A/*"]}},
        "b": {"source": {**source, "include": ["B/*", "A/*"], "gated": True}},
        "c": {},
    }
    assert download_keys(datasets) == ["org/bundle"]
    spec = download_spec(datasets, "org/bundle")
    assert spec == {
        "hf": "org/bundle",
        "revision": "abc1234",
        "gated": True,
        "include": ["A/*", "B/*"],
    }
    datasets["b"]["source"]["revision"] = "def5678"
    with pytest.raises(ValueError, match="different revisions"):
        download_spec(datasets, "org/bundle")


def test_dry_run_with_the_real_benchmarks_enabled(tmp_path: Path) -> None:
    work = workflow_copy(tmp_path)
    experiment = {
        "experiments": [
            {
                "datasets": ["papertab", "fetatab", "slidevqa"],
                "methods": ["text_rag_top1"],
                "models": ["gemma3-270m"],
            }
        ],
        "datasets": {"slidevqa": {"options": {"max_questions": 20}}},
    }
    (work / "experiment.yaml").write_text(yaml.safe_dump(experiment))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "-n",
            "--cores",
            "2",
            "--configfile",
            "config/datasets.yaml",
            "experiment.yaml",
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    jobs = dict(
        line.split()[:2]
        for line in run.stdout.splitlines()
        if line.split()[:1] and line.split()[-1].isdigit() and len(line.split()) == 2
    )
    # papertab and fetatab share one download of the MDocAgent bundle
    assert jobs["download_dataset"] == "2"
    assert jobs["prepare_dataset"] == "3"
    assert "results/downloads/Lillianwei/Mdocagent-dataset/manifest.json" in run.stdout


def test_one_target_downloads_verifies_and_converts_and_gated_ones_stop_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """`snakemake results/data/<name>/questions.jsonl` for a downloadable benchmark and a gated
    one without a token: the first is converted, the second stops with what to do."""
    hub = FakeHub()
    url = hub.start()
    try:
        rows = json.loads(MMLONGBENCH_SAMPLES.read_text())[:3]
        rows = [{**row, "doc_id": "report.pdf", "evidence_pages": "[1]"} for row in rows]
        table = parquet(tmp_path / "train.parquet", rows, MMLONGBENCH_SCHEMA).read_bytes()
        report = pdf(tmp_path / "report.pdf", pages=2).read_bytes()
        files = {"data/train-00000-of-00001.parquet": table, "documents/report.pdf": report}
        lfs = set(files)
        commit = hub.add("yubo/MMLB", files, lfs=lfs)
        locked = hub.add("NTT/Locked", files, lfs=lfs, gated=True)

        work = workflow_copy(tmp_path)
        catalogue = {
            "datasets": {
                "mmlb": {
                    "adapter": "mmlongbench_doc",
                    "metric": "mmlongbench_doc",
                    "source": {"hf": "yubo/MMLB", "revision": commit},
                    "about": {"url": "u", "licence": "CC BY-NC 4.0", "size": "1 PDF"},
                },
                "locked": {
                    "adapter": "mmlongbench_doc",
                    "metric": "mmlongbench_doc",
                    "source": {"hf": "NTT/Locked", "revision": locked, "gated": True},
                },
            },
            "metrics": {"mmlongbench_doc": {}},
        }
        (work / "config" / "local.yaml").write_text(yaml.safe_dump(catalogue))
        env = {**os.environ, "HF_ENDPOINT": url, "HF_HOME": str(tmp_path / "hf-home")}
        env.pop("HF_TOKEN", None)
        env.pop("HF_HUB_OFFLINE", None)  # tests/conftest.py sets it for the whole suite
        targets = ["results/data/mmlb/questions.jsonl", "results/data/locked/questions.jsonl"]

        def snakemake(*targets: str) -> subprocess.CompletedProcess[str]:
            command = [
                sys.executable,
                "-m",
                "snakemake",
                "--cores",
                "2",
                "--keep-going",
                "--configfile",
                "config/local.yaml",
                "--",
                *targets,
            ]
            return subprocess.run(
                command, cwd=work, env=env, capture_output=True, text=True, timeout=300
            )

        first = snakemake(*targets)
        assert first.returncode != 0
        converted = [json.loads(line) for line in (work / targets[0]).read_text().splitlines()]
        assert [q["evidence_pages"] for q in converted] == [[0], [0], [0]]
        manifest = json.loads((work / "results/downloads/yubo/MMLB/manifest.json").read_text())
        assert manifest["commit"] == commit
        assert not (work / targets[1]).exists()
        output = first.stdout + first.stderr
        assert "NTT/Locked is gated" in output
        assert "HF_TOKEN" in output
        assert "https://huggingface.co/datasets/NTT/Locked" in output

        requests = len(hub.requests)
        second = snakemake(targets[0])
        assert second.returncode == 0
        assert "Nothing to be done" in second.stdout + second.stderr
        assert len(hub.requests) == requests

        assert (
            main(
                [
                    "datasets",
                    "--configfile",
                    str(work / "config" / "local.yaml"),
                    "--results",
                    str(work / "results"),
                ]
            )
            == 0
        )
        rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[2:]}
        assert rows["mmlb"].split()[1] == f"hf:yubo/MMLB@{commit[:10]}"
        assert f"downloaded @ {commit[:10]}" in rows["mmlb"]
        assert "3 (converted)" in rows["mmlb"]
        assert "yes (gated)" in rows["locked"]
        assert "not downloaded" in rows["locked"]
    finally:
        hub.stop()
    verify = [
        "datasets",
        "verify",
        "mmlb",
        "--configfile",
        str(work / "config" / "local.yaml"),
        "--results",
        str(work / "results"),
    ]
    assert main(verify) == 0
    assert "mmlb: OK" in capsys.readouterr().out
    (work / "results/downloads/yubo/MMLB/documents/report.pdf").write_bytes(b"tampered")
    assert main(verify) == 1
    assert "documents/report.pdf: sha256" in capsys.readouterr().out


def test_docqa_datasets_lists_the_catalogue(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    configs = [str(path) for path in CONFIGS]
    assert main(["datasets", "--configfile", *configs, "--results", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == [
        "dataset",
        "source",
        "licence",
        "size",
        "token",
        "download",
        "questions",
    ]
    rows = {line.split()[0]: line for line in lines[2:]}
    assert set(rows) == set(load_config(CONFIGS)["datasets"])
    assert "hf:NTT-hil-insight/SlideVQA@e780ea258d" in rows["slidevqa"]
    assert "yes (gated)" in rows["slidevqa"]
    assert "not downloaded" in rows["slidevqa"]
    assert "2215 (card)" in rows["slidevqa"]
    assert "Apache-2.0" in rows["longdocurl"]
    assert "manual: https://github.com/Anni-Zou/DocBench" in rows["docbench"]
    assert "generated locally" in rows["synthslides"]
