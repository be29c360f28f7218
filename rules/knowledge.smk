rule build_knowledge:
    """SlideAgent's query-agnostic knowledge base (global, page and element knowledge) of every
    document, built once per (dataset, model) and read by every slideagent question and rerun;
    resumable per document. Another model has its own folder, so a model swap rebuilds only
    that model's knowledge."""
    input:
        documents=RESULTS.documents(),
        pages=RESULTS.pages(),
        elements=RESULTS.elements(),
        model=RESULTS.model(),
    output:
        directory(RESULTS.knowledge()),
    log:
        RESULTS.log("knowledge", "{dataset}", "{model}"),
    conda:
        "../envs/infer.yaml"
    threads: model_threads
    resources:
        **job_resources("build_knowledge", gpus=model_gpus),
    params:
        model=model_config,
        knowledge=config.get("knowledge", {}),
        cache=config["cache"],
    script:
        "scripts/build_knowledge.py"
