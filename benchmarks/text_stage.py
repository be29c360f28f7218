"""Text stage sources side by side on the real fixture PDFs: pages/s of ``pdf``, ``ocr`` and
``auto``, and the character error rate of OCR against the text layer.

Every page of ``tests/data/real_pdfs/`` (licences in LICENSES-15.md) is rendered once at
``--dpi`` (not timed); then each page is read by the three sources in turn, the order rotating
page by page so that load from elsewhere on a shared machine hits them alike, in one process
(tesseract single-threaded, ``OMP_THREAD_LIMIT=1``, as the stage runs it per core). Pages/s
are over the born-digital pages (those ``auto`` reads from the text layer) and, for ``auto``,
also over every page. CER = edit distance between the OCR text and the text-layer text of a
born-digital page (both as the stage writes them: lines in reading order; whitespace runs made
one space) over the length of the text-layer text.

    PYTHONPATH=src python benchmarks/text_stage.py [--dpi 200] [--repeats 1] [--max-pages 2]

Prints a table and writes ``benchmarks/results/text_stage.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np

from docqa.core.document import Page
from docqa.core.jsonl import read_jsonl
from docqa.stages.render import render_dataset
from docqa.text.document import PdfCache, text_page

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "data" / "real_pdfs"
RESULTS = Path(__file__).parent / "results" / "text_stage.json"
SOURCES = ("pdf", "ocr", "auto")


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, one numpy row at a time (insertions by a running minimum)."""
    if not a or not b:
        return len(a) or len(b)
    codes_b = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    ar = np.arange(len(b) + 1)
    row = ar.copy()
    for i, char in enumerate(a, start=1):
        substitute = row[:-1] + (codes_b != ord(char))
        delete = row[1:] + 1
        new = np.empty_like(row)
        new[0] = i
        new[1:] = np.minimum(substitute, delete)
        row = np.minimum.accumulate(new - ar) + ar
    return int(row[-1])


def page_string(elements: list) -> str:
    lines = sorted((e for e in elements if e.kind == "line"), key=lambda e: e.order)
    return " ".join(" ".join(line.text for line in lines).split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dpi", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--max-pages", type=int, default=2, help="the first N pages of each PDF")
    args = parser.parse_args()
    os.environ["OMP_THREAD_LIMIT"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        documents = Path(tmp) / "documents.jsonl"
        documents.write_text(
            "".join(
                json.dumps({"doc_id": path.stem, "path": str(path)}) + "\n"
                for path in sorted(REAL.glob("*.pdf"))
            )
        )
        render_dataset(documents, Path(tmp) / "pages", dpi=args.dpi, thumb_width=32)
        paths = {row["doc_id"]: row["path"] for row in read_jsonl(documents)}
        pages = [
            Page.from_dict(row)
            for row in read_jsonl(Path(tmp) / "pages" / "pages.jsonl")
            if row["index"] < args.max_pages
        ]
        seconds = {source: {} for source in SOURCES}
        results = {}
        for _repeat in range(args.repeats):
            for number, page in enumerate(pages):
                order = SOURCES[number % 3 :] + SOURCES[: number % 3]
                for source in order:
                    cache = PdfCache()
                    start = time.perf_counter()
                    result = text_page(paths[page.doc_id], page, source, 11, "eng", cache)
                    elapsed = time.perf_counter() - start
                    cache.close()
                    key = (page.doc_id, page.index)
                    seconds[source][key] = seconds[source].get(key, 0.0) + elapsed / args.repeats
                    results[(source, *key)] = result
    born_digital = [k for k in seconds["auto"] if results[("auto", *k)].source == "pdf"]
    rows = []
    for key in seconds["auto"]:
        layer, ocr = results[("pdf", *key)], results[("ocr", *key)]
        cer = None
        if key in born_digital:
            reference, hypothesis = page_string(layer.elements), page_string(ocr.elements)
            cer = edit_distance(reference, hypothesis) / max(1, len(reference))
        rows.append(
            {
                "doc_id": key[0],
                "page": key[1],
                "auto_source": results[("auto", *key)].source,
                "auto_reason": results[("auto", *key)].reason,
                **{f"{s}_seconds": round(seconds[s][key], 4) for s in SOURCES},
                "cer_ocr_vs_layer": None if cer is None else round(cer, 4),
            }
        )

    def rate(source: str, keys: list) -> float:
        return len(keys) / sum(seconds[source][k] for k in keys)

    summary = {
        "born_digital_pages": len(born_digital),
        "all_pages": len(seconds["auto"]),
        "pages_per_s_born_digital": {s: round(rate(s, born_digital), 2) for s in SOURCES},
        "auto_pages_per_s_all_pages": round(rate("auto", list(seconds["auto"])), 2),
        "auto_over_ocr_median_page": round(
            float(np.median([seconds["ocr"][k] / seconds["auto"][k] for k in born_digital])), 1
        ),
        "auto_over_ocr_born_digital": round(
            rate("auto", born_digital) / rate("ocr", born_digital), 1
        ),
        "cer_ocr_vs_layer_mean": round(
            float(
                np.mean([r["cer_ocr_vs_layer"] for r in rows if r["cer_ocr_vs_layer"] is not None])
            ),
            4,
        ),
    }
    print(
        f"{'document':45} {'page':>4} {'auto':>5} {'pdf s':>7} {'ocr s':>7} {'auto s':>7} "
        f"{'CER':>6}"
    )
    for row in rows:
        cer = "" if row["cer_ocr_vs_layer"] is None else f"{row['cer_ocr_vs_layer']:.3f}"
        print(
            f"{row['doc_id'][:45]:45} {row['page']:>4} {row['auto_source']:>5} "
            f"{row['pdf_seconds']:>7.3f} {row['ocr_seconds']:>7.3f} "
            f"{row['auto_seconds']:>7.3f} {cer:>6}"
        )
    print(json.dumps(summary, indent=1))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "command": "PYTHONPATH=src python benchmarks/text_stage.py "
                f"--dpi {args.dpi} --repeats {args.repeats} --max-pages {args.max_pages}",
                "machine": {
                    "cpus": os.cpu_count(),
                    "python": platform.python_version(),
                    "load": os.getloadavg(),
                },
                "dpi": args.dpi,
                "summary": summary,
                "pages": rows,
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
