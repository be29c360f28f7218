"""Checks of the config that a JSON schema cannot express: names that refer to other entries,
and every entry's options against those its registered type declares (docqa.runtime.options),
with messages that name the entry and the key. Snakemake runs them when it parses the workflow,
before the DAG is built."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import yaml

from docqa.runtime.options import (
    DATASET_OPTIONS,
    METHOD_OPTIONS,
    METRIC_OPTIONS,
    schema_options,
    value_error,
)


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
    for name, options in config["metrics"].items():
        model = options.get("model")
        if model is not None and model not in config["models"]:
            errors.append(f"metrics.{name}.model: {model!r} is not defined under 'models:'")
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
        method = config["methods"].get(entry["method"], {})
        if method and method.get("type") != "docpilot":
            errors.append(
                f"training.{name}.method: {entry['method']!r} is a {method.get('type')} method; "
                "synthesis runs a docpilot method entry"
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


def check_options(config: dict[str, Any], schema: dict[str, Any] | None = None) -> None:
    """Every method, metric, dataset, retriever and model entry: a registered type, and only
    the options that type declares, with values it accepts. ``schema`` is config.schema.yaml,
    where retrievers and models declare theirs."""
    errors: list[str] = []
    sections = {
        "methods": ("type", METHOD_OPTIONS, "method type"),
        "metrics": (None, METRIC_OPTIONS, "metric"),
    }
    for section, (selector, declared, what) in sections.items():
        for name, entry in _entries(config, section):
            kind = entry.get(selector) if selector else name
            where = f"{section}.{name}" + (f".{selector}" if selector else "")
            if kind not in declared:
                errors.append(_unknown(where, kind, what, declared))
                continue
            options = {key: value for key, value in entry.items() if key != selector}
            errors += _check_entry(f"{section}.{name}", options, declared[kind], f"{what} {kind}")
    from docqa.datasets import DATASETS  # light: the workflow imports it already

    for name, entry in _entries(config, "datasets"):
        adapter = entry.get("adapter")
        if adapter not in DATASETS.names():
            known = dict.fromkeys(DATASETS.names())
            errors.append(_unknown(f"datasets.{name}.adapter", adapter, "adapter", known))
            continue
        options = entry.get("options") or {}
        where = f"datasets.{name}.options"
        if adapter in DATASET_OPTIONS:  # one added since: tests/test_config_options.py says so
            errors += _check_entry(where, options, DATASET_OPTIONS[adapter], f"adapter {adapter}")
        root = options.get("root")
        if isinstance(root, str) and not Path(root).is_dir():
            errors.append(
                f"{where}.root: the folder {root!r} does not exist; set root to the folder that "
                "holds the dataset's files (it is read as it is, nothing is downloaded into it)"
            )
    if schema is not None:
        from docqa.retrievers import RETRIEVERS  # light: the workflow imports it already

        checked: list[tuple[str, str, str, list[str] | None]] = [
            ("retrievers", "type", "retriever type", RETRIEVERS.names()),
            ("models", "backend", "backend", None),
        ]
        for section, selector, what, known_names in checked:
            declared_names = schema_options(schema, section, selector)
            for name, entry in _entries(config, section):
                kind = entry.get(selector)
                if known_names is not None and kind not in known_names:
                    errors.append(
                        _unknown(
                            f"{section}.{name}.{selector}", kind, what, dict.fromkeys(known_names)
                        )
                    )
                    continue
                allowed = declared_names.get(str(kind))
                if allowed is None:
                    continue
                allowed = allowed - {selector}
                for key in entry:
                    if key != selector and key not in allowed:
                        errors.append(
                            _unknown_option(f"{section}.{name}", key, allowed, f"{what} {kind}")
                        )
    if errors:
        raise ConfigError("config error:\n  " + "\n  ".join(errors))


def _entries(config: dict[str, Any], section: str) -> list[tuple[str, dict[str, Any]]]:
    entries = config.get(section) or {}
    if not isinstance(entries, dict):
        return []
    return [(name, entry) for name, entry in entries.items() if isinstance(entry, dict)]


def _unknown(where: str, kind: Any, what: str, declared: dict[str, Any]) -> str:
    hint = difflib.get_close_matches(str(kind), list(declared), n=1)
    guess = f"did you mean {hint[0]!r}? " if hint else ""
    return (
        f"{where}: {kind!r} is not a registered {what}; {guess}known: {', '.join(sorted(declared))}"
    )


def _unknown_option(where: str, key: str, allowed: Any, owner: str) -> str:
    hint = difflib.get_close_matches(key, list(allowed), n=1)
    guess = f"did you mean {hint[0]!r}? " if hint else ""
    return (
        f"{where}.{key}: {owner} takes no option {key!r}; {guess}"
        f"its options: {', '.join(sorted(allowed))}"
    )


def _check_entry(
    where: str, options: dict[str, Any], rules: dict[str, str], owner: str
) -> list[str]:
    errors = []
    for key, value in options.items():
        if key not in rules:
            errors.append(_unknown_option(where, key, rules, owner))
        elif (problem := value_error(rules[key], value)) is not None:
            errors.append(f"{where}.{key}: {problem} (got {value!r})")
    return errors
