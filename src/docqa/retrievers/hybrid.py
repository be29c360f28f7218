"""Reciprocal rank fusion (Cormack et al., 2009) of other retrievers' rankings.

A hybrid entry names other entries of the config's ``retrievers``::

    hybrid: {type: hybrid, retrievers: [bm25, dense], rrf_k: 60}

A page's fused score is the sum over the named retrievers of ``1 / (rrf_k + rank)`` (rank
1-based, each retriever ranking every page of the document). The hybrid builds nothing of its
own: the index stage builds the named retrievers' indexes first, and the hybrid's index of a
document is a manifest pointing at theirs (relative paths) with their config entries, so the
searcher loads them wherever the results folder lives.

The fused retrievers are created once per hybrid and shared by every document's searcher, so
queries handed to :meth:`HybridRetriever.prepare_queries` (the infer job's questions) are
encoded in batches by a fused retriever that can (dense_text), as when it is used on its own.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import field_validator

from docqa.retrievers import (
    RETRIEVERS,
    IndexedPage,
    PageSearcher,
    RetrieverOptions,
    create_retriever,
)
from docqa.retrievers.manifest import read_manifest, write_manifest
from docqa.retrievers.ranking import RRF_K, rrf_scores, top_pages
from docqa.runtime.spec import Field

NAME = "hybrid"


def component_names(retrievers: dict[str, dict[str, Any]], name: str) -> list[str]:
    """The retrievers that config entry ``name`` fuses; [] for an entry that fuses none."""
    names = list(retrievers[name].get("retrievers", []))
    for component in names:
        if component == name or component not in retrievers:
            known = ", ".join(sorted(set(retrievers) - {name}))
            raise ValueError(
                f"config retrievers.{name}.retrievers names {component!r}, which is "
                f"{'itself' if component == name else 'not a retriever of the config'}; "
                f"use the names of other entries under retrievers: ({known})"
            )
    return names


class HybridOptions(RetrieverOptions):
    retrievers: list[str] = Field(
        min_length=2,
        description="names of other entries under retrievers, fused by reciprocal rank",
    )
    rrf_k: int = Field(RRF_K, ge=1, description="the constant k of 1 / (k + rank)")

    @field_validator("retrievers")
    @classmethod
    def _once_each(cls, names: list[str]) -> list[str]:
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"names {repeated} more than once; fuse each retriever once")
        return names


@RETRIEVERS.register(NAME, options=HybridOptions)
class HybridRetriever:
    """``indexes`` maps each fused name to ``{"config": its entry, "docs": its index folder}``;
    only the index stage passes it (building needs it, loading reads the manifest)."""

    def __init__(
        self, options: HybridOptions, indexes: dict[str, dict[str, Any]] | None = None
    ) -> None:
        self.options = options
        self.indexes = indexes
        self._queries: list[str] = []
        self._components: dict[str, Any] = {}

    def prepare_queries(self, queries: list[str]) -> None:
        """Hand ``queries`` to each fused retriever that prepares queries, now or when created."""
        self._queries += queries
        for component in self._components.values():
            _prepare(component, queries)

    def _component(self, config: dict[str, Any]) -> Any:
        """The fused retriever of ``config``, created on first use."""
        key = json.dumps(config, sort_keys=True)
        if key not in self._components:
            self._components[key] = create_retriever(config)
            _prepare(self._components[key], self._queries)
        return self._components[key]

    def build(self, pages: list[IndexedPage], out_dir: Path) -> None:
        """Point at the fused retrievers' indexes of this document (``out_dir`` is named after
        the document, as every index folder is)."""
        missing = [name for name in self.options.retrievers if name not in (self.indexes or {})]
        if missing:
            raise ValueError(
                f"hybrid: no index given for {missing}; the index stage passes the fused "
                "retrievers' indexes (rules/index.smk): build it through the pipeline"
            )
        components = []
        for name in self.options.retrievers:
            index = self.indexes[name]  # type: ignore[index]
            doc_dir = Path(index["docs"]) / out_dir.name
            built = read_manifest(doc_dir)["pages"]
            if built != len(pages):
                raise ValueError(
                    f"{doc_dir}: the {name} index has {built} pages, the document "
                    f"{len(pages)}; rerun the index stage for {name}"
                )
            relative = os.path.relpath(doc_dir, out_dir)
            components.append({"name": name, "config": index["config"], "index": relative})
        write_manifest(
            out_dir, len(pages), retrievers=self.options.retrievers, components=components
        )

    def load(self, index_dir: Path) -> FusedSearcher:
        manifest = read_manifest(index_dir, retrievers=self.options.retrievers)
        searchers = [
            # relative to the folder itself, also when index_dir is a link to it (docqa ask)
            self._component(component["config"]).load(
                Path(os.path.normpath(index_dir.resolve() / component["index"]))
            )
            for component in manifest["components"]
        ]
        return FusedSearcher(searchers, self.options.rrf_k, manifest["pages"])


def _prepare(retriever: Any, queries: list[str]) -> None:
    prepare = getattr(retriever, "prepare_queries", None)
    if prepare is not None and queries:
        prepare(queries)


class FusedSearcher:
    def __init__(self, searchers: list[PageSearcher], rrf_k: int, pages: int) -> None:
        self.searchers = searchers
        self.rrf_k = rrf_k
        self.pages = pages

    def page_scores(self, query: str) -> np.ndarray:
        """Every page's reciprocal-rank-fusion score over the component rankings."""
        rankings = [searcher.search(query, self.pages) for searcher in self.searchers]
        return rrf_scores(rankings, self.pages, self.rrf_k)

    def search(self, query: str, k: int) -> list[int]:
        if k <= 0:
            return []
        return top_pages(self.page_scores(query), k)
