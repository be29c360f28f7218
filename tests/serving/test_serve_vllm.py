"""``docqa serve --engine vllm``: the ``vllm serve`` command line built from a config entry, a
started server that exits or never gets healthy, and vLLM's own environment file. The way a
server is started and awaited until healthy runs against a real ``docqa serve`` on 127.0.0.1
(vllm is not installed here) in every test that uses ``test_serve.docqa_serve``, such as
``test_serve_e2e``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.serving import free_port

from docqa.backends.preparation import prepare_model
from docqa.backends.vllm import VLLM_RELEASE
from docqa.cli import main
from docqa.serving.health import start_server_process
from docqa.serving.vllm_launcher import client_entry, vllm_command

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = yaml.safe_load((ROOT / "config" / "models.yaml").read_text())["models"]


def prepared(name: str, tmp_path: Path, model_type: str) -> tuple[dict[str, Any], Path]:
    """Catalogue entry ``name`` prepared from a local folder standing in for its weights."""
    weights = tmp_path / "weights"
    weights.mkdir()
    (weights / "config.json").write_text(json.dumps({"model_type": model_type}))
    entry = {key: value for key, value in CATALOGUE[name].items() if key != "hf_id"}
    entry["path"] = str(weights)
    prepare_model(name, entry, tmp_path / name)
    return entry, tmp_path / name


def test_a_quantized_qwen_entry_becomes_its_vllm_serve_flags(tmp_path: Path) -> None:
    name = "qwen2.5-vl-7b-vllm-bnb4"
    entry, model_dir = prepared(name, tmp_path, "qwen2_5_vl")
    command = vllm_command(name, entry, model_dir, host="127.0.0.1", port=8011)
    assert command == [
        "vllm", "serve", str(tmp_path / "weights"), "--served-model-name", name,
        "--host", "127.0.0.1", "--port", "8011",
        "--tensor-parallel-size", "1", "--dtype", "bfloat16",
        "--gpu-memory-utilization", "0.9", "--max-num-seqs", "64", "--seed", "0",
        "--limit-mm-per-prompt", '{"image": 8}',
        "--quantization", "bitsandbytes", "--max-model-len", "32768",
        "--mm-processor-kwargs", '{"max_pixels": 1003520}',
    ]  # fmt: skip


def test_tensor_parallelism_remote_code_and_the_launcher_prefix(tmp_path: Path) -> None:
    name = "phi-3.5-vision-vllm"
    entry, model_dir = prepared(name, tmp_path, "phi3_v")
    entry = {**entry, "tensor_parallel_size": 4, "max_images": 2}
    prefix = ["conda", "run", "-n", "docqa-vllm", "vllm"]
    command = vllm_command(name, entry, model_dir, host="0.0.0.0", port=9000, executable=prefix)
    assert command[:7] == [*prefix, "serve", str(tmp_path / "weights")]
    flags = dict(zip(command[7::2], command[8::2], strict=False))
    assert flags["--tensor-parallel-size"] == "4"
    assert flags["--limit-mm-per-prompt"] == ('{"image": 2}')
    assert command[-1] == "--trust-remote-code"
    assert "--mm-processor-kwargs" not in command  # Phi's processor takes no pixel budget
    assert "--quantization" not in command
    assert "--max-model-len" not in command
    base_url = "http://127.0.0.1:9000/v1"
    assert client_entry(name, entry, model_dir, base_url) == {
        "backend": "openai",
        "base_url": base_url,
        "model": name,
        "revision": json.loads((model_dir / "model.json").read_text())["identity"]["sha256"],
        "concurrency": 64,
    }


def test_a_transformers_entry_is_not_silently_served_by_vllm(tmp_path: Path) -> None:
    entry, model_dir = prepared("qwen2.5-vl-7b-nf4", tmp_path, "qwen2_5_vl")
    with pytest.raises(ValueError, match="backend 'transformers'; --engine vllm serves backend"):
        vllm_command("qwen2.5-vl-7b-nf4", entry, model_dir, host="127.0.0.1", port=8000)


def test_the_cli_prints_the_command_and_names_an_unprepared_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "qwen2.5-vl-7b-vllm-bnb4"
    _, model_dir = prepared(name, tmp_path, "qwen2_5_vl")
    configs = [str(ROOT / "config" / "config.yaml"), str(ROOT / "config" / "models.yaml")]
    args = ["serve", name, "--engine", "vllm", "--configfile", *configs]
    launcher = ["--vllm-command", "conda run -n docqa-vllm vllm"]
    assert main([*args, "--model-dir", str(model_dir), "--print-command", *launcher]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"conda run -n docqa-vllm vllm serve {tmp_path / 'weights'} ")
    assert "--quantization bitsandbytes" in printed

    assert main([*args, "--model-dir", str(tmp_path / "nowhere"), "--print-command"]) == 2
    error = capsys.readouterr().err
    assert f"model {name} is not prepared" in error
    assert f"results/models/{name}" in error


def test_a_server_that_exits_or_never_answers_is_an_error() -> None:
    base_url = f"http://127.0.0.1:{free_port()}/v1"
    exits = [sys.executable, "-c", "import sys; sys.exit(3)"]
    with pytest.raises(RuntimeError, match="exited with status 3 before it was healthy"):
        start_server_process(exits, base_url, timeout_s=60)
    silent = [sys.executable, "-c", "import time; time.sleep(60)"]
    with pytest.raises(TimeoutError, match="/health did not answer within 1 s"):
        start_server_process(silent, base_url, timeout_s=1)
    with pytest.raises(RuntimeError, match="no-such-vllm: no such program.*--vllm-command"):
        start_server_process(["no-such-vllm", "serve"], base_url, timeout_s=1)


def test_the_vllm_environment_pins_the_release_docqa_names() -> None:
    env = yaml.safe_load((ROOT / "envs" / "vllm" / "environment.yaml").read_text())
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    (pip,) = [d["pip"] for d in env["dependencies"] if isinstance(d, dict)]
    infer = yaml.safe_load((ROOT / "envs" / "infer.yaml").read_text())["dependencies"]
    python = [d for d in infer if str(d).startswith("python=")]
    assert python, f"envs/infer.yaml pins no python: {infer}"
    assert python[0] in conda, f"vllm env {conda}: not the pipeline's {python}"
    assert all("=" in d for d in conda)
    assert all("==" in line for line in pip), pip
    pins = dict(line.split("==") for line in pip)
    assert pins["vllm"] == VLLM_RELEASE
    assert "torch" in pins
