rule report:
    """The results table (CSV, Markdown) and the figures (PNG, PDF) of every experiment."""
    input:
        scores=score_files(),
        recalls=recall_files(),
        failures=failure_files(),
    output:
        csv="results/tables/results.csv",
        markdown="results/tables/results.md",
        retrieval_csv="results/tables/retrieval.csv",
        retrieval_markdown="results/tables/retrieval.md",
        **{
            f"{name}_{ext}": f"results/figures/{name}.{ext}"
            for name in FIGURES
            for ext in ("png", "pdf")
        },
    log:
        "results/logs/report.log",
    conda:
        "../envs/cpu.yaml"
    script:
        "scripts/report.py"
