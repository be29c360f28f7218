from pathlib import Path

from docqa.backends.preparation import prepare_model
from docqa.runtime.logs import setup_job_logging

setup_job_logging(snakemake.log[0])
prepare_model(snakemake.wildcards.model, snakemake.params.source, Path(snakemake.output[0]))
