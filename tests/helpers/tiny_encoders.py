"""Tiny random retrieval models built from configs, offline: a sentence encoder, a ColBERT-style
multi-vector encoder, ColQwen2 and ColPali, each saved as the folder its retriever loads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.tiny_tokenizers import QWEN_SPECIALS, fast_tokenizer

CORPUS = [
    "Quarterly review agenda revenue by region north south",
    "Hiring plan engineering design people",
    "Query: What is shown on this page? Describe the image.",
]


def _bpe_tokenizer(special_tokens: list[str], **named: str) -> Any:
    return fast_tokenizer(CORPUS * 10, 300, special_tokens, **named)


def tiny_bert(folder: Path, positions: int = 128, extra_tokens: tuple[str, ...] = ()) -> Path:
    """A random 2-layer BERT (hidden 32) with a WordPiece tokenizer trained on CORPUS, reading
    ``positions`` tokens; ``extra_tokens`` join its vocabulary whole (BERT's ``[unused0]``...)."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *extra_tokens]
    wordpiece = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    wordpiece.normalizer = normalizers.BertNormalizer(lowercase=True)
    wordpiece.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(
        vocab_size=200, special_tokens=specials, show_progress=False
    )
    wordpiece.train_from_iterator(CORPUS * 10, trainer)
    cls, sep = wordpiece.token_to_id("[CLS]"), wordpiece.token_to_id("[SEP]")
    wordpiece.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=wordpiece,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=positions,
    )
    BertModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def tiny_sentence_encoder(folder: Path) -> Path:
    """The tiny BERT with mean pooling, saved as a sentence-transformers folder."""
    from sentence_transformers import SentenceTransformer

    SentenceTransformer(str(tiny_bert(folder / "bert")), device="cpu").save(str(folder / "st"))
    return folder / "st"


def tiny_colbert(folder: Path) -> Path:
    """The tiny BERT with a random 128-d projection, saved as a multi-vector (ColBERT) folder."""
    from sentence_transformers import MultiVectorEncoder

    MultiVectorEncoder(str(tiny_bert(folder / "bert")), device="cpu").save(str(folder / "mve"))
    return folder / "mve"


def tiny_stanford_colbert(folder: Path) -> Path:
    """The tiny BERT in the folder layout of ``colbert-ir/colbertv2.0`` (a Stanford-NLP ColBERT
    checkpoint): ``HF_ColBERT`` in config.json, the BERT weights under ``bert.`` beside the
    projection ``linear.weight`` (128-d there, 16 here), 512 positions, and colbertv2.0's
    ``artifact.metadata`` (documents cut at ``doc_maxlen`` 180 tokens, queries 32, the
    ``[unused0]``/``[unused1]`` markers)."""
    import json

    import torch
    from safetensors.torch import save_file
    from transformers import BertModel

    bert = tiny_bert(folder / "bert", positions=512, extra_tokens=("[unused0]", "[unused1]"))
    out = folder / "colbertv2.0"
    out.mkdir(parents=True)
    state = BertModel.from_pretrained(bert).state_dict()
    weights = {f"bert.{key}": value.contiguous() for key, value in state.items()}
    torch.manual_seed(0)
    weights["linear.weight"] = torch.randn(TINY_EMBEDDING_DIM, 32)
    save_file(weights, out / "model.safetensors")
    config = json.loads((bert / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({**config, "architectures": ["HF_ColBERT"]}))
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        if (bert / name).exists():
            (out / name).write_bytes((bert / name).read_bytes())
    metadata = {
        "doc_maxlen": 180,
        "query_maxlen": 32,
        "attend_to_mask_tokens": False,
        "mask_punctuation": True,
        "query_token_id": "[unused0]",
        "doc_token_id": "[unused1]",
    }
    (out / "artifact.metadata").write_text(json.dumps(metadata))
    return out


#: the tiny ColQwen2 and ColPali (their vocabulary is their tokenizer's; 16-d vectors);
#: benchmarks/random_retrievers.py builds the real shapes with the same builders
TINY_COLQWEN2: dict[str, Any] = {
    "text": dict(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=1000,
        mrope_section=[2, 3, 3],
    ),
    "vision": dict(depth=2, embed_dim=64, hidden_size=64, mlp_ratio=2, num_heads=4),
    # pages capped at 112x112 pixels per 4, so an image is a few dozen vectors
    "max_pixels": 112 * 112 * 4,
}
TINY_COLPALI: dict[str, Any] = {
    "text": dict(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=1,
        head_dim=16,
        vocab_size=1000,
    ),
    "vision": dict(
        hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
        image_size=56,
    ),
    "projection_dim": 64,
}  # fmt: skip
TINY_EMBEDDING_DIM = 16
COLPALI_SPECIALS = ["<pad>", "<eos>", "<bos>", "<unk>", "<image>"]


def colqwen2_parts(spec: dict[str, Any], tokenizer: Any, embedding_dim: int) -> tuple[Any, Any]:
    """(config, processor) of a ColQwen2 of ``spec`` (``TINY_COLQWEN2``'s keys) around
    ``tokenizer`` (with the Qwen special tokens)."""
    from transformers import ColQwen2Config, ColQwen2Processor, Qwen2VLImageProcessor

    ids = {token: tokenizer.convert_tokens_to_ids(token) for token in QWEN_SPECIALS}
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
    images = Qwen2VLImageProcessor(min_pixels=56 * 56, max_pixels=spec["max_pixels"])
    return (
        ColQwen2Config(vlm_config=vlm, embedding_dim=embedding_dim),
        ColQwen2Processor(image_processor=images, tokenizer=tokenizer),
    )


def colpali_parts(spec: dict[str, Any], tokenizer: Any, embedding_dim: int) -> tuple[Any, Any]:
    """(config, processor) of a ColPali of ``spec`` (``TINY_COLPALI``'s keys) around
    ``tokenizer`` (with ``COLPALI_SPECIALS``)."""
    from transformers import ColPaliConfig, ColPaliProcessor, SiglipImageProcessor

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
    images = SiglipImageProcessor(size={"height": size, "width": size})
    images.image_seq_length = (size // 14) ** 2
    return (
        ColPaliConfig(vlm_config=vlm, embedding_dim=embedding_dim),
        ColPaliProcessor(image_processor=images, tokenizer=tokenizer),
    )


def tiny_colqwen2(folder: Path) -> Path:
    """A random ColQwen2 (Qwen2-VL, hidden 64, 2 layers, 16-d vectors)."""
    import torch
    from transformers import ColQwen2ForRetrieval

    tokenizer = _bpe_tokenizer(QWEN_SPECIALS, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    spec = {**TINY_COLQWEN2, "text": {**TINY_COLQWEN2["text"], "vocab_size": len(tokenizer)}}
    config, processor = colqwen2_parts(spec, tokenizer, TINY_EMBEDDING_DIM)
    torch.manual_seed(0)
    ColQwen2ForRetrieval(config).save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def tiny_colpali(folder: Path) -> Path:
    """A random ColPali (PaliGemma: SigLIP 56x56 in 14-px patches, Gemma hidden 64, 16-d)."""
    import torch
    from transformers import ColPaliForRetrieval

    tokenizer = _bpe_tokenizer(
        COLPALI_SPECIALS, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>", unk_token="<unk>"
    )
    spec = {**TINY_COLPALI, "text": {**TINY_COLPALI["text"], "vocab_size": len(tokenizer)}}
    config, processor = colpali_parts(spec, tokenizer, TINY_EMBEDDING_DIM)
    torch.manual_seed(0)
    ColPaliForRetrieval(config).save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder
