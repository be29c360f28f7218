"""Random-weight page-image encoders for benchmarks/gpu_acceptance.py: ColQwen2 of the
Qwen2-VL-2B shape and ColPali of the PaliGemma-3B-448 shape (their config.json), or tiny ones of
the same architectures, each saved with its processor as the folder docqa's ``colqwen2`` /
``colpali`` retrievers load. Their byte-level BPE tokenizers are trained here on a corpus, so
nothing is downloaded."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import torch

#: the Qwen special tokens (as in the Qwen2-VL tokenizer)
QWEN_SPECIALS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
]

#: ColQwen2 on Qwen2-VL-2B and ColPali on PaliGemma-3B-448 (their config.json), and tiny ones
RETRIEVER_SHAPES: dict[str, dict[str, dict[str, Any]]] = {
    "colqwen2": {
        "real": dict(
            text=dict(
                hidden_size=1536,
                intermediate_size=8960,
                num_hidden_layers=28,
                num_attention_heads=12,
                num_key_value_heads=2,
                vocab_size=151936,
                mrope_section=[16, 24, 24],
            ),
            vision=dict(depth=32, embed_dim=1280, hidden_size=1536, mlp_ratio=4, num_heads=16),
            # colpali-engine's ColQwen2 caps a page at 768 visual tokens (assumed, not read)
            max_pixels=768 * 28 * 28,
        ),
        "tiny": dict(
            text=dict(
                hidden_size=64,
                intermediate_size=128,
                num_hidden_layers=2,
                num_attention_heads=4,
                num_key_value_heads=2,
                vocab_size=1000,
                mrope_section=[2, 3, 3],
            ),
            vision=dict(depth=2, embed_dim=64, hidden_size=64, mlp_ratio=2, num_heads=4),
            max_pixels=112 * 112 * 4,
        ),
    },
    "colpali": {
        "real": dict(
            text=dict(
                hidden_size=2048,
                intermediate_size=16384,
                num_hidden_layers=18,
                num_attention_heads=8,
                num_key_value_heads=1,
                head_dim=256,
                vocab_size=257216,
            ),
            vision=dict(
                hidden_size=1152,
                intermediate_size=4304,
                num_hidden_layers=27,
                num_attention_heads=16,
                image_size=448,
            ),
            projection_dim=2048,
        ),
        "tiny": dict(
            text=dict(
                hidden_size=64,
                intermediate_size=128,
                num_hidden_layers=2,
                num_attention_heads=4,
                num_key_value_heads=1,
                head_dim=16,
                vocab_size=1000,
            ),
            vision=dict(
                hidden_size=32,
                intermediate_size=64,
                num_hidden_layers=2,
                num_attention_heads=2,
                image_size=56,
            ),
            projection_dim=64,
        ),
    },
}
EMBEDDING_DIM = {"real": 128, "tiny": 16}


def _bpe(corpus: list[str], vocab: int, specials: list[str], **named: str) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(corpus, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=bpe, **named)


def colqwen2_parts(shape: str, corpus: list[str]) -> tuple[Any, Any, Any]:
    """(model class, config, processor) of a ColQwen2 of ``shape``."""
    from transformers import (
        ColQwen2Config,
        ColQwen2ForRetrieval,
        ColQwen2Processor,
        Qwen2VLImageProcessor,
    )

    spec = RETRIEVER_SHAPES["colqwen2"][shape]
    specials = QWEN_SPECIALS
    tokenizer = _bpe(
        corpus,
        min(4000, spec["text"]["vocab_size"]),
        specials,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
    )
    ids = {token: tokenizer.convert_tokens_to_ids(token) for token in specials}
    text = {key: value for key, value in spec["text"].items() if key != "mrope_section"}
    text.update(
        model_type="qwen2_vl",
        bos_token_id=ids["<|endoftext|>"],
        eos_token_id=ids["<|im_end|>"],
        rope_parameters={
            "rope_type": "default",
            "rope_theta": 1e6,
            "mrope_section": spec["text"]["mrope_section"],
        },
    )
    vision = dict(spec["vision"], patch_size=14, spatial_merge_size=2, temporal_patch_size=2)
    vlm = dict(
        model_type="qwen2_vl",
        text_config=text,
        vision_config=vision,
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
    )
    config = ColQwen2Config(vlm_config=vlm, embedding_dim=EMBEDDING_DIM[shape])
    images = Qwen2VLImageProcessor(min_pixels=56 * 56, max_pixels=spec["max_pixels"])
    return (
        ColQwen2ForRetrieval,
        config,
        ColQwen2Processor(image_processor=images, tokenizer=tokenizer),
    )


def colpali_parts(shape: str, corpus: list[str]) -> tuple[Any, Any, Any]:
    """(model class, config, processor) of a ColPali of ``shape``."""
    from transformers import (
        ColPaliConfig,
        ColPaliForRetrieval,
        ColPaliProcessor,
        SiglipImageProcessor,
    )

    spec = RETRIEVER_SHAPES["colpali"][shape]
    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<image>"]
    tokenizer = _bpe(
        corpus,
        min(4000, spec["text"]["vocab_size"]),
        specials,
        bos_token="<bos>",
        eos_token="<eos>",
        pad_token="<pad>",
        unk_token="<unk>",
    )
    size = spec["vision"]["image_size"]
    vlm = dict(
        model_type="paligemma",
        text_config=dict(spec["text"], model_type="gemma"),
        vision_config=dict(
            spec["vision"],
            model_type="siglip_vision_model",
            patch_size=14,
            projection_dim=spec["projection_dim"],
        ),
        projection_dim=spec["projection_dim"],
        hidden_size=spec["text"]["hidden_size"],
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
    )
    config = ColPaliConfig(vlm_config=vlm, embedding_dim=EMBEDDING_DIM[shape])
    images = SiglipImageProcessor(size={"height": size, "width": size})
    images.image_seq_length = (size // 14) ** 2
    return (
        ColPaliForRetrieval,
        config,
        ColPaliProcessor(image_processor=images, tokenizer=tokenizer),
    )


RETRIEVER_PARTS = {"colqwen2": colqwen2_parts, "colpali": colpali_parts}


def build_retriever_model(
    name: str, folder: Path, shape: str, device: str, dtype: str, corpus: list[str]
) -> int:
    """Save a random ``name`` encoder of ``shape`` (weights drawn on ``device`` in ``dtype``)
    with its processor to ``folder``; returns its parameter count."""
    model_class, config, processor = RETRIEVER_PARTS[name](shape, corpus)
    torch.manual_seed(0)
    with torch.device(device):
        model = model_class._from_config(config, dtype=getattr(torch, dtype))
    parameters = sum(p.numel() for p in model.parameters())
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    del model
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return parameters
