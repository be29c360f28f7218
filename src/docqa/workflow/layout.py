"""Where each stage reads and writes: the results layout, declared once.

The rule files (``rules/*.smk``) take every input and output from the config's layout
(:func:`results_layout`: rooted at config key ``results``, ``results/`` by default, so that a
config of your own keeps its results beside the default run's, not over them), and ``docqa ask``
lays the same stages out under ``<results>/ask/<content hash>/`` with a :class:`Layout` rooted
there (:mod:`docqa.ask`), so the two cannot place a file differently. Prepared models and
benchmark downloads are the same whatever config asks for them: they lie under ``results/``
(``Layout.shared``) for every config. Every folder is described in results/README.md.

Each method returns a path as a string (what Snakemake takes). An argument left out is the
Snakemake wildcard of the same name, so a rule file writes ``RESULTS.pages()`` for the pattern
``results/pages/{dataset}/pages.jsonl`` and ``RESULTS.pages("synthslides")`` for one file.

A run (one dataset × method × model) is named by its key ``{dataset}/{method}/{model}``
(:func:`run_key`); its predictions, score file, traces and logs are all placed by that key.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATASET = "{dataset}"
RETRIEVER = "{retriever}"
MODEL = "{model}"
DOWNLOAD = "{download}"
TRAINING = "{training}"
#: the key of every run: its dataset, method and model
RUN = "{dataset}/{method}/{model}"
#: a shard of a run (docqa.stages.shards.Shard.name)
SHARD = "{shard}-of-{shards}"


def run_key(dataset: str, method: str, model: str) -> str:
    """The key that places a run's predictions, scores, traces and logs."""
    return f"{dataset}/{method}/{model}"


@dataclass(frozen=True)
class Layout:
    """The folders and files of every stage under ``root``; models and downloads under
    ``shared``, which every results folder shares."""

    root: str = "results"
    shared: str = "results"

    def _at(self, *parts: str) -> str:
        return "/".join((self.root, *parts))

    # data: a benchmark's download, then docqa's data model of each dataset
    def download(self, key: str = DOWNLOAD) -> str:
        return "/".join((self.shared, "downloads", key))

    def manifest(self, key: str = DOWNLOAD) -> str:
        return f"{self.download(key)}/manifest.json"

    def data(self, dataset: str = DATASET) -> str:
        return self._at("data", dataset)

    def questions(self, dataset: str = DATASET) -> str:
        return f"{self.data(dataset)}/questions.jsonl"

    def documents(self, dataset: str = DATASET) -> str:
        return f"{self.data(dataset)}/documents.jsonl"

    def docs(self, dataset: str = DATASET) -> str:
        return f"{self.data(dataset)}/docs"

    # render
    def pages_dir(self, dataset: str = DATASET) -> str:
        return self._at("pages", dataset)

    def pages(self, dataset: str = DATASET) -> str:
        return f"{self.pages_dir(dataset)}/pages.jsonl"

    def overviews(self, dataset: str = DATASET) -> str:
        return f"{self.pages_dir(dataset)}/overviews.jsonl"

    def render_failures(self, dataset: str = DATASET) -> str:
        return f"{self.pages_dir(dataset)}/failures.jsonl"

    # text
    def text_dir(self, dataset: str = DATASET) -> str:
        return self._at("text", dataset)

    def elements(self, dataset: str = DATASET) -> str:
        return f"{self.text_dir(dataset)}/elements.jsonl"

    def text_failures(self, dataset: str = DATASET) -> str:
        return f"{self.text_dir(dataset)}/failures.jsonl"

    # index
    def index(self, dataset: str = DATASET, retriever: str = RETRIEVER) -> str:
        return self._at("index", dataset, retriever)

    def index_docs(self, dataset: str = DATASET, retriever: str = RETRIEVER) -> str:
        return f"{self.index(dataset, retriever)}/docs"

    def recall(self, dataset: str = DATASET, retriever: str = RETRIEVER) -> str:
        return f"{self.index(dataset, retriever)}/recall.json"

    # knowledge (SlideAgent's, per dataset and model)
    def knowledge(self, dataset: str = DATASET, model: str = MODEL) -> str:
        return self._at("knowledge", dataset, model)

    # models
    def model(self, model: str = MODEL) -> str:
        return "/".join((self.shared, "models", model))

    # infer: one folder per run
    def runs(self) -> str:
        return self._at("runs")

    def run(self, run: str = RUN) -> str:
        return self._at("runs", run)

    def predictions(self, run: str = RUN) -> str:
        return f"{self.run(run)}/predictions.jsonl"

    def timings(self, run: str = RUN) -> str:
        return f"{self.run(run)}/predictions.timings.jsonl"

    def provenance(self, run: str = RUN) -> str:
        return f"{self.run(run)}/provenance.json"

    def shard_predictions(self, run: str = RUN, shard: str = SHARD) -> str:
        return f"{self.run(run)}/shards/{shard}.jsonl"

    def shard_timings(self, run: str = RUN, shard: str = SHARD) -> str:
        return f"{self.run(run)}/shards/{shard}.timings.jsonl"

    def shard_provenance(self, run: str = RUN, shard: str = SHARD) -> str:
        return f"{self.run(run)}/shards/{shard}.provenance.json"

    # score and report
    def scores(self, run: str = RUN) -> str:
        return self._at("scores", f"{run}.json")

    def traces(self, run: str = RUN) -> str:
        return self._at("traces", run)

    def table(self, name: str, ext: str) -> str:
        return self._at("tables", f"{name}.{ext}")

    def figure(self, name: str, ext: str) -> str:
        return self._at("figures", f"{name}.{ext}")

    # training (docqa.training): one folder per training entry
    def training(self, name: str = TRAINING) -> str:
        return self._at("training", name)

    # logs: one per job
    def log(self, stage: str, *key: str) -> str:
        return self._at("logs", stage, *key) + ".log"

    def report(self) -> str:
        """Where ``snakemake --report`` writes the HTML report of the config."""
        return self._at("report.html")


#: the default config's results folder (config key ``results`` left out)
RESULTS = Layout()


def results_layout(config: dict[str, Any]) -> Layout:
    """The layout of a (checked) config: rooted at its ``results`` key."""
    return Layout(root=str(config.get("results", RESULTS.root)).rstrip("/"))


def report_command(layout: Layout, configfiles: Sequence[str | Path]) -> str:
    """The command that builds the HTML report of the config made of ``configfiles`` (those
    given to snakemake with --configfile, in order; Snakemake makes them absolute: those in
    the working folder are given relative to it, as a user types them)."""
    files = " ".join(shlex.quote(_as_typed(Path(path))) for path in configfiles)
    given = f" --configfile {files}" if files else ""
    return f"snakemake --report {shlex.quote(layout.report())}{given}"


def _as_typed(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
