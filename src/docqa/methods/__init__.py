"""Methods: ways of answering one question about one document through a model.

A method is a class registered by its ``type`` name with its option spec (a subclass of
:class:`~docqa.methods.base.MethodOptions`, declared next to it) and built from its config
entry; the config may hold several named instances of one type (``text_rag_top1``,
``text_rag_top4``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from docqa.runtime.registry import Registry
from docqa.runtime.spec import check_entry

if TYPE_CHECKING:  # the workflow reads this registry when it parses: no model client, no PIL
    from docqa.methods.base import Method

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


def create_method(config: Mapping[str, Any]) -> Method:
    """Build a method from its config entry (``type`` plus that type's options), checked
    against the type's option spec: a bad option is a ValueError naming each problem."""
    from docqa.methods.base import MethodOptions

    method_type = config["type"]
    method = METHODS.get(method_type)
    spec = METHODS.options(method_type)
    if not issubclass(spec, MethodOptions):
        raise ValueError(
            f"method type {method_type!r} has no option spec: register it with "
            "options=<a subclass of docqa.methods.base.MethodOptions>"
        )
    problems = check_entry(spec, config, method_type, f"method type {method_type}")
    if problems:
        raise ValueError(f"method type {method_type!r}: bad options: " + "; ".join(problems))
    values = {key: value for key, value in config.items() if key not in spec.entry_keys}
    return method(spec.model_validate(values))
