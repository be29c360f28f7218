"""docqa's official scorers agree with the originals on the casebooks.

The expected values in ``tests/data/scorer_cases/*.jsonl`` were produced by running each
benchmark's own code (see ``build_casebooks.py`` there). Where the original raises, docqa must
score 0 and say why instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from docqa.metrics import longdocurl, mmlongbench_doc, slidevqa

CASES = Path(__file__).resolve().parents[1] / "data" / "scorer_cases"
MIN_CASES = 300


def casebook(name: str) -> list[dict[str, Any]]:
    lines = (CASES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def singles(name: str) -> list[dict[str, Any]]:
    return [case for case in casebook(name) if case.get("kind", "qa") != "group"]


def groups(name: str) -> list[dict[str, Any]]:
    return [case for case in casebook(name) if case.get("kind") == "group"]


def check(got: dict[str, Any], case: dict[str, Any], keys: tuple[str, ...]) -> None:
    if "raises" in case:
        assert "scorer_error" in got, f"{case['id']}: the original raises {case['raises']}"
        assert all(got[key] == 0.0 for key in keys), case["id"]
        return
    assert "scorer_error" not in got, f"{case['id']}: {got['scorer_error']}"
    expected = case["expected"]
    if not isinstance(expected, dict):
        expected = {"score": expected}
    for key in keys:
        assert got[key] == pytest.approx(expected[key], abs=1e-12), (case["id"], key, got)


@pytest.mark.parametrize("name", ["mmlongbench_doc", "longdocurl", "slidevqa"])
def test_each_casebook_is_big_and_probes_crashes(name: str) -> None:
    cases = singles(name)
    assert len(cases) >= MIN_CASES
    assert any("raises" in case for case in cases)


def test_mmlongbench_doc_agrees_with_eval_score() -> None:
    for case in singles("mmlongbench_doc"):
        got = mmlongbench_doc.score(case["gold"], case["pred"], answer_format=case["format"])
        check(got, case, ("score",))


def test_longdocurl_agrees_with_its_scripts() -> None:
    for case in singles("longdocurl"):
        got = longdocurl.score(
            case["gold"], case["pred"], answer_format=case["format"], parse=case["parse"]
        )
        check(got, case, ("score",))


def test_slidevqa_agrees_with_evaluate_py() -> None:
    for case in singles("slidevqa"):
        if case["kind"] == "qa":
            got = slidevqa.score(case["gold"], case["pred"], question=case["question"])
            check(got, case, ("f1", "em", "precision", "recall"))
        else:
            got = slidevqa.evidence(case["gold"], case["pred"])
            check(got, case, ("es_f1", "es_em", "es_precision", "es_recall"))


def test_mmlongbench_doc_aggregates_agree_with_show_results() -> None:
    cases = groups("mmlongbench_doc")
    assert cases
    for case in cases:
        rows = [
            {
                **mmlongbench_doc.score(s["answer"], s["pred"], answer_format=s["answer_format"]),
                "gold": s["answer"],
                "pred": s["pred"],
                "evidence_pages": s["evidence_pages"],
                "tags": {"evidence_sources": s["evidence_sources"], "doc_type": s["doc_type"]},
            }
            for s in case["samples"]
        ]
        got, expected = mmlongbench_doc.aggregate(rows), case["expected"]
        assert got["acc"] == pytest.approx(expected["acc"], abs=1e-12)
        assert got["f1"] == pytest.approx(expected["f1"], abs=1e-12)
        by_pages = got["breakdown"]["evidence_pages"]
        for group in ("single-page", "cross-page", "unanswerable"):
            want = expected[group]
            have = by_pages.get(group, {"acc": None, "questions": 0})
            assert have["questions"] == want["questions"], (case["id"], group)
            # The original prints 0 for an empty group; docqa leaves it out (undefined).
            if want["questions"]:
                assert have["acc"] == pytest.approx(want["acc"], abs=1e-12), (case["id"], group)
        for name in ("evidence_source", "doc_type"):
            assert set(got["breakdown"][name]) == set(expected[name]), (case["id"], name)
            for group, want in expected[name].items():
                have = got["breakdown"][name][group]
                assert have["questions"] == want["questions"], (case["id"], name, group)
                assert have["acc"] == pytest.approx(want["acc"], abs=1e-12), (case["id"], group)


def test_longdocurl_aggregates_agree_with_its_scripts() -> None:
    cases = groups("longdocurl")
    assert cases
    for case in cases:
        rows = [
            {
                **longdocurl.score(s["answer"], s["pred"], answer_format=s["answer_format"]),
                "gold": s["answer"],
                "pred": s["pred"],
                "evidence_pages": s["evidence_pages"],
                "tags": {"evidence_sources": s["evidence_sources"], "task_tag": s["task_tag"]},
            }
            for s in case["samples"]
        ]
        got, expected = longdocurl.aggregate(rows), case["expected"]
        assert got["acc"] == pytest.approx(expected["acc"], abs=1e-12)
        assert got["f1"] == pytest.approx(expected["f1"], abs=1e-12)
        ours = got["breakdown"]
        for theirs, mine in (
            ("Main_Task", "task"),
            ("Element_Type", "evidence_source"),
            ("Evidence_Pages", "evidence_pages"),
            ("Num_of_Element_Types", "element_count"),
        ):
            for group, total in expected["sums"][theirs].items():
                values = ours[mine].get(group, {"acc": 0.0, "questions": 0})
                summed = (values["acc"] or 0.0) * values["questions"]
                assert summed == pytest.approx(total, abs=1e-9), (case["id"], theirs, group)


def test_slidevqa_aggregates_agree_with_the_repaired_script() -> None:
    cases = groups("slidevqa")
    assert cases
    for case in cases:
        rows = [
            {
                **slidevqa.score(i["answer"], i["pred"], question=i["question"]),
                **slidevqa.evidence(i["evidence_pages"], i["pred_pages"]),
            }
            for i in case["items"]
        ]
        got = slidevqa.aggregate(rows)
        # The script prints percentages with one decimal.
        for key, printed in case["expected"].items():
            assert 100 * got[key] == pytest.approx(printed, abs=0.05 + 1e-9), (case["id"], key)
