"""Metrics, their canonical number formatting, and exact arithmetic on drawn values.

Values are stored as integers in the metric's smallest drawn unit (whole units for ``int``
metrics, tenths for ``dec`` and ``pct``), so sums and differences are exact and the label drawn
on a slide is the same string a question's gold answer uses.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

STYLES = ("int", "dec", "pct")


@dataclass(frozen=True)
class Metric:
    """A measured quantity: ``unit`` is shown in axis labels and headers, ``style`` sets format."""

    name: str
    unit: str
    style: str
    low: int
    high: int

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"metric {self.name}: style {self.style!r} not in {STYLES}")

    @property
    def scale(self) -> int:
        """Stored integers per drawn unit: 10 when one decimal is drawn."""
        return 1 if self.style == "int" else 10

    def format(self, value: int) -> str:
        """The label drawn on a slide for a stored ``value``: "1,234", "123.4" or "12.5%"."""
        if self.style == "int":
            return f"{value:,}"
        sign = "-" if value < 0 else ""
        whole, tenth = divmod(abs(value), 10)
        text = f"{sign}{whole:,}.{tenth}"
        return text + "%" if self.style == "pct" else text

    def random_value(self, rng: random.Random) -> int:
        return rng.randint(self.low * self.scale, self.high * self.scale)

    @property
    def answer_format(self) -> str:
        return "Int" if self.style == "int" else "Float"

    @property
    def label(self) -> str:
        """Name with unit for axis labels and question text, e.g. "Revenue (USD millions)"."""
        if self.unit in ("", "%"):
            return self.name
        return f"{self.name} ({self.unit})"


SHARE = Metric("Share", "%", "pct", 0, 100)


def _decimal(value: Decimal, places: int) -> str:
    rounded = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return str(abs(rounded) if rounded == 0 else rounded)  # never "-0.0"


def ratio(numerator: int, denominator: int) -> str:
    """``numerator / denominator`` with two decimals, e.g. "1.35"."""
    return _decimal(Decimal(numerator) / Decimal(denominator), 2)


def percentage_change(old: int, new: int) -> str:
    """Change from ``old`` to ``new`` in percent with one decimal, e.g. "-4.2%"."""
    return _decimal((Decimal(new) - Decimal(old)) * 100 / Decimal(old), 1) + "%"
