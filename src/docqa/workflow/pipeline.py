"""What a run takes from the config, declared once for the rules and ``docqa ask``.

``rules/common.smk`` turns these into rule inputs and params; :mod:`docqa.ask` calls the same
functions, so a prepared model, a method's retrievers and models, or a knowledge build are the
same through both doors. Config level only: nothing heavy is imported (the Snakefile parses
this on every call).
"""

from __future__ import annotations

from typing import Any

from docqa.backends import BACKENDS
from docqa.methods import METHODS
from docqa.retrievers.hybrid import component_names

#: a method option ending in this names another configured model for one of its roles
#: (e.g. ``text_model: llama-3.1-8b``); the infer job loads it beside the run's model
MODEL_OPTION_SUFFIX = "_model"


def model_source(entry: dict[str, Any]) -> dict[str, Any]:
    """What the prepare_model rule (and ``docqa ask``) pass on of a model entry: the keys that
    say where its weights come from, as its backend's option spec marks them
    (``ModelOptions.prepare_keys``); changing one reprepares the model."""
    keys = BACKENDS.options(entry["backend"]).prepare_keys()  # type: ignore[attr-defined]
    return {key: entry[key] for key in keys if key in entry}


def model_threads(entry: dict[str, Any], cores: int) -> int:
    """The threads of a job that loads the model: the entry's ``threads``, else its backend's
    default (the embedded model's is one: its jobs run side by side), else every core."""
    default = BACKENDS.options(entry["backend"]).model_fields["threads"].default
    threads = entry.get("threads", default)
    return int(threads if threads is not None else cores)


def alone_threads(entry: dict[str, Any], cores: int) -> int:
    """The threads of the one process that loads the model (``docqa ask``): the entry's
    ``threads``, else every core. A backend's default of one thread is for the DAG's jobs,
    which run side by side; alone, one thread would leave the other cores idle."""
    threads = entry.get("threads")
    return int(threads if threads is not None else cores)


def role_models(config: dict[str, Any]) -> dict[str, str]:
    """Role → model name, from a method's ``<role>_model`` options that name a model."""
    return {
        key.removesuffix(MODEL_OPTION_SUFFIX): value
        for key, value in config.items()
        if key.endswith(MODEL_OPTION_SUFFIX) and value
    }


def retriever_names(config: dict[str, Any]) -> list[str]:
    """The retrievers a method's config entry names: every option ending in ``retriever``
    (``retriever``, ``text_retriever``, ``image_retriever``…), in order, without repeats."""
    names = [value for key, value in config.items() if key.endswith("retriever") and value]
    return list(dict.fromkeys(names))


def fused_entries(retrievers: dict[str, dict[str, Any]], name: str) -> dict[str, dict[str, Any]]:
    """The config entries of the retrievers that entry ``name`` fuses (a hybrid's), by name;
    the index rule builds their indexes first and hands them over."""
    return {fused: retrievers[fused] for fused in component_names(retrievers, name)}


def indexed_retrievers(config: dict[str, Any], method: str) -> dict[str, dict[str, Any]]:
    """Every retriever whose index a run of ``method`` reads, with those a hybrid fuses, each
    before the hybrid: the order in which their indexes are built."""
    wanted: dict[str, dict[str, Any]] = {}

    def add(name: str) -> None:
        for component in fused_entries(config["retrievers"], name):
            add(component)
        wanted[name] = config["retrievers"][name]

    for name in retriever_names(config["methods"][method]):
        add(name)
    return wanted


def needs_knowledge(method: dict[str, Any]) -> bool:
    """Whether a method's type reads a knowledge base of its dataset and model (its class's
    ``needs_knowledge``), which the build_knowledge rule makes first."""
    return bool(METHODS.get(method["type"]).needs_knowledge)


def run_models(config: dict[str, Any], method: str, model: str) -> list[str]:
    """The models a run of ``method`` with ``model`` loads: the model, then its role models."""
    return list(dict.fromkeys([model, *role_models(config["methods"][method]).values()]))


def text_settings(config: dict[str, Any], dataset: str | None = None) -> dict[str, Any]:
    """The text stage's settings: the top-level ``text`` block with the dataset's own ``text``
    entries (its source, above all) laid over it."""
    own = config["datasets"][dataset].get("text", {}) if dataset else {}
    return {**config["text"], **own}
