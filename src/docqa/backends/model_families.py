"""What differs between VLM families behind the Auto classes: how a page's pixel budget reaches
the model, and which token stands for image features.

Everything else (chat template, image placeholders, padding, generation) goes through
``AutoProcessor`` and ``AutoModelForImageTextToText`` alike for every family. The budget:

- ``processor`` (Qwen2-VL, Qwen2.5-VL): the image processor resizes each page to a multiple of
  28 pixels between ``min_pixels`` and ``max_pixels`` (its ``size`` argument);
- ``longest_edge`` (Idefics3, which SmolVLM is): the processor scales every page to a fixed
  longest edge, up or down, then tiles it; docqa does that scaling itself, capped by the budget,
  and turns the processor's own resize off;
- ``shrink`` (LLaVA, LLaVA-NeXT, LLaVA-OneVision and any other family): pages larger than the
  budget are scaled down before the processor; for the any-resolution LLaVAs a smaller page
  picks a smaller tile grid, plain LLaVA always sees one fixed-size image.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PIL import Image

from docqa.backends.pixels import scale_longest_edge, shrink


@dataclass(frozen=True)
class Family:
    name: str
    budget: str = "shrink"

    def prepare(self, image: Image.Image, max_pixels: int | None, processor: Any) -> Image.Image:
        """``image`` as this family's processor should receive it under ``max_pixels``."""
        if max_pixels is None or self.budget == "processor":
            return image
        if self.budget == "longest_edge":
            return scale_longest_edge(
                image, processor.image_processor.size["longest_edge"], max_pixels
            )
        return shrink(image, max_pixels)

    def processor_kwargs(
        self, max_pixels: int | None, min_pixels: int | None, processor: Any
    ) -> dict[str, Any]:
        """Extra arguments of the processor call that apply the budget (Qwen's ``size`` is in
        pixels: ``longest_edge`` is the most, ``shortest_edge`` the fewest per image)."""
        if self.budget == "processor" and max_pixels is not None:
            if min_pixels is None:
                min_pixels = processor.image_processor.size["shortest_edge"]
            size = {"longest_edge": max_pixels, "shortest_edge": min(min_pixels, max_pixels)}
            return {"images_kwargs": {"size": size}}
        if self.budget == "longest_edge" and max_pixels is not None:
            return {"images_kwargs": {"do_resize": False}}
        return {}


#: model_type (config.json) -> family; a model type not listed is served as ``shrink``
FAMILIES = {
    family.name: family
    for family in (
        Family("qwen2_vl", "processor"),
        Family("qwen2_5_vl", "processor"),
        Family("idefics3", "longest_edge"),
        Family("llava"),
        Family("llava_next"),
        Family("llava_onevision"),
    )
}


def family_of(model_type: str) -> Family:
    return FAMILIES.get(model_type, Family(model_type))


def image_token_id(config: Any) -> int | None:
    """The id of the placeholder token that image features replace (``None`` if there is none)."""
    for name in ("image_token_id", "image_token_index"):
        value = getattr(config, name, None)
        if isinstance(value, int):
            return value
    return None


def is_vlm(model_type: str | None) -> bool:
    """Whether ``AutoModelForImageTextToText`` serves this model type (else it is text-only)."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES

    return model_type in MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES
