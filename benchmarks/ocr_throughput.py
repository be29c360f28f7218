"""OCR throughput on rendered synthslides pages: OMP_THREAD_LIMIT unset vs 1, 1 vs 2 workers.

The four variants run side by side in one process, interleaved repeat by repeat (the order
rotates each repeat) so that load from elsewhere on a shared machine hits them alike. Each
variant OCRs the same pages with ``docqa.text.ocr.ocr_page`` (tesseract ``--psm 11 --dpi DPI``)
in a ``multiprocessing.Pool``; the pool is started before the clock starts. Besides wall time it
reports the CPU seconds tesseract used per page, which other load on the machine hardly changes.

    PYTHONPATH=src python benchmarks/ocr_throughput.py [--pages 8] [--repeats 3]

Prints a table and writes ``benchmarks/results/ocr_throughput.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

import pytesseract

from docqa.core.document import Page
from docqa.core.jsonl import read_jsonl
from docqa.datasets.synthslides.deck import make_deck
from docqa.datasets.synthslides.pdf import write_deck_pdf
from docqa.stages.render import render_dataset
from docqa.text.ocr import ocr_page

RESULTS = Path(__file__).parent / "results" / "ocr_throughput.json"
# (OMP_THREAD_LIMIT in the workers, None = unset; worker processes)
VARIANTS = [(None, 1), (None, 2), ("1", 1), ("1", 2)]


def _set_thread_limit(value: str | None) -> None:
    if value is None:
        os.environ.pop("OMP_THREAD_LIMIT", None)
    else:
        os.environ["OMP_THREAD_LIMIT"] = value


def _ocr(task: tuple[Page, int]) -> int:
    page, psm = task
    return len(ocr_page(page.image, page.doc_id, page.index, page.dpi, psm))


def time_variant(
    pages: list[Page], psm: int, thread_limit: str | None, workers: int
) -> tuple[float, float]:
    """(wall seconds, CPU seconds) to OCR all pages with this variant.

    Wall time excludes the pool's start-up. CPU time is that of the worker processes and the
    tesseract processes they ran, counted once the workers have exited.
    """
    cpu_before = _children_cpu()
    with Pool(workers, initializer=_set_thread_limit, initargs=(thread_limit,)) as pool:
        start = time.perf_counter()
        pool.map(_ocr, [(page, psm) for page in pages], chunksize=1)
        wall = time.perf_counter() - start
        pool.close()
        pool.join()
    return wall, _children_cpu() - cpu_before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def render_pages(work: Path, count: int, dpi: int, seed: int) -> list[Page]:
    """A synthslides deck of ``count`` slides rendered at ``dpi``, as the pipeline does."""
    pdf = work / "bench.pdf"
    write_deck_pdf(make_deck(random.Random(seed), "bench", count), pdf)
    documents = work / "documents.jsonl"
    documents.write_text(json.dumps({"doc_id": "bench", "path": str(pdf)}) + "\n")
    render_dataset(documents, work / "pages", dpi=dpi)
    return [Page.from_dict(row) for row in read_jsonl(work / "pages" / "pages.jsonl")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=8, help="slides in the deck (at least 6)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dpi", type=int, default=200)
    parser.add_argument("--psm", type=int, default=11)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as work:
        pages = render_pages(Path(work), args.pages, args.dpi, args.seed)
        seconds: dict[tuple[str | None, int], list[tuple[float, float]]] = {v: [] for v in VARIANTS}
        for repeat in range(args.repeats):
            shift = repeat % len(VARIANTS)
            for variant in VARIANTS[shift:] + VARIANTS[:shift]:
                seconds[variant].append(time_variant(pages, args.psm, *variant))

    rows = []
    for (thread_limit, workers), runs in seconds.items():
        median = statistics.median(wall for wall, _ in runs)
        cpu = statistics.median(cpu for _, cpu in runs)
        rows.append(
            {
                "OMP_THREAD_LIMIT": thread_limit or "unset",
                "workers": workers,
                "pages_per_s": round(len(pages) / median, 3),
                "s_per_page": round(median / len(pages), 3),
                "cpu_s_per_page": round(cpu / len(pages), 3),
                "median_s": round(median, 3),
                "runs_s": [round(wall, 3) for wall, _ in runs],
            }
        )
    baseline = rows[0]["pages_per_s"]
    for row in rows:
        row["speedup"] = round(row["pages_per_s"] / baseline, 2)

    print(
        f"{len(pages)} pages of {pages[0].width}x{pages[0].height} px at {args.dpi} dpi, "
        f"--psm {args.psm}, median of {args.repeats} runs, {os.cpu_count()} cpus"
    )
    print(
        f"{'OMP_THREAD_LIMIT':>16} {'workers':>7} {'pages/s':>8} {'s/page':>7} "
        f"{'cpu s/page':>10} {'speedup':>7}"
    )
    for row in rows:
        print(
            f"{row['OMP_THREAD_LIMIT']:>16} {row['workers']:>7} {row['pages_per_s']:>8.2f} "
            f"{row['s_per_page']:>7.3f} {row['cpu_s_per_page']:>10.3f} {row['speedup']:>7.2f}"
        )

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "benchmark": "ocr_throughput",
        "command": "PYTHONPATH=src python benchmarks/ocr_throughput.py "
        f"--pages {args.pages} --repeats {args.repeats} --dpi {args.dpi} --psm {args.psm}",
        "pages": len(pages),
        "page_size_px": [pages[0].width, pages[0].height],
        "dpi": args.dpi,
        "psm": args.psm,
        "repeats": args.repeats,
        "tesseract": str(pytesseract.get_tesseract_version()),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "loadavg_before": [round(x, 2) for x in load_before],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        },
        "results": rows,
    }
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
