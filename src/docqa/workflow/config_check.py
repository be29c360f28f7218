"""Checks of the config that a JSON schema cannot express: names that refer to other entries,
and every entry's options against those its registered type declares (docqa.runtime.spec),
with messages that name the entry and the key. Snakemake runs them when it parses the workflow,
before the DAG is built."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import yaml

from docqa.runtime.registry import Registry
from docqa.runtime.spec import check_entry, unknown_name


class ConfigError(ValueError):
    pass


def check_references(config: dict[str, Any]) -> None:
    """Every name used in ``experiments`` and every method's retriever must be defined."""
    errors = []
    for number, experiment in enumerate(config["experiments"]):
        for key, section in (
            ("datasets", "datasets"),
            ("methods", "methods"),
            ("models", "models"),
        ):
            for name in experiment[key]:
                if name not in config[section]:
                    errors.append(
                        f"experiments[{number}].{key}: {name!r} is not defined under "
                        f"'{section}:' (defined: {', '.join(sorted(config[section]))})"
                    )
    for name, method in config["methods"].items():
        for key, model in method.items():
            if key.endswith("_model") and model and model not in config["models"]:
                errors.append(f"methods.{name}.{key}: {model!r} is not defined under 'models:'")
        for key, retriever in method.items():
            if key.endswith("retriever") and retriever and retriever not in config["retrievers"]:
                errors.append(
                    f"methods.{name}.{key}: {retriever!r} is not defined under 'retrievers:'"
                )
    for name, dataset in config["datasets"].items():
        if dataset["metric"] not in config["metrics"]:
            errors.append(
                f"datasets.{name}.metric: {dataset['metric']!r} has no entry under 'metrics:'"
            )
    metrics = registry_of("metrics")
    for name, options in _entries(config, "metrics"):
        if name not in metrics.names():
            continue  # check_options names it
        for key, section, value in metrics.options(name).references(options):
            if value not in config[section]:
                errors.append(f"metrics.{name}.{key}: {value!r} is not defined under '{section}:'")
    errors += training_reference_errors(config)
    if errors:
        raise ConfigError("config error:\n  " + "\n  ".join(errors))


def training_reference_errors(config: dict[str, Any]) -> list[str]:
    """The names a ``training:`` entry uses that are not defined (docqa.training)."""
    errors = []
    for name, entry in (config.get("training") or {}).items():
        used = [("datasets", dataset, "datasets") for dataset in entry["datasets"]]
        used += [("method", entry["method"], "methods")]
        used += [(role, entry[role], "models") for role in ("teacher", "student")]
        evaluate = entry.get("evaluate") or {}
        if evaluate:
            used += [("evaluate.dataset", evaluate["dataset"], "datasets")]
            used += [("evaluate.method", evaluate["method"], "methods")]
            used += [("evaluate.models", model, "models") for model in evaluate["models"]]
        for key, value, section in used:
            if value not in config[section]:
                errors.append(f"training.{name}.{key}: {value!r} is not defined under '{section}:'")
        kind = config["methods"].get(entry["method"], {}).get("type")
        methods = registry_of("methods")
        if kind in methods.names() and not methods.get(kind).trajectory_training:
            methods.load_all()
            trainable = [m for m in methods.names() if methods.get(m).trajectory_training]
            errors.append(
                f"training.{name}.method: {entry['method']!r} is a {kind} method, which "
                "training cannot learn from (its type does not declare trajectory_training); "
                f"name a method entry of type {' or '.join(trainable)}"
            )
        for stage, settings in entry["stages"].items():
            start = settings.get("from")
            if start is not None and start not in entry["stages"]:
                errors.append(
                    f"training.{name}.stages.{stage}.from: {start!r} is not a stage of "
                    f"training.{name}"
                )
    return errors


def experiment_grid(config: dict[str, Any]) -> list[tuple[str, str, str]]:
    """All (dataset, method, model) triples the experiments ask for, without repeats, in order."""
    seen: dict[tuple[str, str, str], None] = {}
    for experiment in config["experiments"]:
        for dataset in experiment["datasets"]:
            for method in experiment["methods"]:
                for model in experiment["models"]:
                    seen[(dataset, method, model)] = None
    return list(seen)


def check_yaml_syntax(path: str | Path) -> None:
    """Parse a YAML config file; a syntax error names the file, the line and the column
    (Snakemake's own loader only says the file is not valid YAML)."""
    path = Path(path)
    if not path.exists():
        return
    try:
        yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = " ".join(part for part in (error.context, error.problem) if part)
        raise ConfigError(
            f"config error: {where}: YAML syntax error: {problem}; fix the indentation or "
            "quoting at that line (keys of one level align; a value with ': ' needs quotes)"
        ) from None


#: config section → (the key of an entry that names its implementation, or None when the
#: entry's own name does; where its options sit, or None for the entry itself; what it is)
SECTIONS: dict[str, tuple[str | None, str | None, str]] = {
    "methods": ("type", None, "method type"),
    "retrievers": ("type", None, "retriever type"),
    "models": ("backend", None, "backend"),
    "metrics": (None, None, "metric"),
    "datasets": ("adapter", "options", "adapter"),
}


def registry_of(section: str) -> Registry[Any]:
    """The registry of a config section, imported on demand (each is light to import)."""
    module, name = {
        "methods": ("docqa.methods", "METHODS"),
        "retrievers": ("docqa.retrievers", "RETRIEVERS"),
        "models": ("docqa.backends", "BACKENDS"),
        "metrics": ("docqa.metrics", "METRICS"),
        "datasets": ("docqa.datasets", "DATASETS"),
    }[section]
    return getattr(importlib.import_module(module), name)


def check_options(config: dict[str, Any]) -> None:
    """Every method, metric, dataset, retriever and model entry: a registered name, and only
    the options its spec declares (docqa.runtime.spec), with values it accepts. Each message
    names the entry and the key."""
    errors: list[str] = []
    for section, (selector, nested, what) in SECTIONS.items():
        registry = registry_of(section)
        for name, entry in _entries(config, section):
            kind = entry.get(selector) if selector else name
            where = f"{section}.{name}"
            if kind is None and selector:
                errors.append(_undefined_entry(where, name, section, selector, registry.names()))
                continue
            if kind not in registry.names():
                errors.append(
                    unknown_name(f"{where}.{selector}" if selector else where, kind, what,
                                 registry.names())
                )  # fmt: skip
                continue
            values = (entry.get(nested) or {}) if nested else entry
            if nested:
                where += f".{nested}"
            spec = registry.options(str(kind))
            errors += check_entry(spec, values, where, f"{what} {kind}")
        if section == "datasets":
            errors += _missing_roots(config)
    if errors:
        raise ConfigError("config error:\n  " + "\n  ".join(errors))


def _undefined_entry(where: str, name: str, section: str, selector: str, known: list[str]) -> str:
    """An entry that only sets options of an entry no config file defines: most often a paper
    config given without the catalogue file that defines its datasets, methods or models."""
    catalogue = Path("config") / f"{section}.yaml"
    defined = yaml.safe_load(catalogue.read_text()) if catalogue.is_file() else None
    if isinstance(defined, dict) and name in (defined.get(section) or {}):
        return (
            f"{where}: no {selector} given; {name!r} is defined in {catalogue}, which the config "
            f"files given do not include: add it before yours (--configfile {catalogue} "
            "YOUR.yaml) or give the entry its own " + selector
        )
    return f"{where}: no {selector} given; give the entry one of: {', '.join(sorted(known))}"


def _missing_roots(config: dict[str, Any]) -> list[str]:
    errors = []
    for name, entry in _entries(config, "datasets"):
        root = (entry.get("options") or {}).get("root")
        if isinstance(root, str) and not Path(root).is_dir():
            errors.append(
                f"datasets.{name}.options.root: the folder {root!r} does not exist; set root to "
                "the folder that holds the dataset's files (it is read as it is, nothing is "
                "downloaded into it)"
            )
    return errors


def _entries(config: dict[str, Any], section: str) -> list[tuple[str, dict[str, Any]]]:
    entries = config.get(section) or {}
    if not isinstance(entries, dict):
        return []
    return [(name, entry) for name, entry in entries.items() if isinstance(entry, dict)]
