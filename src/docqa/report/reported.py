"""The numbers the papers report (``config/reported_numbers.yaml``), looked up by the run and
the table column they belong to, so that a paper table can show them beside docqa's."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

FIELDS = ("paper", "source", "dataset", "method", "model", "backbone", "metric", "value")
#: the ``dataset`` of a number in a table's average column
AVERAGE = "average"
Key = tuple[str, str, str, str]


@dataclass(frozen=True)
class Reported:
    """One reported number (percent) and where it was read."""

    paper: str
    backbone: str
    value: float
    source: str


def load_reported(path: Path) -> dict[Key, Reported]:
    """(dataset, method, model, metric) → the reported number.

    An entry without a field, with a source not listed under ``sources:``, or a second entry
    for the same key with another value is an error naming the entry: a table must never show
    a paper number that belongs to another run or column.
    """
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    sources = data.get("sources") or {}
    numbers: dict[Key, Reported] = {}
    for index, entry in enumerate(data.get("numbers") or []):
        where = f"{path}: numbers[{index}]"
        missing = [field for field in FIELDS if field not in entry]
        if missing:
            raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
        if entry["source"] not in sources:
            raise ValueError(f"{where}: source {entry['source']!r} is not listed under sources:")
        key = (
            str(entry["dataset"]),
            str(entry["method"]),
            str(entry["model"]),
            str(entry["metric"]),
        )
        number = Reported(
            str(entry["paper"]),
            str(entry["backbone"]),
            float(entry["value"]),
            str(sources[entry["source"]]),
        )
        known = numbers.get(key)
        if known is not None and known.value != number.value:
            raise ValueError(
                f"{where}: {'/'.join(key)} is reported as {number.value} here and as "
                f"{known.value} by an earlier entry ({known.source}); keep one"
            )
        numbers.setdefault(key, number)
    return numbers
