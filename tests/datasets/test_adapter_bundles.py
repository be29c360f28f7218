"""MDocAgent's PaperTab/PaperText/FetaTab, and the DocPilot benchmarks: DocBench, FinRAGBench-V,
MADQA, each in its real layout and field names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.benchmark_files import MADQA_SCHEMA, image, parquet, pdf

from docqa.core.failures import read_failures
from docqa.core.jsonl import read_jsonl
from docqa.datasets import prepare
from docqa.datasets.convert import ConvertedOptions
from docqa.datasets.docbench import load_questions as docbench_questions
from docqa.datasets.finragbench_v import FinRAGBenchVOptions
from docqa.datasets.finragbench_v import read as finragbench_read
from docqa.datasets.madqa import MADQAOptions
from docqa.datasets.madqa import read as madqa_read
from docqa.datasets.mdocagent import MDocAgentOptions
from docqa.datasets.mdocagent import read as mdocagent_read

# Rows as in the bundle's samples.json files (PaperTab/PaperText: answer_2, answer_3).
PAPERTAB = [
    {
        "doc_id": "1912.01214.pdf",
        "q_uid": "5eda469a",
        "question": "what language pairs are explored?",
        "answer": "De-En, En-Fr",
        "answer_2": "French-English-Spanish",
        "answer_3": " ",
    },
    {
        "doc_id": "1809.00540.pdf",
        "q_uid": "a99fdd34",
        "question": "Do they use graphical models?",
        "answer": "No",
        "answer_2": "No",
        "answer_3": " ",
    },
    {
        "doc_id": "1809.00540.pdf",
        "q_uid": "d604f5fb",
        "question": "What metric is used?",
        "answer": " ",
    },
]
FETATAB = [
    {
        "doc_id": "Ben Platt (actor).pdf",
        "q_uid": "14717",
        "question": "Where did Platt appear?",
        "answer": "In Dear Evan Hansen.",
        "doc_url": "http://en.wikipedia.org/wiki/Ben_Platt_(actor)",
    },
]


def bundle(root: Path) -> Path:
    """The bundle's folders: PaperTab with PDFs, PaperText's broken link, FetaTab."""
    (root / "PaperTab").mkdir(parents=True)
    (root / "PaperTab" / "samples.json").write_text(json.dumps(PAPERTAB))
    pdf(root / "PaperTab" / "documents" / "1912.01214.pdf")
    pdf(root / "PaperTab" / "documents" / "1809.00540.pdf")
    (root / "PaperText").mkdir()
    (root / "PaperText" / "samples.json").write_text(json.dumps(PAPERTAB[:2]))
    # upstream this is a git symlink to the authors' disk; downloaded, a 78-byte file
    (root / "PaperText" / "documents").write_text(
        "/mbz/users/wenhao.zheng/Project/model/agents/PDF-agent/data/PaperTab/documents"
    )
    (root / "FetaTab").mkdir()
    (root / "FetaTab" / "samples.json").write_text(json.dumps(FETATAB))
    pdf(root / "FetaTab" / "documents" / "Ben Platt (actor).pdf")
    return root


def test_papertab_and_fetatab(tmp_path: Path) -> None:
    root = bundle(tmp_path / "bundle")
    loaded = mdocagent_read(root / "PaperTab", MDocAgentOptions())
    first, second = loaded.questions
    assert (first.question_id, first.doc_id, first.answer_format) == (
        "5eda469a",
        "1912.01214",
        "Str",
    )
    assert first.tags == {"answer_variants": ["French-English-Spanish"]}  # blank variants dropped
    assert second.evidence == []  # UDA gives no evidence pages
    assert [f.error for f in loaded.skipped] == ["field 'answer' is empty"]

    out = tmp_path / "fetatab"
    prepare("mdocagent", out, {"root": str(root), "subdir": "FetaTab"})
    [question] = read_jsonl(out / "questions.jsonl")
    assert question["doc_id"] == "Ben Platt (actor)"
    assert question["original"]["doc_url"].endswith("Ben_Platt_(actor)")
    assert (out / "docs" / "Ben Platt (actor).pdf").resolve().is_file()


def test_papertext_broken_documents_link_and_the_fix(tmp_path: Path) -> None:
    root = bundle(tmp_path / "bundle")
    with pytest.raises(ValueError, match="no question"):
        prepare("mdocagent", tmp_path / "broken", {"root": str(root), "subdir": "PaperText"})
    failures = read_failures(tmp_path / "broken" / "failures.jsonl")
    assert len(failures) == 2
    assert "broken link" in failures[0].error
    assert "../PaperTab/documents" in failures[0].fix

    out = tmp_path / "papertext"
    options = {"root": str(root), "subdir": "PaperText", "documents_dir": "../PaperTab/documents"}
    prepare("mdocagent", out, options)
    assert len(list(read_jsonl(out / "questions.jsonl"))) == 2
    assert read_failures(out / "failures.jsonl") == []


def test_docbench_folders(tmp_path: Path) -> None:
    rows = [
        {
            "question": "What is the total revenue?",
            "answer": "12 million",
            "type": "text-only",
            "evidence": "Revenue was 12 million.",
        },
        {
            "question": "Who signed the report?",
            "answer": "Not mentioned.",
            "type": "unanswerable",
            "evidence": "",
        },
        # DocBench's own type for an unanswerable question (its eval_result.ipynb)
        {"question": "Who audited it?", "answer": "Not mentioned.", "type": "una"},
    ]
    for folder in ("0", "1", "10"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / f"{folder}_qa.jsonl").write_text(
            "\n".join(json.dumps(row) for row in rows) + "\n"
        )
        pdf(tmp_path / folder / f"report-{folder}.pdf")
    (tmp_path / "1" / "1_qa.jsonl").write_text('{"question": "no answer here"}\n')
    (tmp_path / "2").mkdir()  # a folder without its questions file
    questions = docbench_questions(tmp_path, ConvertedOptions())
    assert [q.question_id for q in questions] == ["0-1", "0-2", "0-3", "10-1", "10-2", "10-3"]
    assert questions[0].tags == {"type": "text-only", "evidence": "Revenue was 12 million."}
    assert [q.answer_format for q in questions[:3]] == ["Str", "None", "None"]

    out = tmp_path / "data"
    prepare("docbench", out, {"root": str(tmp_path)})
    assert [d["doc_id"] for d in read_jsonl(out / "documents.jsonl")] == ["0", "10"]
    assert [f.path.split("/")[-1] for f in read_failures(out / "failures.jsonl")] == [
        "1_qa.jsonl:1",
        "2_qa.jsonl",
    ]


def test_finragbench_v_queries_qrels_and_page_images(tmp_path: Path) -> None:
    queries = [
        {
            "query-id": "NASDAQ_AMBC_2020_2.png-1",
            "query": "Which year had higher gains?",
            "answer": "2019.",
            "category": "Table-Compare and Sort",
            "answer_type": "short",
            "from_pages": "2",
        },
        {
            "query-id": "LSE_HWDN_2023_3.png-2",
            "query": "Which is higher?",
            "answer": "2022",
            "category": "Chart-Numerical",
            "answer_type": "long",
            "from_pages": "3",
        },
        {
            "query-id": "Gappy_Report_3.png-1",
            "query": "What is on page 3?",
            "answer": "A chart",
            "category": "Text",
            "answer_type": "short",
            "from_pages": "3",
        },
        {"query-id": "no-page-here", "query": "?", "answer": "x"},
    ]
    data = tmp_path / "data"
    (data / "dataset").mkdir(parents=True)
    (data / "dataset" / "queries_en.json").write_text(json.dumps(queries))
    (data / "qrels").mkdir()
    (data / "qrels" / "qrels_en.tsv").write_text(
        "query-id\tcorpus-id\tscore\n"
        "NASDAQ_AMBC_2020_2.png-1\tNASDAQ_AMBC_2020_2.png\t1\n"
        "NASDAQ_AMBC_2020_2.png-1\tNASDAQ_AMBC_2020_3.png\t1\n"
    )
    corpus = data / "corpus" / "en"
    corpus.mkdir(parents=True)
    for name in ("NASDAQ_AMBC_2020", "LSE_HWDN_2023"):
        for page in (1, 2, 3):
            (corpus / f"{name}_{page}.png").write_bytes(image())
    for page in (1, 3):  # page 2 is missing from the corpus
        (corpus / f"Gappy_Report_{page}.png").write_bytes(image())

    loaded = finragbench_read(tmp_path, FinRAGBenchVOptions())
    first, second, gappy = loaded.questions
    assert (first.doc_id, first.evidence_in(first.doc_id)) == (
        "NASDAQ_AMBC_2020",
        [1, 2],
    )  # qrels: 2 pages
    assert (second.doc_id, second.evidence_in(second.doc_id)) == (
        "LSE_HWDN_2023",
        [2],
    )  # from its own id
    assert first.tags == {"category": "Table-Compare and Sort", "answer_type": "short"}
    assert "no evidence page" in loaded.skipped[0].error

    out = tmp_path / "out"
    prepare("finragbench_v", out, {"root": str(tmp_path)})
    documents = {d["doc_id"]: d for d in read_jsonl(out / "documents.jsonl")}
    assert sorted(documents) == ["LSE_HWDN_2023", "NASDAQ_AMBC_2020"]
    assert documents["LSE_HWDN_2023"]["num_pages"] == 3
    gap = read_failures(out / "failures.jsonl")[-1]
    assert gap.doc_id == "Gappy_Report"
    assert "pages [2]" in gap.error


def test_madqa_answer_variants_and_multi_document_evidence(tmp_path: Path) -> None:
    rows = [
        {
            "id": "q1",
            "question": "What is the permit number?",
            "answer_variants": [["P-1044"], ["P1044"]],
            "evidence": [{"document": "1007969.pdf", "page": 3}],
            "document_category": "permit",
            "domain": "government",
        },
        {
            "id": "q2",
            "question": "Which two agencies signed?",
            "answer_variants": [["EPA", "DOE"]],
            "evidence": [
                {"document": "2000001.pdf", "page": 1},
                {"document": "1007969.pdf", "page": 2},
                {"document": "2000001.pdf", "page": 4},
            ],
            "document_category": "letter",
            "domain": "government",
        },
        {
            "id": "q3",
            "question": "No evidence?",
            "answer_variants": [["x"]],
            "evidence": [],
            "document_category": "",
            "domain": "",
        },
        {
            "id": "q4",
            "question": "Page zero?",
            "answer_variants": [["1"]],
            "evidence": [{"document": "1007969.pdf", "page": 0}],
            "document_category": "",
            "domain": "",
        },
    ]
    parquet(tmp_path / "data" / "dev-00000-of-00001.parquet", rows, MADQA_SCHEMA)
    loaded = madqa_read(tmp_path, MADQAOptions())
    single, multi = loaded.questions
    assert (single.doc_id, single.evidence_in(single.doc_id), single.answer) == (
        "1007969",
        [2],
        "P-1044",
    )
    assert single.tags["answer_variants"] == ["P-1044", "P1044"]
    assert (multi.doc_id, multi.doc_ids) == ("2000001", ["2000001", "1007969"])
    assert multi.evidence == [("2000001", 0), ("2000001", 3), ("1007969", 1)]
    assert (multi.tags["kind"], multi.tags["documents_setting"]) == ("cross_doc", "evidence")
    assert (multi.answer, multi.answer_format) == (["EPA", "DOE"], "List")
    assert [f.error for f in loaded.skipped] == [
        "evidence is empty",
        "field 'evidence.page': page 0 is not a 1-based page number (>= 1)",
    ]
