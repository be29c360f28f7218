from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.stages.text import text_dataset

setup_job_logging(snakemake.log[0])
settings = snakemake.params.text
text_dataset(
    Path(snakemake.input.documents),
    Path(snakemake.input.pages),
    Path(snakemake.output.elements),
    workers=snakemake.threads,
    source=settings["source"],
    psm=settings["psm"],
    lang=settings["lang"],
    failures=Path(snakemake.output.failures),
)
