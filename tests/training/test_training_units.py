"""Synthesis, filtering, the loss mask and resume, on the real six-page 'acme' PDF (rendered and
OCRed by docqa) with the scripted gold teacher and a tiny random student."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.acme import QUESTION, build_document
from helpers.tiny_student import build_tiny_student

from docqa.backends.transformers_lm import LMSettings, TransformersLM
from docqa.methods import create_method
from docqa.training.filtering import Checker, filter_trajectories
from docqa.training.gold_teacher import GoldTeacher, GoldTeacherOptions
from docqa.training.sft_data import IGNORE, TextEncoder, example, request_of
from docqa.training.synthesis import run_question
from docqa.training.teacher import REFERENCE_PREFIX, Teacher


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("training-units")
    env = build_document(base / "acme")
    method = create_method({"type": "docpilot", "max_steps": 8, "crops_dir": str(base / "crops")})
    row = asyncio.run(
        run_question(QUESTION, env, method, Teacher(GoldTeacher(GoldTeacherOptions())))
    )
    student = build_tiny_student(base / "student")
    return {"base": base, "row": row, "student": student}


def encoder(world: dict) -> TextEncoder:
    from transformers import AutoTokenizer

    return TextEncoder(AutoTokenizer.from_pretrained(world["student"]), "raw", 4096)


def checker(world: dict, **caps: int) -> Checker:
    coder = encoder(world)
    return Checker(
        "slideagent", {}, lambda call: len(coder.encode(example(call, "q", "", 0)).input_ids), caps
    )


def test_the_gold_teacher_drives_docpilot_to_the_answer_and_the_note_is_not_recorded(
    world: dict,
) -> None:
    row = world["row"]
    actions = [step.get("action") for step in row["prediction"]["trace"][:-1]]
    assert actions == ["navigate", "extract", "analyze", "answer"]
    assert row["prediction"]["answer"] == "77"
    roles = [call["role"] for call in row["calls"]]
    assert roles.count("orchestrator") == 4
    assert {"navigate", "extract", "analyze", "answer"} <= set(roles)
    recorded = json.dumps(row["calls"])
    assert REFERENCE_PREFIX not in recorded  # the student never sees the teacher's note


def test_the_loss_mask_covers_the_reply_only_token_by_token(world: dict) -> None:
    coder = encoder(world)
    calls = world["row"]["calls"]
    # the last orchestrator call: its prompt holds earlier thoughts, actions and observations
    index = max(i for i, call in enumerate(calls) if call["role"] == "orchestrator")
    row = example(calls[index], "q-orders", "multi", index)
    prompt_text = "".join(c.get("text", "") for c in row["messages"][0]["content"])
    assert "Observation: new evidence" in prompt_text
    encoded = coder.encode(row)
    inference = TransformersLM(world["student"], {"id": "tiny"}, LMSettings(prompt_format="raw"))
    prompt, cut = inference.prompt_ids(request_of(row))
    assert cut == 0
    reply = coder.reply_ids(calls[index]["reply"])
    # the prompt is exactly what the inference backend feeds the model
    assert encoded.input_ids == [*prompt, *reply]
    for position, (token, label) in enumerate(zip(encoded.input_ids, encoded.labels, strict=True)):
        if position < len(prompt):
            assert label == IGNORE, f"prompt token {position} is supervised"
        else:
            assert label == token, f"reply token {position} is not supervised"
    supervised = [
        t for t, label in zip(encoded.input_ids, encoded.labels, strict=True) if label != IGNORE
    ]
    tokenizer = coder.tokenizer
    assert tokenizer.decode(supervised[:-1]) == calls[index]["reply"]
    assert supervised[-1] == tokenizer.eos_token_id


def drop_reason(world: dict, row: dict, tmp_path: Path, **caps: int) -> dict:
    trajectories = tmp_path / "in.jsonl"
    trajectories.write_text(json.dumps(row) + "\n")
    return filter_trajectories(
        trajectories,
        checker(world, **caps),
        tmp_path / "multi.jsonl",
        tmp_path / "single.jsonl",
        tmp_path / "report.json",
    )


def test_a_good_trajectory_is_kept_with_its_ability_traces(world: dict, tmp_path: Path) -> None:
    report = drop_reason(world, world["row"], tmp_path)
    assert report["multi"] == {"kept": 1, "dropped": {}}
    assert report["single"]["kept"] == 4  # navigate, extract, analyze, answer


def broken(world: dict, how: str) -> dict:
    row = copy.deepcopy(world["row"])
    steps = row["prediction"]["trace"]
    if how == "malformed_step":
        del steps[1]["thought"]
    elif how == "refused_action":
        steps[1]["fallbacks"] = ["unavailable_action"]
    elif how == "missing_image":
        call = next(c for c in row["calls"] if c["role"] == "extract")
        image = next(p for p in call["request"]["messages"][0]["parts"] if p["kind"] == "image")
        image["image"] = "/nonexistent/page.png"
    elif how == "wrong_answer":
        row["prediction"]["answer"] = "78"
    elif how == "repeated_loop":
        steps.insert(1, copy.deepcopy(steps[0]))
    elif how == "ungrounded":
        steps[-1]["evidence_recall"] = 0.0
    elif how == "solve_mismatch":
        evidence = [{"id": 1, "page": 4, "source": "extract", "content": "Q3 orders 77"}]
        prompt = f"Task: orders\nEvidence:\n{json.dumps(evidence)}\n```python\n"
        from docqa.methods.docpilot.prompts import SOLVER

        text = SOLVER.split("Task: {task}")[0] + prompt
        parts = [{"kind": "text", "text": text, "image": ""}]
        request = {"messages": [{"role": "user", "parts": parts}], "max_new_tokens": 9, "stop": []}
        row["calls"].insert(3, {"role": "solve", "request": request, "reply": "result = 76\n"})
        step = {**steps[1], "action": "solve", "input": {"task": "orders"}, "fallbacks": []}
        step |= {"code": "result = 76", "output": "result = 77; new evidence: [3]"}
        steps.insert(2, step)
    elif how == "run_error":
        row["prediction"]["error"] = "RuntimeError: backend down"
    return row


@pytest.mark.parametrize(
    "how",
    [
        "run_error",
        "malformed_step",
        "refused_action",
        "repeated_loop",
        "missing_image",
        "wrong_answer",
        "ungrounded",
        "solve_mismatch",
    ],
)
def test_a_bad_trajectory_is_dropped_with_its_reason(world: dict, tmp_path: Path, how: str) -> None:
    report = drop_reason(world, broken(world, how), tmp_path)
    assert report["multi"] == {"kept": 0, "dropped": {how: 1}}
    assert (tmp_path / "multi.jsonl").read_text() == ""
    if how in ("run_error", "malformed_step", "missing_image"):
        assert report["single"]["kept"] == 0  # nothing of a broken run is trained on


def test_the_token_cap_drops_long_trajectories_and_traces(world: dict, tmp_path: Path) -> None:
    report = drop_reason(world, world["row"], tmp_path, multi=50, single=50)
    assert report["multi"]["dropped"] == {"too_long": 1}
    assert report["single"]["dropped"] == {"too_long": 4}


TRAIN_SCRIPT = """
import sys, json
from pathlib import Path
from docqa.training.train import Student, TrainOptions, train_stage
student, data, out = map(Path, sys.argv[1:4])
options = TrainOptions(max_steps=4, save_steps=2, learning_rate=0.01, seed=0)
print(json.dumps(train_stage(Student(student), data, out, options)["steps"]))
"""


def test_a_training_run_killed_mid_epoch_resumes_from_its_last_checkpoint(
    world: dict, tmp_path: Path
) -> None:
    data = tmp_path / "multi.jsonl"
    rows = [example(call, "q", "multi", i) for i, call in enumerate(world["row"]["calls"])]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "stage"
    command = [sys.executable, "-c", TRAIN_SCRIPT, str(world["student"]), str(data), str(out)]
    killed = subprocess.run(
        command, env={**os.environ, "DOCQA_TRAIN_KILL_AFTER_STEP": "2"}, capture_output=True
    )
    assert killed.returncode == -9, killed.stderr[-2000:]
    assert (out / "checkpoints/checkpoint-2/trainer_state.json").is_file()
    assert not (out / "train.json").exists()
    env = {k: v for k, v in os.environ.items() if k != "DOCQA_TRAIN_KILL_AFTER_STEP"}
    resumed = subprocess.run(command, env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    summary = json.loads((out / "train.json").read_text())
    assert summary["resumed_from"] == "checkpoint-2"
    assert summary["steps"] == 4
    assert [row["step"] for row in summary["losses"]] == [1, 2, 3, 4]


def test_full_fine_tuning_writes_weights_that_the_next_stage_starts_from(
    world: dict, tmp_path: Path
) -> None:
    from docqa.training.train import Student, TrainOptions, train_stage

    data = tmp_path / "multi.jsonl"
    rows = [example(call, "q", "multi", i) for i, call in enumerate(world["row"]["calls"])]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows[:3]))
    options = TrainOptions(max_steps=2, save_steps=100, learning_rate=0.01, full_finetune=True)
    student = Student(world["student"])
    train_stage(student, data, tmp_path / "stage1", options)
    assert (tmp_path / "stage1/model/config.json").is_file()
    assert not (tmp_path / "stage1/adapter").exists()
    second = train_stage(student, data, tmp_path / "stage2", options, tmp_path / "stage1")
    assert second["init_from"] == str(tmp_path / "stage1")
    assert (tmp_path / "stage2/model/config.json").is_file()
