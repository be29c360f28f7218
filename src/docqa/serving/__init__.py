"""Serving models to other processes: ``docqa serve``.

All the infer jobs on one machine can share one loaded model: ``docqa serve <model>`` loads a
configured transformers or embedded model once and answers OpenAI-compatible chat and text
completions (whole or streamed) on 127.0.0.1, and the jobs reach it through ``backend: openai``.
``docqa serve --engine vllm <model>`` starts ``vllm serve`` for the same config entry instead.
Modules: ``openai_api`` (requests and replies in OpenAI's format), ``scheduler`` (text models:
continuous batching a decoding step at a time, with the context, wall-clock and disconnect
limits; the model side is ``docqa.backends.lm_steps``), ``batching`` (vision models: concurrent
requests become one ``generate`` call), ``tickets`` (one request in flight: what its handler
waits on), ``text_stream`` (streamed deltas that never need taking back), ``server`` (the HTTP
server), ``vllm_launcher`` (the ``vllm serve`` command line), ``health`` (waiting until a server
answers) and ``cli`` (the ``docqa serve`` command).
"""
