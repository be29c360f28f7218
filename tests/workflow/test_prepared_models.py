"""``docqa ask``'s models (issue 31): prepared once per user and model identity, in
``$XDG_CACHE_HOME/docqa/models/<key>``, whatever folder it runs in; the output names the model
that answered and says when it is only meant to check the plumbing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from docqa.ask import PLUMBING, Answered, _text, pick
from docqa.backends.embedded import PackagedName
from docqa.backends.gguf_packages import GGUFS
from docqa.workflow.loader import load_config
from docqa.workflow.prepared_models import model_folder, model_key

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, logging, sys\n"
    "logging.basicConfig(level=logging.INFO)\n"
    "from docqa.workflow.prepared_models import model_folder\n"
    "print(model_folder('local', json.loads(sys.argv[1])))\n"
)


def prepare_in(work: Path, entry: dict, cache: Path) -> subprocess.CompletedProcess[str]:
    work.mkdir()
    return subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(entry)],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "XDG_CACHE_HOME": str(cache)},
    )


def test_a_model_is_prepared_once_per_user_whatever_the_folder(tmp_path: Path) -> None:
    weights = tmp_path / "weights"  # a local transformers folder: preparing it takes no time
    weights.mkdir()
    (weights / "config.json").write_text(json.dumps({"model_type": "gemma3_text"}))
    entry = {"backend": "transformers", "path": str(weights)}
    cache = tmp_path / "cache"

    first = prepare_in(tmp_path / "one", entry, cache)
    assert first.returncode == 0, first.stderr
    assert "is not prepared yet: preparing it" in first.stderr
    folder = Path(first.stdout.strip())
    assert folder.parent == cache / "docqa" / "models"
    card = folder / "model.json"
    written = card.stat().st_mtime_ns

    second = prepare_in(tmp_path / "two", entry, cache)
    assert second.returncode == 0, second.stderr
    assert "model local: cached" in second.stderr
    assert "preparing" not in second.stderr
    assert Path(second.stdout.strip()) == folder
    assert card.stat().st_mtime_ns == written
    assert not (tmp_path / "one" / "results").exists()  # nothing under either folder
    assert not (tmp_path / "two" / "results").exists()


def test_an_embedded_model_is_keyed_by_its_gguf_hash() -> None:
    default = {"backend": "embedded", "prompt_format": "raw"}
    qwen = {**default, "gguf": "qwen2.5-coder-0.5b-instruct-q4_k_m", "prompt_format": "chat"}
    assert model_key("a", default) == GGUFS["gemma3-270m-q4_k_m"].sha256[:16]
    assert model_key("b", {**default, "max_batch_size": 2}) == model_key("a", default)
    assert model_key("c", qwen) == GGUFS["qwen2.5-coder-0.5b-instruct-q4_k_m"].sha256[:16]
    assert set(get_args(PackagedName)) == set(GGUFS)  # the option names every packaged file


def test_the_pipelines_folder_is_used_when_it_holds_the_same_gguf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    dag = tmp_path / "results" / "models" / "gemma3-270m"
    dag.mkdir(parents=True)
    card = {"gguf_sha256": GGUFS["gemma3-270m-q4_k_m"].sha256}
    (dag / "model.json").write_text(json.dumps(card))
    entry = {"backend": "embedded"}
    assert model_folder("gemma3-270m", entry).resolve() == dag
    # a cached one of the same identity is found without preparing
    cached = tmp_path / "cache" / "docqa" / "models" / model_key("x", entry)
    cached.mkdir(parents=True)
    (cached / "model.json").write_text(json.dumps(card))
    (dag / "model.json").write_text(json.dumps({"gguf_sha256": "another"}))
    assert model_folder("gemma3-270m", entry) == cached


def test_ask_answers_with_ask_model_and_names_a_plumbing_model() -> None:
    config = load_config([])
    assert pick(config, "text_rag_top1", None) == ("text_rag_top1", config["ask"]["model"])
    assert pick(config, None, None) == (config["ask"]["method"], config["ask"]["model"])
    assert config["models"]["gemma3-270m"]["plumbing"] is True
    assert not config["models"][config["ask"]["model"]].get("plumbing")
    shown = Answered("a.pdf", "a", "Q?", answer="42", pages=[2], model="gemma3-270m")
    assert "  model: gemma3-270m\n" in _text(shown)
    shown.plumbing = True
    assert f"  model: gemma3-270m{PLUMBING}\n" in _text(shown)
    assert "plumbing-grade" in PLUMBING
    del config["ask"]
    assert pick(config, None, None) == (next(iter(config["methods"])), next(iter(config["models"])))


def test_the_dags_embedded_model_links_the_users_prepared_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docqa.workflow.jobs import prepare_model

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    entry = {"backend": "embedded"}
    cached = tmp_path / "cache" / "docqa" / "models" / model_key("gemma3-270m", entry)
    cached.mkdir(parents=True)
    (cached / "model.json").write_text(json.dumps({"gguf_sha256": "x"}))
    (cached / "model.safetensors").write_bytes(b"weights")
    # two clones (or two results folders, or two names of one GGUF) prepare nothing
    for clone in ("one", "two"):
        out = tmp_path / clone / "results" / "models" / "gemma3-270m"
        prepare_model("gemma3-270m", entry, out)
        weights = out / "model.safetensors"
        assert weights.read_bytes() == b"weights"
        assert weights.stat().st_ino == (cached / "model.safetensors").stat().st_ino
