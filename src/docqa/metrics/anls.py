"""ANLS as MMLongBench-Doc and LongDocURL compute it: 1 - Levenshtein / length, cut at 0.5.

Two details of the originals are kept because they change scores:

- the length is ``max(len(gold.upper()), len(pred.upper()))``: upper-casing can lengthen a
  string ('ß' → 'SS', 'ﬁ' → 'FI'), while the distance is taken between the strings as given;
- a value *at or below* the threshold becomes 0, so exactly 0.5 scores 0.
"""

from __future__ import annotations

THRESHOLD = 0.5


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions of one character each)."""
    if len(a) > len(b):
        a, b = b, a
    previous = list(range(len(a) + 1))
    for j, char_b in enumerate(b, start=1):
        current = [j]
        for i, char_a in enumerate(a, start=1):
            cost = 0 if char_a == char_b else 1
            current.append(min(previous[i - 1] + cost, previous[i] + 1, current[i - 1] + 1))
        previous = current
    return previous[-1]


def anls(gold: str, pred: str, threshold: float = THRESHOLD) -> float:
    """Normalised Levenshtein similarity in [0, 1]; values <= ``threshold`` become 0."""
    length = max(len(gold.upper()), len(pred.upper()))
    similarity = 1.0 - (0.0 if length == 0 else levenshtein(gold, pred) / length)
    return 0.0 if similarity <= threshold else similarity
