"""The offline training DAG's config: a scripted gold teacher, a tiny student, two synthslides
sets (training and evaluation), for the training tests."""

from __future__ import annotations

from pathlib import Path

from helpers.workflow import default_config


def training_config(student: Path) -> dict:
    config = default_config()
    slides = {"decks": 1, "questions_per_deck": 4, "slides_per_deck": [6, 6]}
    config["datasets"] = {
        "synthslides": {
            "adapter": "synthslides",
            "options": {**slides, "seed": 7},
            "metric": "slideagent",
        },
        "synthslides_train": {
            "adapter": "synthslides",
            "options": {**slides, "seed": 11},
            "metric": "slideagent",
        },
    }
    tiny = {
        "backend": "transformers",
        "path": str(student),
        "prompt_format": "raw",
        "precision": "fp32",
        "attn_implementation": "eager",
        "max_batch_size": 4,
    }
    config["models"] = {
        "teacher": {"backend": "gold_teacher"},
        "tiny": tiny,
        "tiny-trained": {**tiny, "adapter": "results/training/tiny/stage2/adapter"},
    }
    config["methods"] = {
        "docpilot": {"type": "docpilot", "max_steps": 5, "crops_dir": "results/crops"}
    }
    config["experiments"] = [
        {"datasets": ["synthslides"], "methods": ["docpilot"], "models": ["tiny", "tiny-trained"]}
    ]
    config["training"] = {
        "tiny": {
            "datasets": ["synthslides_train"],
            "method": "docpilot",
            "teacher": "teacher",
            "student": "tiny",
            "train": {"max_steps": 6, "save_steps": 3, "learning_rate": 0.01, "seed": 0},
            "stages": {
                "stage1": {"data": "single"},
                "stage2": {"data": "multi", "from": "stage1"},
            },
            "evaluate": {
                "dataset": "synthslides",
                "method": "docpilot",
                "models": ["tiny", "tiny-trained"],
            },
        }
    }
    return config
