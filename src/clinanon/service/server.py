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
from typing import Any

from clinanon.errors import ConfigError

__all__ = ["is_loopback", "serve"]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    config = uvicorn.Config(app, log_level=log_level, access_log=False, timeout_graceful_shutdown=graceful_timeout,
                            server_header=False, proxy_headers=False)
    logging.getLogger("clinanon.service").info(
        f'{{"event": "listening", "host": "{host}", "port": {sock.getsockname()[1]}, "workers": {workers}}}')
    if workers == 1:
        uvicorn.Server(config).run(sockets=[sock])
        return
    gc.collect()
    gc.freeze()  # the loaded pipeline stays in shared pages
    children: list[int] = []
    for _ in range(workers):
        pid = os.fork()
        if pid == 0:  # a worker
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            try:
                uvicorn.Server(config).run(sockets=[sock])
            finally:
                os._exit(0)
        children.append(pid)

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
