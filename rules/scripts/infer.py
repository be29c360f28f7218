import os
from pathlib import Path

from docqa.logs import setup_job_logging
from docqa.runner import ModelSpec, run_inference

setup_job_logging(snakemake.log[0])
params = snakemake.params
# --cores may exceed the machine's cores; torch threads beyond them only contend
threads = {"threads": min(snakemake.threads, os.cpu_count() or 1)}
run_inference(
    questions=Path(snakemake.input.questions),
    documents=Path(snakemake.input.documents),
    pages=Path(snakemake.input.pages),
    overviews=Path(snakemake.input.overviews),
    elements=Path(snakemake.input.elements),
    index_dirs={name: Path(path) for name, path in zip(params.retrievers, snakemake.input.indexes)},
    failures=Path(snakemake.input.failures),
    method_config=params.method,
    retriever_configs=params.retrievers,
    model=ModelSpec({**params.model, **threads}, Path(snakemake.input.model)),
    role_models={
        role: ModelSpec({**config, **threads}, Path(folder))
        for (role, config), folder in zip(params.role_models.items(), snakemake.input.role_models)
    },
    cache=Path(params.cache),
    out=Path(snakemake.output.predictions),
)
