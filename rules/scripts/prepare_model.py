from pathlib import Path

from docqa.logs import setup_job_logging
from docqa.models import prepare_model

setup_job_logging(snakemake.log[0])
prepare_model(snakemake.wildcards.model, snakemake.params.source, Path(snakemake.output[0]))
