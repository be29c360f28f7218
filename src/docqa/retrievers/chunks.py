"""Splitting a page's text into chunks that fit a text encoder's window.

Sentence encoders truncate (all-MiniLM-L6-v2 at 256 tokens; the ColBERTv2 checkpoint documents
at 180, which the colbert retriever replaces by its ``doc_maxlen``), so a report page of 600
words would be judged on its first third. Each page is instead cut into consecutive chunks of at
most ``words`` words, each encoded on its own; the page keeps them all. Consecutive chunks may
share ``overlap`` words (RAGatouille's sentence splitter, which MDocAgent indexes with, overlaps
its 256-token passages by 64 tokens), so a sentence cut at a chunk's end is whole in the next.
"""

from __future__ import annotations


def page_chunks(text: str, words: int, overlap: int = 0) -> list[str]:
    """Chunks of at most ``words`` words, each starting ``words - overlap`` words after the one
    before, until the text's last word; ``[]`` for a page without text."""
    if words < 1:
        raise ValueError(f"chunk size must be at least 1 word, got {words}")
    if not 0 <= overlap < words:
        raise ValueError(f"chunk overlap must be 0 to {words - 1} words (the chunk size less 1)")
    tokens = text.split()
    chunks, start = [], 0
    while start < len(tokens):
        chunks.append(" ".join(tokens[start : start + words]))
        if start + words >= len(tokens):
            break
        start += words - overlap
    return chunks
