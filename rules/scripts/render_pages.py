from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.stages.render import MAX_PAGE_PIXELS, render_dataset

setup_job_logging(snakemake.log[0])
settings = snakemake.params.render
render_dataset(
    Path(snakemake.input.documents),
    Path(snakemake.output.pages).parent,
    dpi=settings["dpi"],
    thumb_width=settings["thumb_width"],
    grid=tuple(settings["grid"]),
    # absent from the config unless set: the default leaves existing renders up to date
    max_page_pixels=settings.get("max_page_pixels", MAX_PAGE_PIXELS),
)
