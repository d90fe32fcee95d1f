"""Running the service: uvicorn on a loopback address by default, the pipeline shared by forked workers.

:func:`serve` binds the socket and builds the application (the pipeline loaded and run once) in the parent
process, then, with ``workers > 1``, forks the workers: they inherit the socket and the loaded models (copy on
write; :func:`gc.freeze` keeps the garbage collector from touching the shared pages), as ``gunicorn --preload``
does. SIGTERM or SIGINT shuts down gracefully: the parent passes it on, each worker stops accepting connections and
finishes the requests in flight (at most ``graceful_timeout`` seconds). uvicorn's own access log is off (it would
print query strings); :mod:`clinanon.service.middleware` writes the access log as JSON lines.
"""

from __future__ import annotations

import contextlib
import gc
import ipaddress
import logging
import os
import signal
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from clinanon.errors import ConfigError

__all__ = ["MAX_DEFAULT_WORKERS", "browser_opener", "default_workers", "is_loopback", "listen_socket", "login_link",
           "serve", "session_token"]

#: the environment variable a review page's token can be given in (the service's own: ``clinanon serve`` reads it)
TOKEN_ENV = "CLINANON_SERVICE_TOKEN"



#: the most worker processes ``clinanon serve`` starts by default, whatever the number of cores
MAX_DEFAULT_WORKERS = 4


def default_workers() -> int:
    """``clinanon serve``'s default ``--workers``: one per core this process may run on, at most
    :data:`MAX_DEFAULT_WORKERS`. The pipeline is CPU-bound and runs one request at a time per worker, so on 2 cores
    2 workers serve 4 clients with half the queueing of 1 (benchmarks/service_load.py, docs/service.md)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_DEFAULT_WORKERS))


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen_socket(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """The listening socket, bound and inheritable by forked workers, with Nagle's algorithm off.

    ``proto`` must be ``IPPROTO_TCP``, not 0: asyncio turns Nagle's algorithm off (``TCP_NODELAY``) on an accepted
    connection only when the socket says it is TCP, and accepted sockets copy the listening socket's ``proto``.
    With Nagle on, the body of a response (written after its headers) waits for the client's delayed ACK of the
    headers: about 40 ms added to every request (``GET /version`` took 48 ms instead of 9). ``reuse_port``: several
    sockets may bind the same port (``SO_REUSEPORT``), one per worker: the kernel spreads new connections over them
    (one shared socket lets the first worker to wake take a whole burst of keep-alive connections)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # inherited by accepted sockets on Linux
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def session_token() -> tuple[str, bool]:
    """The token of a review page (``clinanon review``, ``review-vocab``): ``$CLINANON_SERVICE_TOKEN`` when set
    (``True``), else a random one for this session (``False``)."""
    import secrets

    given = os.environ.get(TOKEN_ENV, "").strip()
    return (given, True) if given else (secrets.token_urlsafe(24), False)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


@contextlib.contextmanager
def login_link(base_url: str, login_path: str, token: str, *, stream: TextIO, from_env: bool) -> Iterator[str]:
    """What a review command prints about its one-time login link (``base_url + login_path + "?token=..."``).

    The link holds the token: it is printed only when ``stream`` (where it is printed) is a terminal. Otherwise
    (a log file, a pipe, CI) the text says where the token is, never the token: ``$CLINANON_SERVICE_TOKEN`` when
    the token came from it, else a file readable by the user only (mode 600, in a private temporary folder),
    holding the link and removed when the ``with`` block ends (the review stops)."""
    link = f"{base_url}{login_path}?token="
    if _isatty(stream):
        yield link + token
        return
    if from_env:
        yield f"{link}${TOKEN_ENV} (the token is not printed: this output is not a terminal)"
        return
    folder = Path(tempfile.mkdtemp(prefix="clinanon-review-"))  # mode 700
    path = folder / "login-link"
    previous = None
    if threading.current_thread() is threading.main_thread():
        # uvicorn stops on SIGTERM, then raises it again: by default that kills the process before the file is
        # removed; as SystemExit the ``finally`` below runs
        def stop(signum: int, frame: Any) -> None:
            raise SystemExit(128 + signum)

        previous = signal.signal(signal.SIGTERM, stop)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(link + token + "\n")
        yield (f"{base_url}{login_path} (the login link holds this session's token, so it is not printed when the "
               f"output is not a terminal: it is in {path}, readable by you only, removed when the review stops; "
               f"or set ${TOKEN_ENV} and use {link}${TOKEN_ENV})")
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        with contextlib.suppress(OSError):
            folder.rmdir()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def browser_opener(url: str, *, opener: Any = None) -> Iterator[Path]:
    """Open ``url`` (a login link that holds the token) in a browser without putting it on a command line, where
    every local user could read it (``ps``): the browser gets a ``file://`` page, readable by the user only (mode
    600 in a private temporary folder), that redirects to ``url``, as Jupyter does. The page is removed when the
    ``with`` block ends. ``opener``: the function that opens a URL (default :func:`webbrowser.open`)."""
    import html
    import json
    import webbrowser

    folder = Path(tempfile.mkdtemp(prefix="clinanon-open-"))  # mode 700
    path = folder / "open.html"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write('<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
                    f'<meta http-equiv="refresh" content="0;url={html.escape(url, quote=True)}">'
                    f"<title>clinanon</title><script>location.replace({json.dumps(url)})</script>"
                    f'<p><a href="{html.escape(url, quote=True)}">Open the review page</a></p>\n')
        (opener or webbrowser.open)(path.as_uri())
        yield path
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        with contextlib.suppress(OSError):
            folder.rmdir()


def _logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    for name in ("clinanon.service", "clinanon.service.access", "clinanon.service.error"):
        lg = logging.getLogger(name)
        lg.handlers[:] = [handler] if name == "clinanon.service" else []
        lg.setLevel(level.upper())
        lg.propagate = name != "clinanon.service"


def serve(app: Any, *, host: str = "127.0.0.1", port: int = 8000, workers: int = 1, log_level: str = "info",
          graceful_timeout: int = 10, auth: bool = True) -> None:
    """Serve ``app`` (from :func:`~clinanon.service.app.create_app`) until SIGTERM / SIGINT."""
    import uvicorn

    if not auth and not is_loopback(host):
        raise ConfigError(f"--no-auth binds to a loopback address only (127.0.0.1, ::1), not {host!r}")
    if workers < 1:
        raise ConfigError("--workers must be at least 1")
    _logging(log_level)
    # several workers: one socket each on the same port, where the platform allows it (the kernel balances them)
    per_worker = workers > 1 and hasattr(socket, "SO_REUSEPORT")
    sock = listen_socket(host, port, reuse_port=per_worker)
    socks = [sock] + [listen_socket(host, sock.getsockname()[1], reuse_port=True)
                      for _ in range(workers - 1)] if per_worker else [sock] * workers
    config = uvicorn.Config(app, log_level=log_level, access_log=False, timeout_graceful_shutdown=graceful_timeout,
                            server_header=False, proxy_headers=False)
    logging.getLogger("clinanon.service").info(
        f'{{"event": "listening", "host": "{host}", "port": {sock.getsockname()[1]}, "workers": {workers}}}')
    # the loaded pipeline out of the garbage collector's reach: with workers, it stays in shared pages; in any case
    # a full collection no longer walks its large containers (~0.1-0.5 s, every few hundred requests: the p99)
    gc.collect()
    gc.freeze()
    if workers == 1:
        uvicorn.Server(config).run(sockets=[sock])
        return
    children: list[int] = []
    for own in socks:
        pid = os.fork()
        if pid == 0:  # a worker
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            for other in socks:
                if other is not own:
                    other.close()
            try:
                uvicorn.Server(config).run(sockets=[own])
            finally:
                os._exit(0)
        children.append(pid)
    for own in set(socks) - {sock}:
        own.close()  # the workers hold them

    def forward(signum: int, frame: Any) -> None:
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    for pid in children:
        while True:
            try:
                os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
            except ChildProcessError:
                break
    sock.close()
