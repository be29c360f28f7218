"""Writes ``data/dev-00000-of-00001.parquet``: seven MADQA-format questions over the real PDFs
linked under ``documents/`` (see README.md). Run it from anywhere after editing ROWS:

    python tests/data/madqa_mini/build.py

Columns and types are those of ``OxRML/MADQA``'s parquet files; evidence pages are 1-based, as
MADQA's are. Every answer was read from the PDFs' text (pypdfium2).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("question", pa.string()),
        ("answer_variants", pa.list_(pa.list_(pa.string()))),
        ("evidence", pa.list_(pa.struct([("document", pa.string()), ("page", pa.int64())]))),
        ("document_category", pa.string()),
        ("domain", pa.string()),
    ]
)
REGISTER = "federal-register-2020-17221.pdf"  # 15 pages
SCOTUS = "scotus-transcript-p1.pdf"  # 1 page
CRAZY = "local_crazyones.pdf"  # 1 page
VICKSBURG = "local_vicksburg.pdf"  # 6 pages
NICS = "nics-background-checks-2015-11-rotated.pdf"  # not under documents/: a missing download


def evidence(*pairs: tuple[str, int]) -> list[dict[str, object]]:
    return [{"document": document, "page": page} for document, page in pairs]


ROWS = [
    {  # single: one page of one document
        "id": "mini-single",
        "question": "What is the docket number of the Supreme Court case Knowles v. Mirzayance?",
        "answer_variants": [["07-1315"], ["No. 07-1315"]],
        "evidence": evidence((SCOTUS, 1)),
        "document_category": "court transcript",
        "domain": "legal",
    },
    {  # cross_page: the number is on the first and the last page
        "id": "mini-cross-page",
        "question": "What telephone number does the proposed AD give for Boeing Commercial "
        "Airplanes' service information?",
        "answer_variants": [["562–797–1717"], ["562-797-1717"]],
        "evidence": evidence((REGISTER, 1), (REGISTER, 15)),
        "document_category": "regulation",
        "domain": "government",
    },
    {  # cross_doc over two documents: January 13, 2009 and October 29, 2018
        "id": "mini-two-docs",
        "question": "How many years after the oral argument in Knowles v. Mirzayance did the "
        "Lion Air Flight 610 accident happen?",
        "answer_variants": [["9"], ["9 years"]],
        "evidence": evidence((SCOTUS, 1), (REGISTER, 2)),
        "document_category": "mixed",
        "domain": "government",
    },
    {  # cross_doc over three documents, a multi-part answer; Vicksburg's page 4 of 6
        "id": "mini-three-docs",
        "question": "Which dates are given under the title of 'The Crazy Ones', in the heading "
        "of the Knowles v. Mirzayance transcript, and for the Sunday entry of the Siege of "
        "Vicksburg diary?",
        "answer_variants": [["October 14, 1998", "January 13, 2009", "June 14"]],
        "evidence": evidence((CRAZY, 1), (SCOTUS, 1), (VICKSBURG, 4)),
        "document_category": "mixed",
        "domain": "history",
    },
    {  # the register is named twice (the same page twice, around another document)
        "id": "mini-repeated-doc",
        "question": "How many years passed between the date under 'The Crazy Ones' and the "
        "Lion Air Flight 610 accident?",
        "answer_variants": [["20"], ["20 years"]],
        "evidence": evidence((REGISTER, 2), (CRAZY, 1), (REGISTER, 2)),
        "document_category": "mixed",
        "domain": "government",
    },
    {  # partly missing: the NICS table is not under documents/
        "id": "mini-partly-missing",
        "question": "How many people died in the Lion Air Flight 610 accident, and what total "
        "does the NICS firearm background check table give for Alaska?",
        "answer_variants": [["189", "7,095"]],
        "evidence": evidence((REGISTER, 2), (NICS, 1)),
        "document_category": "mixed",
        "domain": "government",
    },
    {  # its only document is missing: dropped by the conversion
        "id": "mini-missing",
        "question": "What total does the NICS firearm background check table give for Alabama?",
        "answer_variants": [["71,137"]],
        "evidence": evidence((NICS, 1)),
        "document_category": "statistics",
        "domain": "government",
    },
]


def main() -> None:
    out = HERE / "data" / "dev-00000-of-00001.parquet"
    out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(ROWS, schema=SCHEMA), out)
    print(f"wrote {len(ROWS)} questions to {out}")


if __name__ == "__main__":
    main()
