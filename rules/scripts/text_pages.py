from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.workflow.jobs import page_text

setup_job_logging(snakemake.log[0])
page_text(
    Path(snakemake.input.documents),
    Path(snakemake.input.pages),
    Path(snakemake.output.elements),
    Path(snakemake.output.failures),
    snakemake.params.text,
    workers=snakemake.threads,
)
