"""The vocabulary review page's routes (``clinanon review-vocab``): one server-rendered page (``vocab.html``) and a
small JSON API that ``service/static/vocab.js`` calls. Everything is served from the package: no internet.

* ``GET /review/vocab/login?token=...`` — sets the token cookie (HttpOnly, SameSite=Strict) and goes to the page;
* ``GET /review/vocab`` — the probe's predictions grouped by token, with the automatic judgement and the decisions;
* ``GET /review/vocab/api/tokens?filter=undecided|name-like|all`` — the same as JSON, with the progress;
* ``POST /review/vocab/api/decide`` — ``{"token": id, "decision": "name" | "keep" | null}``;
* ``POST /review/vocab/api/undo`` — take back the last decision;
* ``POST /review/vocab/api/save`` — write the reviewed CSV (``clinanon lm scrub-vocab --review`` reads it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, Field

from clinanon.service.review_routes import page_templates, token_login
from clinanon.service.vocab_review import VocabReviewError, VocabReviewStore

__all__ = ["add_vocab_review_routes"]



class DecideIn(BaseModel):
    token: int = Field(ge=1)
    decision: Literal["name", "keep"] | None = None


def add_vocab_review_routes(app: FastAPI, store: VocabReviewStore, authenticate: Callable[..., None]) -> None:
    templates = page_templates(app)
    auth = [Depends(authenticate)]
    settings = app.state.settings
    app.state.vocab_review = store

    def state(which: str = "all") -> dict[str, Any]:
        if which not in ("undecided", "name-like", "all"):
            raise HTTPException(422, "filter is one of undecided, name-like, all")
        return {"tokens": [g.to_dict() for g in store.ordered(which)],  # type: ignore[arg-type]
                "progress": store.progress()}

    @app.get("/review/vocab/login", include_in_schema=False)
    def vocab_login(token: str = "") -> RedirectResponse:
        return token_login(settings, token, "/review/vocab")

    @app.get("/review/vocab", response_class=HTMLResponse, dependencies=auth, include_in_schema=False)
    def vocab_page(request: Request) -> HTMLResponse:
        return templates.TemplateResponse(request, "vocab.html", {
            **state(), "file": store.path.name, "out": str(store.out), "log": str(store.log_path),
            "has_text": "text" in store.header})

    @app.get("/review/vocab/api/tokens", dependencies=auth, include_in_schema=False)
    def vocab_tokens(filter: str = "all") -> dict[str, Any]:
        return state(filter)

    @app.post("/review/vocab/api/decide", dependencies=auth, include_in_schema=False)
    def vocab_decide(body: DecideIn) -> dict[str, Any]:
        try:
            g = store.decide(body.token, body.decision)
        except VocabReviewError as e:
            raise HTTPException(404 if "no token" in str(e) else 409, str(e)) from None
        return {"token": g.to_dict(), "progress": store.progress()}

    @app.post("/review/vocab/api/undo", dependencies=auth, include_in_schema=False)
    def vocab_undo() -> dict[str, Any]:
        try:
            g = store.undo()
        except VocabReviewError as e:
            raise HTTPException(409, str(e)) from None
        return {"token": g.to_dict(), "progress": store.progress()}

    @app.post("/review/vocab/api/save", dependencies=auth, include_in_schema=False)
    def vocab_save() -> dict[str, Any]:
        return store.save()
