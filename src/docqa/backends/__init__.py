"""Model backends: one interface (``Backend``) for every model, created by name from the config.

A backend module declares the options of its model entries as a ``ModelOptions`` spec
(``docqa.backends.base``) and registers a factory ``(options, model_dir) -> Backend`` with it,
under the name that ``models.<name>.backend`` selects; ``model_dir`` is the folder the
prepare_model rule wrote. A registered module imports no model library (torch, transformers,
vllm): its factory imports the implementation when a model is created, so the specs can be read
when Snakemake parses the workflow and the cache and the client stay light.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

from docqa.backends.base import Backend, ModelOptions
from docqa.runtime.registry import Registry
from docqa.runtime.spec import check_entry

BackendFactory = Callable[[Any, Path], Backend]

#: registered name → the module that registers it; add yours here
BACKENDS: Registry[BackendFactory] = Registry(
    "backend",
    {
        "embedded": "docqa.backends.embedded",
        "transformers": "docqa.backends.transformers",
        "openai": "docqa.backends.openai",
        "vllm": "docqa.backends.vllm",
        "gold_teacher": "docqa.training.gold_teacher",
    },
)


def create_backend(model_cfg: Mapping[str, Any], model_dir: Path) -> Backend:
    """The backend that ``model_cfg["backend"]`` names, on the prepared model in ``model_dir``,
    built with the entry's validated options; options the backend does not take, or values it
    does not accept, are an error naming the model (its folder's name) and the key."""
    name = model_cfg["backend"]
    factory = BACKENDS.get(name)
    spec = BACKENDS.options(name)
    model_dir = Path(model_dir)
    problems = check_entry(spec, model_cfg, f"models.{model_dir.name}", f"backend {name}")
    if problems:
        raise ValueError("; ".join(problems))
    options = cast(ModelOptions, spec.model_validate(_options(spec, model_cfg)))
    backend = factory(options, model_dir)
    if options.context_tokens is not None:  # the entry's word over what the backend read
        backend.context_tokens = options.context_tokens
    return backend


def _options(spec: Any, model_cfg: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in model_cfg.items() if key not in spec.entry_keys}
