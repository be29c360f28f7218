from pathlib import Path

from docqa.datasets import DATASETS, load_adapters
from docqa.logs import setup_job_logging

setup_job_logging(snakemake.log[0])
load_adapters()
source = snakemake.params.source
DATASETS.get(source["adapter"])(Path(snakemake.output.questions).parent, source["options"])
