"""Build the scorer casebooks: docqa's edge cases, with the values the original scorers give.

The cases are written here; the expected values come from running each benchmark's own code,
which is not part of docqa. To rebuild, fetch the originals and point this script at them:

    git -C <MMLongBench-Doc clone> show d73f0dc:eval/eval_score.py > /tmp/orig/mmlb_eval_score.py
    git -C <LongDocURL clone> show 3807c0e:utils/utils_score_v3.py > /tmp/orig/ldu_utils_score_v3.py
    git -C <LongDocURL clone> show 3807c0e:utils/calculate_metrics_fine_grained.py \
        > /tmp/orig/ldu_calculate_metrics_fine_grained.py
    git -C <LongDocURL clone> show 3807c0e:evaluation_results/scores_sample_fine_grained.json \
        > /tmp/orig/ldu_scores_sample_fine_grained.json
    git -C <SlideVQA clone> show e1f0bd9:evaluate.py > /tmp/orig/slidevqa_evaluate.py
    python tests/data/scorer_cases/build_casebooks.py /tmp/orig

Run it outside docqa's environment if you like: it imports nothing from docqa. Each casebook
is a JSON-lines file, one case per line; ``expected`` holds what the original returns, or
``raises`` the exception it raises (docqa then scores 0 and records why).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import itertools
import json
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
NA = "Not answerable"


def load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None, path
    assert spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(function: Callable[..., Any], *args: Any) -> dict[str, Any]:
    """What ``function(*args)`` gives: ``{"expected": value}`` or ``{"raises": name}``."""
    with contextlib.redirect_stdout(io.StringIO()):  # the originals print while scoring
        try:
            return {"expected": function(*args)}
        except Exception as error:
            return {"raises": type(error).__name__}


def cross(golds: Iterable[Any], preds: Iterable[Any], fmt: str) -> list[tuple[Any, Any, str]]:
    return [(gold, pred, fmt) for gold, pred in itertools.product(golds, preds)]


def sample(cases: list[tuple[Any, Any, str]], count: int, seed: str) -> list[tuple[Any, Any, str]]:
    """A fixed random subset, so that big crosses stay small."""
    return random.Random(seed).sample(cases, min(count, len(cases)))


UNICODE = [
    "Café",
    "café",
    "cafe",
    "Straße",
    "STRASSE",
    "ﬁsh",
    "fish",
    "東京",
    "東京都",
    "Tiếng Việt",
    "tieng viet",
    "😀 smile",
    "İstanbul",
    "istanbul",
    "١٢",
    "５",
]


def mmlongbench_cases() -> list[tuple[Any, Any, str]]:
    int_golds = [
        "8",
        "0",
        "17",
        "300",
        "9259",
        "-3",
        "1000",
        "",
        "17.0",
        "1,000",
        " 5 ",
        "1_000",
        "five",
        "١٢",
    ]
    int_preds = [
        "8",
        "8.0",
        "8.9",
        "7.99",
        "-3",
        "-3.7",
        "1e3",
        "1,000",
        "1000",
        "1000.4",
        "8 apples",
        "eight",
        NA,
        "",
        "inf",
        "nan",
        "1_000",
        "٨",
        "+8",
        " 8 ",
        "0x8",
        "Fail to answer",
        "[8]",
        "17",
        "16.9999",
        "0",
        "-0.5",
        "300",
        "9259.0",
        "five",
        "١٢",
        "12",
        "5",
    ]
    float_golds = [
        "18.29%",
        "21%",
        "0.1",
        "17.5",
        "1%",
        "0.55%",
        "7.0",
        "0.45",
        "$5.2",
        "(12.5)",
        "12.5 (approx)",
        "3.14159",
        "1,000.5",
        "100",
        "-2.5",
        "1e-05",
        "'3.5'",
        "0",
        "2.675",
        "Not a number",
    ]
    float_preds = [
        "18.29",
        "0.1829",
        "18.3",
        "18.29%",
        "18",
        "18.47",
        "18.48",
        "1829",
        "$18.29",
        "18.29 (est.)",
        "",
        NA,
        "abc",
        "1,829",
        "0.18",
        "inf",
        "nan",
        "21",
        "0.21",
        "2100",
        "21.2",
        "0.1",
        "0.10",
        "10",
        "0.001",
        "17.5",
        "17.6",
        "17.7",
        "1",
        "0.01",
        "100",
        "0.0055",
        "0.55",
        "55",
        "7",
        "7.07",
        "7.08",
        "0.45",
        "45%",
        "5.2",
        "$5.2",
        "12.5",
        "12.4",
        "3.14",
        "3.1416",
        "3.15",
        "1000.5",
        "-2.5",
        "2.5",
        "1e-05",
        "0.00001",
        "3.5",
        "'3.5'",
        "0",
        "0.0",
        "-0",
        "2.68",
        "2.67",
        "1.0e2",
        "100.9",
        "99",
    ]
    str_golds = [
        "https://w.wiki/6gb",
        "WikidataMapMakingWorkshop.ipynb",
        "main.py",
        "Page 5",
        "555-1234",
        "2015-2016",
        "10:30 a.m.",
        "2019-05-01",
        "2019 05 01",
        "2019-05",
        "john.doe@example.com",
        "12 34",
        "300",
        "Less well-off",
        "Europe",
        "purple",
        "UC Browser Tiếng Việt",
        "Straße",
        "ﬁsh",
        "abcd",
        "abcdefghij",
        "National Atmospheric Research Laboratory",
        "'quoted'",
        "Eating out (restaurants)",
        "$5 million",
        "50%",
        "0-375 miles",
        "",
        "The Economist",
    ]
    str_preds = [
        "https://w.wiki/6gb",
        "https://w.wiki/6gB",
        "w.wiki/6gb",
        "workshop.ipynb",
        "wikidatamapmakingworkshop.ipynb",
        "main.py",
        "Main.py",
        "page 5",
        "Page 5.",
        "p. 5",
        "555-1234",
        "5551234",
        "2015-2016",
        "2015 - 2016",
        "10:30 a.m.",
        "10:30 am",
        "2019-05-01",
        "2019-5-1",
        "2019-05",
        "John.Doe@example.com",
        "john.doe@example.org",
        "12 34",
        "1234",
        "300",
        "300.0",
        "less well-off",
        "Less well off",
        "Less well-off.",
        "Europe",
        "Europa",
        "Eur",
        "purple",
        "purples",
        "UC Browser Tieng Viet",
        "STRASSE",
        "Strasse",
        "fish",
        "ﬁsh",
        "abcd",
        "abxy",
        "abcz",
        "abc",
        "abcdefghij",
        "abcdeVWXYZ",
        "abcdefWXYZ",
        "abcdefghijklmnopqrst",
        "abcdefghijklmnop",
        "National Atmospheric Research Lab",
        "quoted",
        "'quoted'",
        '"quoted"',
        "Eating out",
        "eating out (restaurants)",
        "$5 million",
        "5 million",
        "50%",
        "50",
        "0-375 miles",
        "0-375",
        "",
        NA,
        "Fail to answer",
        "The Economist",
        "Economist",
        "the economist (UK)",
        "  Europe  ",
    ]
    none_preds = [
        NA,
        "not answerable",
        "Not Answerable",
        "Unanswerable",
        "Fail to answer",
        "",
        "No answer",
        "Not answerable.",
        "The question is not answerable",
        "Not answerable (no data)",
        "'Not answerable'",
        "Not  answerable",
        "NA",
        "Not answer",
        "5",
        "[]",
    ]
    list_golds = [
        "['White', '10%']",
        "['Circle', 'Rectangle']",
        "[1500, 8000]",
        "[16, 19, 25]",
        "[]",
        "['a']",
        "['https://a.com', 'https://b.com']",
        "['2019-05', '2020-06']",
        "['Google Play store', '1.3']",
        "['lower', '38']",
        ["Circle", "Rectangle"],
        [1500, 8000],
        "Circle, Rectangle",
        "['UK', 'Israel', 'China']",
    ]
    list_preds = [
        "['White', '10%']",
        "['10%', 'white']",
        "['White', '10']",
        "['White']",
        "['Circle', 'Rectangle']",
        "['rectangle', 'circle']",
        "['Circle', 'Rectangl']",
        "['Circle', 'Square']",
        "['Circles', 'Rectangles']",
        "[1500, 8000]",
        "[8000, 1500]",
        "[1500.0, 8000]",
        "['1500', '8000']",
        "1500, 8000",
        "[1500, 8000, 9000]",
        "[16, 19, 25]",
        "[25, 19, 16]",
        "[16, 19]",
        "[]",
        "['a']",
        "a",
        "['A']",
        "['https://b.com', 'https://a.com']",
        "['2020-06', '2019-05']",
        "['Google Play store', '1.3']",
        "['1.3', 'google play store']",
        "['lower', '38']",
        "['38', 'lower']",
        "Circle, Rectangle",
        "['UK', 'Israel', 'China']",
        "['China', 'UK', 'Israel']",
        "['UK', 'Israel']",
        "[1500, 8000",
        "[x]",
        "[2020-2021]",
        "['Circle' 'Rectangle']",
        "[('Circle', 'Rectangle')]",
        "[None, True]",
        "[1e3, 8e3]",
        "['(White)', \"'10%'\"]",
        "['$1500', '8000%']",
        "[1_500, 8_000]",
        "[0x5DC, 8000]",
        NA,
        "",
        "['']",
        "[[1500, 8000]]",
        "{1500, 8000}",
        "  [1500, 8000]",
        "[max, min]",
        "['Circle',\n 'Rectangle']",
    ]
    cases: list[tuple[Any, Any, str]] = []
    cases += sample(cross(int_golds, int_preds, "Int"), 110, "mmlb-int")
    cases += [("8", pred, "Int") for pred in int_preds]
    cases += sample(cross(float_golds, float_preds, "Float"), 160, "mmlb-float")
    cases += [("18.29%", pred, "Float") for pred in float_preds[:20]]
    cases += sample(cross(str_golds, str_preds, "Str"), 140, "mmlb-str")
    cases += [(gold, gold, "Str") for gold in str_golds]
    cases += [(gold, gold.upper(), "Str") for gold in str_golds]
    cases += cross([NA], none_preds, "None")
    cases += sample(cross(list_golds, list_preds, "List"), 150, "mmlb-list")
    cases += [(gold, gold if isinstance(gold, str) else str(gold), "List") for gold in list_golds]
    cases += sample(cross(UNICODE, UNICODE, "Str"), 40, "mmlb-unicode")
    cases += [("Paris", "paris", fmt) for fmt in ("String", "Integer", "", "list")]
    cases += [("7", "7", "String"), ("['a', 'b']", "['b', 'a']", "Text")]
    return cases


def longdocurl_cases() -> list[tuple[Any, Any, str]]:
    int_golds = [
        5,
        0,
        17,
        96395,
        -3,
        17.0,
        "96,395",
        "5",
        "five",
        "",
        "5 kg",
        "12 minutes",
        "3 million",
        "$7",
        "(5)",
    ]
    int_preds = [
        "5",
        "5.0",
        "5.7",
        "96,395",
        "96395",
        "96 395",
        "-3",
        "17",
        "17.0",
        "five",
        "",
        NA,
        "5 kg",
        "5kg",
        "5 meters",
        "12 minutes",
        "12",
        "3 million",
        "3",
        "$7",
        "7",
        "£7",
        "(5)",
        "[5]",
        "5,",
        "1,2",
        "0",
        "+5",
        "1e2",
        "0x5",
        "'5'",
        "True",
        "Fail to extract",
        "Fail to answer",
        "1_000",
    ]
    float_golds = [
        0.25,
        25.0,
        1.5,
        18.29,
        3.14159,
        0.0055,
        7.0,
        100,
        -2.5,
        "18.29%",
        "$5.2",
        "1,000.5",
        "12.5 (approx)",
        "3.5 million",
        "abc",
        2.675,
    ]
    float_preds = [
        "0.25",
        "25",
        "25%",
        "0.253",
        "0.26",
        "2500",
        "1.5",
        "1.51",
        "1.52",
        "150",
        "18.29",
        "18.3",
        "0.1829",
        "18.29%",
        "3.14",
        "3.142",
        "0.55%",
        "0.0055",
        "0.55",
        "7",
        "7.0",
        "100",
        "1",
        "-2.5",
        "2.5",
        "$5.2",
        "5.2",
        "1,000.5",
        "1000.5",
        "12.5",
        "3.5",
        "3.5 million",
        "",
        NA,
        "abc",
        "inf",
        "nan",
        "2.68",
        "2.67",
        "1,5",
        "(0.25)",
        "'0.25'",
        "0.25 m",
        "£1.5",
        "[0.25]",
        "1/4",
        "Fail to extract",
    ]
    str_golds = [
        "Amsterdam",
        "Kingdom",
        "Milan",
        "https://example.com/a",
        "report.py",
        "Page 12",
        "2019-05-01",
        "555-1234",
        "9:00 a.m.",
        "info@example.org",
        "5 meters",
        "10 minutes",
        "3 acres",
        "2 miles",
        "1 mile",
        "£5",
        "Dywegy.Merger Transaction",
        "Table 4.15. Irish digestate samples",
        "Straße",
        "Café",
        "",
        NA,
        "1,234",
        "Section 3 (Results)",
        "'Quoted'",
        "items",
        "Summer",
    ]
    str_preds = [
        "Amsterdam",
        "amsterda",
        "Amsterdamm",
        "Kingdom",
        "kingdo",
        "Milan",
        "Mila",
        "https://example.com/a",
        "example.com/a",
        "report.py",
        "Report.py",
        "page 12",
        "Page 12",
        "p. 12",
        "2019-05-01",
        "2019/05/01",
        "555-1234",
        "5551234",
        "9:00 a.m.",
        "9 am",
        "info@example.org",
        "INFO@example.org",
        "5 meters",
        "5",
        "5 m",
        "10 minutes",
        "10 mins",
        "3 acres",
        "3",
        "2 miles",
        "2 mile",
        "1 mile",
        "£5",
        "5",
        "$5",
        "Dywegy.Merger Transaction",
        "Dywegy Merger Transaction",
        "Table 4.15. Irish digestate samples",
        "Table 4.15",
        "STRASSE",
        "Strasse",
        "Cafe",
        "",
        NA,
        "1234",
        "1,234",
        "Section 3",
        "'Quoted'",
        "quoted",
        "item",
        "Summe",
        "Fail to extract",
        "'Amsterdam'",
        "Amsterdam, NL",
        "[1, 2]",
        "5 + 5",
        "2020-2021",
        "True",
        "None",
        "max",
    ]
    none_preds = [
        NA,
        "not answerable",
        "Not answerable.",
        "'Not answerable'",
        "Fail to answer",
        "",
        "None",
        "Fail to extract",
        "No",
        "[]",
    ]
    list_golds = [
        ["Table 4.15. Irish digestate samples", "Figure 4.2. Relationship"],
        ["a", "b"],
        [1500, 8000],
        [16, 19, 25],
        ["2019-05", "2020-06"],
        ["https://a.com", "https://b.com"],
        [{"name": "x", "value": 1}],
        [],
        "['a', 'b']",
        "a, b",
        ["5 m", "10 kg"],
        [0.25, 0.5],
        ["Amsterdam"],
        [{"name": "x", "value": 1}, "y"],
    ]
    list_preds = [
        "['Table 4.15. Irish digestate samples', 'Figure 4.2. Relationship']",
        "['Figure 4.2. Relationship', 'Table 4.15. Irish digestate samples']",
        "['Table 4.15', 'Figure 4.2']",
        "['Table 4.15. Irish digestate samples']",
        "['a', 'b']",
        "['b', 'a']",
        "['a', 'b', 'c']",
        "['a', 'b', 'c', 'd']",
        "['a']",
        "a, b",
        "a",
        "[1500, 8000]",
        "[8000, 1500]",
        "[1500.0, 8000]",
        "['1,500', '8,000']",
        "[16, 19, 25]",
        "[25, 19, 16]",
        "[16, 19]",
        "['2019-05', '2020-06']",
        "['2020-06', '2019-05']",
        "['https://a.com', 'https://b.com']",
        "[{'name': 'x', 'value': 1}]",
        "['x-1']",
        "[]",
        "[x]",
        "[1500, 8000",
        "{1500, 8000}",
        "{'a', 'b'}",
        "('a', 'b')",
        "",
        NA,
        "Fail to extract",
        "[['a', 'b']]",
        "['5', '10']",
        "['5 m', '10 kg']",
        "[0.25, 0.5]",
        "['0.25', '0.50']",
        "['Amsterdam']",
        "['amsterda']",
        "[{'name': 'x', 'value': 1}, 'y']",
        "[2020-2021]",
        "1500, 8000",
    ]
    cases: list[tuple[Any, Any, str]] = []
    cases += sample(cross(int_golds, int_preds, "Integer"), 130, "ldu-int")
    cases += [(5, pred, "Integer") for pred in int_preds]
    cases += sample(cross(float_golds, float_preds, "Float"), 150, "ldu-float")
    cases += [(0.25, pred, "Float") for pred in float_preds]
    cases += sample(cross(str_golds, str_preds, "String"), 140, "ldu-str")
    cases += [(gold, gold if isinstance(gold, str) else str(gold), "String") for gold in str_golds]
    cases += cross([NA], none_preds, "None")
    cases += sample(cross(list_golds, list_preds, "List"), 150, "ldu-list")
    cases += sample(cross(UNICODE, UNICODE, "String"), 40, "ldu-unicode")
    cases += [("Paris", "paris", fmt) for fmt in ("Str", "Int", "")]
    return cases


def slidevqa_cases() -> list[tuple[str, str, str]]:
    """(gold, prediction, question) triples."""
    questions = [
        "how many people attended the event?",
        "How many people attended the event?",
        "In 2019, how many stores opened?",
        "which company has the largest share?",
        "Which company has the largest share?",
        "what is the total?",
        "so how many",
        "which",
        "what percent of users are mobile?",
        "how many hours does it take?",
        "how many hands are shown?",
        "Who and which team won?",
        "how many is the total, in percent?",
        "",
    ]
    answers = [
        ("3", "three"),
        ("three people", "3"),
        ("3 people", "3"),
        ("people 3", "3"),
        ("Google", "google"),
        ("Google Inc.", "Google"),
        ("the Google company", "Google"),
        ("Yes", "yes"),
        ("yes, it is", "yes"),
        ("No", "no it is not"),
        ("North America", "north"),
        ("none", "no"),
        ("yesterday", "yes"),
        ("nothing", "no"),
        ("30%", "30 percent"),
        ("30 percent", "30"),
        ("hand", "h"),
        ("hand and foot", "hand, foot"),
        ("Apple & Banana", "apple and banana"),
        ("thousand", "thous"),
        ("this is Paris", "Paris"),
        ("it is 5 hours", "5 hrs"),
        ("because of rain", "rain"),
        ("due to the rain", "rain"),
        ("organisation", "organization"),
        ("5 minites", "5 min"),
        ("", ""),
        ("", "x"),
        ("x", ""),
        ("a", "the"),
        ("an apple a day", "apple day"),
        ("twenty", "20"),
        ("nineteen", "19"),
        ("twenty one", "21"),
        ("1,000", "1000"),
        ("$5.5", "55"),
        ("U.S.", "us"),
        ("Trump’s plan", "Trumps plan"),
        ("café", "cafe"),
        ("東京 タワー", "東京"),
        ("12 stores", "12"),
        ("stores 12", "12"),
        ("largest share company", "company"),
        ("2.5 million", "25 million"),
        ("one two three", "1 2 3"),
        ("the the the", ""),
        ("New York City", "York New City"),
        ("Mobile users: 45%", "45"),
        ("a lot of people", "lots of people"),
        ("1 hour", "1 hrs"),
        ("two hands", "2"),
        ("3 hands", "3 hand"),
    ]
    cases = []
    for number, (gold, pred) in enumerate(answers):
        for question in questions:
            cases.append((gold, pred, question))
            if number % 3 == 0:
                cases.append((pred, gold, question))
    return sample(cases, 520, "slidevqa")


EVIDENCE_CASES = [
    ([1], [1]),
    ([1], [2]),
    ([1, 2], [2, 1]),
    ([1, 2], [1]),
    ([1], [1, 2]),
    ([1, 2, 3], [1, 2, 3]),
    ([3], []),
    ([], [3]),
    ([], []),
    ([1, 1], [1]),
    ([5, 9], [9, 5, 5]),
    ([2, 4, 6], [6, 4]),
    ([20], [20, 19, 18, 17]),
]


def build_slidevqa(evaluate: ModuleType) -> list[dict[str, Any]]:
    """Per question: the QA metrics of ``evaluate_f1_em_qa`` on that question alone; per
    evidence pair: ``evaluate_f1_em_es``; per group: the aggregates and the joint metrics."""
    cases: list[dict[str, Any]] = []
    for gold, pred, question in slidevqa_cases():
        gts = {"q": {"question": question, "answer": gold}}
        result = run(evaluate.evaluate_f1_em_qa, gts, {"q": {"answer": pred}})
        if "expected" in result:
            metrics = result["expected"]
            result["expected"] = {
                "f1": metrics["F1"],
                "em": metrics["EM"],
                "precision": metrics["precisions"]["q"],
                "recall": metrics["recalls"]["q"],
            }
        cases.append({"kind": "qa", "gold": gold, "pred": pred, "question": question, **result})
    for gold, pred in EVIDENCE_CASES:
        metrics = evaluate.evaluate_f1_em_es(
            {"q": {"evidence_pages": gold}}, {"q": {"evidence_pages": pred}}
        )
        cases.append(
            {
                "kind": "es",
                "gold": gold,
                "pred": pred,
                "expected": {
                    "es_f1": metrics["F1"],
                    "es_em": metrics["EM"],
                    "es_precision": metrics["precisions"]["q"],
                    "es_recall": metrics["recalls"]["q"],
                },
            }
        )
    return cases + slidevqa_groups(evaluate)


def slidevqa_groups(evaluate: ModuleType) -> list[dict[str, Any]]:
    """Sets of questions scored together by the repaired script, end to end (its __main__)."""
    rng = random.Random("slidevqa-groups")
    qa = [
        case for case in slidevqa_cases() if "how many" not in case[2][-9:] and case[2] != "which"
    ]
    groups = []
    for size in (1, 2, 3, 5, 8, 13):
        members = rng.sample(qa, size)
        pages = [rng.choice(EVIDENCE_CASES) for _ in members]
        items = [
            {
                "qa_id": f"q{i}",
                "question": question,
                "answer": gold,
                "pred": pred,
                "evidence_pages": gold_pages,
                "pred_pages": pred_pages,
            }
            for i, ((gold, pred, question), (gold_pages, pred_pages)) in enumerate(
                zip(members, pages, strict=True)
            )
        ]
        groups.append({"kind": "group", "items": items, "expected": run_script(evaluate, items)})
    return groups


def run_script(evaluate: ModuleType, items: list[dict[str, Any]]) -> dict[str, float]:
    """The script's __main__ on files, with the three fixes that make it run (see docqa's
    slidevqa module): the gold lines keep their own name instead of being overwritten by
    ``gts = {}``, the question comes from the gold line (``pred`` is undefined), and the joint
    metrics call ``evaluate_f1_em_main`` (the script calls a missing ``evaluate_f1_main``)."""
    source = Path(evaluate.__file__).read_text(encoding="utf-8")
    fixes = [
        ("        gts = f.read().splitlines()", "        gt_lines = f.read().splitlines()"),
        ("zip(qa_preds, es_preds, gts)", "zip(qa_preds, es_preds, gt_lines)"),
        ("'question': pred['question']", "'question': gt['question']"),
        ("main_metrics = evaluate_f1_main(", "main_metrics = evaluate_f1_em_main("),
    ]
    for old, new in fixes:
        assert source.count(old) == 1, f"fix {old!r} does not apply to {evaluate.__file__}"
        source = source.replace(old, new)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "evaluate_fixed.py").write_text(source, encoding="utf-8")

        def write(name: str, rows: list[dict]) -> None:
            (work / name).write_text(
                "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
            )

        write("qa.jsonl", [{"qa_id": i["qa_id"], "answer": i["pred"]} for i in items])
        write("es.jsonl", [{"qa_id": i["qa_id"], "evidence_pages": i["pred_pages"]} for i in items])
        write(
            "gt.jsonl",
            [
                {
                    "qa_id": i["qa_id"],
                    "question": i["question"],
                    "answer": i["answer"],
                    "evidence_pages": i["evidence_pages"],
                }
                for i in items
            ],
        )
        printed = subprocess.run(
            [
                sys.executable,
                "evaluate_fixed.py",
                "--qa_preds_file",
                "qa.jsonl",
                "--es_preds_file",
                "es.jsonl",
                "--gts_file",
                "gt.jsonl",
            ],
            cwd=work,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    # The script prints each metric in percent with one decimal; read them back.
    values = re.findall(r"\((QA|ES|Main)\):\n\*+\nF1 : ([\d.]+)\nEM : ([\d.]+)", printed)
    assert len(values) == 3, printed
    names = {"QA": "", "ES": "es_", "Main": "joint_"}
    return {
        f"{names[task]}{metric}": float(value)
        for task, f1, em in values
        for metric, value in (("f1", f1), ("em", em))
    }


def build_mmlongbench(eval_score: ModuleType) -> list[dict[str, Any]]:
    cases = [
        {"gold": gold, "pred": pred, "format": fmt, **run(eval_score.eval_score, gold, pred, fmt)}
        for gold, pred, fmt in mmlongbench_cases()
    ]
    return cases + mmlongbench_groups(eval_score, cases)


SOURCES = ["Chart", "Table", "Pure-text (Plain-text)", "Figure", "Generalized-text (Layout)"]
DOC_TYPES = ["Academic paper", "Brochure", "Financial report"]


def annotated(rng: random.Random, case: dict[str, Any]) -> dict[str, Any]:
    """A scored case as a benchmark sample: string gold and prediction, pages and sources."""
    unanswerable = case["gold"] == NA
    return {
        "answer": case["gold"],
        "pred": case["pred"],
        "answer_format": case["format"],
        "score": case["expected"],
        "evidence_pages": [] if unanswerable else rng.choice([[3], [1, 4], [2, 5, 9], []]),
        "evidence_sources": [] if unanswerable else rng.sample(SOURCES, rng.randint(1, 2)),
        "doc_type": rng.choice(DOC_TYPES),
    }


def mmlongbench_groups(eval_score: ModuleType, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sets of scored samples through ``eval_acc_and_f1`` and ``show_results``."""
    rng = random.Random("mmlb-groups")
    scored = [
        case
        for case in cases
        if "expected" in case and isinstance(case["gold"], str) and case["gold"] != ""
    ]
    groups = []
    for size in (1, 2, 5, 12, 40, 90, 200, 400):
        samples = [annotated(rng, case) for case in rng.sample(scored, size)]
        for sample in samples[: size // 4]:  # some predictions say 'Not answerable'
            sample["pred"] = NA
            sample["score"] = run(
                eval_score.eval_score, sample["answer"], NA, sample["answer_format"]
            )["expected"]
        groups.append(
            {"kind": "group", "samples": samples, "expected": show_results(eval_score, samples)}
        )
    return groups


def show_results(eval_score: ModuleType, samples: list[dict[str, Any]]) -> dict[str, Any]:
    """``show_results`` on the samples, its report read back into numbers."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "results.txt"
        copies = [
            {
                **s,
                "evidence_pages": str(s["evidence_pages"]),
                "evidence_sources": str(s["evidence_sources"]),
            }
            for s in samples
        ]
        eval_score.show_results(copies, show_path=str(report))
        text = report.read_text(encoding="utf-8")
    number = r"([-\d.e]+)"
    found = dict(re.findall(rf"^Overall (Acc|F1-score): {number} \|", text, re.M))
    result: dict[str, Any] = {"acc": float(found["Acc"]), "f1": float(found["F1-score"])}
    for label, key in (
        ("Single-page", "single-page"),
        ("Cross-page", "cross-page"),
        ("Unanswerable", "unanswerable"),
    ):
        acc, count = re.search(
            rf"^{label} \| Accuracy: {number} \| Question Number: (\d+)", text, re.M
        ).groups()
        result[key] = {"acc": float(acc), "questions": int(count)}
    for label, key in (("Evidence Sources", "evidence_source"), ("Document Type", "doc_type")):
        result[key] = {
            name: {"acc": float(acc), "questions": int(count)}
            for name, acc, count in re.findall(
                rf"^{label}: (.+?) \| Accuracy: {number} \| Question Number: (\d+)", text, re.M
            )
        }
    return result


def parse_concise(concise: str) -> Any:
    """Step 1 of LongDocURL's scripts: the extracted answer string ``eval()``-ed."""
    try:  # eval with builtins only: docqa does not resolve the names of the script's module
        value = eval(concise, {})
        return list(value) if isinstance(value, set) else value
    except Exception:
        return concise


def longdocurl_pipeline(scorer: ModuleType, gold: Any, concise: str, fmt: str) -> float:
    """What LongDocURL's scripts do with one extracted answer string (two steps)."""
    pred = parse_concise(concise)
    if pred == "Fail to extract":
        return 0.0
    return scorer.eval_score(gold, pred, fmt)


def build_longdocurl(scorer: ModuleType, originals: Path) -> list[dict[str, Any]]:
    cases = []
    for gold, pred, fmt in longdocurl_cases():
        cases.append(
            {
                "gold": gold,
                "pred": pred,
                "format": fmt,
                "parse": True,
                **run(longdocurl_pipeline, scorer, gold, pred, fmt),
            }
        )
    # Predictions that are values already (parse off): eval_score alone.
    for gold, pred, fmt in [
        (5, 5, "Integer"),
        (5, 5.0, "Integer"),
        (0.25, 25, "Float"),
        (["a", "b"], ["b", "a"], "List"),
        ([1, 2], [2, 1], "List"),
        ([1, 2], [], "List"),
        ("x", None, "String"),
        (17, "17", "Integer"),
        ([1500, 8000], "[1500, 8000]", "List"),
        ("a", ["a"], "List"),
    ]:
        cases.append(
            {
                "gold": gold,
                "pred": pred,
                "format": fmt,
                "parse": False,
                **run(scorer.eval_score, gold, pred, fmt),
            }
        )
    return cases + longdocurl_groups(scorer, cases, originals)


TASKS = {
    "Understanding": ["extract"],
    "Reasoning": ["calculate", "count"],
    "Locating": ["topic2title", "summary2title", "summary2tab", "extract_fig2tab"],
}


def longdocurl_groups(
    scorer: ModuleType, cases: list[dict[str, Any]], originals: Path
) -> list[dict[str, Any]]:
    """Sets of scored samples through ``calculate_acc_and_f1`` and the fine-grained sums of
    ``utils/calculate_metrics_fine_grained.py`` (with every group count 1, so that its
    'accuracies' are the sums of scores per group)."""
    sys.modules["utils.utils_score_v3"] = scorer  # what the fine-grained script imports
    fine_grained = load(originals / "ldu_calculate_metrics_fine_grained.py", "ldu_fine_grained")
    rng = random.Random("ldu-groups")
    scored = [case for case in cases if "expected" in case and case["parse"]]
    groups = []
    for size in (1, 3, 8, 20, 60, 150, 300):
        samples = []
        for case in rng.sample(scored, size):
            task = rng.choice(list(TASKS))
            samples.append(
                {
                    "answer": case["gold"],
                    "pred": case["pred"],
                    "answer_format": case["format"],
                    "score_v3": case["expected"],
                    "task_tag": task,
                    "question_type": rng.choice(TASKS[task]),
                    "evidence_pages": rng.choice([[3], [1, 4], [2, 5, 9]]),
                    "evidence_sources": rng.sample(
                        ["Text", "Layout", "Figure", "Table", "Other"], rng.randint(1, 3)
                    ),
                }
            )
        with tempfile.TemporaryDirectory() as folder:
            results = Path(folder) / "results.jsonl"
            results.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
            acc, f1 = scorer.calculate_acc_and_f1(str(results))
        with contextlib.redirect_stdout(io.StringIO()):  # its scorer prints while scoring
            sums = fine_grained.calculate_accuracy_fine_grained(
                [{**s, "pred": parse_concise(s["pred"])} for s in samples],
                json.loads((originals / "ldu_scores_sample_fine_grained.json").read_text())[
                    "scores"
                ],
            )
        del sums["Fine_Grained"]  # by task, pages and element type at once: not compared
        groups.append(
            {"kind": "group", "samples": samples, "expected": {"acc": acc, "f1": f1, "sums": sums}}
        )
    return groups


def main(originals: Path) -> None:
    mmlb = load(originals / "mmlb_eval_score.py", "mmlb_eval_score")
    ldu = load(originals / "ldu_utils_score_v3.py", "ldu_utils_score_v3")
    slidevqa = load(originals / "slidevqa_evaluate.py", "slidevqa_evaluate")
    books = {
        "mmlongbench_doc": build_mmlongbench(mmlb),
        "longdocurl": build_longdocurl(ldu, originals),
        "slidevqa": build_slidevqa(slidevqa),
    }
    for name, cases in books.items():
        path = HERE / f"{name}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for number, case in enumerate(cases, start=1):
                out.write(json.dumps({"id": f"{name}-{number:04d}", **case}, ensure_ascii=False))
                out.write("\n")
        print(f"{path.name}: {len(cases)} cases")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
