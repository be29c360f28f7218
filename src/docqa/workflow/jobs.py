"""A stage job as the rule scripts (``rules/scripts/``) and ``docqa ask`` both run it.

Each function turns a config slice and the layout's paths into the stage module's call, so the
two doors cannot pass a stage different settings (a default one of them forgot, another model
entry). Stage modules are imported by each function, in the job that runs it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docqa.workflow.pipeline import model_source

if TYPE_CHECKING:
    from docqa.stages.infer import ModelSpec


def job_threads(threads: int) -> int:
    """The threads a job uses: what it was given, at most the machine's cores (``--cores``
    may exceed them, and torch threads beyond them only contend)."""
    return min(threads, os.cpu_count() or 1)


def model_spec(entry: dict[str, Any], folder: Path, threads: int) -> ModelSpec:
    """A model entry and its prepared folder, as a job loads it with ``threads`` threads."""
    from docqa.stages.infer import ModelSpec

    return ModelSpec({**entry, "threads": job_threads(threads)}, folder)


def prepare_model(name: str, entry: dict[str, Any], out: Path) -> None:
    """Rule prepare_model: the model's weights into ``out``, from what its entry says of them.
    An embedded model is prepared once per GGUF and user (``prepared_models.model_folder``,
    which ``docqa ask`` uses too) and its files linked into ``out``: another clone, results
    folder or model name with the same GGUF prepares nothing."""
    if entry["backend"] == "embedded":
        from docqa.workflow.prepared_models import model_folder

        shutil.copytree(model_folder(name, entry), out, copy_function=link_or_copy)
        return
    from docqa.backends.preparation import prepare_model as prepare

    prepare(name, model_source(entry), out)


def link_or_copy(source: str, destination: str) -> None:
    """A hard link (no second copy of the weights), or a copy across file systems."""
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


def render(documents: Path, out: Path, settings: dict[str, Any]) -> None:
    """Rule render_pages with the config's ``render:`` settings."""
    from docqa.stages.render import MAX_PAGE_PIXELS, render_dataset

    render_dataset(
        documents,
        out,
        dpi=settings["dpi"],
        thumb_width=settings["thumb_width"],
        grid=tuple(settings["grid"]),
        # absent from the config unless set: the default leaves existing renders up to date
        max_page_pixels=settings.get("max_page_pixels", MAX_PAGE_PIXELS),
    )


def page_text(
    documents: Path,
    pages: Path,
    elements: Path,
    failures: Path,
    settings: dict[str, Any],
    workers: int,
) -> None:
    """Rule text_pages with the text settings (docqa.workflow.pipeline.text_settings)."""
    from docqa.stages.text import text_dataset

    text_dataset(
        documents,
        pages,
        elements,
        workers=workers,
        source=settings["source"],
        psm=settings["psm"],
        lang=settings["lang"],
        failures=failures,
    )


def index_entry(entry: dict[str, Any], fused: dict[str, tuple[dict[str, Any], Path]]) -> dict:
    """A retriever's entry as its index is built: a hybrid's gets where the indexes it fuses
    are, and their entries (``fused``: name → (entry, index folder))."""
    if not fused:
        return dict(entry)
    indexes = {
        name: {"config": config, "docs": str(docs)} for name, (config, docs) in fused.items()
    }
    return {**entry, "indexes": indexes}


def build_index(entry: dict[str, Any], pages: Path, elements: Path, docs: Path) -> None:
    """Rule build_index's indexes (one per document) of a retriever entry (:func:`index_entry`)."""
    from docqa.stages.index import build_indexes

    build_indexes(entry, pages, elements, docs)
