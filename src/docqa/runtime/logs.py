"""Logging for pipeline jobs: messages to the rule's log file and to the console."""

from __future__ import annotations

import logging
import sys
from pathlib import Path


def setup_job_logging(log_file: str | Path) -> None:
    Path(log_file).parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        handlers=[logging.FileHandler(log_file, mode="w"), logging.StreamHandler(sys.stderr)],
        force=True,
    )
    logging.getLogger("fontTools").setLevel(logging.WARNING)  # matplotlib's PDF font subsetting
