from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.stages.ocr import ocr_dataset

setup_job_logging(snakemake.log[0])
settings = snakemake.params.ocr
ocr_dataset(
    Path(snakemake.input.pages),
    Path(snakemake.output.elements),
    workers=snakemake.threads,
    psm=settings["psm"],
    lang=settings["lang"],
    failures=Path(snakemake.output.failures),
)
