"""Tiny random retrieval models built from configs, offline: a sentence encoder, a ColBERT-style
multi-vector encoder, ColQwen2 and ColPali, each saved as the folder its retriever loads."""

from __future__ import annotations

from pathlib import Path

from helpers.tiny_tokenizers import byte_level_bpe

CORPUS = [
    "Quarterly review agenda revenue by region north south",
    "Hiring plan engineering design people",
    "Query: What is shown on this page? Describe the image.",
]


def _bpe_tokenizer(special_tokens: list[str], **named: str):
    from transformers import PreTrainedTokenizerFast

    bpe = byte_level_bpe(CORPUS * 10, vocab_size=300, special_tokens=special_tokens)
    return PreTrainedTokenizerFast(tokenizer_object=bpe, **named)


def tiny_bert(folder: Path) -> Path:
    """A random 2-layer BERT (hidden 32) with a WordPiece tokenizer trained on CORPUS."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
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
        max_position_embeddings=128,
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


def tiny_colqwen2(folder: Path) -> Path:
    """A random ColQwen2 (Qwen2-VL, hidden 64, 2 layers, 16-d vectors); pages capped at 112x112
    pixels per 4 so an image is a few dozen vectors."""
    import torch
    from transformers import (
        ColQwen2Config,
        ColQwen2ForRetrieval,
        ColQwen2Processor,
        Qwen2VLImageProcessor,
    )

    specials = [
        "<|endoftext|>",
        "<|im_start|>",
        "<|im_end|>",
        "<|vision_start|>",
        "<|vision_end|>",
        "<|vision_pad|>",
        "<|image_pad|>",
        "<|video_pad|>",
    ]
    tokenizer = _bpe_tokenizer(specials, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    ids = {token: tokenizer.convert_tokens_to_ids(token) for token in specials}
    text = dict(
        model_type="qwen2_vl",
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        bos_token_id=ids["<|endoftext|>"],
        eos_token_id=ids["<|im_end|>"],
        rope_parameters={"rope_type": "default", "rope_theta": 1e6, "mrope_section": [2, 3, 3]},
    )
    vision = dict(
        depth=2,
        embed_dim=64,
        hidden_size=64,
        mlp_ratio=2,
        num_heads=4,
        patch_size=14,
        spatial_merge_size=2,
        temporal_patch_size=2,
    )
    vlm = dict(
        model_type="qwen2_vl",
        text_config=text,
        vision_config=vision,
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
    )
    torch.manual_seed(0)
    ColQwen2ForRetrieval(ColQwen2Config(vlm_config=vlm, embedding_dim=16)).save_pretrained(folder)
    images = Qwen2VLImageProcessor(min_pixels=56 * 56, max_pixels=112 * 112 * 4)
    ColQwen2Processor(image_processor=images, tokenizer=tokenizer).save_pretrained(folder)
    return folder


def tiny_colpali(folder: Path) -> Path:
    """A random ColPali (PaliGemma: SigLIP 56x56 in 14-px patches, Gemma hidden 64, 16-d)."""
    import torch
    from transformers import (
        ColPaliConfig,
        ColPaliForRetrieval,
        ColPaliProcessor,
        SiglipImageProcessor,
    )

    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<image>"]
    tokenizer = _bpe_tokenizer(
        specials, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>", unk_token="<unk>"
    )
    text = dict(
        model_type="gemma",
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=1,
        head_dim=16,
    )
    vision = dict(
        model_type="siglip_vision_model",
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        image_size=56,
        patch_size=14,
        projection_dim=64,
    )
    vlm = dict(
        model_type="paligemma",
        text_config=text,
        vision_config=vision,
        projection_dim=64,
        hidden_size=64,
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
    )
    torch.manual_seed(0)
    ColPaliForRetrieval(ColPaliConfig(vlm_config=vlm, embedding_dim=16)).save_pretrained(folder)
    images = SiglipImageProcessor(size={"height": 56, "width": 56})
    images.image_seq_length = (56 // 14) ** 2
    ColPaliProcessor(image_processor=images, tokenizer=tokenizer).save_pretrained(folder)
    return folder
