"""A tiny random Gemma 3 causal LM (the student of the training tests), built offline.

The byte-level BPE tokenizer is trained on DocPilot's own prompts, so that its prompts are a few
thousand tokens, not tens of thousands; the context (4096) holds a whole orchestrator prompt.
"""

from __future__ import annotations

from pathlib import Path

from docqa.methods.docpilot import prompts
from helpers.tiny_models import build_tiny_lm

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
    """The student: hidden 32, 2 heads, a 1,200-token vocabulary of DocPilot's prompts, a
    context of 4096 with a sliding window of 64."""
    return build_tiny_lm(
        folder,
        corpus=corpus(),
        vocab=1200,
        hidden_size=32,
        intermediate_size=64,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=CONTEXT,
        sliding_window=64,
    )
