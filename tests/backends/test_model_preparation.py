"""prepare_model for transformers, vLLM and hosted models, and load failures that name the model
and the fix. Nothing here downloads: the Hub case reads a Hub cache laid out by the test."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import huggingface_hub.constants
import pytest
import torch
from helpers.tiny_models import build_tiny_vlm, tiny_model_entry

from docqa.backends import create_backend
from docqa.backends.preparation import prepare_model, read_model_card

REVISION = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_vlm("qwen2_5_vl", tmp_path_factory.mktemp("weights") / "tiny-qwen")


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Hub is off whatever the environment says (huggingface_hub reads it at import)."""
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


def hub_cache(root: Path, repo: str, revision: str, folder: Path) -> Path:
    """A Hub cache holding ``repo`` at ``revision``, in huggingface_hub's own layout."""
    storage = root / ("models--" + repo.replace("/", "--"))
    shutil.copytree(folder, storage / "snapshots" / revision)
    (storage / "refs").mkdir()
    (storage / "refs" / "main").write_text(revision)
    return root


def test_local_folder_is_used_in_place_and_identified_by_content(
    weights: Path, tmp_path: Path
) -> None:
    prepare_model("tiny", tiny_model_entry(weights), tmp_path / "tiny")
    card = read_model_card(tmp_path / "tiny")
    assert card["weights"] == str(weights.resolve())
    assert card["model_type"] == "qwen2_5_vl"
    assert card["name"] == "tiny"
    assert len(card["identity"]["sha256"]) == 64
    assert sorted(p.name for p in (tmp_path / "tiny").iterdir()) == ["model.json"]


def test_hub_model_comes_from_the_configured_cache_at_the_pinned_revision(
    weights: Path, tmp_path: Path, offline: None
) -> None:
    cache = hub_cache(tmp_path / "hub", "org/tiny-qwen", REVISION, weights)
    entry = {
        "backend": "transformers",
        "hf_id": "org/tiny-qwen",
        "revision": REVISION,
        "hf_cache": str(cache),
        "precision": "fp32",
        "device": "cpu",
        "attn_implementation": "eager",
        "max_pixels": 112 * 112,
    }
    prepare_model("hub-tiny", entry, tmp_path / "models" / "hub-tiny")
    card = read_model_card(tmp_path / "models" / "hub-tiny")
    assert card["identity"] == {"id": "org/tiny-qwen", "revision": REVISION}
    assert Path(card["weights"]).parent.name == "snapshots"
    backend = create_backend(entry, tmp_path / "models" / "hub-tiny")
    assert backend.identity["revision"] == REVISION


def test_hub_model_needs_a_pinned_commit(tmp_path: Path) -> None:
    entry = {"backend": "transformers", "hf_id": "Qwen/Qwen2.5-VL-7B-Instruct", "revision": "main"}
    with pytest.raises(ValueError, match=r"model 'qwen'.*revision 'main'.*40-character commit"):
        prepare_model("qwen", entry, tmp_path / "qwen")


def test_hub_model_missing_from_the_cache_while_offline_names_the_model(
    tmp_path: Path, offline: None
) -> None:
    entry = {
        "backend": "vllm",
        "hf_id": "org/absent",
        "revision": REVISION,
        "hf_cache": str(tmp_path / "empty"),
    }
    with pytest.raises(RuntimeError, match=r"model 'absent'.*org/absent@.*not in the Hub cache"):
        prepare_model("absent", entry, tmp_path / "absent")


def test_a_model_without_weights_says_where_to_put_them(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"model 'x'.*hf_id.*path"):
        prepare_model("x", {"backend": "transformers"}, tmp_path / "x")


def test_weights_gone_after_preparation_fail_the_load_with_the_fix(
    weights: Path, tmp_path: Path
) -> None:
    copy = shutil.copytree(weights, tmp_path / "copy")
    entry = tiny_model_entry(copy)
    prepare_model("moved", entry, tmp_path / "moved")
    (copy / "model.safetensors").unlink()
    with pytest.raises(RuntimeError, match=r"model moved: cannot read its weights.*prepare_model"):
        create_backend(entry, tmp_path / "moved")
    shutil.rmtree(copy)
    with pytest.raises(FileNotFoundError, match=r"model moved: its weights folder .* is gone"):
        create_backend(entry, tmp_path / "moved")


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a GPU")
def test_gpu_setting_without_a_gpu_names_the_model_and_the_fix(
    weights: Path, tmp_path: Path
) -> None:
    entry = tiny_model_entry(weights, device="cuda")
    prepare_model("gpu-only", entry, tmp_path / "gpu-only")
    with pytest.raises(RuntimeError, match=r"model gpu-only: device 'cuda'.*device: cpu"):
        create_backend(entry, tmp_path / "gpu-only")


def test_unknown_precision_is_refused_with_the_choices(weights: Path, tmp_path: Path) -> None:
    entry = tiny_model_entry(weights, precision="int4")
    prepare_model("odd", entry, tmp_path / "odd")
    with pytest.raises(
        ValueError, match=r"models.odd.precision: must be one of .*'nf4' \(got 'int4'\)"
    ):
        create_backend(entry, tmp_path / "odd")


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vllm is installed")
def test_vllm_backend_without_vllm_says_how_to_get_it(weights: Path, tmp_path: Path) -> None:
    entry = {"backend": "vllm", "path": str(weights), "quantization": "bitsandbytes"}
    prepare_model("served", entry, tmp_path / "served")
    assert read_model_card(tmp_path / "served")["backend"] == "vllm"
    with pytest.raises(RuntimeError, match=r"model served: backend vllm needs the vllm package"):
        create_backend(entry, tmp_path / "served")


def test_hosted_model_has_a_card_and_no_weights(tmp_path: Path) -> None:
    entry = {"backend": "openai", "base_url": "https://api.openai.com/v1", "model": "gpt-4o"}
    prepare_model("gpt-4o", entry, tmp_path / "gpt-4o")
    assert json.loads((tmp_path / "gpt-4o" / "model.json").read_text()) == {
        "name": "gpt-4o",
        "backend": "openai",
    }
    with pytest.raises(ValueError, match=r"models.gpt-4o.model: field required"):
        create_backend({"backend": "openai", "base_url": "http://x/v1"}, tmp_path / "gpt-4o")
