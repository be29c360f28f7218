from pathlib import Path

from docqa.datasets import DATASETS
from docqa.runtime.logs import setup_job_logging

setup_job_logging(snakemake.log[0])
source = snakemake.params.source
DATASETS.get(source["adapter"])(Path(snakemake.output.questions).parent, source["options"])
