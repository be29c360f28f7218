"""The byte-level BPE tokenizer every tiny random model of the tests is built with."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

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


def byte_level_bpe(
    corpus: list[str], vocab_size: int, special_tokens: list[str], unk_token: str | None = None
) -> Tokenizer:
    """A byte-level BPE (GPT-2 style: any text encodes) trained here on ``corpus``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    bpe = Tokenizer(models.BPE(unk_token=unk_token))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=special_tokens,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(corpus, trainer)
    return bpe


def fast_tokenizer(
    corpus: list[str], vocab_size: int, special_tokens: list[str], **named: str
) -> PreTrainedTokenizerFast:
    """:func:`byte_level_bpe` as a transformers tokenizer; ``named``: its special-token roles
    (``eos_token``, ``pad_token``...)."""
    from transformers import PreTrainedTokenizerFast

    bpe = byte_level_bpe(corpus, vocab_size=vocab_size, special_tokens=special_tokens)
    return PreTrainedTokenizerFast(tokenizer_object=bpe, **named)
