"""A tiny random Qwen2-VL as the student: page images in the prompt, the loss on the reply only,
two training steps, and the adapter loaded by the transformers backend as a model entry."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers.acme import QUESTION, build_document
from helpers.tiny_models import build_tiny_vlm, tiny_model_entry

from docqa.backends import create_backend
from docqa.backends.preparation import prepare_model
from docqa.backends.request import ChatRequest, Generation, Message, Part
from docqa.methods import create_method
from docqa.training.gold_teacher import GoldTeacher, GoldTeacherOptions
from docqa.training.sft_data import IGNORE, VisionEncoder, example
from docqa.training.synthesis import run_question
from docqa.training.teacher import Teacher
from docqa.training.train import Student, TrainOptions, train_stage

pytestmark = pytest.mark.slow

MAX_PIXELS = 112 * 112


@pytest.fixture(scope="module")
def student(tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("training-vlm")
    env = build_document(base / "acme")
    method = create_method({"type": "docpilot", "max_steps": 8, "crops_dir": str(base / "crops")})
    row = asyncio.run(
        run_question(QUESTION, env, method, Teacher(GoldTeacher(GoldTeacherOptions())))
    )
    rows = [example(call, "q", "multi", i) for i, call in enumerate(row["calls"])]
    data = base / "multi.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    folder = build_tiny_vlm("qwen2_vl", base / "vlm")
    return {"base": base, "rows": rows, "data": data, "folder": folder}


def test_page_images_are_in_the_prompt_and_never_supervised(student: dict) -> None:
    from transformers import AutoProcessor

    processor = AutoProcessor.from_pretrained(student["folder"])
    encoder = VisionEncoder(processor, "qwen2_vl", MAX_PIXELS)
    row = next(r for r in student["rows"] if r["role"] == "extract")
    encoded = encoder.encode(row)
    image_token = processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    images = [i for i, token in enumerate(encoded.input_ids) if token == image_token]
    assert images, "the page image is not in the prompt"
    assert all(encoded.labels[i] == IGNORE for i in images)
    reply = row["messages"][1]["content"][0]["text"]
    supervised = [
        t for t, label in zip(encoded.input_ids, encoded.labels, strict=True) if label != IGNORE
    ]
    assert supervised == encoded.input_ids[len(encoded.input_ids) - len(supervised) :]
    assert processor.tokenizer.decode(supervised[:-1]) == reply
    assert "pixel_values" in encoded.extra


def test_the_trained_adapter_loads_as_a_model_entry_and_answers(student: dict) -> None:
    out = student["base"] / "stage"
    summary = train_stage(
        Student(student["folder"], max_pixels=MAX_PIXELS),
        student["data"],
        out,
        TrainOptions(max_steps=3, save_steps=2, learning_rate=0.01),
    )
    losses = [row["loss"] for row in summary["losses"]]
    assert losses[-1] < losses[0]
    entry = tiny_model_entry(student["folder"], adapter=str(out / "adapter"))
    prepared = student["base"] / "models/tiny-trained"
    prepare_model("tiny-trained", entry, prepared)
    backend = create_backend(entry, prepared)
    assert backend.identity["adapter_sha256"]
    page = next(r for r in student["rows"] if r["role"] == "extract")["messages"][0]["content"]
    image = next(part["image"] for part in page if part["type"] == "image")
    request = ChatRequest(
        (Message.user(Part.of_image(image), "What is on this page?"),),
        Generation(max_new_tokens=4),
    )
    [completion] = backend.generate([request])
    assert completion.usage.tokens_out > 0
    backend.close()
