"""Bullet points that each state one checkable fact, with the question that fact answers."""

from __future__ import annotations

import random
from collections.abc import Callable

from docqa.datasets.synthslides import vocabulary as vocab
from docqa.datasets.synthslides.slides import Bullet, Fact


def _reached(rng: random.Random, year: int) -> Bullet:
    metric = rng.choice(vocab.METRICS)
    value = metric.format(metric.random_value(rng))
    return Bullet(
        f"{metric.label} reached {value} in {year}",
        Fact(f"what was the {metric.name.lower()} in {year}", value, metric.answer_format),
    )


def _office(rng: random.Random, year: int) -> Bullet:
    city, quarter = rng.choice(vocab.CITIES), rng.choice(vocab.QUARTERS)
    return Bullet(
        f"New office opens in {city} in {quarter} {year + 1}",
        Fact("in which city does the new office open", city, "Str"),
    )


def _lead(rng: random.Random, year: int) -> Bullet:
    person = f"{rng.choice(vocab.FIRST_NAMES)} {rng.choice(vocab.LAST_NAMES)}"
    initiative = rng.choice(vocab.INITIATIVES)
    return Bullet(
        f"{person} leads the {initiative} program",
        Fact(f"who leads the {initiative} program", person, "Str"),
    )


def _launch(rng: random.Random, year: int) -> Bullet:
    product = rng.choice(vocab.DIMENSIONS["Product"])
    when = f"{rng.choice(vocab.QUARTERS)} {year + 1}"
    return Bullet(
        f"{product} launch planned for {when}",
        Fact(f"when is the {product} launch planned", when, "Str"),
    )


def _partner(rng: random.Random, year: int) -> Bullet:
    partner = rng.choice(vocab.PARTNERS)
    return Bullet(
        f"New partnership signed with {partner}",
        Fact("with which company was a new partnership signed", partner, "Str"),
    )


def _stores(rng: random.Random, year: int) -> Bullet:
    count, city = rng.randint(3, 48), rng.choice(vocab.CITIES)
    return Bullet(
        f"{count} new stores opened in {city}",
        Fact(f"how many new stores opened in {city}", str(count), "Int"),
    )


def _target(rng: random.Random, year: int) -> Bullet:
    metric = rng.choice([m for m in vocab.METRICS if m.style == "pct"])
    value = metric.format(metric.random_value(rng))
    return Bullet(
        f"Target {metric.name.lower()} of {value} by {year + 2}",
        Fact(f"what is the {metric.name.lower()} target for {year + 2}", value, "Float"),
    )


def _hires(rng: random.Random, year: int) -> Bullet:
    count, city = rng.randint(5, 120), rng.choice(vocab.CITIES)
    return Bullet(
        f"Hired {count} engineers in {city}",
        Fact(f"how many engineers were hired in {city}", str(count), "Int"),
    )


TEMPLATES: tuple[Callable[[random.Random, int], Bullet], ...] = (
    _reached,
    _office,
    _lead,
    _launch,
    _partner,
    _stores,
    _target,
    _hires,
)


def bullet_points(rng: random.Random, year: int, count: int) -> tuple[Bullet, ...]:
    """``count`` bullets from distinct templates, so each question has one answer on the slide."""
    return tuple(template(rng, year) for template in rng.sample(TEMPLATES, count))
