from pathlib import Path

from docqa.runtime.gpu_lock import gpus_for_job
from docqa.runtime.logs import setup_job_logging
from docqa.stages.infer import run_inference
from docqa.stages.shards import Shard
from docqa.workflow.jobs import model_spec
from docqa.workflow.provenance import build_provenance, write_provenance

setup_job_logging(snakemake.log[0])
params = snakemake.params
wildcards = snakemake.wildcards
# rule infer_shard answers one block of the questions; rule infer all of them
# wildcards is a Namedlist: `in` looks at its values, so ask its keys
sharded = "shard" in wildcards.keys()  # noqa: SIM118
shard = Shard(int(wildcards.shard), int(wildcards.shards)) if sharded else Shard()
predictions = Path(snakemake.output.predictions)
# the job's own GPUs, taken before anything initialises CUDA (docqa.runtime.gpu_lock)
with gpus_for_job(snakemake.resources.gpu):
    run_inference(
        questions=Path(snakemake.input.questions),
        documents=Path(snakemake.input.documents),
        pages=Path(snakemake.input.pages),
        overviews=Path(snakemake.input.overviews),
        elements=Path(snakemake.input.elements),
        index_dirs={
            name: Path(path)
            for name, path in zip(params.retrievers, snakemake.input.indexes, strict=True)
        },
        failures=Path(snakemake.input.failures),
        method_config=params.method,
        retriever_configs=params.retrievers,
        model=model_spec(params.model, Path(snakemake.input.model), snakemake.threads),
        role_models={
            role: model_spec(config, Path(folder), snakemake.threads)
            for (role, config), folder in zip(
                params.role_models.items(), snakemake.input.role_models, strict=True
            )
        },
        cache=Path(params.cache),
        out=predictions,
        shard=shard,
        # slideagent's knowledge base (rule build_knowledge); empty for other methods
        knowledge=Path(snakemake.input.knowledge) if snakemake.input.knowledge else None,
        max_infrastructure_errors=params.max_infrastructure_errors,
    )
    run = {"dataset": wildcards.dataset, "method": wildcards.method, "model": wildcards.model}
    run |= {"shards": shard.count, **({"shard": shard.name} if shard.count > 1 else {})}
    provenance = build_provenance(
        run=run,
        config_slice={
            "dataset": params.dataset,
            "method": params.method,
            "model": params.model,
            "role_models": params.role_models,
            "retrievers": params.retrievers,
        },
        predictions=predictions,
        questions=Path(snakemake.input.questions),
        documents=Path(snakemake.input.documents),
        manifests=[Path(path) for path in params.manifests],
        model_dir=Path(snakemake.input.model),
    )
    write_provenance(Path(snakemake.output.provenance), provenance)
