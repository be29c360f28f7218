"""``docqa datasets``: the catalogue with each dataset's source, licence, size and local state.

``docqa datasets`` (or ``docqa datasets list``) prints one row per dataset of the merged
config files; ``docqa datasets verify NAME`` re-hashes a dataset's download against its
``manifest.json``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from docqa.datasets.catalogue import (
    DEFAULT_CONFIGS,
    DOWNLOADS,
    download_key,
    load_config,
    status,
)
from docqa.datasets.download import verify

COLUMNS = ("dataset", "source", "licence", "size", "token", "download", "questions")


def register(commands: Any) -> None:
    parser = commands.add_parser("datasets", help="list the datasets and their local state")
    parser.add_argument(
        "action",
        nargs="?",
        choices=("list", "verify"),
        default="list",
        help="list (default) or verify a download against its manifest",
    )
    parser.add_argument("name", nargs="?", help="the dataset to verify")
    parser.add_argument(
        "--configfile",
        nargs="+",
        type=Path,
        default=[Path(p) for p in DEFAULT_CONFIGS],
        help="config files, merged in order (default: %(default)s)",
    )
    parser.add_argument("--results", type=Path, default=Path("results"), help="results folder")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    missing = [str(path) for path in args.configfile if not path.is_file()]
    if missing:
        print(f"config file(s) {missing} not found: run docqa in the repository, or --configfile")
        return 2
    datasets = load_config(args.configfile).get("datasets", {})
    if args.action == "verify":
        return _verify(datasets, args.name, args.results)
    print(table([row(name, entry, datasets, args.results) for name, entry in datasets.items()]))
    return 0


def row(name: str, entry: dict[str, Any], datasets: dict[str, Any], results: Path) -> list[str]:
    about = entry.get("about", {})
    source = entry.get("source")
    if source is None:
        where = "generated locally"
    elif "manual" in source:
        where = f"manual: {about.get('url', '')}".strip()
    else:
        where = f"hf:{source['hf']}@{str(source['revision'])[:10]}"
    state = status(name, entry, datasets, results)
    token = "yes (gated)" if source and source.get("gated") else "no"
    return [
        name,
        where,
        about.get("licence", "-"),
        about.get("size", "-"),
        token,
        state.download,
        state.questions,
    ]


def table(rows: list[list[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(COLUMNS, *rows, strict=True)]
    lines = [COLUMNS, tuple("-" * width for width in widths), *rows]
    return "\n".join(
        "  ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def _verify(datasets: dict[str, Any], name: str | None, results: Path) -> int:
    if name not in datasets:
        print(f"unknown dataset {name!r}; known: {', '.join(sorted(datasets))}")
        return 2
    key = download_key(name, datasets[name])
    if key is None:
        print(f"{name} is generated locally: nothing to verify")
        return 0
    problems = verify(results / DOWNLOADS / key)
    for problem in problems:
        print(problem)
    print(f"{name}: {'OK' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0
