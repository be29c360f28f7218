"""Two MADQA file names that would become one docqa document id are refused: otherwise their
pages, evidence and citations merge, and a cross-document question reads as cross-page."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from docqa.datasets.madqa import MADQAOptions, read


def write_split(root: Path, documents: list[str]) -> None:
    rows = [
        {
            "id": f"q{number}",
            "question": "What?",
            "answer_variants": [["x"]],
            "evidence": [{"document": name, "page": 1}],
            "document_category": "",
            "domain": "",
        }
        for number, name in enumerate(documents)
    ]
    (root / "data").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), root / "data" / "dev-00000-of-00001.parquet")


def test_file_names_that_become_one_id_are_refused(tmp_path: Path) -> None:
    write_split(tmp_path, ["Report.pdf", "Report.PDF", "other.pdf"])
    with pytest.raises(ValueError, match=r"\['Report.PDF', 'Report.pdf'\] -> 'Report'"):
        read(tmp_path, MADQAOptions())


def test_distinct_names_convert(tmp_path: Path) -> None:
    write_split(tmp_path, ["1007969.pdf", "1007969.pdf", "2001.pdf"])
    assert [q.doc_id for q in read(tmp_path, MADQAOptions()).questions] == [
        "1007969",
        "1007969",
        "2001",
    ]
