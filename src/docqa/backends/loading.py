"""Loading a prepared model's weights, with failures that name the model and the fix.

A job whose model cannot load fails as a whole (nothing could be answered), so the message
must say what to do: prepare the weights again, run on a GPU node, or pick a smaller precision.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from docqa.backends.devices import device_map, is_out_of_memory
from docqa.backends.quantization import load_options


@contextmanager
def load_errors(name: str, weights: Path, precision: str, device: str) -> Iterator[None]:
    """Turn the ways a load fails into errors that name the model ``name`` and the fix."""
    try:
        yield
    except OSError as error:
        raise RuntimeError(
            f"model {name}: cannot read its weights in {weights} ({error}); the prepared folder "
            f"is missing or incomplete: delete results/models/{name} and run the prepare_model "
            f"rule again (snakemake results/models/{name})"
        ) from error
    except Exception as error:
        if not is_out_of_memory(error):
            raise
        raise RuntimeError(
            f"model {name}: out of memory while loading it in {precision} on device {device}; "
            f"set models.{name}.precision to nf4 (or int8), spread it over more GPUs "
            f"(device: auto and gpus: N), or run it on a larger GPU"
        ) from error


def load_pretrained(
    auto_class: Any,
    name: str,
    weights: Path,
    *,
    precision: str,
    device: str,
    attn_implementation: str,
    trust_remote_code: bool = False,
) -> Any:
    """``auto_class.from_pretrained`` on a local folder (never the network), placed on ``device``
    in ``precision``, in eval mode."""
    placement = device_map(name, device)
    with load_errors(name, weights, precision, device):
        model = auto_class.from_pretrained(
            weights,
            device_map=placement,
            attn_implementation=attn_implementation,
            local_files_only=True,
            trust_remote_code=trust_remote_code,
            **load_options(precision),
        )
    return model.eval()
