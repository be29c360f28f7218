"""DocPilot's curriculum training (arXiv 2610.21327, §2.3 and appendix C), as DAG stages.

One module per job:

- ``teacher``: the teacher wrapper that hands a configured model the question's reference
  (gold answer and evidence pages) and records every call, and ``gold_teacher``, a scripted
  policy backend that answers DocPilot's prompts from that reference (the offline teacher);
- ``synthesis``: runs the ``docpilot`` method with the teacher over training questions and
  writes each question's trajectory and the calls it made;
- ``filtering``: drops trajectories and single-ability traces that fail quality control,
  counting each drop by reason;
- ``sft_data``: chat-format supervised examples and their token-level loss mask;
- ``train``: TRL's SFT trainer with PEFT LoRA (or full fine-tuning), stage by stage;
- ``figures``: loss curves and the per-model action-frequency figure.

The stage entry points (what the rules call) are in ``docqa.stages.training``.
"""
