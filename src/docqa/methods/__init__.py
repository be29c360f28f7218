"""Methods: ways of answering one question about one document through a model.

A method is a class registered by its ``type`` name and built from its config entry; the config
may hold several named instances of one type (``text_rag_top1``, ``text_rag_top4``).
"""

from __future__ import annotations

import importlib
from typing import Any

from docqa.methods.base import Method
from docqa.registry import Registry

METHODS: Registry[type[Method]] = Registry("method")

#: modules that register a method; add yours here
METHOD_MODULES = (
    "docpilot",
    "image_rag",
    "mdocagent",
    "oracle_pages",
    "slideagent",
    "text_rag",
    "vanilla",
)

#: a method option ending in this names another configured model for one of its roles
#: (e.g. ``text_model: llama-3.1-8b``); the infer job loads it beside the run's model
MODEL_OPTION_SUFFIX = "_model"


def load_methods() -> None:
    """Import every method module so that it registers itself."""
    for name in METHOD_MODULES:
        importlib.import_module(f"docqa.methods.{name}")


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


def create_method(config: dict[str, Any]) -> Method:
    """Build a method from its config entry (``type`` plus that type's options)."""
    load_methods()
    options = dict(config)
    method_type = options.pop("type")
    try:
        return METHODS.get(method_type)(**options)
    except TypeError as error:
        raise ValueError(f"method type {method_type!r}: bad options {options}: {error}") from None
