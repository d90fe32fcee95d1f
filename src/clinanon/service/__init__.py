"""``clinanon serve`` and ``clinanon review``: an HTTP API over :class:`~clinanon.pipeline.Pipeline` and a review page
for human verification (docs/service.md).

Needs the ``serve`` extra (``pip install "clinanon[serve]"``: FastAPI, uvicorn, Jinja2, python-multipart, tomlkit).

* :func:`~clinanon.service.app.create_app` — the FastAPI application: ``POST /detect``, ``/deidentify``,
  ``/evaluate`` (and ``/batch/...``), ``GET /health``, ``/version``, ``/labels``, the OpenAPI schema; bearer-token
  authentication, request size and document count limits (413 before a large body is read), a structured access
  log without document or span text, and (with a review store) the review page under ``/review``.
* :mod:`~clinanon.service.review` — the review state of a corpus: accept / reject / relabel / adjust / add spans,
  apply to every mention, the review log (offsets and labels only), BRAT / JSONL saving, allow- and deny-lists
  written to the configuration, export of the corrections as training data for ``clinanon train``.
* :mod:`~clinanon.service.server` — uvicorn on 127.0.0.1 by default, the pipeline loaded once before the worker
  processes fork (they share its memory), graceful shutdown.

Nothing here imports :mod:`clinanon.cli`; the CLI's ``serve`` and ``review`` verbs import this package.
"""

from __future__ import annotations

__all__ = ["create_app"]


def __getattr__(name: str) -> object:
    if name == "create_app":
        from clinanon.service.app import create_app

        return create_app
    raise AttributeError(name)
