# docqa: multi-page visual document question answering, end to end.
#   snakemake --cores 8          reproduce everything config/config.yaml asks for
#   snakemake -n --reason        see what would run and why
from snakemake.utils import min_version

min_version("9.0")

from docqa.workflow.snakefile import check_yaml_syntax

# a YAML syntax error in the config, reported with its file and line
check_yaml_syntax("config/config.yaml")


configfile: "config/config.yaml"


# The image of every rule under --sdm apptainer: config key container_image, a local .sif built
# from the Dockerfile by default (docs/scaling-out.md says how); ignored without --sdm apptainer.
container: config.get("container_image", "docqa.sif")


include: "rules/common.smk"
include: "rules/resources.smk"
include: "rules/data.smk"
include: "rules/render.smk"
include: "rules/text.smk"
include: "rules/index.smk"
include: "rules/knowledge.smk"
include: "rules/infer.smk"
include: "rules/score.smk"
include: "rules/report.smk"
include: "rules/training.smk"


onsuccess:
    # the report of this config's results folder (config key `results`), with its config files
    print(
        "The HTML report of these results: "
        + report_command(RESULTS, workflow.overwrite_configfiles)
    )


rule all:
    default_target: True
    input:
        report_outputs(),
        training_outputs(),
