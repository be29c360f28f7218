from pathlib import Path

from docqa.runtime.gpu_lock import gpus_for_job
from docqa.runtime.logs import setup_job_logging
from docqa.stages.knowledge import build_dataset_knowledge
from docqa.workflow.jobs import model_spec

setup_job_logging(snakemake.log[0])
params = snakemake.params
# the job's own GPUs, taken before anything initialises CUDA (docqa.runtime.gpu_lock)
with gpus_for_job(snakemake.resources.gpu):
    build_dataset_knowledge(
        documents=Path(snakemake.input.documents),
        pages=Path(snakemake.input.pages),
        elements=Path(snakemake.input.elements),
        model_name=snakemake.wildcards.model,
        model=model_spec(params.model, Path(snakemake.input.model), snakemake.threads),
        settings=params.knowledge,
        cache=Path(params.cache),
        out=Path(snakemake.output[0]),
    )
