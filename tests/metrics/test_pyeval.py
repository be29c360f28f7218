import pytest

from docqa.metrics.pyeval import EvalError, python_eval


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[1, 2]", [1, 2]),
        ("  ['a', 'b']", ["a", "b"]),
        ("1,234", (1, 234)),
        ("[2020-2021]", [-1]),
        ("'a' 'b'", "ab"),
        ("{1, 2}", {1, 2}),
        ("{'a': 1}", {"a": 1}),
        ("[*[1, 2], 3]", [1, 2, 3]),
        ("1e400", float("inf")),
        ("0x1F", 31),
        ("1_000", 1000),
        ("[None, True]", [None, True]),
        ("'abc'[::-1]", "cba"),
        ("f'{1 + 1}'", "2"),
        ("1 < 2 < 3", True),
        ("[1 if 0 else 2]", [2]),
        ("max", max),
    ],
)
def test_what_eval_gives(text: str, value: object) -> None:
    assert python_eval(text) == value


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("[1, 2", "SyntaxError"),
        ("Paris", "NameError"),
        ("5%", "SyntaxError"),
        ("", "SyntaxError"),
        ("\x00", "SyntaxError"),
        ("{[1]}", "TypeError"),
        ("1 / 0", "ZeroDivisionError"),
        ("__name__", "NameError"),
        ("[len('ab')]", "run code"),
        ("x.y", "run code"),
        ("[i for i in 'ab']", "run code"),
        ("9 ** 9 ** 9", "too large"),
        ("'a' * 10 ** 9", "too large"),
        ("[" * 300 + "]" * 300, "SyntaxError"),
    ],
)
def test_what_it_refuses(text: str, why: str) -> None:
    with pytest.raises(EvalError, match=why):
        python_eval(text)
