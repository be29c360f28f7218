from __future__ import annotations

import json
from pathlib import Path

import pytest

from docqa.runtime.checkpoint import Checkpoint


def test_resume_skips_done_items_and_writes_in_order(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    first = Checkpoint(out, "settings-a", key="id")
    first.append({"id": "b", "v": 2})
    first.close()  # the job dies here

    second = Checkpoint(out, "settings-a", key="id")
    assert second.done("b")
    assert not second.done("a")
    second.append({"id": "a", "v": 1})
    rows = second.finish(["a", "b"])
    assert rows == [{"id": "a", "v": 1}, {"id": "b", "v": 2}]
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["a", "b"]
    assert not second.partial.exists()


def test_a_line_cut_by_the_kill_is_redone(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    checkpoint = Checkpoint(out, "s", key="id")
    checkpoint.append({"id": "a"})
    checkpoint.close()
    with open(checkpoint.partial, "a") as handle:
        handle.write('{"id": "b", "ans')  # torn write
    resumed = Checkpoint(out, "s", key="id")
    assert resumed.done("a")
    assert not resumed.done("b")
    resumed.append({"id": "b"})
    assert [r["id"] for r in resumed.finish(["a", "b"])] == ["a", "b"]


def test_other_settings_discard_the_partial_file(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    old = Checkpoint(out, "model-1", key="id")
    old.append({"id": "a", "answer": "from model 1"})
    old.close()
    new = Checkpoint(out, "model-2", key="id")
    assert not new.done("a")


def test_an_item_is_never_recorded_twice(tmp_path: Path) -> None:
    checkpoint = Checkpoint(tmp_path / "out.jsonl", "s", key="id")
    checkpoint.append({"id": "a"})
    with pytest.raises(ValueError, match="already recorded"):
        checkpoint.append({"id": "a"})


def test_a_row_with_lone_surrogates_is_written_with_them_replaced(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    checkpoint = Checkpoint(out, "fp", key="id")
    assert checkpoint.append({"id": "a", "answer": "x\ud800", "trace": [{"k\udfff": "v"}]}) == 2
    checkpoint.close()
    again = Checkpoint(out, "fp", key="id")  # the partial file reads back
    assert again.done("a")
    rows = again.finish(["a"])
    assert rows == [{"id": "a", "answer": "x\ufffd", "trace": [{"k\ufffd": "v"}]}]
    assert json.loads(out.read_bytes().decode("utf-8"))["answer"] == "x\ufffd"


def test_a_value_that_is_not_json_is_written_as_its_repr(tmp_path: Path) -> None:
    checkpoint = Checkpoint(tmp_path / "out.jsonl", "fp", key="id")
    checkpoint.append({"id": "a", "trace": [{1, 2}, ("t", None)]})
    assert checkpoint.finish(["a"]) == [{"id": "a", "trace": ["{1, 2}", ["t", None]]}]
