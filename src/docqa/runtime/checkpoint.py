"""Per-item resumable progress for long jobs.

A job that processes many items (documents, questions) appends each finished item to
``<output>.partial`` as one JSON line and flushes it. If the job is killed, the rerun reads that
file back, skips what is done and appends the rest; ``finish`` writes the declared output in a
fixed order and removes the partial file. The first line records a fingerprint of the job's
settings: a partial file left by a run with other settings is discarded, never mixed in.

A row is cleaned before it is written (lone surrogates replaced, values that are not JSON written
as their repr: ``unicode_safe``), so that nothing a method produced can make writing it fail.

``keep=True`` (the infer stage) names the file by the fingerprint's digest, in a
``checkpoints/`` folder beside the output, and keeps it after ``finish``. Snakemake removes a
job's declared outputs before it runs and again when it fails; the checkpoint is not declared,
so it survives both: a good run's answers outlive a rerun with a bad option that failed, and
going back to the good settings finds every answer in its checkpoint (``kept_partial``). Runs
with other settings write other files and never discard each other's.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from docqa.core.jsonl import write_jsonl
from docqa.runtime.unicode_safe import clean


class Checkpoint:
    def __init__(
        self, output: str | Path, fingerprint: str, key: str, *, keep: bool = False
    ) -> None:
        self.output = Path(output)
        self.keep = keep
        self.partial = (
            kept_partial(self.output, fingerprint)
            if keep
            else self.output.with_name(self.output.name + ".partial")
        )
        self.fingerprint = fingerprint
        self.key = key
        self.rows: dict[str, dict[str, Any]] = {}
        self._load()
        self.partial.parent.mkdir(parents=True, exist_ok=True)
        self.output.parent.mkdir(parents=True, exist_ok=True)
        self._handle = open(self.partial, "a", encoding="utf-8")  # noqa: SIM115 - held open
        if not self.rows and self.partial.stat().st_size == 0:
            self._write_line({"fingerprint": fingerprint})

    def _load(self) -> None:
        if not self.partial.exists():
            return
        lines = self.partial.read_text(encoding="utf-8").splitlines()
        if not lines or _parse(lines[0]) != {"fingerprint": self.fingerprint}:
            self.partial.unlink()
            return
        good = [lines[0]]
        for line in lines[1:]:
            row = _parse(line)
            if row is None or self.key not in row:
                break  # a line cut short by the kill: it and anything after it is redone
            self.rows[str(row[self.key])] = row
            good.append(line)
        self.partial.write_text("".join(line + "\n" for line in good), encoding="utf-8")

    def done(self, item_key: str) -> bool:
        return item_key in self.rows

    def append(self, row: dict[str, Any]) -> int:
        """Record one finished item; returns the number of characters that had to be replaced
        to write it as UTF-8."""
        item_key = str(row[self.key])
        if item_key in self.rows:
            raise ValueError(f"{self.partial}: item {item_key!r} is already recorded")
        row, replaced = clean(row)
        self._write_line(row)
        self.rows[item_key] = row
        return replaced

    def _write_line(self, row: dict[str, Any]) -> None:
        line = json.dumps(row, ensure_ascii=False) + "\n"
        line.encode("utf-8")  # fails here, before a partial line is written
        self._handle.write(line)
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def finish(self, order: Iterable[str]) -> list[dict[str, Any]]:
        """Write the output with the rows in ``order`` and drop the partial file (unless kept)."""
        self._handle.close()
        rows = [self.rows[k] for k in order if k in self.rows]
        write_jsonl(self.output, rows)
        if not self.keep:
            self.partial.unlink()
        return rows

    def close(self) -> None:
        self._handle.close()


def kept_partial(output: str | Path, fingerprint: str) -> Path:
    """Where ``Checkpoint(output, fingerprint, keep=True)`` keeps its rows: one file per
    settings, ``<output folder>/checkpoints/<output stem>-<digest>.jsonl``."""
    output = Path(output)
    digest = hashlib.sha256(fingerprint.encode()).hexdigest()[:16]
    return output.parent / "checkpoints" / f"{output.name.removesuffix('.jsonl')}-{digest}.jsonl"


def fingerprint(settings: dict[str, Any], *inputs: Path) -> str:
    """A job's settings plus the content of its input files: a partial file left by other
    settings or other inputs is discarded."""
    contents = [hashlib.sha256(Path(path).read_bytes()).hexdigest() for path in inputs]
    return json.dumps({**settings, "inputs": contents}, sort_keys=True)


def _parse(line: str) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
