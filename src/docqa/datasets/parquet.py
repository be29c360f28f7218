"""Reading benchmark rows out of parquet files, a batch at a time.

Parquet releases on the Hugging Face Hub embed images as ``{"bytes": ..., "path": ...}``
structs; the SlideVQA test split alone is gigabytes, so rows are streamed in batches and only
the columns asked for are read. pyarrow is imported here, on first use, so that datasets
without parquet files do not need it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

BATCH_ROWS = 64


def parquet_files(root: Path, pattern: str) -> list[Path]:
    """The files under ``root`` matching ``pattern`` (e.g. ``**/test-*.parquet``), sorted."""
    return sorted(path for path in root.glob(pattern) if path.is_file())


def read_rows(files: list[Path], columns: list[str]) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Yield ``(file, row)`` for every row of ``files``, with those of ``columns`` the file has
    (a missing column reads as a missing field, which the adapter reports per row)."""
    import pyarrow.parquet as pq

    for path in files:
        parquet = pq.ParquetFile(path)
        present = [name for name in columns if name in parquet.schema_arrow.names]
        for batch in parquet.iter_batches(batch_size=BATCH_ROWS, columns=present):
            for row in batch.to_pylist():
                yield path, row


def image_bytes(value: Any) -> bytes | None:
    """The bytes of an embedded image (an image struct or raw bytes); None when absent."""
    if isinstance(value, dict):
        value = value.get("bytes")
    if isinstance(value, (bytes, bytearray)) and value:
        return bytes(value)
    return None
