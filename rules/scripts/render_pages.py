from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.workflow.jobs import render

setup_job_logging(snakemake.log[0])
render(
    Path(snakemake.input.documents), Path(snakemake.output.pages).parent, snakemake.params.render
)
