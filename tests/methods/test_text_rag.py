"""text_rag's table options: the "Not answerable" escape of docqa's own prompts
(``not_answerable``) and MDocAgent's repeated pages (``dedupe_text_pages``), so every row of a
paper's table can be given the same answer options as the paper's method."""

from __future__ import annotations

import pytest
from helpers.docpilot_script import ScriptedReplies, run
from helpers.scripted_backend import ScriptedBackend, text_of
from helpers.text_env import FixedRanking, text_env

from docqa.core.question import Question
from docqa.methods import create_method
from docqa.methods.base import DocumentEnv

TEXTS = ["Acme annual review", "Revenue 2020: 42 million", "Costs 2020: 17 million"]
QUESTION = Question("q1", "doc", "What was the revenue in 2020?", "42", "Str", [("doc", 1)])
ESCAPE = "Not answerable"


@pytest.fixture
def env(tmp_path_factory: pytest.TempPathFactory) -> DocumentEnv:
    return text_env(tmp_path_factory.mktemp("doc"), "doc", TEXTS)


@pytest.mark.parametrize("prompt_format", ["chat", "raw"])  # the chat and fewshot styles
def test_the_escape_is_offered_unless_not_answerable_is_off(
    env: DocumentEnv, prompt_format: str
) -> None:
    sent = {}
    for offered in (True, False):
        backend = ScriptedBackend(
            lambda request: "42", identity={"id": "s", "prompt_format": prompt_format}
        )
        method = create_method({"type": "text_rag", "top_k": 2, "not_answerable": offered})
        prediction = run(method, env, backend, QUESTION)
        sent[offered] = text_of(backend.requests[0])
        assert prediction.trace[1]["not_answerable"] is offered
    assert ESCAPE in sent[True]
    assert ESCAPE not in sent[False]
    assert "Revenue 2020: 42 million" in sent[False]


def test_pages_repeat_as_ranked_unless_deduplicated(env: DocumentEnv) -> None:
    env.searchers["passages"] = FixedRanking([1, 1, 2, 0], len(TEXTS))
    options = {"type": "text_rag", "retriever": "passages", "top_k": 3}
    backend = ScriptedReplies(["42"])
    prediction = run(create_method({**options, "dedupe_text_pages": False}), env, backend, QUESTION)
    assert text_of(backend.requests[0]).count("Revenue 2020: 42 million") == 2
    assert prediction.trace[0]["pages"] == [1, 1, 2]
    assert prediction.pages == [1, 2]  # each page once for the page scores
    backend = ScriptedReplies(["42"])
    prediction = run(create_method(options), env, backend, QUESTION)
    assert text_of(backend.requests[0]).count("Revenue 2020: 42 million") == 1
    assert prediction.trace[0]["pages"] == [1, 2]  # the ranking holds no third page
