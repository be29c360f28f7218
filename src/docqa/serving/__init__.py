"""Serving models to other processes: ``docqa serve``.

All the infer jobs on one machine can share one loaded model: ``docqa serve <model>`` loads a
configured transformers or embedded model once and answers OpenAI-compatible chat completions on
127.0.0.1, and the jobs reach it through ``backend: openai``. ``docqa serve --engine vllm
<model>`` starts ``vllm serve`` for the same config entry instead. Modules: ``openai_api``
(requests and replies in OpenAI's format), ``batching`` (concurrent requests become one
``generate`` call), ``server`` (the HTTP server), ``vllm_launcher`` (the ``vllm serve`` command
line), ``health`` (waiting until a server answers) and ``cli`` (the ``docqa serve`` command).
"""
