"""The review page's routes: server-rendered pages (Jinja2 templates in ``service/templates``) and a small JSON API
that ``service/static/review.js`` calls. Every file is served from the package: the page works with no internet.

* ``GET /review/login?token=...`` — sets the token cookie (HttpOnly, SameSite=Strict) and goes to the list;
* ``GET /review`` — the documents with their review status;
* ``GET /review/doc?id=...`` — one document: the text with its spans highlighted, the span table, the preview;
* ``GET /review/fragment?id=...`` — the highlighted text and span table alone (what the script swaps in);
* ``POST /review/api/action`` — accept, reject, reset, relabel, adjust, add, apply (document / corpus), reviewed;
* ``GET /review/api/preview`` — the sanitized text with the chosen operator;
* ``POST /review/api/save``, ``/review/api/export``, ``/review/api/list`` — BRAT / JSONL, training data, allow /
  deny lists.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape
from pydantic import BaseModel, Field

from clinanon.service.review import ReviewError, ReviewStore, source_kind

__all__ = ["add_review_routes", "highlight", "page_templates", "token_login"]

_HERE = Path(__file__).resolve().parent


class ActionIn(BaseModel):
    doc: str = Field(min_length=1, max_length=256)
    action: Literal["accept", "reject", "reset", "relabel", "adjust", "add", "apply-document", "apply-corpus",
                    "reviewed", "reopen"]
    span: int | None = Field(default=None, ge=0)
    label: str | None = Field(default=None, max_length=100)
    start: int | None = Field(default=None, ge=0)
    end: int | None = Field(default=None, ge=0)


class SaveIn(BaseModel):
    format: Literal["brat", "jsonl"] = "brat"
    only_reviewed: bool = False


class ListIn(BaseModel):
    list: Literal["allow", "deny"]
    word: str | None = Field(default=None, max_length=200)
    doc: str | None = Field(default=None, max_length=256)
    span: int | None = Field(default=None, ge=0)


def _category(store: ReviewStore, label: str) -> str:
    try:
        cat = store.scheme.category(label)
    except Exception:
        cat = label
    return str(cat).split(".")[0]


def highlight(store: ReviewStore, doc_id: str) -> Markup:
    """The note's text as HTML with a ``<mark>`` per kept span (and per rejected span that overlaps no kept one):
    category, source, status, label and score in data attributes and classes. The text content of the result is
    the note's text exactly, so that a selection's offsets are offsets on the note."""
    rd = store.get(doc_id)
    text = rd.doc.text
    kept = rd.kept()
    rejected = [s for s in rd.spans or () if not s.kept
                and not any(k.start < s.end and s.start < k.end for k in kept)]
    shown: list[Any] = []
    for s in sorted([*kept, *rejected], key=lambda s: (s.start, -s.end)):
        if shown and s.start < shown[-1].end:
            continue  # rejected spans overlapping each other: the first one
        shown.append(s)
    out: list[str] = []
    pos = 0
    for s in shown:
        out.append(str(escape(text[pos:s.start])))
        cat = _category(store, s.label)
        out.append(f'<mark id="span-{s.id}" data-id="{s.id}" data-start="{s.start}" data-end="{s.end}" '
                   f'data-label="{escape(s.label)}" class="cat-{escape(cat)} src-{source_kind(s.source)} '
                   f'st-{s.status}" title="{escape(s.label)} · {source_kind(s.source)} · {s.score:.2f} · '
                   f'{s.status}">{escape(text[s.start:s.end])}</mark>')
        pos = s.end
    out.append(str(escape(text[pos:])))
    return Markup("".join(out))


def page_templates(app: FastAPI) -> Jinja2Templates:
    """The review pages' templates; their static files mounted on ``app`` once (both review pages share them)."""
    if not any(getattr(r, "name", None) == "review-static" for r in app.routes):
        app.mount("/review/static", StaticFiles(directory=str(_HERE / "static")), name="review-static")
    return Jinja2Templates(directory=str(_HERE / "templates"))


def token_login(settings: Any, token: str, target: str) -> RedirectResponse:
    """The login link of a review page: the service token compared in constant time, then a redirect to
    ``target`` with the token in an HTTP-only cookie (no check when the service runs without a token)."""
    if settings.token is not None and not hmac.compare_digest(token.encode(), settings.token.encode()):
        raise HTTPException(401, "invalid token")
    resp = RedirectResponse(target, status_code=303)
    if settings.token is not None:
        resp.set_cookie("clinanon_token", settings.token, httponly=True, samesite="strict")
    return resp


def add_review_routes(app: FastAPI, store: ReviewStore, authenticate: Callable[..., None]) -> None:
    templates = page_templates(app)
    auth = [Depends(authenticate)]
    settings = app.state.settings
    app.state.review = store

    def fail(e: Exception) -> HTTPException:
        return HTTPException(409 if isinstance(e, ReviewError) else 422, str(e))

    @app.get("/review/login", include_in_schema=False)
    def login(token: str = "") -> RedirectResponse:
        return token_login(settings, token, "/review")

    @app.get("/review", response_class=HTMLResponse, dependencies=auth, include_in_schema=False)
    def review_list(request: Request) -> HTMLResponse:
        docs = store.summary()
        done = sum(d["status"] == "reviewed" for d in docs)
        return templates.TemplateResponse(request, "list.html", {"docs": docs, "done": done, "store": store})

    def doc_context(doc_id: str) -> dict[str, Any]:
        try:
            rd = store.get(doc_id)
        except ReviewError:
            raise HTTPException(404, "no document with that id") from None
        ids = list(store.docs)
        i = ids.index(doc_id)
        spans = sorted(rd.spans or (), key=lambda s: (s.start, s.end))
        rows = [{**s.to_dict(), "category": _category(store, s.label)} for s in spans]
        return {"doc_id": doc_id, "status": rd.status(), "text_html": highlight(store, doc_id), "spans": rows,
                "labels": store.labels(), "prev_id": ids[i - 1] if i > 0 else None,
                "next_id": ids[i + 1] if i + 1 < len(ids) else None, "lists": _safe_lists(store),
                "has_config": store.config_path is not None, "operators": _operators(store)}

    @app.get("/review/doc", response_class=HTMLResponse, dependencies=auth, include_in_schema=False)
    def review_doc(request: Request, id: str) -> HTMLResponse:
        return templates.TemplateResponse(request, "doc.html", doc_context(id))

    @app.get("/review/fragment", response_class=HTMLResponse, dependencies=auth, include_in_schema=False)
    def review_fragment(request: Request, id: str) -> HTMLResponse:
        return templates.TemplateResponse(request, "_fragment.html", doc_context(id))

    @app.post("/review/api/action", dependencies=auth, include_in_schema=False)
    def action(body: ActionIn) -> dict[str, Any]:
        try:
            a = body.action
            if a in ("accept", "reject", "reset"):
                status = {"accept": "accepted", "reject": "rejected", "reset": "pending"}[a]
                s = store.set_status(body.doc, _need(body.span, "span"), status)  # type: ignore[arg-type]
                return {"span": s.to_dict()}
            if a == "relabel":
                return {"span": store.relabel(body.doc, _need(body.span, "span"), _need(body.label, "label"))
                        .to_dict()}
            if a == "adjust":
                return {"span": store.adjust(body.doc, _need(body.span, "span"), _need(body.start, "start"),
                                             _need(body.end, "end")).to_dict()}
            if a == "add":
                return {"span": store.add(body.doc, _need(body.start, "start"), _need(body.end, "end"),
                                          _need(body.label, "label")).to_dict()}
            if a in ("apply-document", "apply-corpus"):
                n = store.apply_everywhere(body.doc, _need(body.span, "span"),
                                           "document" if a == "apply-document" else "corpus")
                return {"changed": n}
            store.mark_reviewed(body.doc, a == "reviewed")
            return {"status": store.get(body.doc).status()}
        except (ReviewError, ValueError) as e:
            raise fail(e) from None

    @app.get("/review/api/preview", dependencies=auth, include_in_schema=False)
    def preview(id: str, operator: str | None = None) -> dict[str, Any]:
        if operator is not None and operator not in _operators(store):
            raise HTTPException(422, "unknown operator")
        try:
            return store.preview(id, operator or None)
        except ReviewError as e:
            raise fail(e) from None

    @app.post("/review/api/save", dependencies=auth, include_in_schema=False)
    def save(body: SaveIn) -> dict[str, Any]:
        path = store.save(body.format, only_reviewed=body.only_reviewed)
        return {"path": str(path), "log": str(store.log_path)}

    @app.post("/review/api/export", dependencies=auth, include_in_schema=False)
    def export() -> dict[str, Any]:
        try:
            path = store.export_training()
        except ReviewError as e:
            raise fail(e) from None
        return {"path": str(path)}

    @app.post("/review/api/list", dependencies=auth, include_in_schema=False)
    def add_list(body: ListIn) -> dict[str, Any]:
        try:
            word = body.word
            if body.doc is not None and body.span is not None:
                rd = store.get(body.doc)
                s = next((x for x in rd.spans or () if x.id == body.span), None)
                if s is None:
                    raise ReviewError(f"no span {body.span} in this document")
                word = rd.doc.text[s.start:s.end]
                if body.list == "allow":  # never PHI: this mention and every other one in the corpus
                    store.set_status(body.doc, s.id, "rejected")
                else:
                    store.set_status(body.doc, s.id, "accepted")
                changed = store.apply_everywhere(body.doc, s.id, "corpus")
            else:
                changed = 0
            lists = store.add_to_list(body.list, _need(word, "word"))
            return {"lists": lists, "changed": changed}
        except (ReviewError, ValueError) as e:
            raise fail(e) from None
        except Exception as e:
            from clinanon.errors import ClinanonError

            if isinstance(e, ClinanonError):
                raise fail(e) from None
            raise


def _need(value: Any, what: str) -> Any:
    if value is None:
        raise ReviewError(f"this action needs {what}")
    return value


def _operators(store: ReviewStore) -> list[str]:
    """The operators the preview offers: the configured ones first, then tag and redact."""
    configured = [op.operator for op in store.pipeline.config.operators.values()]
    return list(dict.fromkeys([*configured, "tag", "redact"]))


def _safe_lists(store: ReviewStore) -> dict[str, int]:
    """How many entries each list has (the page shows counts; the words are in the configuration file)."""
    try:
        lists = store.lists()
    except Exception:
        return {"allow": 0, "deny": 0}
    return {k: len(v) for k, v in lists.items()}
