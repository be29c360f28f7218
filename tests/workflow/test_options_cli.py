"""``docqa options`` prints what the option specs declare, and docs/configuration.md's option
tables are that output, regenerated from the specs of every registered implementation."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from docqa.cli import main
from docqa.methods import METHODS
from docqa.runtime.spec import Field, Options
from docqa.workflow.config_check import registry_of
from docqa.workflow.options_cli import (
    BEGIN,
    END,
    KINDS,
    OptionsError,
    all_tables,
    names,
    option_rows,
    with_tables,
)

ROOT = Path(__file__).resolve().parents[2]
CONFIGURATION = ROOT / "docs" / "configuration.md"


class DemoOptions(Options):
    top_k: int = Field(4, ge=1, description="pages read, best first")
    layout: Literal["grid", "pages"] = Field("grid", description="how the pages are shown")
    model: str | None = Field(None, description="the model | or none")


@pytest.fixture
def demo(monkeypatch: pytest.MonkeyPatch) -> str:
    """A method ``demo`` registered at run time with DemoOptions; the registry is restored
    (its own modules imported first, so that they stay registered)."""
    METHODS.load_all()
    for attribute in ("modules", "_items", "_options"):
        monkeypatch.setattr(METHODS, attribute, dict(getattr(METHODS, attribute)))
    METHODS.register("demo", options=DemoOptions)(object)
    return "demo"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["options", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_one_implementation_as_a_table(demo: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "method", demo)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "method demo: methods.<entry>: {type: demo, <option>: <value>, …}"
    assert lines[2].split() == ["option", "type", "default", "help"]
    assert lines[3].split() == ["top_k", "int", ">=", "1", "4", "pages", "read,", "best", "first"]
    assert lines[4].split()[:4] == ["layout", "'grid'", "or", "'pages'"]
    assert lines[5].split()[:5] == ["model", "str", "or", "null", "null"]


def test_one_implementation_as_markdown(demo: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "method", demo, "--markdown")
    assert status == 0
    assert "| `top_k` | int >= 1 | 4 | pages read, best first |" in out
    assert "| `model` | str or null | null | the model \\| or none |" in out


def test_a_kind_lists_its_names_with_their_options(
    demo: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "method")
    assert status == 0
    listed = [line.split(None, 1) for line in out.splitlines() if line.startswith("demo ")]
    assert listed == [["demo", "top_k, layout, model"]]
    for name in METHODS.names():
        assert any(line.split()[:1] == [name] for line in out.splitlines()), name


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["methd"], "'methd' is not a kind of implementation; did you mean 'method'?"),
        (["methods", "text_rag"], "did you mean 'method'?"),
        (["method", "text_ragg"], "'text_ragg' is not a registered method; did you mean"),
        ([], "name a kind"),
        (["method", "text_rag", "--all"], "--all takes no KIND or NAME"),
    ],
)
def test_unknown_kind_or_name_is_an_error_with_a_hint(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert message in err


def test_the_doc_block_is_replaced_between_its_markers() -> None:
    page = f"# Title\n\nprose\n\n{BEGIN}\nold tables\n{END}\n\nmore prose\n"
    new = f"# Title\n\nprose\n\n{BEGIN}\n\nNEW\n\n{END}\n\nmore prose\n"
    assert with_tables(page, "NEW") == new
    with pytest.raises(OptionsError, match="marker lines"):
        with_tables("# no markers\n", "NEW")


def test_all_tables_name_every_declared_implementation_under_its_kind(demo: str) -> None:
    tables = all_tables()
    assert "#### method `demo`" not in tables  # registered at run time: not docqa's own
    METHODS.modules["demo"] = __name__  # declared in the map, as extending.md adds a method
    tables = all_tables()
    assert "#### method `demo`\n\n`methods.<entry>: {type: demo, <option>: <value>, …}`" in tables
    assert "| `layout` | 'grid' or 'pages' | 'grid' | how the pages are shown |" in tables
    for kind, (section, _) in KINDS.items():
        for name in registry_of(section).modules:
            assert f"#### {kind} `{name}`" in tables


def test_configuration_md_option_tables_are_current() -> None:
    """Fails when a spec changed and the page was not regenerated: run `make docs-options`."""
    page = CONFIGURATION.read_text(encoding="utf-8")
    assert page == with_tables(page, all_tables()), (
        "docs/configuration.md's option tables differ from the specs: run `make docs-options`"
    )


def test_the_write_option_regenerates_a_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "configuration.md"
    page.write_text(f"intro\n{BEGIN}\nstale\n{END}\n")
    status, _, _ = run(capsys, "--all", "--markdown", "--write", str(page))
    assert status == 0
    assert page.read_text() == f"intro\n{BEGIN}\n\n{all_tables()}\n\n{END}\n"


KIND_NAMES = [(kind, name) for kind in KINDS for name in names(kind)]


@pytest.mark.parametrize(("kind", "name"), KIND_NAMES, ids=[f"{k}-{n}" for k, n in KIND_NAMES])
def test_every_option_of_every_implementation_has_a_help_line(kind: str, name: str) -> None:
    """The convention: each field of a spec has a one-line ``description``."""
    rows = option_rows(kind, name)
    missing = [row[0] for row in rows if not row[3].strip() or "\n" in row[3]]
    assert not missing, f"{kind} {name}: options without a one-line description: {missing}"
