"""Canonical number labels and exact arithmetic on them."""

from __future__ import annotations

import pytest

from docqa.datasets.synthslides.ask_counting import round_threshold
from docqa.datasets.synthslides.numbers import Metric, percentage_change, ratio


@pytest.mark.parametrize(
    ("style", "value", "label"),
    [
        ("int", 1234, "1,234"),
        ("int", 7, "7"),
        ("dec", 12345, "1,234.5"),
        ("dec", 5, "0.5"),
        ("pct", 125, "12.5%"),
        ("pct", -30, "-3.0%"),
    ],
)
def test_format(style: str, value: int, label: str):
    assert Metric("m", "", style, 0, 1).format(value) == label


def test_ratio_and_percentage_change_round_half_up():
    assert ratio(27, 20) == "1.35"
    assert ratio(1, 3) == "0.33"
    assert percentage_change(200, 225) == "12.5%"
    assert percentage_change(1000, 958) == "-4.2%"
    assert percentage_change(10000, 10000) == "0.0%"
    assert percentage_change(100000, 99999) == "0.0%"  # never "-0.0%"


def test_round_threshold_lies_between():
    assert round_threshold(5478, 10626) == 10000
    assert round_threshold(2393, 2965) == 2500
    assert round_threshold(14, 16) == 15
    for low, high in [(1, 3), (99, 101), (12345, 12399)]:
        assert low < round_threshold(low, high) < high
