"""The documented entry points: `handler` for Lambda (template.yaml) and `app` for uvicorn."""

from .lambda_entry import app, create_app, handler

__all__ = ["app", "create_app", "handler"]
