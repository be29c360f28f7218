# The data stage. A dataset with a `source:` in the config (config/datasets.yaml) is first
# downloaded into results/downloads/<key>/ with a checksum manifest (rule download_dataset),
# then converted into docqa's data model (rule prepare_dataset); synthslides is generated; a
# local dataset (adapter local) is read from the folder its option root names.
# Only manifest.json is the download's declared output: Snakemake never deletes the downloaded
# files before a rerun, so an interrupted download resumes and a complete one is not repeated.
import re

from docqa.workflow.snakefile import (
    download_job,
    download_keys,
    download_manifests,
    download_spec,
    local_inputs,
    prepare_params,
)

DOWNLOAD_KEYS = download_keys(config["datasets"])


rule download_dataset:
    """Download a dataset's files at its pinned revision, verify them, write manifest.json."""
    output:
        manifest=RESULTS.manifest(),
    log:
        RESULTS.log("downloads", "{download}"),
    wildcard_constraints:
        download="|".join(re.escape(key) for key in DOWNLOAD_KEYS) or "(?!)",
    resources:
        **job_resources("download_dataset"),
    params:
        spec=lambda wildcards: download_spec(config["datasets"], wildcards.download),
    run:
        download_job(wildcards.download, params.spec, output.manifest, log[0])


rule prepare_dataset:
    """Convert a download (or generate a dataset) into docqa's data model."""
    input:
        lambda wildcards: download_manifests(config["datasets"], wildcards.dataset),
        # a local dataset's question file and documents (docqa.datasets.local)
        lambda wildcards: local_inputs(config["datasets"], wildcards.dataset),
    output:
        questions=RESULTS.questions(),
        documents=RESULTS.documents(),
        docs=directory(RESULTS.docs()),
    log:
        RESULTS.log("data", "{dataset}"),
    conda:
        "../envs/cpu.yaml"
    resources:
        **job_resources("prepare_dataset"),
    params:
        source=lambda wildcards: prepare_params(config["datasets"], wildcards.dataset),
    script:
        "scripts/prepare_dataset.py"
