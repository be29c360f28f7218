"""Hostile programs against the Solve sandbox, run by the test process (root in CI): each one is
refused or contained, and reported truthfully (see ``hostile.py`` for the programs)."""

from __future__ import annotations

import pytest
from hostile import MARKER, PAIRS, PROGRAMS, Hostile, Pair, run, run_pair

from docqa.sandbox.machine import current

pytestmark = pytest.mark.skipif(
    not current().available, reason=f"no kernel isolation here: {current().reason}"
)


@pytest.fixture(autouse=True)
def no_marker() -> None:
    MARKER.unlink(missing_ok=True)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_a_hostile_program_is_contained_and_reported(program: Hostile) -> None:
    problems = run(program)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_one_sandbox_cannot_reach_another_running_at_the_same_time(pair: Pair) -> None:
    problems = run_pair(pair)
    assert not problems, "\n".join(problems)


def test_there_are_at_least_sixty_hostile_programs() -> None:
    assert len(PROGRAMS) >= 60
    assert sum(not p.guard for p in PROGRAMS) >= 20  # the kernel alone, past the guard
