import pytest

from docqa.metrics.numbers import (
    extract_number,
    find_numbers,
    is_numeric_answer,
    numbers_equal,
    parse_number,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # integers, decimals, thousands separators
        ("42", 42.0),
        ("0", 0.0),
        ("3.14", 3.14),
        (".5", 0.5),
        ("1,234", 1234.0),
        ("1,234,567.89", 1234567.89),
        # percentages
        ("97%", 0.97),
        ("97 %", 0.97),
        ("97 percent", 0.97),
        ("97 per cent", 0.97),
        ("12.5%", 0.125),
        ("1.1%", 0.011),
        ("5 percentage points", 0.05),
        # currency symbols and codes
        ("$5", 5.0),
        ("€1.5", 1.5),
        ("£20", 20.0),
        ("USD 100", 100.0),
        ("100 USD", 100.0),
        ("US$ 3.5 bn", 3.5e9),
        # units after the number are dropped
        ("5kg", 5.0),
        ("5 km", 5.0),
        ("2.5x", 2.5),
        ("25°C", 25.0),
        ("10GB", 10.0),
        ("120 people", 120.0),
        ("60 km/h", 60.0),
        # scale suffixes and words
        ("17k", 17000.0),
        ("17K", 17000.0),
        ("5M", 5e6),
        ("1.5B", 1.5e9),
        ("3bn", 3e9),
        ("4 mn", 4e6),
        ("2.5 million", 2.5e6),
        ("2 thousand", 2000.0),
        ("4 billion", 4e9),
        ("1 trillion", 1e12),
        ("5 hundred thousand", 5e5),
        ("$5M", 5e6),
        # negative numbers
        ("-5", -5.0),
        ("−3.2", -3.2),
        ("-$5", -5.0),
        ("$-5", -5.0),
        ("-5%", -0.05),
        ("minus five", -5.0),
        # number words
        ("three", 3.0),
        ("zero", 0.0),
        ("Eleven", 11.0),
        ("twenty-one", 21.0),
        ("twenty one", 21.0),
        ("one hundred and five", 105.0),
        ("two thousand", 2000.0),
        ("three million", 3e6),
        ("a million", 1e6),
        ("five hundred thousand", 5e5),
        ("two million three hundred thousand and one", 2300001.0),
        ("twenty percent", 0.2),
        # a hedge before, a unit after
        ("about 5 million people", 5e6),
        ("over 50%", 0.5),
        ("5.", 5.0),
    ],
)
def test_parse_number_reads_each_format(text: str, value: float) -> None:
    assert parse_number(text) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize(
    "text",
    [
        "Paris",
        "",
        "No",
        "None",
        "Not answerable",
        "2019 and 2020",  # two numbers
        "2019-2020",
        "nineteen eighty-four",  # 19 and 84
        "one two",
        "Q3 2019",  # attached letters make 'Q3' a name, and it has a digit
        "Revenue: 5",  # a leading word that is not a hedge
        "3D",
        "4G",
        "1990s",
        "1st",
        "1,5",  # a comma is only a thousands separator
        "1.2.3",
        "5 (2019)",
        "The revenue was 17k.",  # prose: a short answer it is not
    ],
)
def test_parse_number_refuses_non_numbers_and_several_numbers(text: str) -> None:
    assert parse_number(text) is None
    assert not is_numeric_answer(text)


def test_spaced_single_letter_is_a_unit_not_a_scale() -> None:
    assert parse_number("5 m") == 5.0
    assert parse_number("5m") == 5e6


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The revenue was 17k.", 17000.0),
        ("It grew by 97 percent in 2019", 0.97),
        ("There are three stores.", 3.0),
        ("In 2019 revenue was 17k", 2019.0),  # several numbers: the first
        ("COVID-19 cases", 19.0),
        ("No number here", None),
        ("Q3 results", None),
    ],
)
def test_extract_number_takes_the_first_number_of_prose(text: str, value: float | None) -> None:
    assert extract_number(text) == value


def test_find_numbers_gives_positions() -> None:
    text = "From $1.5M to 2 million"
    mentions = find_numbers(text)
    assert [m.value for m in mentions] == [1.5e6, 2e6]
    assert [text[m.start : m.end] for m in mentions] == ["$1.5M", "2 million"]


def test_formats_normalise_to_the_same_number() -> None:
    assert parse_number("17k") == parse_number("17,000") == parse_number("seventeen thousand")
    assert parse_number("2.5 million") == parse_number("2,500,000") == parse_number("2.5M")
    assert parse_number("97%") == parse_number("0.97")


def test_numbers_equal_is_exact_up_to_float_rounding_unless_told_otherwise() -> None:
    assert numbers_equal(0.1 + 0.2, 0.3)
    assert not numbers_equal(100.0, 101.0)
    assert numbers_equal(100.0, 101.0, rel_tol=0.01)
    assert numbers_equal(0.0, 0.0)


@pytest.mark.parametrize(
    ("text", "value"),
    [("1\u202f234", 1234.0), ("1\u00a0234\u00a0567.5", 1234567.5), ("$1\u2009000", 1000.0)],
)
def test_no_break_and_thin_spaces_separate_thousands(text: str, value: float) -> None:
    assert parse_number(text) == value


def test_an_ordinary_space_or_mixed_separators_do_not_join_groups() -> None:
    assert [m.value for m in find_numbers("1 234")] == [1.0, 234.0]
    assert parse_number("1,234\u00a0567") is None
