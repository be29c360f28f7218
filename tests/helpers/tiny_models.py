"""The tiny random models of the tests and benchmarks, built offline from configs.

``build_tiny_vlm(family, folder)`` writes a transformers folder (random weights of a few hundred
thousand parameters, a byte-level BPE tokenizer trained here on a few lines, the family's
processor and a chat template shaped like the real model's) that the Auto classes load back.
Tests of the methods use it to run "on a tiny random VLM":

    from helpers.tiny_models import build_tiny_vlm, tiny_model_entry
    folder = build_tiny_vlm("qwen2_5_vl", tmp_path / "vlm")
    entry = tiny_model_entry(folder)        # a models.<name> config entry for that folder

``tiny_model_entry`` gives ``{backend: transformers, path: folder, ...}``: prepare_model reads
the local folder (no download) and the backend runs it on CPU in float32 with eager attention
(SDPA gives NaN rows for left-padded batches on CPU).

``build_tiny_lm`` writes a random Gemma 3 causal LM (the transformers_lm and embedded
backends), ``tiny_embedded`` the same with an embedded model card. ``qwen_vl`` builds a
Qwen2-VL / Qwen2.5-VL of any size in memory: benchmarks/vlm_throughput.py builds its random
7B-shaped model with it (the benchmark puts tests/ on sys.path), so the tests and the benchmark
run the same architecture code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.tiny_tokenizers import QWEN_SPECIALS, byte_level_bpe

FAMILIES = ("qwen2_vl", "qwen2_5_vl", "llava", "llava_next", "llava_onevision", "idefics3", "llama")

CORPUS = [
    "What is the revenue in 2021? The revenue was 120 million.",
    "Which page shows the chart? Page 3 shows the bar chart of sales.",
    "Answer with a number. 42",
    "The quarterly report compares regions A, B and C by margin and growth.",
]

#: tokens every family's tokenizer has; each family adds its own image tokens
BASE_SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]

IDEFICS3_SPECIALS = [
    "<fake_token_around_image>",
    "<image>",
    "<end_of_utterance>",
    "<global-img>",
] + [f"<row_{i}_col_{j}>" for i in range(1, 7) for j in range(1, 7)]
LLAMA_SPECIALS = ["<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]

# Chat templates shaped like the real models' (the parts that matter: where image tokens go,
# the turn markers, the generation prompt).
_CONTENT = (
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}IMAGE"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}"
)
QWEN_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    + _CONTENT.replace("IMAGE", "<|vision_start|><|image_pad|><|vision_end|>")
    + "<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
LLAVA_TEMPLATE = (
    "{% for message in messages %}{{ message['role'].upper() }}: "
    + _CONTENT.replace("IMAGE", "<image>\n")
    + "\n{% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)
LLAVA_NEXT_TEMPLATE = (  # llava-v1.6-mistral: [INST] ... [/INST]
    "{% for message in messages %}"
    "{% if message['role'] == 'user' %}[INST] "
    + _CONTENT.replace("IMAGE", "<image>\n")
    + " [/INST]{% else %}"
    + _CONTENT.replace("IMAGE", "")
    + "</s>{% endif %}{% endfor %}"
)
ONEVISION_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    + _CONTENT.replace("IMAGE", "<image>\n")
    + "<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
IDEFICS3_TEMPLATE = (
    "<|im_start|>{% for message in messages %}{{ message['role'] | capitalize }}:"
    + _CONTENT.replace("IMAGE", "<image>")
    + "<end_of_utterance>\n{% endfor %}{% if add_generation_prompt %}Assistant:{% endif %}"
)
LLAMA_TEMPLATE = (
    "<|begin_of_text|>{% for message in messages %}"
    "<|start_header_id|>{{ message['role'] }}<|end_header_id|>\n\n"
    "{{ message['content'] }}<|eot_id|>{% endfor %}"
    "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n"
    "{% endif %}"
)

TEXT = dict(  # the tiny decoder every family shares
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=4096,
)
VISION_TOWER = dict(  # CLIP / SigLIP-shaped tower for LLaVA and Idefics3
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    patch_size=14,
)


def build_tiny_vlm(family: str, folder: Path, seed: int = 0) -> Path:
    """Write a tiny random model of ``family`` (one of ``FAMILIES``) to ``folder``; returns it."""
    import torch

    if family not in FAMILIES:
        raise ValueError(f"family {family!r}: use one of {FAMILIES}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    build = {
        "qwen2_vl": _qwen,
        "qwen2_5_vl": _qwen,
        "llava": _llava,
        "llava_next": _llava_next,
        "llava_onevision": _llava_onevision,
        "idefics3": _idefics3,
        "llama": _llama,
    }[family]
    model, processor = build(family)
    save(model, processor, folder)
    return folder


def save(model: Any, processor: Any, folder: Path) -> Path:
    """Write ``model`` (greedy by default) and its processor or tokenizer to ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.generation_config.do_sample = False
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def tiny_model_entry(folder: Path, **settings: Any) -> dict[str, Any]:
    """A ``models.<name>`` config entry for a folder from ``build_tiny_vlm``: local weights, CPU,
    float32, eager attention, a small pixel budget; ``settings`` override any of it."""
    return {
        "backend": "transformers",
        "path": str(folder),
        "precision": "fp32",
        "device": "cpu",
        "attn_implementation": "eager",
        "max_pixels": 112 * 112,
        "max_batch_size": 4,
        **settings,
    }


def _tokenizer(specials: list[str], **roles: str) -> Any:
    from transformers import PreTrainedTokenizerFast

    bpe = byte_level_bpe(CORPUS * 20, 500, BASE_SPECIALS + specials, unk_token="<unk>")
    defaults = {"pad_token": "<pad>", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
    return PreTrainedTokenizerFast(
        tokenizer_object=bpe, extra_special_tokens=specials, **{**defaults, **roles}
    )


def _ids(tokenizer: Any) -> dict[str, int]:
    return {
        "pad_token_id": tokenizer.pad_token_id,
        "bos_token_id": tokenizer.bos_token_id,
        "eos_token_id": tokenizer.eos_token_id,
    }


def _qwen(family: str) -> tuple[Any, Any]:
    return qwen_vl(family)


def qwen_vl(
    family: str,
    text: dict[str, Any] | None = None,
    vision: dict[str, Any] | None = None,
    dtype: Any = None,
    device: str = "cpu",
) -> tuple[Any, Any]:
    """A random Qwen2-VL or Qwen2.5-VL (``family``) and its processor, in memory: the tiny test
    shape, with ``text`` and ``vision`` config entries overriding it (a real model's sizes, its
    ``vocab_size`` and ``rope_parameters`` included); weights drawn in ``dtype`` on ``device``."""
    import torch
    from transformers import (
        AutoModelForImageTextToText,
        Qwen2_5_VLConfig,
        Qwen2_5_VLProcessor,
        Qwen2VLConfig,
        Qwen2VLImageProcessor,
        Qwen2VLProcessor,
        Qwen2VLVideoProcessor,
    )

    if family not in ("qwen2_vl", "qwen2_5_vl"):
        raise ValueError(f"family {family!r}: qwen_vl builds qwen2_vl or qwen2_5_vl")
    tokenizer = _tokenizer(QWEN_SPECIALS, pad_token="<|endoftext|>", eos_token="<|im_end|>")
    ids = {
        name: tokenizer.convert_tokens_to_ids(token)
        for name, token in [
            ("image_token_id", "<|image_pad|>"),
            ("video_token_id", "<|video_pad|>"),
            ("vision_start_token_id", "<|vision_start|>"),
            ("vision_end_token_id", "<|vision_end|>"),
        ]
    }
    text_config = dict(
        TEXT,
        vocab_size=len(tokenizer),
        rope_parameters={"rope_type": "default", "rope_theta": 1e6, "mrope_section": [2, 3, 3]},
        **_ids(tokenizer),
    )
    text_config.update(text or {})
    if text_config["vocab_size"] < len(tokenizer):
        raise ValueError(f"vocab_size {text_config['vocab_size']} < the {len(tokenizer)} tokens")
    vision_config: dict[str, Any] = dict(
        depth=2, num_heads=4, patch_size=14, spatial_merge_size=2, temporal_patch_size=2
    )
    if family == "qwen2_5_vl":
        vision_config.update(
            hidden_size=64,
            intermediate_size=128,
            out_hidden_size=64,
            fullatt_block_indexes=[1],
            window_size=112,
        )
        config, processor_class = Qwen2_5_VLConfig, Qwen2_5_VLProcessor
    else:
        vision_config.update(embed_dim=64, hidden_size=64, mlp_ratio=2)
        config, processor_class = Qwen2VLConfig, Qwen2VLProcessor
    vision_config.update(vision or {})
    with torch.device(device):
        model = AutoModelForImageTextToText.from_config(
            config(text_config=text_config, vision_config=vision_config, **ids, **_ids(tokenizer)),
            **({} if dtype is None else {"dtype": dtype}),
        )
    # the real processors' defaults (56*56 to 28*28*1280 pixels); the backend's budget caps them
    processor = processor_class(
        image_processor=Qwen2VLImageProcessor(),
        tokenizer=tokenizer,
        video_processor=Qwen2VLVideoProcessor(),
        chat_template=QWEN_TEMPLATE,
    )
    return model, processor


def _clip_llama(tokenizer: Any, image_size: int, **extra: Any) -> dict[str, Any]:
    return dict(
        vision_config=dict(VISION_TOWER, model_type="clip_vision_model", image_size=image_size),
        text_config=dict(TEXT, model_type="llama", vocab_size=len(tokenizer), **_ids(tokenizer)),
        image_token_index=tokenizer.convert_tokens_to_ids("<image>"),
        **extra,
    )


def _llava(family: str) -> tuple[Any, Any]:
    from transformers import (
        AutoModelForImageTextToText,
        CLIPImageProcessor,
        LlavaConfig,
        LlavaProcessor,
    )

    tokenizer = _tokenizer(["<image>"])
    size = 56
    model = AutoModelForImageTextToText.from_config(LlavaConfig(**_clip_llama(tokenizer, size)))
    image_processor = CLIPImageProcessor(
        size={"shortest_edge": size}, crop_size={"height": size, "width": size}
    )
    processor = LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        patch_size=14,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=LLAVA_TEMPLATE,
    )
    return model, processor


def _llava_next(family: str) -> tuple[Any, Any]:
    from transformers import (
        AutoModelForImageTextToText,
        LlavaNextConfig,
        LlavaNextImageProcessor,
        LlavaNextProcessor,
    )

    tokenizer = _tokenizer(["<image>"])
    size = 56
    # anyres grids (the real ones are 336-pixel tiles up to 672x672); the 4x4 grid lets a larger
    # pixel budget buy more image tokens at this tiny size
    pinpoints = [[56, 112], [112, 56], [112, 112], [224, 224]]
    config = LlavaNextConfig(
        **_clip_llama(tokenizer, size, image_grid_pinpoints=pinpoints, image_seq_length=16)
    )
    model = AutoModelForImageTextToText.from_config(config)
    image_processor = LlavaNextImageProcessor(
        size={"shortest_edge": size},
        crop_size={"height": size, "width": size},
        image_grid_pinpoints=pinpoints,
    )
    processor = LlavaNextProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        patch_size=14,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=LLAVA_NEXT_TEMPLATE,
    )
    return model, processor


def _llava_onevision(family: str) -> tuple[Any, Any]:
    from transformers import (
        AutoModelForImageTextToText,
        LlavaOnevisionConfig,
        LlavaOnevisionImageProcessor,
        LlavaOnevisionProcessor,
        LlavaOnevisionVideoProcessor,
    )

    tokenizer = _tokenizer(
        QWEN_SPECIALS + ["<image>", "<video>"], pad_token="<|endoftext|>", eos_token="<|im_end|>"
    )
    size = 56
    pinpoints = [[56, 112], [112, 56], [112, 112]]
    vision = dict(VISION_TOWER, model_type="siglip_vision_model", image_size=size)
    text = dict(TEXT, model_type="qwen2", vocab_size=len(tokenizer), **_ids(tokenizer))
    config = LlavaOnevisionConfig(
        vision_config=vision,
        text_config=text,
        image_token_index=tokenizer.convert_tokens_to_ids("<image>"),
        video_token_index=tokenizer.convert_tokens_to_ids("<video>"),
        image_grid_pinpoints=pinpoints,
        vision_aspect_ratio="anyres_max_9",
    )
    model = AutoModelForImageTextToText.from_config(config)
    image_processor = LlavaOnevisionImageProcessor(
        size={"height": size, "width": size}, image_grid_pinpoints=pinpoints
    )
    processor = LlavaOnevisionProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        video_processor=LlavaOnevisionVideoProcessor(size={"height": size, "width": size}),
        num_image_tokens=(size // 14) ** 2,
        vision_feature_select_strategy="full",
        chat_template=ONEVISION_TEMPLATE,
    )
    return model, processor


def _idefics3(family: str) -> tuple[Any, Any]:
    from transformers import (
        AutoModelForImageTextToText,
        Idefics3Config,
        Idefics3ImageProcessor,
        Idefics3Processor,
    )

    tokenizer = _tokenizer(IDEFICS3_SPECIALS, eos_token="<end_of_utterance>")
    size = 56
    config = Idefics3Config(
        vision_config=dict(VISION_TOWER, image_size=size),
        text_config=dict(TEXT, model_type="llama", vocab_size=len(tokenizer), **_ids(tokenizer)),
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
        scale_factor=2,
        **_ids(tokenizer),
    )
    model = AutoModelForImageTextToText.from_config(config)
    image_processor = Idefics3ImageProcessor(
        size={"longest_edge": 4 * size}, max_image_size={"longest_edge": size}
    )
    processor = Idefics3Processor(
        image_processor,
        tokenizer=tokenizer,
        image_seq_len=(size // 14 // 2) ** 2,
        chat_template=IDEFICS3_TEMPLATE,
    )
    return model, processor


def _llama(family: str) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, LlamaConfig

    tokenizer = _tokenizer(LLAMA_SPECIALS, bos_token="<|begin_of_text|>", eos_token="<|eot_id|>")
    tokenizer.chat_template = LLAMA_TEMPLATE
    config = LlamaConfig(**TEXT, vocab_size=len(tokenizer), **_ids(tokenizer))
    return AutoModelForCausalLM.from_config(config), tokenizer


#: what the tiny LM's tokenizer is trained on
LM_CORPUS = [
    "Q: What is the capital of France?\nA: Paris\n",
    "The quarterly report shows revenue of 120 million in Q1 and 135 million in Q2.\n",
    "### Page 3\nProject Milestones\n2019 Prototype built\n2020 Field trials\n",
]
#: the tiny LM's context: prompts longer than this minus max_new_tokens are cut
LM_CONTEXT = 128
#: prompts of unequal length for the tiny LM (one of a single character)
LM_PROMPTS = [
    "Q: What is the capital of France?\nA:",
    "x",
    "The quarterly report shows revenue of 120 million in Q1 and 135 million in Q2.\nQ: Q2?\nA:",
    "### Page 3\nProject Milestones\n",
]


def build_tiny_lm(
    folder: Path,
    chat_template: str | None = None,
    *,
    corpus: list[str] | None = None,
    vocab: int = 400,
    **shape: Any,
) -> Path:
    """A random Gemma 3 causal LM (hidden 64, 2 layers, sliding window 8) and a byte-level BPE
    tokenizer of ``vocab`` tokens trained on ``corpus`` (a few lines by default), saved as a
    transformers folder; ``shape`` overrides fields of the model's config."""
    import torch
    from tokenizers import processors
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig, PreTrainedTokenizerFast

    bpe = byte_level_bpe(corpus or LM_CORPUS * 10, vocab, ["<pad>", "<eos>", "<bos>", "<unk>"])
    bpe.post_processor = processors.TemplateProcessing(
        single="<bos> $A", special_tokens=[("<bos>", 2)]
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        bos_token="<bos>",
        eos_token="<eos>",
        pad_token="<pad>",
        unk_token="<unk>",
    )
    if chat_template is not None:
        tokenizer.chat_template = chat_template
    torch.manual_seed(0)
    config = Gemma3TextConfig(
        **{
            "vocab_size": len(tokenizer),
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "head_dim": 16,
            "max_position_embeddings": LM_CONTEXT,
            "sliding_window": 8,
            "layer_types": ["sliding_attention", "full_attention"],
            "pad_token_id": 0,
            "eos_token_id": 1,
            "bos_token_id": 2,
            **shape,
        }
    )
    Gemma3ForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def tiny_embedded(folder: Path, **shape: Any) -> Path:
    """``build_tiny_lm`` (``shape`` overrides its config) with an embedded model card: the
    embedded backend loads it."""
    import json

    from docqa.backends.preparation import MODEL_CARD

    build_tiny_lm(folder, **shape)
    card = {
        "id": "tiny-gemma",
        "source": {"package": "tiny-package", "version": "0.0.1"},
        "gguf_sha256": "0" * 64,
        "quantization": "none",
    }
    (folder / MODEL_CARD).write_text(json.dumps(card))
    return folder


def greedy(prompt: str, max_new_tokens: int = 12, stop: tuple[str, ...] = ()) -> Any:
    """A greedy ``ChatRequest`` of one prompt."""
    from docqa.backends.request import ChatRequest, Generation

    return ChatRequest.prompt(prompt, Generation(max_new_tokens=max_new_tokens, stop=stop))


def write_page(path: Path, size: tuple[int, int] = (1280, 720), seed: int = 0) -> Path:
    """A page-like PNG: white, a dark title bar and a few coloured blocks that differ by seed."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    width, height = size
    draw.rectangle((0, 0, width, height // 8), fill=(20, 20, 60))
    for block in range(4):
        left = (seed * 37 + block * width // 4) % max(1, width - width // 5)
        top = height // 4 + block * height // 8
        colour = ((seed * 50 + block * 80) % 256, (block * 60) % 256, (seed * 90) % 256)
        draw.rectangle((left, top, left + width // 5, top + height // 10), fill=colour)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)
    return path
