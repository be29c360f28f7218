from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.stages.shards import merge_shards
from docqa.workflow.provenance import merge_shard_provenance, write_provenance

setup_job_logging(snakemake.log[0])
predictions = Path(snakemake.output.predictions)
merge_shards(
    [Path(path) for path in snakemake.input.shards], Path(snakemake.input.questions), predictions
)
provenance = merge_shard_provenance([Path(p) for p in snakemake.input.provenance], predictions)
write_provenance(Path(snakemake.output.provenance), provenance)
