# DocPilot's curriculum training (docqa.training, docs/training.md): its rules run only for a
# `training:` section of the config; without one nothing asks for them and the DAG is unchanged.
#   synthesize_trajectories -> filter_trajectories -> build_sft -> train (stage by stage)
# A trained adapter becomes a model entry ({backend: transformers, path: ..., adapter: ...})
# that the infer rule runs like any other model.
# no training: section, no match (these rules then never run)
wildcard_constraints:
    training="|".join(TRAINING) or "(?!)",
    stage="|".join(stage_names(config)) or "(?!)",


rule synthesize_trajectories:
    """The docpilot method run by the teacher (told each question's gold answer and
    evidence pages) over the training questions; every call it answered is recorded."""
    input:
        questions=training_data("questions"),
        documents=training_data("documents"),
        pages=training_data("pages"),
        overviews=training_data("overviews"),
        elements=training_data("elements"),
        teacher=training_model_dir("teacher"),
    output:
        f"{RESULTS.training()}/trajectories/{{dataset}}.jsonl",
    log:
        RESULTS.log("training", "{training}", "synthesize", "{dataset}"),
    conda:
        "../envs/train.yaml"
    resources:
        **job_resources("synthesize_trajectories", gpus=teacher_gpus),
    params:
        method=lambda wildcards: config["methods"][TRAINING[wildcards.training]["method"]],
        teacher=training_model_config("teacher"),
        max_questions=lambda wildcards: TRAINING[wildcards.training].get("max_questions"),
    script:
        "scripts/synthesize_trajectories.py"


rule filter_trajectories:
    """Quality control: every dropped trajectory or trace counted by reason."""
    input:
        trajectories=lambda wildcards: list(training_trajectories(wildcards).values()),
        student=training_model_dir("student"),
    output:
        multi=f"{RESULTS.training()}/filtered/multi.jsonl",
        single=f"{RESULTS.training()}/filtered/single.jsonl",
        report=f"{RESULTS.training()}/filtered/report.json",
    log:
        RESULTS.log("training", "{training}", "filter"),
    conda:
        "../envs/train.yaml"
    resources:
        **job_resources("filter_trajectories"),
    params:
        student=training_model_config("student"),
        datasets=lambda wildcards: list(training_trajectories(wildcards)),
        metrics=training_metrics,
        settings=lambda wildcards: TRAINING[wildcards.training].get("filter", {}),
    script:
        "scripts/filter_trajectories.py"


rule build_sft:
    """Chat-format examples: stage 1's single-ability calls, stage 2's trajectories."""
    input:
        single=f"{RESULTS.training()}/filtered/single.jsonl",
        multi=f"{RESULTS.training()}/filtered/multi.jsonl",
    output:
        single=f"{RESULTS.training()}/sft/single.jsonl",
        multi=f"{RESULTS.training()}/sft/multi.jsonl",
        counts=f"{RESULTS.training()}/sft/counts.json",
    log:
        RESULTS.log("training", "{training}", "build_sft"),
    conda:
        "../envs/train.yaml"
    resources:
        **job_resources("build_sft"),
    script:
        "scripts/build_sft.py"


rule train:
    """One training stage (TRL SFT + PEFT LoRA); resumes from its last checkpoint."""
    input:
        data=lambda wildcards: f"{RESULTS.training(wildcards.training)}/sft/"
        f"{TRAINING[wildcards.training]['stages'][wildcards.stage]['data']}.jsonl",
        start=stage_start,
        student=training_model_dir("student"),
    output:
        f"{RESULTS.training()}/{{stage}}/train.json",
    log:
        RESULTS.log("training", "{training}", "{stage}"),
    conda:
        "../envs/train.yaml"
    threads: all_cores
    resources:
        **job_resources("train", gpus=training_gpus),
    params:
        entry=training_entry,
        student=training_model_config("student"),
    script:
        "scripts/train.py"


rule training_figures:
    """Loss curves of every stage; with evaluate:, calls per action per model (paper D.2)."""
    input:
        stages=lambda wildcards: [
            f"{RESULTS.training(wildcards.training)}/{stage}/train.json"
            for stage in TRAINING[wildcards.training]["stages"]
        ],
    output:
        png=f"{RESULTS.training()}/loss.png",
        pdf=f"{RESULTS.training()}/loss.pdf",
    log:
        RESULTS.log("training", "{training}", "figures"),
    conda:
        "../envs/cpu.yaml"
    resources:
        **job_resources("training_figures"),
    params:
        stages=lambda wildcards: list(TRAINING[wildcards.training]["stages"]),
    script:
        "scripts/training_figures.py"


rule training_action_figure:
    """Calls per action per evaluated model (paper D.2), and each model's score against the
    first (the untrained student) with the paired bootstrap."""
    input:
        runs=lambda wildcards: list(evaluation_runs(wildcards).values()),
        scores=evaluation_scores,
    output:
        png=f"{RESULTS.training()}/actions.png",
        pdf=f"{RESULTS.training()}/actions.pdf",
        table=f"{RESULTS.training()}/actions.json",
        comparison=f"{RESULTS.training()}/comparison.json",
    log:
        RESULTS.log("training", "{training}", "actions"),
    conda:
        "../envs/cpu.yaml"
    resources:
        **job_resources("training_action_figure"),
    params:
        models=lambda wildcards: list(evaluation_runs(wildcards)),
    script:
        "scripts/training_actions.py"
