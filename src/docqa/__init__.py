"""docqa: reproducible multi-page visual document question answering."""

__version__ = "0.1.0"
