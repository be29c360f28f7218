from pathlib import Path

from docqa.logs import setup_job_logging
from docqa.runner import run_inference

setup_job_logging(snakemake.log[0])
params = snakemake.params
run_inference(
    questions=Path(snakemake.input.questions),
    pages=Path(snakemake.input.pages),
    elements=Path(snakemake.input.elements),
    index_dirs={name: Path(path) for name, path in zip(params.retrievers, snakemake.input.indexes)},
    failures=Path(snakemake.input.failures),
    method_config=params.method,
    retriever_configs=params.retrievers,
    model_config={**params.model, "threads": snakemake.threads},
    model_dir=Path(snakemake.input.model),
    cache=Path(params.cache),
    out=Path(snakemake.output.predictions),
)
