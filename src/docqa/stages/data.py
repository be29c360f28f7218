"""The data stage (rules/data.smk): a benchmark's download, and its conversion into docqa's data
model (or the generation of a local dataset such as synthslides).

The adapters themselves live in :mod:`docqa.datasets`; this module is what the two rules run.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from docqa.datasets import prepare
from docqa.datasets.download import DownloadError, fetch, source_from_config

log = logging.getLogger(__name__)


def prepare_dataset(source: dict[str, Any], out_dir: Path) -> None:
    """The prepare_dataset rule's job: adapter ``source["adapter"]`` with its options (checked
    by its spec) writes ``questions.jsonl``, ``documents.jsonl`` and ``docs/`` under
    ``out_dir``."""
    prepare(source["adapter"], Path(out_dir), source["options"])


def download_job(
    key: str, spec: dict[str, Any], manifest: str | Path, log_file: str | Path
) -> None:
    """The download rule's job: bring the folder of ``manifest`` up to date with ``spec``.

    It runs inside Snakemake's own process (a ``run:`` job, so that nothing but the download's
    own packages is needed), so docqa's messages go to the job's log file through a handler
    added for the job only; Snakemake's logging is left as it is.
    """
    handler = logging.FileHandler(log_file, mode="w")
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    job = threading.get_ident()  # jobs run side by side in threads: keep each to its own log
    handler.addFilter(lambda record: record.thread == job)
    logger = logging.getLogger("docqa")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        fetch(source_from_config(key, spec), Path(manifest).parent, spec)
    except DownloadError as error:
        log.error("%s", error)
        raise
    finally:
        logger.removeHandler(handler)
        handler.close()
