"""Methods: ways of answering one question about one document through a model.

A method is a class registered by its ``type`` name and built from its config entry; the config
may hold several named instances of one type (``text_rag_top1``, ``text_rag_top4``).
"""

from __future__ import annotations

from typing import Any

from docqa.methods.base import Method
from docqa.runtime.registry import Registry

#: registered ``type`` name → the module that registers it; add yours here
METHODS: Registry[type[Method]] = Registry(
    "method",
    {
        name: f"docqa.methods.{name}"
        for name in (
            "docpilot",
            "image_rag",
            "mdocagent",
            "oracle_pages",
            "slideagent",
            "text_rag",
            "vanilla",
        )
    },
)


def create_method(config: dict[str, Any]) -> Method:
    """Build a method from its config entry (``type`` plus that type's options)."""
    options = dict(config)
    method_type = options.pop("type")
    try:
        return METHODS.get(method_type)(**options)
    except TypeError as error:
        raise ValueError(f"method type {method_type!r}: bad options {options}: {error}") from None
