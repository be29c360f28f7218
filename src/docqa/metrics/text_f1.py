"""Token F1 between a predicted and a gold answer, after SlideAgent-style normalisation.

SlideAgent: "Both answers are normalized, tokenized, and preprocessed by removing stopwords and
punctuation before metric calculation." Its exact preprocessing is not public, so this is ours:

1. lowercase;
2. delete punctuation (ASCII punctuation and every Unicode punctuation character), as SQuAD and
   SlideVQA's ``evaluate.py`` do, so '17,000' matches '17000' and 'U.S.' matches 'US';
3. split on whitespace;
4. drop :data:`STOPWORDS`;
5. write the number words zero to nineteen as digits (SlideVQA's ``evaluate.py`` does too), so
   'three' matches '3'.

F1 is over token multisets. Two empty answers score 1.0; one empty answer scores 0.0.

One exception to step 4: when either answer is nothing but stopwords ('Up', 'Before', 'Over'),
stopwords are kept on both sides. Dropping them would leave two empty answers, and 'Up' against
'Down' would score a perfect 1.0.
"""

from __future__ import annotations

import string
import unicodedata
from collections import Counter

# NLTK's English stopword list (179 words), with apostrophes deleted as step 2 deletes them
# ("you're" → "youre"), and without the negations: 'no', 'nor', 'not' and the n't forms
# ('don', "don't", 'isn', "isn't", ...). Yes/no answers and negated answers keep their meaning.
STOPWORDS = frozenset(
    [
        "i",
        "me",
        "my",
        "myself",
        "we",
        "our",
        "ours",
        "ourselves",
        "you",
        "youre",
        "youve",
        "youll",
        "youd",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "he",
        "him",
        "his",
        "himself",
        "she",
        "shes",
        "her",
        "hers",
        "herself",
        "it",
        "its",
        "itself",
        "they",
        "them",
        "their",
        "theirs",
        "themselves",
        "what",
        "which",
        "who",
        "whom",
        "this",
        "that",
        "thatll",
        "these",
        "those",
        "am",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "have",
        "has",
        "had",
        "having",
        "do",
        "does",
        "did",
        "doing",
        "a",
        "an",
        "the",
        "and",
        "but",
        "if",
        "or",
        "because",
        "as",
        "until",
        "while",
        "of",
        "at",
        "by",
        "for",
        "with",
        "about",
        "against",
        "between",
        "into",
        "through",
        "during",
        "before",
        "after",
        "above",
        "below",
        "to",
        "from",
        "up",
        "down",
        "in",
        "out",
        "on",
        "off",
        "over",
        "under",
        "again",
        "further",
        "then",
        "once",
        "here",
        "there",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "only",
        "own",
        "same",
        "so",
        "than",
        "too",
        "very",
        "s",
        "t",
        "can",
        "will",
        "just",
        "should",
        "shouldve",
        "now",
        "d",
        "ll",
        "m",
        "o",
        "re",
        "ve",
        "y",
        "ma",
    ]
)

_DIGITS = {
    word: str(value)
    for value, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}


def _is_punctuation(char: str) -> bool:
    return char in string.punctuation or unicodedata.category(char).startswith("P")


def answer_tokens(text: str, keep_stopwords: bool = False) -> list[str]:
    """The normalised tokens of an answer (steps 1-5 of the module docstring)."""
    cleaned = "".join(char for char in text.lower() if not _is_punctuation(char))
    tokens = [t for t in cleaned.split() if keep_stopwords or t not in STOPWORDS]
    return [_DIGITS.get(token, token) for token in tokens]


def token_f1(prediction: str, gold: str) -> float:
    """Multiset token F1 in [0, 1] between two answers."""
    predicted, expected = answer_tokens(prediction), answer_tokens(gold)
    if (not predicted and answer_tokens(prediction, keep_stopwords=True)) or (
        not expected and answer_tokens(gold, keep_stopwords=True)
    ):
        predicted = answer_tokens(prediction, keep_stopwords=True)
        expected = answer_tokens(gold, keep_stopwords=True)
    if not predicted and not expected:
        return 1.0
    if not predicted or not expected:
        return 0.0
    same = sum((Counter(predicted) & Counter(expected)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(expected)
    return 2 * precision * recall / (precision + recall)
