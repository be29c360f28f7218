"""The documentation holds together: the README stays short and indexes every page, every
relative link and anchor resolves, and the worked examples of docs/extending.md run as written."""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from PIL import Image
from snakemake.utils import validate

from docqa.backends import BACKENDS, create_backend
from docqa.backends.client import ModelClient
from docqa.core.document import Document, Page
from docqa.core.prediction import Prediction
from docqa.core.question import Question
from docqa.datasets import DATASETS
from docqa.methods import METHODS, create_method
from docqa.methods.base import DocumentEnv, Models
from docqa.metrics import METRICS
from docqa.retrievers import RETRIEVERS, IndexedPage, create_retriever
from docqa.workflow.config_check import check_options, check_references

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: every Markdown file of the documentation: the README, docs/, and the folders' READMEs
PAGES = [
    README,
    *sorted(DOCS.glob("*.md")),
    ROOT / "config" / "README.md",
    ROOT / "results" / "README.md",
]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def links(page: Path) -> list[str]:
    """The link targets of a Markdown page, code blocks left out."""
    return LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8")))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def test_readme_is_at_most_150_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; move detail to docs/"


def test_readme_links_every_docs_page() -> None:
    linked = {(README.parent / target.split("#")[0]).resolve() for target in links(README)}
    pages = {page.resolve() for page in DOCS.glob("*.md")}
    unlinked = sorted(str(page.relative_to(ROOT)) for page in pages - linked)
    assert not unlinked, f"docs pages missing from the README's documentation index: {unlinked}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_relative_links_and_anchors_resolve(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    assert not broken, f"{page.relative_to(ROOT)} has broken links: {broken}"


def test_slug_follows_github() -> None:
    assert slug("Checking the install: `docqa doctor`") == "checking-the-install-docqa-doctor"
    assert (
        slug("Pinned environments: conda and apptainer")
        == "pinned-environments-conda-and-apptainer"
    )


# The worked examples of docs/extending.md -------------------------------------------------

EXTENDING = DOCS / "extending.md"


def example_modules() -> dict[str, str]:
    """Each Python example of docs/extending.md by the module its first line names."""
    blocks = [code for lang, code in FENCE.findall(EXTENDING.read_text()) if lang == "python"]
    modules = {}
    for code in blocks:
        first = code.splitlines()[0]
        match = re.fullmatch(r"# src/(docqa/\w+/\w+)\.py", first)
        assert match, f"an example of extending.md does not start with its path: {first!r}"
        modules[match.group(1).replace("/", ".")] = code
    return modules


def yaml_examples() -> list[dict]:
    return [
        yaml.safe_load(code)
        for lang, code in FENCE.findall(EXTENDING.read_text())
        if lang == "yaml"
    ]


@pytest.fixture
def examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, ModuleType]:
    """Import every example module as the page says: its file, plus its name in the registry's
    map; the registries are restored afterwards."""
    registries = {"datasets": DATASETS, "retrievers": RETRIEVERS, "backends": BACKENDS,
                  "methods": METHODS, "metrics": METRICS}  # fmt: skip
    for registry in registries.values():
        registry.load_all()  # docqa's own names stay registered once the registry is restored
        for attribute in ("modules", "_items", "_options"):
            monkeypatch.setattr(registry, attribute, dict(getattr(registry, attribute)))
    loaded = {}
    for module_name, code in example_modules().items():
        package, name = module_name.split(".")[1:]
        source = tmp_path / f"{name}.py"
        source.write_text(code)
        spec = importlib.util.spec_from_file_location(module_name, source)
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, module_name, module)
        registry = registries[package]
        registered = re.findall(r'register\("(\w+)"', code)
        assert len(registered) == 1, f"{module_name} should register one name"
        registry.modules[registered[0]] = module_name  # the map line the page asks for
        spec.loader.exec_module(module)
        loaded[package] = module
    assert sorted(loaded) == sorted(registries), "extending.md has one example per registry"
    return loaded


def test_examples_are_lint_clean(tmp_path: Path) -> None:
    """Code copied from the page passes the project's ruff check and format as it stands."""
    for module_name, code in example_modules().items():
        (tmp_path / f"{module_name.rsplit('.', 1)[1]}.py").write_text(code)
    config = str(ROOT / "pyproject.toml")
    for command in (["check"], ["format", "--check"]):
        result = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--config", config, str(tmp_path)],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, f"ruff {' '.join(command)}: {result.stdout}{result.stderr}"


def test_dataset_example_converts_and_records_bad_rows(examples: dict, tmp_path: Path) -> None:
    from docqa.datasets import prepare

    root = tmp_path / "my_reports"
    root.mkdir()
    pages = [Image.new("RGB", (200, 100), "white") for _ in range(2)]
    pages[0].save(root / "annual.pdf", save_all=True, append_images=pages[1:])
    rows = [
        {"id": "q1", "pdf": "annual.pdf", "question": "Revenue?", "answer": "12", "page": 2},
        {"id": "q2", "pdf": "annual.pdf", "question": "Staff?", "answer": "3", "page": 0},
    ]
    (root / "questions.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "data"
    prepare("pdf_folder", out, {"root": str(root)})
    questions = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert [(q["question_id"], q["doc_id"], q["evidence_pages"]) for q in questions] == [
        ("q1", "annual", [1])
    ]
    failures = (out / "failures.jsonl").read_text()
    assert "questions.jsonl:2" in failures
    assert "1-based" in failures
    assert (out / "docs" / "annual.pdf").exists()


def test_retriever_example_ranks_and_checks_its_settings(examples: dict, tmp_path: Path) -> None:
    texts = ["agenda and welcome", "revenue grew in europe", "revenue and staff"]
    pages = [IndexedPage(text, tmp_path / "unused.png") for text in texts]
    retriever = create_retriever({"type": "word_overlap", "min_length": 4})
    retriever.build(pages, tmp_path / "index")
    searcher = retriever.load(tmp_path / "index")
    assert searcher.pages == 3
    assert searcher.search("revenue in europe", 2) == [1, 2]
    with pytest.raises(ValueError, match="built with min_length=4"):
        create_retriever({"type": "word_overlap", "min_length": 3}).load(tmp_path / "index")
    with pytest.raises(ValueError, match="did you mean 'min_length'"):
        create_retriever({"type": "word_overlap", "min_lenght": 3})
    with pytest.raises(ValueError, match="min_length"):
        create_retriever({"type": "word_overlap", "min_length": 0})


def test_method_example_reads_the_first_pages_through_the_backend_example(
    examples: dict, tmp_path: Path
) -> None:
    backend = create_backend({"backend": "constant", "answer": "12"}, tmp_path)
    document = Document("deck", "deck.pdf", 3)
    pages = [Page("deck", i, f"page-{i}.png", 10, 10, 200) for i in range(3)]
    env = DocumentEnv(document, pages, ["agenda", "revenue 12", "staff 3"])
    question = Question("q1", "deck", "Revenue?", "12", "Str", [("deck", 1)])
    method = create_method({"type": "first_pages", "pages": 2})

    async def ask() -> Prediction:
        client = ModelClient(backend)
        try:
            return await method.answer(question, env, Models(client))
        finally:
            await client.close()

    prediction = asyncio.run(ask())
    assert (prediction.answer, prediction.pages) == ("12", [0, 1])
    assert prediction.trace[0]["step"] == "read"
    assert prediction.usage.calls == 1
    with pytest.raises(ValueError, match="at least 1"):
        create_method({"type": "first_pages", "pages": 0})


def test_metric_example_scores_and_aggregates(examples: dict) -> None:
    metric = METRICS.get("exact_match")
    spec = METRICS.options("exact_match")
    question = Question("q1", "deck", "Revenue?", "Twelve  Million", "Str")
    right = metric.score(question, Prediction("q1", "twelve million"), {}, spec())
    wrong = metric.score(question, Prediction("q1", "12"), {}, spec())
    assert (right["em"], wrong["em"]) == (1.0, 0.0)
    cased = metric.score(
        question, Prediction("q1", "twelve million"), {}, spec(case_sensitive=True)
    )
    assert cased["em"] == 0.0
    assert metric.aggregate([right, wrong], spec()) == {"em": 0.5, "questions": 2}
    assert metric.columns["overall"] == "em"


def test_config_examples_pass_the_checks_the_page_promises(examples: dict) -> None:
    """Each YAML example, on top of config/config.yaml, passes the checks Snakemake runs before
    the DAG: every entry's options against its spec, the schema and the references."""
    default = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    schema_path = ROOT / "config" / "config.schema.yaml"
    for example in yaml_examples():
        config = copy.deepcopy(default)
        for key, value in example.items():
            if isinstance(value, dict):
                for name, entry in value.items():
                    config[key][name] = {**config[key].get(name, {}), **entry}
            else:
                config[key] = value
        if "datasets" in example and "my_reports" in example["datasets"]:
            config["datasets"]["my_reports"]["options"]["root"] = str(ROOT / "docs")
        check_options(config)
        validate(config, str(schema_path))
        check_references(config)
