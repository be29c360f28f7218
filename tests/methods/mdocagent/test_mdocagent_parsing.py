"""MDocAgent's reply parsers: the original's strictness, and the lenient reading."""

from __future__ import annotations

import pytest

from docqa.methods.mdocagent.parsing import Clues, FinalAnswer, parse_answer, parse_clues

CLUE_CASES = [
    # reply, original, lenient
    ('{"text": "a", "image": "b"}', Clues("a", "b"), Clues("a", "b")),
    ('Sure! {"text": "a", "image": "b"} Hope it helps.', Clues("a", "b"), Clues("a", "b")),
    (
        '{"text": "the {x} row", "image": "b"}',
        Clues(fallbacks=("clue_not_json",)),
        Clues("the {x} row", "b"),
    ),
    (
        "```python\n{'text': 'a', 'image': 'b'}\n```",
        Clues(fallbacks=("clue_not_json",)),
        Clues("a", "b"),
    ),
    (
        "{text: revenue in 2020, image: the bar chart}",
        Clues(fallbacks=("clue_not_json",)),
        Clues("revenue in 2020", "the bar chart"),
    ),
    ('{"Text": "a", "Image": "b"}', Clues(fallbacks=("clue_incomplete",)), Clues("a", "b")),
    ('{"text": "only"}', Clues("only", fallbacks=("clue_incomplete",)), None),
    ('{"text": 3, "image": null}', Clues("3", "", ("clue_not_text",)), None),
    ("no clue at all", Clues(fallbacks=("clue_not_json",)), None),
    ("} {", Clues(fallbacks=("clue_not_json",)), None),
    ("", Clues(fallbacks=("clue_not_json",)), None),
]


@pytest.mark.parametrize(("reply", "original", "lenient"), CLUE_CASES)
def test_clues(reply: str, original: Clues, lenient: Clues | None) -> None:
    assert parse_clues(reply, "original") == original
    assert parse_clues(reply, "lenient") == (lenient or original)


ANSWER_CASES = [
    ('{"Answer": "Paris"}', FinalAnswer("Paris"), None),
    ('{"Answer": "Paris", "Why": "p. 3"}', FinalAnswer("Paris"), None),
    (
        '{"Answer": Paris}',
        FinalAnswer('{"Answer": Paris}', ("summary_not_json",)),
        FinalAnswer("Paris"),
    ),
    (
        '```json\n{"Answer": "Paris"}\n```',
        FinalAnswer('```json\n{"Answer": "Paris"}\n```', ("summary_not_json",)),
        FinalAnswer("Paris"),
    ),
    ("It is Paris.", FinalAnswer("It is Paris.", ("summary_not_json",)), None),
    ('"Paris"', FinalAnswer('"Paris"', ("summary_not_json",)), None),
    ("42", FinalAnswer("42", ("summary_not_json",)), None),
    ('{"answer": "Paris"}', FinalAnswer("", ("summary_no_answer",)), FinalAnswer("Paris")),
    ('{"Final": "Paris"}', FinalAnswer("", ("summary_no_answer",)), None),
    ('{"Answer": 3.5}', FinalAnswer("3.5", ("answer_not_text",)), None),
    ('{"Answer": ["a", "b"]}', FinalAnswer("['a', 'b']", ("answer_not_text",)), None),
    ('{"Answer": null}', FinalAnswer("", ("answer_not_text",)), None),
    ("", FinalAnswer("", ("summary_not_json",)), None),
]


@pytest.mark.parametrize(("reply", "original", "lenient"), ANSWER_CASES)
def test_answers(reply: str, original: FinalAnswer, lenient: FinalAnswer | None) -> None:
    assert parse_answer(reply, "original") == original
    assert parse_answer(reply, "lenient") == (lenient or original)
