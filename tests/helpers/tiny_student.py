"""A tiny random Gemma 3 causal LM (the student of the training tests), built offline.

The byte-level BPE tokenizer is trained on DocPilot's own prompts, so that its prompts are a few
thousand tokens, not tens of thousands; the context (4096) holds a whole orchestrator prompt.
"""

from __future__ import annotations

from pathlib import Path

from docqa.methods.docpilot import prompts
from helpers.tiny_tokenizers import byte_level_bpe

CONTEXT = 4096


def corpus() -> list[str]:
    texts = [
        prompts.orchestrator_header(("navigate", "extract", "focus", "solve", "analyze", "answer")),
        prompts.NAVIGATOR,
        prompts.EXTRACTOR,
        prompts.ANALYZER,
        prompts.ANSWERER,
        prompts.SOLVER,
        'Thought: I read the page.\nAction: extract\nArguments: {"pages": [3]}\n',
        "[image shown as its OCR text]\np. 1: Revenue by Region North 120\n[end of image text]\n",
    ]
    return texts * 4


def build_tiny_student(folder: Path) -> Path:
    import torch
    from tokenizers import processors
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig, PreTrainedTokenizerFast

    bpe = byte_level_bpe(corpus(), 1200, ["<pad>", "<eos>", "<bos>", "<unk>"])
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
    torch.manual_seed(0)
    config = Gemma3TextConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        max_position_embeddings=CONTEXT,
        sliding_window=64,
        layer_types=["sliding_attention", "full_attention"],
        pad_token_id=0,
        eos_token_id=1,
        bos_token_id=2,
    )
    Gemma3ForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
