"""Supervised examples: chat-format rows with images, and their token-level loss mask.

``build_sft`` turns the filtered data into two files: ``single.jsonl`` (stage 1: one ability
call each) and ``multi.jsonl`` (stage 2: every call of each kept trajectory, the orchestrator's
decisions and the ability calls between them). A row is one call: the user message as the
agent sent it (text parts, and image parts with the page image's path and its OCR text) and
the assistant message, the teacher's reply. DocPilot's orchestrator re-reads the whole history
in each prompt, so one call is one example: the earlier thoughts, actions and observations are
context in its prompt, and only the reply is supervised — the paper's "environment
observations condition training, while only agent-generated outputs are supervised".

``encode`` gives the ids and labels of a row for a student: the prompt exactly as the
inference backend builds it (``TransformersLM`` for a text model: the raw text or the chat
template, images as their marked OCR text, the middle cut past ``max_length``;
``TransformersVLM`` for a VLM: the processor's chat template with the page images), then the
reply's tokens and the end-of-sequence token. Labels are ``-100`` (ignored by the loss) on
every prompt token — instructions, observations and image tokens — and equal to the ids on the
reply's tokens and the closing token.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docqa.backends.request import ChatRequest
from docqa.core.jsonl import read_jsonl
from docqa.training.teacher import request_from_dict

IGNORE = -100


def example(call: dict[str, Any], question_id: str, stage: str, index: int) -> dict[str, Any]:
    """One call as a chat-format row."""
    request = request_from_dict(call["request"])
    content = [
        {"type": "image", "image": part.image, "ocr_text": part.text}
        if part.kind == "image"
        else {"type": "text", "text": part.text}
        for message in request.messages
        for part in message.parts
    ]
    return {
        "id": f"{question_id}/{index}",
        "stage": stage,
        "role": call["role"],
        "messages": [
            {"role": "user", "content": content},
            {"role": "assistant", "content": [{"type": "text", "text": call["reply"]}]},
        ],
    }


def request_of(row: dict[str, Any]) -> ChatRequest:
    """The user message of a row as the request the agent sent."""
    from docqa.backends.request import Message, Part

    parts = tuple(
        Part.of_image(c["image"], c.get("ocr_text", ""))
        if c["type"] == "image"
        else Part.of_text(c["text"])
        for c in row["messages"][0]["content"]
    )
    return ChatRequest((Message("user", parts),))


def reply_of(row: dict[str, Any]) -> str:
    return row["messages"][-1]["content"][0]["text"]


def build_sft(single: Path, multi: Path, out_dir: Path) -> dict[str, int]:
    """Write ``single.jsonl`` and ``multi.jsonl`` under ``out_dir``; returns their sizes."""
    out_dir.mkdir(parents=True, exist_ok=True)
    counts = {"single": 0, "multi": 0}
    with (out_dir / "single.jsonl").open("w") as handle:
        for trace in read_jsonl(single):
            qid = trace["question"]["question_id"]
            row = example(trace["call"], qid, "single", trace["index"])
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            counts["single"] += 1
    with (out_dir / "multi.jsonl").open("w") as handle:
        for trajectory in read_jsonl(multi):
            qid = trajectory["question"]["question_id"]
            for index, call in enumerate(trajectory["calls"]):
                row = example(call, qid, "multi", index)
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
                counts["multi"] += 1
    return counts


@dataclass
class Encoded:
    input_ids: list[int]
    labels: list[int]
    extra: dict[str, Any]  # a VLM's image tensors (pixel_values, image_grid_thw…)


class TextEncoder:
    """Rows for a text-only student, prompted as ``TransformersLM`` prompts it."""

    def __init__(self, tokenizer: Any, prompt_format: str, max_length: int) -> None:
        from docqa.backends.transformers_lm import TRUNCATION_MARK

        self.tokenizer = tokenizer
        self.prompt_format = prompt_format
        self.max_length = max_length
        self.mark = tokenizer(TRUNCATION_MARK, add_special_tokens=False).input_ids
        eos = tokenizer.eos_token_id
        if eos is None:
            raise ValueError("the student's tokenizer has no eos token; set one before training")
        self.eos = eos

    def prompt_ids(self, request: ChatRequest) -> list[int]:
        request = request.as_text_only()
        if self.prompt_format == "chat":
            messages = [{"role": m.role, "content": m.text} for m in request.messages]
            text = self.tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=False
            )
            return list(self.tokenizer(text, add_special_tokens=False).input_ids)
        return list(self.tokenizer("".join(m.text for m in request.messages)).input_ids)

    def reply_ids(self, reply: str) -> list[int]:
        return [*self.tokenizer(reply, add_special_tokens=False).input_ids, self.eos]

    def encode(self, row: dict[str, Any]) -> Encoded:
        from docqa.backends.transformers_lm import cut_middle

        answer = self.reply_ids(reply_of(row))
        prompt, _ = cut_middle(
            self.prompt_ids(request_of(row)), max(self.max_length - len(answer), 1), self.mark
        )
        return Encoded([*prompt, *answer], [IGNORE] * len(prompt) + answer, {})


class VisionEncoder:
    """Rows for a VLM student, prompted as ``TransformersVLM`` prompts it (page images in)."""

    def __init__(self, processor: Any, model_type: str, max_pixels: int | None) -> None:
        from docqa.backends.model_families import family_of

        self.processor = processor
        self.family = family_of(model_type)
        self.max_pixels = max_pixels
        tokenizer = processor.tokenizer
        self.eos = tokenizer.eos_token_id

    def encode(self, row: dict[str, Any]) -> Encoded:
        from docqa.backends.pixels import open_page

        request = request_of(row)
        chat = [
            {
                "role": "user",
                "content": [
                    {"type": "image"} if p.kind == "image" else {"type": "text", "text": p.text}
                    for p in request.messages[0].parts
                ],
            }
        ]
        text = self.processor.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
        images = [
            self.family.prepare(open_page(path), self.max_pixels, self.processor)
            for path in request.images
        ]
        options = self.family.processor_kwargs(self.max_pixels, None, self.processor)
        inputs = self.processor(
            text=[text], images=[images] if images else None, return_tensors="pt", **options
        )
        prompt = inputs["input_ids"][0].tolist()
        answer = [
            *self.processor.tokenizer(reply_of(row), add_special_tokens=False).input_ids,
            self.eos,
        ]
        extra: dict[str, Any] = {}
        for key, value in inputs.items():
            if key in ("input_ids", "attention_mask"):
                continue
            if value.dim() == 2 and value.shape == inputs["input_ids"].shape:
                # per-token (token_type_ids, mm_token_type_ids): the reply's tokens are text (0)
                extra[key] = [*value[0].tolist(), *[0] * len(answer)]
            else:
                extra[key] = value  # image tensors (pixel_values, image_grid_thw…)
        return Encoded([*prompt, *answer], [IGNORE] * len(prompt) + answer, extra)
