"""The one interface every model backend implements, and the options every model entry shares.

A backend declares the options of a model entry with that backend as a :class:`ModelOptions`
subclass in its own module, registered with its name
(``@BACKENDS.register("openai", options=OpenAIOptions)``); the factory gets the validated spec.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from pydantic import model_validator

from docqa.backends.request import ChatRequest
from docqa.core.prediction import Usage
from docqa.runtime.spec import Field, Options

#: Qwen2-VL/Qwen2.5-VL's recommended cap (1280 visual tokens of 28x28 pixels); the default budget
DEFAULT_MAX_PIXELS = 1280 * 28 * 28

#: the key in a field's ``json_schema_extra`` that marks what the prepare_model rule reads
PREPARE = "prepare"


def prepare_field(default: Any, description: str, **bounds: Any) -> Any:
    """A field the prepare_model rule reads (where the weights come from): changing it
    prepares the model again."""
    return Field(default, description=description, json_schema_extra={PREPARE: True}, **bounds)


class ModelOptions(Options):
    """What every model entry may hold besides its backend's own options."""

    entry_keys: ClassVar[tuple[str, ...]] = ("backend",)

    gpus: int = Field(0, ge=0, description="GPUs the job asks Snakemake for")
    threads: int | None = Field(
        None, ge=1, description="CPU threads of the job (null: the cores Snakemake gives it)"
    )
    context_tokens: int | None = Field(
        None,
        ge=1,
        description="the model's context window in tokens, which vanilla fits its request "
        "into (null: vllm's max_model_len or the loaded model's positions; unknown for hosted)",
    )
    plumbing: bool = Field(
        False,
        description="a model meant to check the plumbing, not to answer well: docqa ask says so",
    )

    @classmethod
    def of_entry(cls, entry: Mapping[str, Any]) -> Self:
        """The validated options of model entry ``entry`` (its ``backend`` left out)."""
        return cls.model_validate({k: v for k, v in entry.items() if k not in cls.entry_keys})

    @classmethod
    def prepare_keys(cls) -> tuple[str, ...]:
        """The keys of an entry that the prepare_model rule reads: the backend and every field
        declared with :func:`prepare_field`."""
        marked = [
            name
            for name, declared in cls.model_fields.items()
            if isinstance(declared.json_schema_extra, dict)
            and declared.json_schema_extra.get(PREPARE)
        ]
        return (*cls.entry_keys, *marked)


class HubModelOptions(ModelOptions):
    """A model whose weights the prepare_model rule brings from the Hub (``hf_id`` at a pinned
    ``revision``) or finds in a local folder (``path``): the transformers and vllm backends."""

    hf_id: str | None = prepare_field(
        None, "a Hugging Face Hub model id", pattern=r"^[\w.-]+/[\w.-]+$"
    )
    revision: str | None = prepare_field(
        None,
        "the Hub commit the weights are pinned to (40 hex characters)",
        pattern=r"^[0-9a-f]{40}$",
    )
    hf_cache: str | None = prepare_field(
        None, "the Hub cache to download into (null: HF_HUB_CACHE)"
    )
    path: str | None = prepare_field(None, "a local transformers folder, used in place")
    max_pixels: int | None = Field(
        DEFAULT_MAX_PIXELS,
        ge=784,
        description="pixel budget per page image (1280 x 28 x 28); null: the processor's own",
    )
    min_pixels: int | None = Field(
        None, ge=1, description="fewest pixels per page (Qwen processors)"
    )
    trust_remote_code: bool = Field(False, description="run the model repository's own Python code")

    @model_validator(mode="after")
    def _weights_named(self) -> Self:
        if self.path is None and (self.hf_id is None or self.revision is None):
            raise ValueError(
                "say where the weights are: hf_id with a pinned revision (a 40-character "
                "commit), or path (a local folder)"
            )
        return self


@dataclass
class Completion:
    """A model's answer to one request.

    ``truncated_tokens`` counts the prompt tokens the backend cut (from the middle of the
    prompt) to fit the model's input limit; 0 when the whole prompt was read.
    ``retried_max_pixels`` is the smaller pixel budget the answer was made with after the
    request ran out of memory at the configured one; ``None`` when that did not happen. Such an
    answer depends on the hardware as much as on the model, so the client does not cache it.
    """

    text: str
    usage: Usage = field(default_factory=Usage)
    truncated_tokens: int = 0
    retried_max_pixels: int | None = None


class Backend(ABC):
    """A model that answers batches of chat requests.

    ``identity`` names everything that changes the model's outputs (id, revision, quantization,
    pixel budget, prompt format); the response cache keys on it.
    """

    #: how many requests ``generate`` takes at once; the batching client respects it
    max_batch_size: int = 8
    #: the model's context window in tokens (prompt and answer together), ``None`` when unknown:
    #: the entry's ``context_tokens``, else what the backend reads from the loaded model
    context_tokens: int | None = None

    @property
    @abstractmethod
    def identity(self) -> dict[str, Any]: ...

    def validate(self, request: ChatRequest) -> None:  # noqa: B027 - optional check
        """Raise ``ValueError`` if this backend can never answer ``request`` (for example image
        parts sent to a text-only model). The client calls it before queueing a request, so one
        bad request fails its own caller rather than the whole batch it would have joined."""

    @abstractmethod
    def generate(self, requests: list[ChatRequest]) -> list[Completion]:
        """Answer every request, in order. Runs in a worker thread, never on the event loop."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release the model's memory."""
