"""Page-image late interaction: ColPali and ColQwen2 through transformers' retrieval classes.

Each rendered page image becomes one 128-d vector per image patch and prompt token; a query
becomes one vector per token; pages rank by exact MaxSim within the document. The OCR text is
not used, so a page without any still ranks by what it shows.

``model`` is a local folder with the transformers-format model and its processor, prepared once
(see the docqa.retrievers docstring). It must be an ``-hf`` conversion such as
``vidore/colqwen2-v1.0-hf``, which ``ColQwen2ForRetrieval`` / ``ColPaliForRetrieval`` load; the
original ``vidore/colqwen2-v1.0`` adapters are colpali-engine's format and do not load here.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from docqa.retrievers import RETRIEVERS, Device, IndexedPage, RetrieverOptions
from docqa.retrievers.manifest import read_manifest, write_manifest
from docqa.retrievers.model_files import check_device, model_folder
from docqa.retrievers.multivector import MaxSimSearcher, PageVectors, save_page_vectors
from docqa.runtime.spec import Field

if TYPE_CHECKING:
    import torch


@lru_cache(maxsize=2)
def _load(family: str, folder: Path, device: str, dtype: str, attention: str | None) -> Any:
    """(model, processor) of a ``family`` ("ColPali", "ColQwen2"), once per process."""
    import torch
    import transformers

    model_class = getattr(transformers, f"{family}ForRetrieval")
    processor_class = getattr(transformers, f"{family}Processor")
    check_device(device, family.lower())
    extra = {"attn_implementation": attention} if attention else {}
    model = model_class.from_pretrained(
        folder, dtype=getattr(torch, dtype), local_files_only=True, **extra
    )
    processor = processor_class.from_pretrained(folder, local_files_only=True)
    return model.to(device).eval(), processor


class PageImageOptions(RetrieverOptions):
    """The options of every page-image family (ColPali's own)."""

    model: str = Field(description="a local folder with the -hf model and its processor")
    device: Device = Field("cpu", description="cpu, cuda or cuda:N")
    dtype: Literal["float32", "bfloat16", "float16"] = Field(
        "float32", description="the model's weights and compute"
    )
    batch_size: int = Field(4, ge=1, description="page images encoded at once")
    attn_implementation: Literal["eager", "sdpa", "flash_attention_2"] | None = Field(
        None, description="transformers' attention kernel (null: the model's default)"
    )


class ColQwen2Options(PageImageOptions):
    max_pixels: int | None = Field(
        None, ge=3136, description="pixel budget per page image (null: the processor's own)"
    )


class PageImageRetriever:
    """The retriever of one family of transformers ``<Family>ForRetrieval`` models."""

    family: ClassVar[str]

    def __init__(self, options: PageImageOptions) -> None:
        self.options = options

    def _settings(self) -> dict[str, Any]:
        """What the page vectors depend on, kept in the index manifest and checked on load."""
        return {"model": self.options.model}

    def _image_options(self, processor: Any) -> dict[str, Any]:
        """Processor options for page images (the pixel budget, where the family has one)."""
        return {}

    def _model(self) -> Any:
        options = self.options
        folder = model_folder(options.model, self.family.lower())
        return _load(
            self.family, folder, options.device, options.dtype, options.attn_implementation
        )

    def _embed(self, inputs: Any) -> list[torch.Tensor]:
        """One (tokens x dim) tensor per input row, padding dropped, on the CPU."""
        import torch

        model, _ = self._model()
        inputs = inputs.to(self.options.device)
        inputs.pop("labels", None)  # the processor adds training labels to image batches
        if "pixel_values" in inputs:
            inputs["pixel_values"] = inputs["pixel_values"].to(model.dtype)
        with torch.inference_mode():
            embeddings = model(**inputs).embeddings
        mask = inputs["attention_mask"].bool()
        return [row[keep].float().cpu() for row, keep in zip(embeddings, mask, strict=True)]

    def _encode_query(self, query: str) -> torch.Tensor:
        _, processor = self._model()
        return self._embed(processor(text=[query], return_tensors="pt"))[0]

    def build(self, pages: list[IndexedPage], out_dir: Path) -> None:
        from PIL import Image

        _, processor = self._model()
        options = self._image_options(processor)
        vectors: list[torch.Tensor] = []
        batch_size = self.options.batch_size
        for start in range(0, len(pages), batch_size):
            images = []
            for page in pages[start : start + batch_size]:
                with Image.open(page.image) as image:
                    images.append(image.convert("RGB"))
            vectors += self._embed(processor(images=images, return_tensors="pt", **options))
        save_page_vectors(out_dir, vectors)
        write_manifest(out_dir, len(pages), **self._settings())

    def load(self, index_dir: Path) -> MaxSimSearcher:
        read_manifest(index_dir, **self._settings())
        return MaxSimSearcher(PageVectors.load(index_dir), self._encode_query)


@RETRIEVERS.register("colpali", options=PageImageOptions)
class ColPaliRetriever(PageImageRetriever):
    """PaliGemma-based ColPali (images at the processor's fixed size, 448x448 for v1.3)."""

    family = "ColPali"


@RETRIEVERS.register("colqwen2", options=ColQwen2Options)
class ColQwen2Retriever(PageImageRetriever):
    """Qwen2-VL-based ColQwen2; ``max_pixels`` caps a page's pixels (and so its vectors: one per
    28x28 pixels), which bounds index size and time on long documents."""

    family = "ColQwen2"
    options: ColQwen2Options

    def _settings(self) -> dict[str, Any]:
        return {**super()._settings(), "max_pixels": self.options.max_pixels}

    def _image_options(self, processor: Any) -> dict[str, Any]:
        max_pixels = self.options.max_pixels
        if max_pixels is None:
            return {}
        # Qwen2-VL's size is in pixels: longest_edge = max_pixels, shortest_edge = min_pixels
        min_pixels = processor.image_processor.size.shortest_edge
        return {"size": {"longest_edge": max_pixels, "shortest_edge": min_pixels}}
