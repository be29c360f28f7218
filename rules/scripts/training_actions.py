import json
from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.training.compare import compare_to_baseline
from docqa.training.figures import plot_action_frequencies

setup_job_logging(snakemake.log[0])
runs = dict(zip(snakemake.params.models, map(Path, snakemake.input.runs), strict=True))
output = snakemake.output
plot_action_frequencies(runs, Path(output.png), Path(output.pdf), Path(output.table))
scores = dict(zip(snakemake.params.models, map(Path, snakemake.input.scores), strict=True))
Path(output.comparison).write_text(json.dumps(compare_to_baseline(scores), indent=2) + "\n")
