"""The SQLite response cache: keys, round trips, persistence and concurrent writers."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from multiprocessing.synchronize import Barrier
from pathlib import Path

from docqa.backends.base import Completion
from docqa.backends.cache import ResponseCache, cache_key
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.core.prediction import Usage

IDENTITY = {"id": "tiny", "dtype": "float32", "prompt_format": "raw"}


def request(text: str = "Q: 2+2?\nA:", **generation: object) -> ChatRequest:
    return ChatRequest.prompt(text, Generation(**generation))  # type: ignore[arg-type]


def completion(text: str = " 4") -> Completion:
    usage = Usage(calls=1, tokens_in=7, tokens_out=2, seconds=1.5, peak_memory_mb=900.0)
    return Completion(text, usage, truncated_tokens=3)


def test_a_stored_completion_comes_back_as_a_cached_call(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "responses.sqlite")
    assert cache.get(IDENTITY, request()) is None
    cache.put(IDENTITY, request(), completion())
    hit = cache.get(IDENTITY, request())
    assert hit == Completion(
        " 4", Usage(calls=1, cached_calls=1, tokens_in=7, tokens_out=2), truncated_tokens=3
    )


def test_the_key_covers_identity_prompt_and_generation_settings(tmp_path: Path) -> None:
    base = cache_key(IDENTITY, request())
    assert base == cache_key(dict(reversed(IDENTITY.items())), request())
    assert base != cache_key({**IDENTITY, "dtype": "bfloat16"}, request())
    assert base != cache_key(IDENTITY, request("Q: 2+3?\nA:"))
    assert base != cache_key(IDENTITY, request(max_new_tokens=8))
    assert base != cache_key(IDENTITY, request(stop=("\n",)))


def test_images_are_keyed_by_content_not_path(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(b"page one")
    (tmp_path / "b.png").write_bytes(b"page one")
    (tmp_path / "c.png").write_bytes(b"page two")

    def asking(path: Path) -> ChatRequest:
        return ChatRequest((Message.user(Part.of_image(str(path)), "What?"),))

    key_a, key_b, key_c = (
        cache_key(IDENTITY, asking(tmp_path / n)) for n in ("a.png", "b.png", "c.png")
    )
    assert key_a == key_b != key_c


def test_entries_persist_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "responses.sqlite"
    first = ResponseCache(path)
    first.put(IDENTITY, request(), completion())
    first.close()
    second = ResponseCache(path)
    assert second.get(IDENTITY, request()) is not None
    assert len(second) == 1
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_two_caches_on_one_file_write_concurrently(tmp_path: Path) -> None:
    """Two Snakemake jobs sharing the cache file: no 'database is locked', no lost rows."""
    path = tmp_path / "responses.sqlite"
    caches = [ResponseCache(path), ResponseCache(path)]

    def write(cache: ResponseCache, offset: int) -> None:
        for i in range(50):
            cache.put(IDENTITY, request(f"question {offset + i}"), completion(str(i)))

    threads = [threading.Thread(target=write, args=(c, 100 * n)) for n, c in enumerate(caches)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(caches[0]) == 100
    assert caches[1].get(IDENTITY, request("question 149")).text == "49"  # type: ignore[union-attr]


def open_cache(path: Path, start: Barrier, outcomes: dict[int, str], job: int) -> None:
    start.wait()
    try:
        ResponseCache(path)
        outcomes[job] = "opened"
    except sqlite3.Error as error:
        outcomes[job] = repr(error)


def test_jobs_that_open_a_fresh_cache_together_all_open_it(tmp_path: Path) -> None:
    """Infer jobs started together each open the shared cache file; none may find it locked.

    Before the WAL switch waited, about one fresh file in four failed a job here.
    """
    context = multiprocessing.get_context("fork")
    jobs = 6
    with context.Manager() as manager:
        for trial in range(12):
            path = tmp_path / f"run{trial}" / "responses.sqlite"
            start, outcomes = context.Barrier(jobs), manager.dict()
            processes = [
                context.Process(target=open_cache, args=(path, start, outcomes, job))
                for job in range(jobs)
            ]
            for process in processes:
                process.start()
            for process in processes:
                process.join(timeout=60)
            assert len(outcomes) == jobs, dict(outcomes)
            assert set(outcomes.values()) == {"opened"}, dict(outcomes)
            with sqlite3.connect(path) as db:
                assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_images_read_as_text_survive_the_round_trip(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "responses.sqlite")
    read_as_text = Completion(" 4", Usage(calls=1, tokens_in=7, tokens_out=2, images_as_text=3))
    cache.put(IDENTITY, request(), read_as_text)
    assert cache.get(IDENTITY, request()).usage.images_as_text == 3


def test_a_cache_file_from_before_images_as_text_opens_and_misses(tmp_path: Path) -> None:
    path = tmp_path / "responses.sqlite"
    with sqlite3.connect(path) as old:  # the version-1 table, with one row
        old.execute(
            "CREATE TABLE responses (key TEXT PRIMARY KEY, text TEXT NOT NULL, "
            "tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL, "
            "image_tokens INTEGER NOT NULL, truncated_tokens INTEGER NOT NULL, "
            "seconds REAL NOT NULL, created TEXT NOT NULL DEFAULT (datetime('now')))"
        )
        old.execute(
            "INSERT INTO responses (key, text, tokens_in, tokens_out, image_tokens, "
            "truncated_tokens, seconds) VALUES ('old', ' 4', 7, 2, 0, 0, 1.5)"
        )
    cache = ResponseCache(path)
    assert len(cache) == 1
    assert cache.get(IDENTITY, request()) is None
    cache.put(IDENTITY, request(), completion())
    assert cache.get(IDENTITY, request()).text == " 4"
