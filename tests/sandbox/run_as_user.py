"""Run every hostile program and pair of ``hostile.py`` as whoever runs this script (the test
starts it as an ordinary user) and print one JSON line: who ran them, the isolation level and,
per program, what was wrong (an empty list: as expected)."""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hostile import MARKER, PAIRS, PROGRAMS, run, run_pair

from docqa.sandbox.machine import current


def main() -> None:
    isolation = current()
    failures: dict[str, list[str]] = {}
    MARKER.unlink(missing_ok=True)
    if isolation.available:
        # four at a time: most of the time goes to programs waiting for their limits
        with ThreadPoolExecutor(max_workers=4) as pool:
            for program, problems in zip(PROGRAMS, pool.map(run, PROGRAMS), strict=False):
                failures[program.name] = problems
        for pair in PAIRS:
            failures[f"pair: {pair.name}"] = run_pair(pair)
    report = {
        "uid": os.geteuid(),
        "isolation": isolation.level,
        "failures": failures,
        "marker": MARKER.exists(),
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
