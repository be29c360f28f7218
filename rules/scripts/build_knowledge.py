import os
from pathlib import Path

from docqa.backends.model_spec import ModelSpec
from docqa.runtime.gpu_lock import gpus_for_job
from docqa.runtime.logs import setup_job_logging
from docqa.stages.knowledge import build_dataset_knowledge

setup_job_logging(snakemake.log[0])
params = snakemake.params
# --cores may exceed the machine's cores; torch threads beyond them only contend
threads = {"threads": min(snakemake.threads, os.cpu_count() or 1)}
# the job's own GPUs, taken before anything initialises CUDA (docqa.runtime.gpu_lock)
with gpus_for_job(snakemake.resources.gpu):
    build_dataset_knowledge(
        documents=Path(snakemake.input.documents),
        pages=Path(snakemake.input.pages),
        elements=Path(snakemake.input.elements),
        model_name=snakemake.wildcards.model,
        model=ModelSpec({**params.model, **threads}, Path(snakemake.input.model)),
        settings=params.knowledge,
        cache=Path(params.cache),
        out=Path(snakemake.output[0]),
    )
