"""Logging for pipeline jobs: messages to the rule's log file and to the console.

The error that fails a job goes to its log file too (with its traceback), since that file is
where Snakemake's "Error in rule ..." sends the reader: an infrastructure failure's message,
which names the server and the fix, is found there.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from types import TracebackType


def setup_job_logging(log_file: str | Path) -> None:
    Path(log_file).parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        handlers=[logging.FileHandler(log_file, mode="w"), logging.StreamHandler(sys.stderr)],
        force=True,
    )
    logging.getLogger("fontTools").setLevel(logging.WARNING)  # matplotlib's PDF font subsetting
    sys.excepthook = _log_failure


def _log_failure(
    kind: type[BaseException], error: BaseException, traceback: TracebackType | None
) -> None:
    """The job's uncaught error, to the log file and the console (the exit status stays 1)."""
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, error, traceback)
        return
    logging.getLogger("docqa.job").critical(
        "the job failed: %s: %s", kind.__name__, error, exc_info=(kind, error, traceback)
    )
