"""clinanon.service over httpx: endpoints, authentication, limits (413 before a large body is read), error bodies and
logs without text, the review store (decisions, log, BRAT/JSONL, lists in the configuration, training export), and
``clinanon serve`` as a process (forked workers, graceful shutdown)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette's TestClient warns that it prefers another httpx package
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from clinanon import io as cio  # noqa: E402
from clinanon.document import Document  # noqa: E402
from clinanon.pipeline import Pipeline  # noqa: E402
from clinanon.service.app import create_app  # noqa: E402
from clinanon.service.review import ReviewError, ReviewStore  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TOKEN = "test-token-123"
H = {"Authorization": f"Bearer {TOKEN}"}
SECRET = "Zacarías Villalobos"  # a name that must never reach a log or an error body
NOTE = (f"Paciente: {SECRET}, 45 años, DNI 12345678Z. Ingresa el 3 de marzo de 2020 en el Hospital Clínico de "
        "Valencia. Contacto: zvillalobos@example.com, teléfono 612 345 678. ")


@pytest.fixture(scope="module")
def nlp() -> Pipeline:
    return Pipeline.from_config()  # the default pipeline: Spanish rules + the shipped CRF


@pytest.fixture(scope="module")
def client(nlp: Pipeline) -> TestClient:
    return TestClient(create_app(token=TOKEN, pipeline=nlp))


def small_app(nlp: Pipeline, **kw: object) -> TestClient:
    return TestClient(create_app(token=TOKEN, pipeline=nlp, warmup=False, **kw))  # type: ignore[arg-type]


# --- authentication ---------------------------------------------------------------------------------------------
def test_health_is_open_everything_else_needs_the_token(client: TestClient) -> None:
    assert client.get("/health").json() == {"status": "ok"}
    for method, path in [("get", "/version"), ("get", "/labels"), ("post", "/detect"), ("post", "/deidentify"),
                         ("post", "/batch/deidentify"), ("post", "/evaluate")]:
        body = {"id": "a", "text": NOTE}
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            r = client.request(method, path, json=body if method == "post" else None, headers=headers)
            assert r.status_code == 401, (path, headers)
            assert r.headers["www-authenticate"] == "Bearer"
    assert client.get("/version", headers=H).json()["label_scheme"] == "canonical"


def test_a_service_without_a_token_is_refused_unless_auth_is_turned_off(nlp: Pipeline) -> None:
    from clinanon.errors import ConfigError

    with pytest.raises(ConfigError, match="bearer token"):
        create_app(pipeline=nlp, warmup=False)
    open_app = TestClient(create_app(pipeline=nlp, warmup=False, auth=False))
    assert open_app.get("/version").status_code == 200


# --- the pipeline endpoints -------------------------------------------------------------------------------------
def test_deidentify_replaces_the_phi_and_returns_the_log(client: TestClient) -> None:
    r = client.post("/deidentify", json={"id": "n1", "text": NOTE, "meta": {"lang": "es", "ward": "3B"}},
                    headers=H)
    assert r.status_code == 200
    out = r.json()
    assert "Villalobos" not in out["text"] and "12345678Z" not in out["text"] and "612 345 678" not in out["text"]
    assert out["meta"] == {"lang": "es"}  # other metadata is not sent back (metadata.keep_fields)
    labels = {rep["category"].split(".")[0] for rep in out["replacements"]}
    assert {"NAME", "DATE", "CONTACT"} <= labels
    for rep in out["replacements"]:
        assert out["text"][rep["out_start"]:rep["out_end"]].startswith("[")


def test_detect_and_batch_agree_and_offsets_are_on_the_text(client: TestClient) -> None:
    one = client.post("/detect", json={"id": "n1", "text": NOTE}, headers=H).json()
    name = NOTE.index(SECRET)
    assert any(s["start"] == name and s["end"] == name + len(SECRET) and s["label"] == "NAME.PATIENT"
               for s in one["spans"])
    assert one["meta"]["lang"] == "es"  # identified
    labels = client.get("/labels", headers=H).json()["labels"]
    assert all(s["label"] in labels for s in one["spans"])
    batch = client.post("/batch/detect", json={"documents": [{"id": "n1", "text": NOTE},
                                                             {"id": "n2", "text": NOTE[:60]}]}, headers=H).json()
    assert [d["id"] for d in batch["documents"]] == ["n1", "n2"]
    assert batch["documents"][0]["spans"] == one["spans"]
    dup = client.post("/batch/deidentify", json={"documents": [{"id": "x", "text": NOTE}] * 2}, headers=H)
    assert dup.status_code == 422 and "twice" in dup.json()["detail"]


def test_evaluate_scores_gold_spans(client: TestClient) -> None:
    start = NOTE.index(SECRET)
    gold = [{"start": start, "end": start + len(SECRET), "label": "NAME.PATIENT"}]
    r = client.post("/evaluate", json={"documents": [{"id": "g", "text": NOTE, "spans": gold}],
                                       "label_map": "canonical"}, headers=H)
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["gold_spans"] == 1 and report["pred_spans"] >= 4
    assert SECRET not in r.text and "Villalobos" not in r.text
    bad = client.post("/evaluate", json={"documents": [{"id": "g", "text": "corto", "spans": [
        {"start": 2, "end": 40, "label": "NAME"}]}]}, headers=H)
    assert bad.status_code == 422 and "ends past the text" in bad.json()["detail"]


def test_a_surrogate_key_or_operator_cannot_come_from_a_request(client: TestClient) -> None:
    for extra in ({"key": "00" * 32}, {"operators": {"*": {"operator": "keep"}}}):
        r = client.post("/deidentify", json={"id": "a", "text": NOTE, **extra}, headers=H)
        assert r.status_code == 422
        assert r.json()["detail"][0]["type"] == "extra_forbidden"


# --- limits -----------------------------------------------------------------------------------------------------
def test_document_count_and_length_limits_answer_413(nlp: Pipeline) -> None:
    c = small_app(nlp, max_documents=2, max_chars=100)
    r = c.post("/batch/detect", json={"documents": [{"id": str(i), "text": "hola"} for i in range(3)]}, headers=H)
    assert r.status_code == 413 and "limit is 2" in r.json()["detail"]
    r = c.post("/detect", json={"id": "a", "text": "x" * 101}, headers=H)
    assert r.status_code == 413 and "101 characters" in r.json()["detail"]


def test_a_large_content_length_is_refused_before_any_byte_is_read(nlp: Pipeline) -> None:
    app = create_app(token=TOKEN, pipeline=nlp, warmup=False, max_body_bytes=2**20)
    reads = []
    sent: list[dict] = []

    async def receive() -> dict:
        reads.append(1)
        return {"type": "http.request", "body": b"x" * 65536, "more_body": True}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": "/deidentify", "raw_path": b"/deidentify", "query_string": b"",
             "root_path": "", "headers": [(b"content-length", str(50 * 2**20).encode()),
                                          (b"content-type", b"application/json"),
                                          (b"authorization", f"Bearer {TOKEN}".encode())],
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}
    asyncio.run(app(scope, receive, send))
    assert sent[0]["status"] == 413
    assert reads == []  # not one chunk of the 50 MB body was read


def test_a_streamed_body_without_length_stops_at_the_limit(nlp: Pipeline) -> None:
    app = create_app(token=TOKEN, pipeline=nlp, warmup=False, max_body_bytes=2**20)
    chunk = b"x" * 2**16
    pulled = []

    async def body():  # 50 MB if it were all read
        for _ in range(800):
            pulled.append(1)
            yield chunk

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            return await c.post("/deidentify", content=body(), headers={**H, "content-type": "application/json"})

    r = asyncio.run(go())
    assert r.status_code == 413
    assert len(pulled) <= 2**20 // len(chunk) + 2  # one chunk past the limit at most


def test_live_server_refuses_a_50_mb_body_with_413(nlp: Pipeline) -> None:
    """uvicorn + the guard over a real socket: the headers of a 50 MB upload get a 413 while the body is unsent."""
    import uvicorn

    app = create_app(token=TOKEN, pipeline=nlp, warmup=False)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(100):
            if server.started:
                break
            time.sleep(0.05)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"POST /deidentify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      b"Authorization: Bearer " + TOKEN.encode() + b"\r\nContent-Length: 52428800\r\n\r\n"
                      + b"x" * 65536)
            head = s.recv(4096)
        assert head.startswith(b"HTTP/1.1 413"), head[:80]
    finally:
        server.should_exit = True
        thread.join(10)


# --- no text in error bodies or logs ----------------------------------------------------------------------------
def test_errors_and_logs_never_hold_the_text(nlp: Pipeline, caplog: pytest.LogCaptureFixture) -> None:
    c = small_app(nlp)
    caplog.set_level(logging.DEBUG)
    bodies = [
        {"id": "a", "text": NOTE, "spans": [{"start": 0, "end": 3, "label": "has space"}]},
        {"id": "a", "text": NOTE, "meta": {"lang": ["es"]}},
        {"id": "a", "text": NOTE, "meta": {"lang": "fr"}},
        {"id": "a", "text": 12, "meta": {"patient": SECRET}},
        {"id": "a", "text": NOTE, "meta": {"patient": {"name": SECRET}}},
    ]
    for body in bodies:
        r = c.post("/detect", json=body, headers=H)
        assert r.status_code == 422, body
        assert "Villalobos" not in r.text
    r = c.post("/detect", content=('{"id": "a", "text": "' + SECRET + '"').encode(),
               headers={**H, "content-type": "application/json"})
    assert r.status_code == 422 and "Villalobos" not in r.text
    c.post("/deidentify", json={"id": "ok", "text": NOTE}, headers=H)
    access = [json.loads(rec.getMessage()) for rec in caplog.records if rec.name == "clinanon.service.access"]
    assert {a["path"] for a in access} == {"/detect", "/deidentify"}
    assert {a["status"] for a in access} == {200, 422}
    assert all(a["bytes_in"] > 0 and a["ms"] >= 0 and re.fullmatch(r"[0-9a-f]{16}", a["request_id"])
               for a in access)
    assert not any("Villalobos" in rec.getMessage() for rec in caplog.records)


def test_an_unexpected_error_is_a_500_without_its_message(nlp: Pipeline, caplog: pytest.LogCaptureFixture,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    c = small_app(nlp)

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"something about {SECRET}")

    monkeypatch.setattr(nlp, "pipe", boom)
    caplog.set_level(logging.INFO)
    r = c.post("/deidentify", json={"id": "a", "text": NOTE}, headers=H)
    assert r.status_code == 500 and r.json()["detail"] == "internal error"
    assert "Villalobos" not in r.text
    errors = [json.loads(rec.getMessage()) for rec in caplog.records if rec.name == "clinanon.service.error"]
    assert errors and errors[0]["error"] == "RuntimeError"
    assert not any("Villalobos" in rec.getMessage() for rec in caplog.records)


# --- latency -----------------------------------------------------------------------------------------------------
async def _accepted_nodelay(sock: socket.socket) -> int:
    """TCP_NODELAY of the server side of a connection accepted by asyncio (as uvicorn accepts) on ``sock``."""
    got: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        got.set_result(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(accepted, sock=sock)
    try:
        _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        value = await asyncio.wait_for(got, 10)
        writer.close()
        return value
    finally:
        server.close()
        await server.wait_closed()


def test_accepted_connections_have_nagle_off() -> None:
    """The listening socket of ``clinanon serve`` says it is TCP, so asyncio turns Nagle's algorithm off on every
    connection; a plain ``socket.socket()`` (proto 0, what serve used) leaves it on: the body of each response then
    waited ~40 ms for the client's delayed ACK of its headers."""
    from clinanon.service.server import listen_socket

    assert asyncio.run(_accepted_nodelay(listen_socket("127.0.0.1", 0))) != 0
    plain = socket.socket()
    plain.bind(("127.0.0.1", 0))
    plain.listen()
    assert asyncio.run(_accepted_nodelay(plain)) == 0  # the regression this test is here for


@pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="SO_REUSEPORT is Linux/BSD")
def test_workers_get_one_socket_each_on_the_same_port() -> None:
    """Several workers each listen on a socket of their own on one port (the kernel spreads the connections; one
    shared socket let the first worker to wake take a whole burst); without ``reuse_port`` a second bind fails."""
    from clinanon.service.server import listen_socket

    first = listen_socket("127.0.0.1", 0, reuse_port=True)
    port = first.getsockname()[1]
    second = listen_socket("127.0.0.1", port, reuse_port=True)
    try:
        assert second.getsockname()[1] == port
        with pytest.raises(OSError):
            listen_socket("127.0.0.1", port).close()
    finally:
        first.close()
        second.close()


def test_serve_takes_the_loaded_pipeline_out_of_the_garbage_collector(monkeypatch: pytest.MonkeyPatch) -> None:
    """One worker too: a full collection walking the pipeline's large containers stalled every request in flight
    for 0.1-0.5 s every few hundred requests (the p99 and max of the load test)."""
    import gc

    import uvicorn

    import clinanon.service.server as server

    seen: dict[str, int] = {}

    def fake_run(self: object, sockets: list[socket.socket]) -> None:
        seen["frozen"] = gc.get_freeze_count()
        seen["nodelay"] = sockets[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        sockets[0].close()

    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    monkeypatch.setattr(server, "_logging", lambda level: None)
    gc.unfreeze()
    try:
        server.serve(object(), port=0, workers=1)
    finally:
        gc.unfreeze()
    assert seen["frozen"] > 0 and seen["nodelay"] != 0


def test_serve_defaults_to_one_worker_per_core_at_most_four() -> None:
    from clinanon.service.server import MAX_DEFAULT_WORKERS, default_workers

    assert default_workers() == min(len(os.sched_getaffinity(0)), MAX_DEFAULT_WORKERS) >= 1


def test_pipeline_requests_run_one_at_a_time_in_arrival_order(nlp: Pipeline, monkeypatch: pytest.MonkeyPatch) -> None:
    """Concurrent /deidentify requests wait in a first-in first-out queue for the one pipeline thread, and the
    event loop stays free meanwhile (an async route calling the pipeline itself would hold every request up)."""
    app = create_app(token=TOKEN, pipeline=nlp, warmup=False)
    import dataclasses

    order: list[str] = []
    done = nlp.deidentify(Document("x", NOTE))

    def slow_pipe(docs: list[Document], **kw: object) -> object:  # 100 ms of Python work, like the pipeline
        order.extend(d.id for d in docs)
        end = time.perf_counter() + 0.1
        while time.perf_counter() < end:
            sum(range(200))
        return [dataclasses.replace(done, id=d.id) for d in docs]

    monkeypatch.setattr(nlp, "pipe", slow_pipe)

    async def go() -> tuple[list[int], float]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t", headers=H) as c:
            async def one(i: int) -> int:
                await asyncio.sleep(0.02 * i)  # arrival order 0, 1, 2, ...
                r = await c.post("/deidentify", json={"id": f"d{i}", "text": NOTE})
                return r.status_code

            tasks = [asyncio.create_task(one(i)) for i in range(6)]
            await asyncio.sleep(0.15)
            t0 = time.perf_counter()
            assert (await c.get("/version")).status_code == 200  # answered while the pipeline is busy
            waited = time.perf_counter() - t0
            return await asyncio.gather(*tasks), waited

    codes, waited = asyncio.run(go())
    assert codes == [200] * 6
    assert order == [f"d{i}" for i in range(6)]
    assert waited < 0.3  # not behind the 6 x 100 ms of pipeline work


# --- the review store -------------------------------------------------------------------------------------------
CONFIG = """\
# my settings (this comment must survive)
language = "es"

[allow]
words = ["Parkinson"]  # eponyms
"""


@pytest.fixture()
def store(nlp: Pipeline, tmp_path: Path) -> ReviewStore:
    cfg = tmp_path / "clinanon.toml"
    cfg.write_text(CONFIG, encoding="utf-8")
    docs = [Document("d1", "Paciente: Ana Pérez. Ana Pérez acude con Luis Gil. Visita el 3 de marzo de 2020."),
            Document("d2", "Control de Ana Pérez en Valencia.")]
    return ReviewStore(docs, out_dir=tmp_path / "out", config_path=cfg, pipeline=nlp, reviewer="tester")


def _span_at(store: ReviewStore, doc: str, text: str, nth: int = 0):
    rd = store.get(doc)
    start = [m.start() for m in re.finditer(re.escape(text), rd.doc.text)][nth]
    return next(s for s in rd.spans if s.start == start and s.end == start + len(text))


def test_review_actions_log_offsets_and_labels_only(store: ReviewStore, tmp_path: Path) -> None:
    rd = store.get("d1")
    assert rd.spans and store.summary()[1]["spans"] is None  # d2 not detected until opened
    date = next(s for s in rd.spans if s.label == "DATE")
    store.set_status("d1", date.id, "rejected")
    luis = _span_at(store, "d1", "Luis Gil")
    store.relabel("d1", luis.id, "NAME.DOCTOR")
    with pytest.raises(ReviewError, match="overlaps"):
        store.add("d1", luis.start, luis.end, "NAME.DOCTOR")
    visita = rd.doc.text.index("Visita")
    added = store.add("d1", visita, visita + 6, "OTHER")
    store.adjust("d1", added.id, visita, visita + 5)
    with pytest.raises(ReviewError, match="not in the label scheme"):
        store.add("d1", 0, 8, "NOT_A_LABEL")
    store.mark_reviewed("d1")
    assert all(s.status != "pending" for s in store.get("d1").spans)
    entries = store.log_entries()
    assert [e["action"] for e in entries] == ["reject", "relabel", "add", "adjust", "reviewed"]
    assert entries[1]["before"]["label"] == "NAME.PATIENT" or entries[1]["before"]["label"].startswith("NAME")
    assert entries[1]["after"]["label"] == "NAME.DOCTOR" and entries[0]["reviewer"] == "tester"
    log_text = store.log_path.read_text(encoding="utf-8")
    assert "Luis" not in log_text and "Ana" not in log_text and "Visita" not in log_text


def test_apply_to_every_mention_in_the_corpus(store: ReviewStore) -> None:
    ana = _span_at(store, "d1", "Ana Pérez")
    store.relabel("d1", ana.id, "NAME.RELATIVE")
    changed = store.apply_everywhere("d1", ana.id, "corpus")
    assert changed >= 2
    for doc in ("d1", "d2"):
        rd = store.get(doc)
        for m in re.finditer("Ana Pérez", rd.doc.text):
            assert any(s.start == m.start() and s.label == "NAME.RELATIVE" and s.status == "accepted"
                       for s in rd.spans)
    store.set_status("d1", ana.id, "rejected")
    store.apply_everywhere("d1", ana.id, "corpus")
    assert not any(s.kept and "Ana" in store.get("d2").doc.text[s.start:s.end] for s in store.get("d2").spans)


def test_save_brat_and_jsonl_and_export_training(store: ReviewStore, tmp_path: Path) -> None:
    luis = _span_at(store, "d1", "Luis Gil")
    store.set_status("d1", luis.id, "rejected")
    store.mark_reviewed("d1")
    brat = store.save("brat")
    [saved] = list(cio.read(brat, "brat"))  # d2 was never opened: nothing to save for it
    assert saved.id == "d1" and not any(saved.text[s.start:s.end] == "Luis Gil" for s in saved.spans)
    assert any(saved.text[s.start:s.end] == "Ana Pérez" for s in saved.spans)
    store.get("d2")
    jsonl = store.save("jsonl")
    docs = {d.id: d for d in cio.read(jsonl, "jsonl")}
    assert docs["d1"].meta["review_status"] == "reviewed" and docs["d2"].meta["review_status"] == "detected"
    training = store.export_training()
    assert sorted(p.name for p in training.iterdir()) == ["d1.ann", "d1.txt"]  # reviewed documents only
    assert "clinanon train --brat" in (store.out_dir / "training.README.txt").read_text(encoding="utf-8")


def test_allow_and_deny_lists_are_written_to_the_configuration(store: ReviewStore) -> None:
    from clinanon.config import Config

    store.add_to_list("deny", "Valencia")
    lists = store.add_to_list("allow", "Gil")
    assert lists == {"allow": ["Parkinson", "Gil"], "deny": ["Valencia"]}
    text = store.config_path.read_text(encoding="utf-8")
    assert "# my settings (this comment must survive)" in text and "# eponyms" in text
    cfg = Config.load(store.config_path)
    assert cfg.deny.words == ["Valencia"] and cfg.language == "es"
    log = store.log_path.read_text(encoding="utf-8")
    assert "Valencia" not in log and "allow-list-add" in log


# --- the process ------------------------------------------------------------------------------------------------
def test_clinanon_serve_forks_workers_and_shuts_down_gracefully(tmp_path: Path) -> None:
    cfg = tmp_path / "rules.toml"
    cfg.write_text('language = "es"\n[detectors]\nuse = ["rules"]\n', encoding="utf-8")
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n", encoding="utf-8")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "clinanon.cli", "serve", "--config", str(cfg), "--port",
                             str(port), "--workers", "2", "--token-file", str(token)],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        r = httpx.post(f"http://127.0.0.1:{port}/deidentify", json={"id": "a", "text": NOTE}, headers=H, timeout=30)
        assert r.status_code == 200 and "12345678Z" not in r.json()["text"]
        assert httpx.get(f"http://127.0.0.1:{port}/version", timeout=5).status_code == 401
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=H, timeout=10) as c:  # keep-alive
            times = []
            for _ in range(15):
                t0 = time.perf_counter()
                assert c.get("/version").status_code == 200
                times.append(time.perf_counter() - t0)
        assert min(times) < 0.03, times  # Nagle on: every response took >= 40 ms (the delayed ACK)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        err = proc.stderr.read() if proc.stderr else ""
        assert '"workers": 2' in err and '"path": "/deidentify"' in err and "Villalobos" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_refuses_no_auth_on_a_public_address() -> None:
    from typer.testing import CliRunner

    from clinanon.cli import app

    result = CliRunner().invoke(app, ["serve", "--no-auth", "--host", "0.0.0.0"])
    assert result.exit_code == 2


# --- the review commands' login link ----------------------------------------------------------------------------
class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_login_link_holds_the_token_only_on_a_terminal() -> None:
    from clinanon.service.server import login_link

    secret = "tok-" + "q" * 30
    base = "http://127.0.0.1:8765"
    with login_link(base, "/review/login", secret, stream=_Terminal(), from_env=False) as shown:
        assert shown == f"{base}/review/login?token={secret}"
    with login_link(base, "/review/login", secret, stream=io.StringIO(), from_env=True) as shown:
        assert secret not in shown and "$CLINANON_SERVICE_TOKEN" in shown
    with login_link(base, "/review/login", secret, stream=io.StringIO(), from_env=False) as shown:
        assert secret not in shown
        path = Path(re.search(r"it is in (\S+),", shown).group(1))  # type: ignore[union-attr]
        assert path.read_text(encoding="utf-8").strip() == f"{base}/review/login?token={secret}"
        assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    assert not path.exists() and not path.parent.exists()  # removed when the review stops


def test_the_browser_gets_a_private_page_not_the_token() -> None:
    """``--open`` gives the browser a file:// page (mode 600, private folder) that redirects to the login link: the
    token is never on a command line (``ps``); the page is removed when the review stops."""
    from clinanon.service.server import browser_opener

    secret = "tok-" + "z" * 30
    url = f"http://127.0.0.1:8765/review/login?token={secret}"
    opened: list[str] = []
    with browser_opener(url, opener=opened.append) as path:
        assert len(opened) == 1 and opened[0].startswith("file://") and secret not in opened[0]
        assert Path(opened[0][len("file://"):]) == path
        page = path.read_text(encoding="utf-8")
        assert f"url={url}" in page and f'location.replace("{url}")' in page and "no-referrer" in page
        assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    assert not path.exists() and not path.parent.exists()


def _run_review_command(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, str]:
    """``clinanon ARGS`` with its output captured (not a terminal) and the server replaced by a check of the
    login-link file: (output, the session token, the link the file held while the server ran)."""
    import tempfile

    from typer.testing import CliRunner

    import clinanon.service.server as server
    from clinanon.cli import app

    seen: dict[str, str] = {}

    def fake_serve(api: object, **kw: object) -> None:
        token = api.state.settings.token  # type: ignore[attr-defined]
        seen["token"] = token
        for f in Path(tempfile.gettempdir()).glob("clinanon-review-*/login-link"):
            if token in f.read_text(encoding="utf-8"):
                assert f.stat().st_mode & 0o777 == 0o600
                seen["link"] = f.read_text(encoding="utf-8").strip()

    monkeypatch.setattr(server, "serve", fake_serve)
    monkeypatch.delenv("CLINANON_SERVICE_TOKEN", raising=False)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.output, seen["token"], seen.get("link", "")


def test_clinanon_review_does_not_print_the_token_when_not_a_terminal(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text(NOTE, encoding="utf-8")
    cfg = tmp_path / "rules.toml"
    cfg.write_text('language = "es"\n[detectors]\nuse = ["rules"]\n', encoding="utf-8")
    out, token, link = _run_review_command(["review", str(notes), "--config", str(cfg), "--no-open", "--port",
                                            "8799", "--out", str(tmp_path / "out")], monkeypatch)
    assert len(token) >= 20 and token not in out
    assert link == f"http://127.0.0.1:8799/review/login?token={token}"
    # the file's path is printed whole on one line (no wrap at the runner's 80 columns)
    assert re.search(r"it is in /\S+/login-link,", out), out
    assert "Villalobos" not in out


def test_clinanon_review_vocab_does_not_print_the_token_when_not_a_terminal(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    review = tmp_path / "review.csv"
    review.write_text("sentence,mask,rank,prediction,probability,capitalised,in_name_list,common_word,eponym,"
                      "name_like,original,manual_verdict,text\n"
                      "0,0,1,García,0.4,1,1,0,0,1,0,,Paciente <mask> ingresa.\n", encoding="utf-8")
    out, token, link = _run_review_command(["review-vocab", str(review), "--no-open", "--port", "8798"], monkeypatch)
    assert len(token) >= 20 and token not in out
    assert link == f"http://127.0.0.1:8798/review/vocab/login?token={token}"
    assert re.search(r"it is in /\S+/login-link,", out), out


def test_the_login_link_file_is_removed_when_the_review_is_stopped(tmp_path: Path) -> None:
    """``clinanon review`` as a process, its output a pipe: the token is not printed, the file named holds the
    link that logs in, and SIGTERM (uvicorn stops, then raises the signal again) still removes it."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text(NOTE, encoding="utf-8")
    cfg = tmp_path / "rules.toml"
    cfg.write_text('language = "es"\n[detectors]\nuse = ["rules"]\n', encoding="utf-8")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "CLINANON_SERVICE_TOKEN"}
    proc = subprocess.Popen([sys.executable, "-m", "clinanon.cli", "review", str(notes), "--config", str(cfg),
                             "--no-open", "--port", str(port), "--out", str(tmp_path / "out")],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            env={**env, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        path = Path(re.search(r"it is in (\S+),", line).group(1))  # type: ignore[union-attr]
        link = path.read_text(encoding="utf-8").strip()
        token = link.split("token=", 1)[1]
        assert len(token) >= 20 and token not in line
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                r = httpx.get(link, follow_redirects=False, timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        assert r.status_code in (302, 303, 307) and "clinanon_token" in r.headers.get("set-cookie", "")
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        rest = proc.stderr.read()
        assert not path.exists() and not path.parent.exists()
        assert token not in rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
