"""Random-weight page-image encoders for benchmarks/gpu_acceptance.py: ColQwen2 of the
Qwen2-VL-2B shape and ColPali of the PaliGemma-3B-448 shape (their config.json), or tiny ones of
the same architectures, each saved with its processor as the folder docqa's ``colqwen2`` /
``colpali`` retrievers load. Their byte-level BPE tokenizers are trained here on a corpus, so
nothing is downloaded. The configs and processors are built by the tests' builders
(``tests/helpers/tiny_encoders.py``), one code path for the tests' tiny encoders and these."""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

import torch

# the builders are the tests' (tests/helpers/tiny_encoders.py), which the tiny shapes are too
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.tiny_encoders import (
    COLPALI_SPECIALS,
    TINY_COLPALI,
    TINY_COLQWEN2,
    TINY_EMBEDDING_DIM,
    colpali_parts,
    colqwen2_parts,
)
from helpers.tiny_tokenizers import QWEN_SPECIALS, fast_tokenizer

#: ColQwen2 on Qwen2-VL-2B and ColPali on PaliGemma-3B-448 (their config.json), and the tests'
#: tiny ones
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
        "tiny": TINY_COLQWEN2,
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
        "tiny": TINY_COLPALI,
    },
}
EMBEDDING_DIM = {"real": 128, "tiny": TINY_EMBEDDING_DIM}
#: the BPE tokenizers' size at most (the model's vocabulary stays its config's)
TOKENIZER_VOCAB = 4000


def colqwen2_retriever(shape: str, corpus: list[str]) -> tuple[Any, Any, Any]:
    """(model class, config, processor) of a ColQwen2 of ``shape``."""
    from transformers import ColQwen2ForRetrieval

    spec = RETRIEVER_SHAPES["colqwen2"][shape]
    vocab = min(TOKENIZER_VOCAB, spec["text"]["vocab_size"])
    tokenizer = fast_tokenizer(
        corpus, vocab, QWEN_SPECIALS, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    return (ColQwen2ForRetrieval, *colqwen2_parts(spec, tokenizer, EMBEDDING_DIM[shape]))


def colpali_retriever(shape: str, corpus: list[str]) -> tuple[Any, Any, Any]:
    """(model class, config, processor) of a ColPali of ``shape``."""
    from transformers import ColPaliForRetrieval

    spec = RETRIEVER_SHAPES["colpali"][shape]
    vocab = min(TOKENIZER_VOCAB, spec["text"]["vocab_size"])
    tokenizer = fast_tokenizer(
        corpus, vocab, COLPALI_SPECIALS,
        bos_token="<bos>", eos_token="<eos>", pad_token="<pad>", unk_token="<unk>",
    )  # fmt: skip
    return (ColPaliForRetrieval, *colpali_parts(spec, tokenizer, EMBEDDING_DIM[shape]))


RETRIEVER_PARTS = {"colqwen2": colqwen2_retriever, "colpali": colpali_retriever}


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
