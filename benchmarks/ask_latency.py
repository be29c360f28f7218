"""``docqa ask`` on one PDF: seconds to the first answer (cold) and to a second question (warm).

Cold: the document has never been asked about (a fresh ``results/ask/``), so the call renders,
OCRs and indexes it before answering. Warm: a second, different question about the same file,
which finds the document in ``results/ask/<content hash>/`` and only answers. Both are whole
``docqa ask`` subprocesses (interpreter start and imports, model load, one question), timed by
the wall clock, in a scratch folder that links the repository's ``config/``. The model is the
user's prepared one (``$XDG_CACHE_HOME/docqa/models``, ``docqa.workflow.prepared_models``):
ask once before, as preparing it is a one-time cost (1.5 to 3.5 minutes) not counted here. The
response cache is the scratch folder's own, so no answer comes from an earlier run.

    PYTHONPATH=src python benchmarks/ask_latency.py PDF [--method M] [--repeats 1]
        [--checkout before=PATH]    # another checkout, timed side by side (in turn)

Prints the times and writes ``benchmarks/results/ask_latency.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pypdfium2 as pdfium

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "ask_latency.json"
QUESTIONS = (
    "What is the title of this document?",
    "Which organisation published this document?",
)


def ask(work: Path, checkout: Path, pdf: Path, question: str, method: str | None = None) -> dict:
    """One ``docqa ask`` subprocess of ``checkout``'s docqa (its ``src/`` first on the path),
    with ``method`` or that checkout's default one."""
    started = time.monotonic()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "docqa.cli",
            "ask",
            str(pdf),
            question,
            *(["--method", method] if method else []),
            "--json",
        ],
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(checkout / "src")},
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.monotonic() - started
    if result.returncode != 0:
        raise SystemExit(f"docqa ask failed ({result.returncode}):\n{result.stderr[-3000:]}")
    answered = json.loads(result.stdout)
    return {"wall_seconds": round(seconds, 1), "load_after": os.getloadavg()[0], **answered}


def commit_of(checkout: Path) -> str:
    """The checkout's commit, with ``+changes`` when its tracked files differ from it (what ran
    is then not that commit)."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=checkout, capture_output=True, text=True).stdout

    changed = git("status", "--porcelain", "--untracked-files=no").strip()
    return git("rev-parse", "--short", "HEAD").strip() + ("+changes" if changed else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdf", type=Path)
    parser.add_argument("--method", default=None, help="default: docqa ask's (ask.method)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--checkout",
        action="append",
        metavar="LABEL=PATH",
        help="another checkout of docqa to time side by side with this one (e.g. before=PATH)",
    )
    args = parser.parse_args()
    pdf = args.pdf.resolve()
    checkouts = {"current": ROOT} | {
        label: Path(path).resolve()
        for label, path in (item.split("=", 1) for item in args.checkout or [])
    }
    with pdfium.PdfDocument(pdf) as document:
        pages = len(document)

    runs: dict[str, list[dict]] = {label: [] for label in checkouts}
    for _ in range(args.repeats):
        for label, checkout in checkouts.items():  # side by side, in turn
            with tempfile.TemporaryDirectory() as scratch:
                work = Path(scratch)
                (work / "results").mkdir()
                (work / "config").symlink_to(checkout / "config")
                load_before = os.getloadavg()[0]
                cold = ask(work, checkout, pdf, QUESTIONS[0], args.method)
                warm = ask(work, checkout, pdf, QUESTIONS[1], args.method)
            runs[label].append({"load_before": load_before, "cold": cold, "warm": warm})
            print(
                f"{label}: cold {cold['wall_seconds']:.1f} s (cached: {cold['cached']}), "
                f"warm {warm['wall_seconds']:.1f} s (cached: {warm['cached']})"
            )
    report = {
        "command": " ".join(sys.argv),
        "pdf": str(args.pdf),
        "sha256": hashlib.sha256(pdf.read_bytes()).hexdigest(),
        "pages": pages,
        "method": args.method,
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
        "checkouts": {
            label: {
                "commit": commit_of(checkout),
                "cold_median_seconds": statistics.median(r["cold"]["wall_seconds"] for r in done),
                "warm_median_seconds": statistics.median(r["warm"]["wall_seconds"] for r in done),
                "runs": done,
            }
            for (label, checkout), done in zip(checkouts.items(), runs.values(), strict=True)
        },
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
