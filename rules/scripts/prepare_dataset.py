from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.stages.data import prepare_dataset

setup_job_logging(snakemake.log[0])
prepare_dataset(snakemake.params.source, Path(snakemake.output.questions).parent)
