"""The causal-LM backend on a tiny random Gemma 3 built offline (byte-level BPE, 2 layers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.tiny_models import LM_CONTEXT as CONTEXT
from helpers.tiny_models import LM_PROMPTS as PROMPTS
from helpers.tiny_models import build_tiny_lm, greedy

from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.backends.transformers_lm import (
    TRUNCATION_MARK,
    LMSettings,
    TransformersLM,
    cut_middle,
)

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_lm(tmp_path_factory.mktemp("tiny-lm"))


@pytest.fixture(scope="module")
def lm(tiny_dir: Path) -> TransformersLM:
    return TransformersLM(tiny_dir, {"id": "tiny"}, LMSettings(max_batch_size=8))


@pytest.mark.parametrize("attn", ["sdpa", "eager"])
def test_batch_gives_the_same_greedy_outputs_as_one_by_one(tiny_dir: Path, attn: str) -> None:
    backend = TransformersLM(tiny_dir, {"id": "tiny"}, LMSettings(attn_implementation=attn))
    requests = [greedy(prompt) for prompt in PROMPTS]
    batched = backend.generate(requests)
    alone = [backend.generate([request])[0] for request in requests]
    assert [c.text for c in batched] == [c.text for c in alone]
    assert [c.usage.tokens_out for c in batched] == [c.usage.tokens_out for c in alone]
    assert all(c.text for c in batched)


def test_stop_string_cuts_the_text_and_ends_generation(lm: TransformersLM) -> None:
    free = lm.generate([greedy(PROMPTS[0], max_new_tokens=20)])[0]
    # an ASCII character a few characters in: decoding a prefix of the tokens cannot fake it
    stop = next(ch for ch in free.text[3:] if ch.isascii() and ch.isprintable())
    expected = free.text[: free.text.index(stop)]

    stopped, other = lm.generate(
        [greedy(PROMPTS[0], max_new_tokens=20, stop=(stop,)), greedy(PROMPTS[1], max_new_tokens=20)]
    )
    assert stopped.text == expected
    assert stopped.usage.tokens_out < free.usage.tokens_out
    assert other.usage.tokens_out == 20  # its batch mate's stop does not end it


def test_usage_counts_prompt_and_generated_tokens(lm: TransformersLM) -> None:
    short, long = lm.generate([greedy(PROMPTS[2], 3), greedy(PROMPTS[2], 10)])
    assert short.usage.tokens_in == long.usage.tokens_in == len(lm.tokenizer(PROMPTS[2]).input_ids)
    assert (short.usage.tokens_out, long.usage.tokens_out) == (3, 10)
    assert long.text.startswith(short.text)
    for completion in (short, long):
        assert completion.usage.calls == 1
        assert completion.usage.cached_calls == 0
        assert completion.usage.seconds > 0
        assert completion.usage.peak_memory_mb > 0
        assert completion.truncated_tokens == 0


def test_greedy_and_sampled_requests_share_a_call_in_order(lm: TransformersLM) -> None:
    sampled = ChatRequest.prompt(PROMPTS[1], Generation(max_new_tokens=5, temperature=0.8))
    first, second = lm.generate([sampled, greedy(PROMPTS[0])])
    assert second.text == lm.generate([greedy(PROMPTS[0])])[0].text
    assert first.usage.tokens_out == 5


def test_an_over_long_prompt_is_cut_in_the_middle(tiny_dir: Path, lm: TransformersLM) -> None:
    head, tail = "Instruction first.\n", "\nQ: What is the capital of France?\nA:"
    prompt = head + "revenue of 120 million " * 60 + tail
    completion = lm.generate([greedy(prompt, max_new_tokens=8)])[0]
    assert completion.usage.tokens_in == CONTEXT - 8
    mark = len(lm.tokenizer(TRUNCATION_MARK, add_special_tokens=False).input_ids)
    assert completion.truncated_tokens == len(lm.tokenizer(prompt).input_ids) - (CONTEXT - 8 - mark)

    capped = TransformersLM(tiny_dir, {"id": "tiny"}, LMSettings(max_input_tokens=40))
    assert capped.identity["max_input_tokens"] == 40
    ids, dropped = capped.prompt_ids(greedy(prompt))
    text = capped.tokenizer.decode(ids, skip_special_tokens=True)
    assert len(ids) == 40
    assert dropped > 0
    assert text.startswith(head)
    assert text.endswith(tail)
    assert "[...]" in text


def test_cut_middle_keeps_head_and_tail() -> None:
    assert cut_middle(list(range(10)), 10, [-1]) == (list(range(10)), 0)
    assert cut_middle(list(range(10)), 5, [-1]) == ([0, 1, -1, 8, 9], 6)
    assert cut_middle(list(range(10)), 2, [-1]) == ([0, 9], 8)


def test_chat_format_uses_the_tokenizer_template(tmp_path: Path) -> None:
    folder = build_tiny_lm(tmp_path / "chat", chat_template=CHAT_TEMPLATE)
    backend = TransformersLM(folder, {"id": "tiny-chat"}, LMSettings(prompt_format="chat"))
    completion = backend.generate([greedy("Hello")])[0]
    rendered = "<|user|>Hello\n<|assistant|>"
    assert completion.usage.tokens_in == len(
        backend.tokenizer(rendered, add_special_tokens=False).input_ids
    )
    assert backend.identity == {
        "id": "tiny-chat",
        "prompt_format": "chat",
        "dtype": "float32",
        "max_input_tokens": None,
    }


def test_chat_format_without_a_template_is_refused(tiny_dir: Path) -> None:
    with pytest.raises(ValueError, match="no chat template.*prompt_format: raw"):
        TransformersLM(tiny_dir, {"id": "tiny"}, LMSettings(prompt_format="chat"))


def test_settings_reject_unknown_values() -> None:
    with pytest.raises(ValueError, match="prompt_format"):
        LMSettings(prompt_format="instruct")
    with pytest.raises(ValueError, match="dtype"):
        LMSettings(dtype="int8")


def test_images_are_read_as_their_marked_ocr_text(lm: TransformersLM, tmp_path: Path) -> None:
    from PIL import Image

    from docqa.backends.request import IMAGE_AS_TEXT

    page = tmp_path / "page.png"
    Image.new("RGB", (8, 8), "white").save(page)
    with_image = ChatRequest(
        (Message.user("Read:", Part.of_image(str(page), "Revenue 120"), "Q: revenue?\nA:"),)
    )
    as_text = ChatRequest.prompt(
        "Read:" + IMAGE_AS_TEXT.format(text="Revenue 120") + "Q: revenue?\nA:"
    )
    assert lm.prompt_ids(with_image) == lm.prompt_ids(as_text)
    [completion] = lm.generate([with_image])
    assert completion.usage.images_as_text == 1
    with pytest.raises(ValueError, match="no OCR text"):
        lm.validate(ChatRequest((Message.user(Part.of_image(str(page))),)))
