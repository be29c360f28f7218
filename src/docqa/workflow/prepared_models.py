"""Models prepared once per user and model identity: the models ``docqa ask`` answers with,
and the DAG's embedded models, whose ``prepare_model`` job links the files from here
(``docqa.workflow.jobs``).

A model is prepared (from the keys of its entry that say where its weights come from:
``docqa.workflow.pipeline.model_source``) into ``$XDG_CACHE_HOME/docqa/models/<key>/``
(``~/.cache`` when ``XDG_CACHE_HOME`` is unset), whatever folder ``docqa ask`` runs in. The key
is the model's identity: the first 16 hex digits of its GGUF's SHA-256 for an ``embedded``
model (two entries naming the same packaged GGUF share one folder), else of the JSON of its
preparation keys (a changed ``adapter`` or ``revision`` is another model). A folder the DAG
prepared in the current checkout (``results/models/<name>``) is used as it is when it holds the
same GGUF, so ``docqa ask`` in a repository where the pipeline ran prepares nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from docqa.workflow.layout import RESULTS
from docqa.workflow.pipeline import model_source

log = logging.getLogger("docqa.ask")

KEY_CHARS = 16


def models_cache() -> Path:
    """``$XDG_CACHE_HOME/docqa/models`` (``~/.cache/docqa/models`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "docqa" / "models"


def model_key(name: str, entry: dict[str, Any]) -> str:
    """The identity a prepared model is cached under (see the module's docstring)."""
    if entry["backend"] == "embedded":
        from docqa.backends.preparation import packaged_gguf

        return packaged_gguf(name, entry).sha256[:KEY_CHARS]
    source = json.dumps(model_source(entry), sort_keys=True)
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:KEY_CHARS]


def model_folder(name: str, entry: dict[str, Any]) -> Path:
    """The prepared folder of model ``name`` (config entry ``entry``): the DAG's in this
    checkout when it holds the same GGUF, else the user cache's, prepared there first when
    it is not there yet."""
    dag = _dag_folder(name, entry)
    if dag is not None:
        log.info("model %s: prepared by the pipeline, %s", name, dag)
        return dag
    folder = models_cache() / model_key(name, entry)
    if (folder / "model.json").is_file():
        log.info("model %s: cached, %s", name, folder)
        return folder
    from docqa.backends.preparation import prepare_model

    log.info("model %s is not prepared yet: preparing it into %s (once per user)", name, folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    started = time.monotonic()
    try:
        prepare_model(name, model_source(entry), partial / "model")
        if (folder / "model.json").is_file():  # another docqa ask prepared it meanwhile
            log.info("model %s: prepared meanwhile by another process", name)
        else:
            if folder.exists():
                shutil.rmtree(folder)
            os.replace(partial / "model", folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    log.info("model %s prepared in %.0f s", name, time.monotonic() - started)
    return folder


def _dag_folder(name: str, entry: dict[str, Any]) -> Path | None:
    """``results/models/<name>`` of the current folder when the pipeline prepared the same
    embedded GGUF there."""
    if entry["backend"] != "embedded":
        return None
    card = Path(RESULTS.model(name)) / "model.json"
    if not card.is_file():
        return None
    from docqa.backends.preparation import packaged_gguf

    prepared = json.loads(card.read_text())
    return card.parent if prepared.get("gguf_sha256") == packaged_gguf(name, entry).sha256 else None
