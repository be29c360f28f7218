from docqa.workflow.snakefile import fused_entries, wants_gpu


rule build_index:
    """One retriever index per document, and the retriever's recall@k on the dataset. Page
    embeddings are built here once per (dataset, retriever) and reused by every method and
    model; a hybrid reuses the indexes of the retrievers it fuses, which are built first."""
    input:
        questions=RESULTS.questions(),
        pages=RESULTS.pages(),
        elements=RESULTS.elements(),
        fused=lambda w: [
            RESULTS.index_docs(w.dataset, name)
            for name in fused_entries(config["retrievers"], w.retriever)
        ],
    output:
        docs=directory(RESULTS.index_docs()),
        recall=RESULTS.recall(),
    log:
        RESULTS.log("index", "{dataset}", "{retriever}"),
    conda:
        "../envs/retrieval.yaml"
    resources:
        **job_resources("build_index", gpus=retriever_gpus),
    params:
        retriever=retriever_config,
        fused=lambda w: fused_entries(config["retrievers"], w.retriever),
    script:
        "scripts/build_index.py"
