"""Splitting a page's text into chunks that fit a text encoder's window.

Sentence encoders truncate (all-MiniLM-L6-v2 at 256 tokens; the ColBERTv2 checkpoint documents
at 180, which the colbert retriever replaces by its ``doc_maxlen``), so a report page of 600
words would be judged on its first third. Each page is instead cut into consecutive chunks of at
most ``words`` words, each encoded on its own; the page keeps them all.
"""

from __future__ import annotations


def page_chunks(text: str, words: int) -> list[str]:
    """Consecutive chunks of at most ``words`` words; ``[]`` for a page without text."""
    if words < 1:
        raise ValueError(f"chunk size must be at least 1 word, got {words}")
    tokens = text.split()
    return [" ".join(tokens[start : start + words]) for start in range(0, len(tokens), words)]
