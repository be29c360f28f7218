from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.workflow.jobs import prepare_model

setup_job_logging(snakemake.log[0])
# params.source: what the model entry says of its weights (docqa.workflow.pipeline.model_source)
prepare_model(snakemake.wildcards.model, snakemake.params.source, Path(snakemake.output[0]))
