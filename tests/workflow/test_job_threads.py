"""A job's threads come from its model entry, else its backend's default, else every core: the
embedded model's jobs take one thread each, so ``--cores 2`` runs two side by side (issue 30)."""

from __future__ import annotations

from docqa.workflow.pipeline import alone_threads, model_threads


def test_the_embedded_model_takes_one_thread_unless_its_entry_says_otherwise() -> None:
    assert model_threads({"backend": "embedded"}, 8) == 1
    assert model_threads({"backend": "embedded", "threads": 4}, 8) == 4


def test_a_backend_without_a_default_takes_every_core() -> None:
    assert model_threads({"backend": "transformers"}, 8) == 8
    assert model_threads({"backend": "transformers", "threads": 1}, 8) == 1


def test_docqa_ask_alone_takes_every_core_unless_the_entry_says_otherwise() -> None:
    assert alone_threads({"backend": "embedded"}, 8) == 8
    assert alone_threads({"backend": "embedded", "threads": 2}, 8) == 2
