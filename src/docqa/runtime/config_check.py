"""Checks of the config that a JSON schema cannot express: names that refer to other entries."""

from __future__ import annotations

from typing import Any


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
