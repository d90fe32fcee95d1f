"""Pure ASGI middleware: the request size limit (413 before a large body is read) and the structured access log.

:class:`Guard` wraps the application:

* a request whose ``Content-Length`` is over ``max_body_bytes`` is answered 413 at once, its body never read;
* a body sent without a length (chunked) is counted as it streams in: the chunk that crosses the limit ends the
  request with 413, so at most ``max_body_bytes`` plus one chunk is ever held;
* every request is logged as one JSON line on the ``clinanon.service.access`` logger: method, route path (no
  query string: it may hold a token), status, duration, bytes in and out, a request id (also sent back as
  ``X-Request-ID``) — never a body, a header value or document text;
* an exception that escapes the application is logged by its type name only and answered 500 with the request
  id, so no exception message (which could quote text) reaches a log or a client.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.exceptions import HTTPException

__all__ = ["ACCESS_LOG", "BodyTooLarge", "Guard"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

ACCESS_LOG = logging.getLogger("clinanon.service.access")
ERROR_LOG = logging.getLogger("clinanon.service.error")


class BodyTooLarge(HTTPException):
    """The request body is over the limit (413); raised from ``receive`` while the body streams in."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body larger than {limit} bytes (the service's max_body_bytes)")


async def _send_json(send: Send, status: int, body: dict[str, Any], request_id: str) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
                            (b"x-request-id", request_id.encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": data})


class Guard:
    """Size limit, request id, access log and last-resort error handler around ``app`` (see the module)."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex[:16]
        t0 = time.perf_counter()
        state = {"status": 0, "bytes_in": 0, "bytes_out": 0, "started": False}
        limit = self.max_body_bytes
        length = None
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    length = -1
        try:
            if length is not None and (length < 0 or length > limit):
                status = 413 if length > limit else 400
                msg = (f"request body larger than {limit} bytes (the service's max_body_bytes)" if status == 413
                       else "invalid Content-Length")
                state["status"] = status
                await _send_json(send, status, {"detail": msg}, request_id)
                return

            async def guarded_receive() -> Message:
                message = await receive()
                if message["type"] == "http.request":
                    state["bytes_in"] += len(message.get("body", b""))
                    if state["bytes_in"] > limit:
                        raise BodyTooLarge(limit)
                return message

            async def tracked_send(message: Message) -> None:
                if message["type"] == "http.response.start":
                    state["status"] = message["status"]
                    state["started"] = True
                    message = {**message, "headers": [*message.get("headers", []),
                                                      (b"x-request-id", request_id.encode())]}
                elif message["type"] == "http.response.body":
                    state["bytes_out"] += len(message.get("body", b""))
                await send(message)

            try:
                await self.app(scope, guarded_receive, tracked_send)
            except BodyTooLarge as e:
                if not state["started"]:
                    state["status"] = 413
                    await _send_json(send, 413, {"detail": e.detail}, request_id)
            except Exception as e:  # the application's own handlers answered what they know
                ERROR_LOG.error(json.dumps({"event": "error", "request_id": request_id, "path": _route(scope),
                                            "error": type(e).__name__}))
                if not state["started"]:
                    state["status"] = 500
                    await _send_json(send, 500, {"detail": "internal error", "request_id": request_id},
                                     request_id)
        finally:
            ACCESS_LOG.info(json.dumps({
                "event": "request", "request_id": request_id, "method": scope.get("method"),
                "path": _route(scope), "status": state["status"],
                "ms": round((time.perf_counter() - t0) * 1000, 2),
                "bytes_in": state["bytes_in"], "bytes_out": state["bytes_out"],
                "client": (scope.get("client") or ("-",))[0],
            }))


def _route(scope: Scope) -> str:
    """The route template when the router matched one (``/review/doc/{doc_id}``: no document id in the log),
    else the path cut to 200 characters."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return str(path) if path else str(scope.get("path", ""))[:200]
