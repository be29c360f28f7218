"""The response cache: a model's completion of a request, stored once, in SQLite.

Several Snakemake jobs may share one cache file, so it runs in WAL mode (readers never block the
writer) with a generous busy timeout for concurrent writers. A key is the sha256 of the
canonical JSON of the backend's identity and the canonical request (text, image content hashes
and generation settings): any change to the model, its settings or the prompt is a new key.

A damaged file (a bad page, or not a database at all) raises ``CacheCorruptError``, an
infrastructure error that fails the infer job (docqa.backends.errors), with a message that names
the file and gives the command that moves it aside; the cache never deletes or rebuilds a file
itself, since its rows may be the only copy of paid API answers.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from docqa.backends.base import Completion
from docqa.backends.errors import CacheCorruptError
from docqa.backends.request import ChatRequest
from docqa.core.prediction import Usage

#: bump when the meaning of a stored row changes, so old rows stop matching
KEY_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    image_tokens INTEGER NOT NULL,
    images_as_text INTEGER NOT NULL DEFAULT 0,
    truncated_tokens INTEGER NOT NULL,
    seconds REAL NOT NULL,
    created TEXT NOT NULL DEFAULT (datetime('now'))
)
"""


def enter_wal_mode(db: sqlite3.Connection, deadline: float) -> None:
    """Switch the file to WAL, waiting out other processes that are switching it too.

    The switch takes an exclusive lock, and SQLite answers BUSY to a second connection doing the
    same without calling its busy handler, so jobs that open a fresh cache together would fail
    with "database is locked" on the first line. The mode is stored in the file: once one of them
    has switched it, the others find it set.
    """
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


def cache_key(identity: dict[str, Any], request: ChatRequest) -> str:
    payload = {"version": KEY_VERSION, "backend": identity, "request": request.canonical()}
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


class ResponseCache:
    """``get``/``put`` completions by (backend identity, request); safe across threads."""

    def __init__(self, path: Path, busy_timeout_s: float = 120.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=busy_timeout_s, check_same_thread=False)
        with self._checked():
            self._db.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
            enter_wal_mode(self._db, deadline=time.monotonic() + busy_timeout_s)
            self._db.execute("PRAGMA synchronous=NORMAL")
            with self._lock, self._db:
                self._db.execute(SCHEMA)
                columns = {row[1] for row in self._db.execute("PRAGMA table_info(responses)")}
                if "images_as_text" not in columns:  # a cache file written before KEY_VERSION 2
                    self._db.execute(
                        "ALTER TABLE responses ADD COLUMN images_as_text INTEGER NOT NULL DEFAULT 0"
                    )

    @contextmanager
    def _checked(self) -> Iterator[None]:
        """Turn SQLite's report of a damaged file into an error that says what to do."""
        try:
            yield
        except sqlite3.DatabaseError as error:
            if is_corruption(error):
                raise CacheCorruptError(corrupt_message(self.path, error)) from error
            raise

    def get(self, identity: dict[str, Any], request: ChatRequest) -> Completion | None:
        """The stored completion, as a cached call: no time spent, the original token counts."""
        with self._checked(), self._lock:
            row = self._db.execute(
                "SELECT text, tokens_in, tokens_out, image_tokens, images_as_text, "
                "truncated_tokens FROM responses WHERE key = ?",
                (cache_key(identity, request),),
            ).fetchone()
        if row is None:
            return None
        text, tokens_in, tokens_out, image_tokens, images_as_text, truncated = row
        usage = Usage(
            calls=1,
            cached_calls=1,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            image_tokens=image_tokens,
            images_as_text=images_as_text,
        )
        return Completion(text, usage, truncated)

    def put(self, identity: dict[str, Any], request: ChatRequest, completion: Completion) -> None:
        usage = completion.usage
        with self._checked(), self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO responses "
                "(key, text, tokens_in, tokens_out, image_tokens, images_as_text, "
                "truncated_tokens, seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    cache_key(identity, request),
                    completion.text,
                    usage.tokens_in,
                    usage.tokens_out,
                    usage.image_tokens,
                    usage.images_as_text,
                    completion.truncated_tokens,
                    usage.seconds,
                ),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


def is_corruption(error: sqlite3.DatabaseError) -> bool:
    """SQLite's "database disk image is malformed" or "file is not a database" (not a lock or
    a full disk, which are ``OperationalError``s and say so themselves)."""
    name = getattr(error, "sqlite_errorname", "")
    if name:
        return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))
    return not isinstance(error, sqlite3.OperationalError)


def corrupt_message(path: Path, error: BaseException) -> str:
    """Names the file, says it is corrupt, and gives the command that moves it (and its WAL
    files) aside; the next run starts an empty cache and the moved file stays for recovery."""
    files = [str(path)] + [f"{path}{suffix}" for suffix in ("-wal", "-shm")]
    present = [name for name in files if Path(name).exists()] or files[:1]
    aside = f"{path}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}"
    return (
        f"the response cache {path} is corrupt (SQLite: {error}); move it aside and rerun, "
        f"which starts an empty cache (the moved file is kept, for recovery with sqlite3's "
        f".recover): mkdir {aside} && mv {' '.join(present)} {aside}/"
    )
