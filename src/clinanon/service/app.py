"""The FastAPI application: :func:`create_app`.

>>> app = create_app("clinanon.toml", token="s3cret")         # doctest: +SKIP
>>> # uvicorn clinanon.service.server:... or `clinanon serve --config clinanon.toml`

One :class:`~clinanon.pipeline.Pipeline` per process, built (and run once on a short note, so that its models are
loaded) when the application is created: ``clinanon serve --workers N`` creates it before the worker processes
fork, so they share the loaded models. Requests are parsed, authenticated and answered on the event loop (no hop
through a thread pool for the token check or the response); the pipeline runs on one thread per process (its models
are not thread-safe), which takes the requests in the order they came.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from clinanon import __version__
from clinanon.config import Config
from clinanon.document import Document, SanitizedDocument, Span
from clinanon.errors import ClinanonError, ConfigError
from clinanon.lang import LANGUAGES
from clinanon.pipeline import Pipeline
from clinanon.service.middleware import Guard
from clinanon.service.schemas import (
    BatchDeidentifiedOut,
    BatchDetectedOut,
    BatchIn,
    DeidentifiedOut,
    DetectedOut,
    DocumentIn,
    ErrorOut,
    EvaluateIn,
)
from clinanon.service.server import TOKEN_ENV  # ``clinanon serve`` reads the bearer token from it (else a file)

__all__ = ["COOKIE", "TOKEN_ENV", "ServiceSettings", "create_app"]

log = logging.getLogger("clinanon.service")

#: the cookie the review page keeps the token in (HttpOnly, SameSite=Strict), set by ``/review/login``
COOKIE = "clinanon_token"

_WARMUP = ("Paciente de 45 años atendido el 3 de marzo de 2020 en Madrid por el Dr. Pedro Gómez. NHC: 1234567. "
           "Domicilio: Calle Mayor 5, 28013 Madrid. Tel. 612 345 678, correo pgomez@example.com. "
           "Remitido desde el Hospital Clínico San Carlos. Servicio de Cardiología, 12/03/2020.")


@dataclass(frozen=True)
class ServiceSettings:
    """What :func:`create_app` was given (``app.state.settings``)."""

    config_path: Path | None
    token: str | None
    max_body_bytes: int
    max_documents: int
    max_chars: int


def _errors(status: int, *texts: str) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": ErrorOut, "description": " / ".join(texts)}}


_RESPONSES: dict[int | str, dict[str, Any]] = {
    **_errors(400, "a body that is not UTF-8 JSON, an invalid Content-Length"),
    **_errors(401, "missing or invalid bearer token"),
    **_errors(413, "request body, document count or document length over the service's limits"),
    **_errors(422, "invalid input: a field, an offset, a label or a language (never the text)"),
}


def create_app(config_path: str | Path | None = None, *, token: str | None = None, auth: bool = True,
               max_body_bytes: int = 10 * 2**20, max_documents: int = 100, max_chars: int = 200_000,
               key_file: str | Path | None = None, pipeline: Pipeline | None = None, review: Any = None,
               warmup: bool = True, vocab_review: Any = None) -> FastAPI:
    """The service over the pipeline of ``config_path`` (the same TOML file as the CLI; ``None``: the defaults).

    ``token``: the bearer token every request but ``GET /health`` must carry (``Authorization: Bearer TOKEN``, or
    the review page's cookie); ``auth=False`` turns authentication off (``clinanon serve --no-auth``, which only
    binds to a loopback address). ``max_body_bytes``: larger bodies are refused with 413 before they are read;
    ``max_documents`` per request and ``max_chars`` per document: 413. ``key_file``: the surrogate key (else
    ``$CLINANON_SURROGATE_KEY``): never taken from a request. ``pipeline``: one already built (tests). ``review``:
    a :class:`~clinanon.service.review.ReviewStore` to serve the review page for; ``vocab_review``: a
    :class:`~clinanon.service.vocab_review.VocabReviewStore` to serve the vocabulary review page for."""
    if auth and not token:
        raise ConfigError(f"the service needs a bearer token (--token-file or ${TOKEN_ENV}); or turn "
                          "authentication off with --no-auth on a loopback address")
    if min(max_body_bytes, max_documents, max_chars) < 1:
        raise ConfigError("max_body_bytes, max_documents and max_chars must be at least 1")
    path = Path(config_path) if config_path is not None else None
    if pipeline is None:
        cfg = Config.from_options(path).register_schemes()
        if key_file is not None:
            from clinanon.transform.surrogate.cli_support import apply_surrogate_options

            cfg = apply_surrogate_options(cfg, key_file=key_file)
        pipeline = Pipeline(cfg)
    nlp = pipeline
    if warmup:  # load the models now (before workers fork), not on the first request
        nlp.deidentify(Document("warmup", _WARMUP, meta={"lang": nlp.config.default_language}))
    # one lock per pipeline: the review page's store detects with the same pipeline under its own lock
    lock = review.lock if review is not None and hasattr(review, "lock") else threading.Lock()
    settings = ServiceSettings(path, token if auth else None, max_body_bytes, max_documents, max_chars)

    bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer TOKEN")

    async def authenticate(request: Request,
                           cred: HTTPAuthorizationCredentials | None = Depends(bearer)) -> None:  # noqa: B008
        # async: a constant-time compare needs no thread (a sync dependency is one more hop through the pool)
        if settings.token is None:
            return
        given = cred.credentials if cred is not None else request.cookies.get(COOKIE, "")
        if not (given and hmac.compare_digest(given.encode(), settings.token.encode())):
            raise HTTPException(401, "missing or invalid bearer token", headers={"WWW-Authenticate": "Bearer"})

    app = FastAPI(title="clinanon", version=__version__, docs_url=None, redoc_url=None,
                  description="De-identification of clinical notes: detect PHI, replace it, score against gold. "
                              "Every request but GET /health needs `Authorization: Bearer TOKEN`.")
    app.state.settings = settings
    app.state.pipeline = nlp
    app.state.lock = lock
    app.state.authenticate = authenticate

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        # pydantic's "input" (and "ctx", which can quote it) would send the note back: only where and what
        detail = [{"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
                  for e in exc.errors()]
        return JSONResponse({"detail": detail}, status_code=422)

    @app.exception_handler(ClinanonError)
    async def _clinanon_error(request: Request, exc: ClinanonError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)  # clinanon's errors name offsets, never text

    def check(docs: Sequence[DocumentIn]) -> None:
        if len(docs) > settings.max_documents:
            raise HTTPException(413, f"{len(docs)} documents in one request; the limit is {settings.max_documents}")
        for i, d in enumerate(docs):
            if len(d.text) > settings.max_chars:
                raise HTTPException(413, f"document {i}: {len(d.text)} characters; the limit is "
                                         f"{settings.max_chars}")
            lang = d.meta.get("lang")
            if lang is not None and lang not in LANGUAGES and lang != "auto":
                raise HTTPException(422, f"document {i}: meta.lang must be one of {', '.join(LANGUAGES)}")

    def to_doc(d: DocumentIn, gold: bool = False) -> Document:
        meta = {k: v for k, v in d.meta.items() if not (k == "lang" and v == "auto")}
        spans = tuple(Span(s.start, s.end, s.label) for s in d.spans) if gold else ()
        return Document(d.id, d.text, spans, meta)

    def detected(doc: Document) -> DetectedOut:
        return DetectedOut(id=doc.id, meta=_meta(doc.meta, ()), spans=[s.to_dict() for s in doc.spans])

    keep = tuple(nlp.config.metadata.keep_fields)

    def deidentified(out: SanitizedDocument) -> DeidentifiedOut:
        return DeidentifiedOut(id=out.id, text=out.text, meta=_meta(out.meta, keep),
                               replacements=[r.to_dict() for r in out.replacements])

    def run_locked(docs: list[Document], deidentify: bool) -> list[Any]:
        with lock:
            return list(nlp.pipe(docs, deidentify=deidentify))

    # one thread, created on the first request (after the workers fork), with a first-in first-out queue
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clinanon-pipeline")
    app.state.executor = executor

    async def run(docs: list[Document], deidentify: bool) -> list[Any]:
        return await asyncio.wrap_future(executor.submit(run_locked, docs, deidentify))

    @app.get("/health", tags=["service"])
    def health() -> dict[str, str]:
        """Liveness: the pipeline is loaded (no authentication)."""
        return {"status": "ok"}

    protected = [Depends(authenticate)]

    @app.get("/version", tags=["service"], dependencies=protected, responses=_RESPONSES)
    def version() -> dict[str, Any]:
        """clinanon's version, the language, label scheme and legal profile of the pipeline."""
        cfg = nlp.config
        return {"clinanon": __version__, "language": str(cfg.language), "label_scheme": cfg.label_scheme,
                "profile": cfg.profile, "detectors": list(cfg.detectors.use)}

    @app.get("/labels", tags=["service"], dependencies=protected, responses=_RESPONSES)
    def labels() -> dict[str, Any]:
        """The labels the predictions carry (the configured scheme), each with its canonical category."""
        return {"scheme": nlp.scheme.name, "labels": dict(nlp.scheme.labels)}

    @app.post("/detect", tags=["pipeline"], dependencies=protected, responses=_RESPONSES)
    async def detect(doc: DocumentIn) -> DetectedOut:
        """The PHI spans of one note (offsets on its text, labels in the configured scheme)."""
        check([doc])
        return detected((await run([to_doc(doc)], False))[0])

    @app.post("/deidentify", tags=["pipeline"], dependencies=protected, responses=_RESPONSES)
    async def deidentify(doc: DocumentIn) -> DeidentifiedOut:
        """The note with its PHI replaced by the configured operators, and the replacement log."""
        check([doc])
        return deidentified((await run([to_doc(doc)], True))[0])

    @app.post("/batch/detect", tags=["pipeline"], dependencies=protected, responses=_RESPONSES)
    async def batch_detect(batch: BatchIn) -> BatchDetectedOut:
        """``/detect`` for several notes, in one batch through the pipeline."""
        check(batch.documents)
        _unique(batch.documents)
        found = await run([to_doc(d) for d in batch.documents], False)
        return BatchDetectedOut(documents=[detected(d) for d in found])

    @app.post("/batch/deidentify", tags=["pipeline"], dependencies=protected, responses=_RESPONSES)
    async def batch_deidentify(batch: BatchIn) -> BatchDeidentifiedOut:
        """``/deidentify`` for several notes, in one batch through the pipeline."""
        check(batch.documents)
        _unique(batch.documents)
        out = await run([to_doc(d) for d in batch.documents], True)
        return BatchDeidentifiedOut(documents=[deidentified(d) for d in out])

    @app.post("/evaluate", tags=["pipeline"], dependencies=protected, responses=_RESPONSES)
    def evaluate(batch: EvaluateIn) -> dict[str, Any]:
        """Run the pipeline on notes with gold spans and score it (token, entity, overlap, per label, leaks)."""
        from clinanon.evaluate import evaluate as score

        check(batch.documents)
        _unique(batch.documents)
        gold = [to_doc(d, gold=True) for d in batch.documents]
        pred = run_locked([g.with_spans(()) for g in gold], False)  # a sync route: already on a pool thread
        lang = nlp.config.given_language or "es"
        report = score(gold, pred, lang=lang, scheme=batch.scheme or nlp.config.label_scheme,
                       label_map=batch.label_map)
        return report.to_dict()

    if review is not None:
        from clinanon.service.review_routes import add_review_routes

        add_review_routes(app, review, authenticate)
    if vocab_review is not None:
        from clinanon.service.vocab_review_routes import add_vocab_review_routes

        add_vocab_review_routes(app, vocab_review, authenticate)

    app.add_middleware(Guard, max_body_bytes=max_body_bytes)
    return app


def _unique(docs: Sequence[DocumentIn]) -> None:
    seen: set[str] = set()
    for i, d in enumerate(docs):
        if d.id in seen:
            raise HTTPException(422, f"document {i}: its id is used twice in the request")
        seen.add(d.id)


def _meta(meta: Any, keep: Sequence[str]) -> dict[str, Any]:
    """What a response returns of a note's metadata: ``lang`` and the configuration's ``metadata.keep_fields``."""
    return {k: v for k, v in dict(meta).items() if k == "lang" or k in keep}


def token_from_env(path: str | Path | None = None) -> str | None:
    """The bearer token: the first line of ``path`` when given, else ``$CLINANON_SERVICE_TOKEN``."""
    if path is not None:
        try:
            first = Path(path).read_text(encoding="utf-8").strip().splitlines()
        except OSError as e:
            raise ConfigError(f"{path}: cannot read the token file ({e.strerror})") from None
        if not first or not first[0].strip():
            raise ConfigError(f"{path}: the token file is empty")
        return first[0].strip()
    return os.environ.get(TOKEN_ENV) or None
