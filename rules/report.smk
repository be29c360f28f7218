# The report stage: tables (CSV, Markdown; paper tables also LaTeX and HTML), figures (PNG,
# PDF) and per-question trace pages. Outputs marked with report() make up
# `snakemake --report <results>/report.html` with the run's --configfile (the command is printed
# at the end of a run; captions in rules/report/).
report: "report/workflow.rst"


rule traces:
    """One HTML page per question of a run (its trace, with the pages it looked at and the
    prompts its model read) and an index of them, right or wrong by the run's scores (docqa
    traces)."""
    input:
        predictions=RESULTS.predictions(),
        questions=RESULTS.questions(),
        pages=RESULTS.pages(),
        scores=RESULTS.scores(),
    output:
        directory(RESULTS.traces()),
    log:
        RESULTS.log("traces", RUN),
    conda:
        "../envs/cpu.yaml"
    resources:
        **job_resources("traces"),
    script:
        "scripts/report_traces.py"


rule report:
    """The results tables, the paper tables of config report.tables and the figures the
    experiment grid has inputs for (docqa.report.plan)."""
    input:
        scores=score_files(),
        timings=timing_files(),
        recalls=recall_files(),
        failures=failure_files(),
        reported="config/reported_numbers.yaml",
        traces=trace_dirs(),
    output:
        **paper_table_outputs(),
        **figure_outputs(),
        csv=report(RESULTS.table("results", "csv"), caption="report/results.rst", category="Tables"),
        markdown=RESULTS.table("results", "md"),
        retrieval_csv=report(
            RESULTS.table("retrieval", "csv"), caption="report/retrieval.rst", category="Tables"
        ),
        retrieval_markdown=RESULTS.table("retrieval", "md"),
    log:
        RESULTS.log("report"),
    conda:
        "../envs/cpu.yaml"
    resources:
        **job_resources("report"),
    params:
        tables=config.get("report", {}).get("tables", []),
        figures=config.get("report", {}).get("figures", {}),
        top_k=top_k_params(),
        quantization=quantization_groups(config, GRID),
        # where each run's timings and provenance lie: <results>/runs, above {ds}/{method}/{model}
        runs_dir=lambda wildcards, input: runs_dir_of(input.timings),
        traces=trace_links(),
    script:
        "scripts/report.py"
