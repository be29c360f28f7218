"""``docqa config show``: the merged, checked config, with YAML merges written out, every
entry's declared defaults filled in, and ``--experiment N`` cut down to what it uses."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from helpers.workflow import ROOT

from docqa.cli import main
from docqa.methods import METHODS
from docqa.workflow.config_show import experiment_only, with_defaults
from docqa.workflow.loader import load_config


def show(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["config", "show", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture(autouse=True)
def in_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_yaml_merges_are_written_out_and_match_what_snakemake_merges(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = show(capsys, "--configfile", "config/methods.yaml")
    assert status == 0, err
    for alias in ("<<:", "&id", "*id"):
        assert alias not in out
    shown = yaml.safe_load(out)
    merged = load_config([Path("config/methods.yaml")])
    # mdocagent_top4 is {<<: *mdocagent_top1, top_k: 4}: every option of top1, top_k its own
    top1, top4 = shown["methods"]["mdocagent_top1"], shown["methods"]["mdocagent_top4"]
    assert top4 == {**top1, "top_k": 4}
    for name, entry in merged["methods"].items():  # what the file says, then the defaults
        assert shown["methods"][name] == {**shown["methods"][name], **entry}
    assert shown["experiments"][0]["shards"] == 1  # the schema's default, filled in


def test_an_entry_shows_the_defaults_its_spec_declares() -> None:
    config = load_config()
    config["methods"]["plain"] = {"type": "vanilla", "max_pages": 2}
    shown = with_defaults(config)["methods"]["plain"]
    declared = METHODS.options("vanilla")().model_dump()
    assert shown == {"type": "vanilla", **declared, "max_pages": 2}
    assert config["methods"]["plain"] == {"type": "vanilla", "max_pages": 2}  # unchanged


def test_experiment_keeps_what_it_uses(capsys: pytest.CaptureFixture[str]) -> None:
    config = load_config([Path("config/methods.yaml")])
    config["experiments"].append(
        {"datasets": ["synthslides"], "methods": ["slideagent"], "models": ["gemma3-270m"]}
    )
    cut = experiment_only(config, 2)
    assert cut["experiments"] == [config["experiments"][1]]
    assert list(cut["methods"]) == ["slideagent"]
    assert list(cut["retrievers"]) == ["bm25"]
    assert list(cut["models"]) == ["gemma3-270m"]
    assert list(cut["metrics"]) == ["slideagent"]
    assert cut["render"] == config["render"]
    status, _, err = show(capsys, "--experiment", "3")
    assert status == 2
    assert "--experiment 3" in err
    assert "from 1 to 1" in err
