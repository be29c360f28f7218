"""Broken documents for robustness tests: the pipeline must record and skip them.

Each is unreadable by pypdfium2 without help: an empty file, a PDF cut off after its first
third (no cross-reference table or trailer), and a real deck locked with a user password.
"""

from __future__ import annotations

import io

from pypdf import PdfReader, PdfWriter

CORRUPTIONS = ("empty", "truncated", "encrypted")
USER_PASSWORD = "docqa-locked"


def corrupt(kind: str, pdf: bytes) -> bytes:
    """The bytes of a broken document of ``kind`` made from the readable ``pdf``."""
    if kind == "empty":
        return b""
    if kind == "truncated":
        return pdf[: len(pdf) // 3]
    if kind == "encrypted":
        writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
        # RC4 needs no extra crypto package; the file ID pypdf derives is deterministic.
        writer.encrypt(
            user_password=USER_PASSWORD,
            owner_password=USER_PASSWORD + "-owner",
            algorithm="RC4-128",
        )
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue()
    raise ValueError(f"unknown corruption {kind!r}; known: {', '.join(CORRUPTIONS)}")
