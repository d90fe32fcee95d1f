"""The language-model vocabulary review (``clinanon review-vocab``): the store, its JSON API and page (FastAPI's
TestClient), and the round trip into ``clinanon lm scrub-vocab``: the saved CSV makes the scrubber rename exactly
the tokens accepted as names."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from clinanon.audit.probe import Prediction, ProbeResult
from clinanon.config import Config
from clinanon.errors import InputError
from clinanon.lm.scrub import scrub_vocabulary, tokens_from_review
from clinanon.pipeline import Pipeline
from clinanon.service.app import create_app
from clinanon.service.vocab_review import VocabReviewError, VocabReviewStore, token_key

TOKEN = "vocab-token-7"
SENTENCES = ["Paciente <mask> ingresa por disnea.", "Control por el Dr. <mask> en consulta.",
             "Acompañada por su hija <mask>."]
SECRET_SENTENCE_WORD = "disnea"  # sentence text: must never reach the log


def _pred(sentence: int, rank: int, token: str, prob: float, name_like: bool, **flags: bool) -> Prediction:
    f = {"capitalised": token[:1].isupper(), "in_name_list": name_like, "common_word": False, "eponym": False,
         "original": False, **flags}
    return Prediction(sentence, 0, rank, token, prob, name_like=name_like, **f)


def _review_csv(path: Path, sentences: list[str] | None = SENTENCES) -> Path:
    """A review CSV written by the probe's own writer: García (twice, once lower-case), Pérez, Ruiz (a surname in no
    list: not name-like), "paciente", "el" and Parkinson (an eponym)."""
    res = ProbeResult(3, 5)
    res.predictions = [
        _pred(0, 1, "García", 0.41, True), _pred(0, 2, "paciente", 0.20, False), _pred(0, 3, "Pérez", 0.05, True),
        _pred(1, 1, "el", 0.30, False), _pred(1, 2, "garcía", 0.10, False), _pred(1, 3, "Ruiz", 0.02, False),
        _pred(2, 1, "Parkinson", 0.12, False, eponym=True), _pred(2, 4, "Pérez", 0.01, True),
        _pred(2, 5, "García", 0.01, True, original=True),
    ]
    res.write_review(path, sentences)
    return path


def _tokenizer(folder: Path) -> Path:
    """A tiny byte-level BPE ``tokenizer.json`` (no weights needed to scrub the vocabulary)."""
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": 4, "ĠGarcÃŃa": 5, "ĠPÃ©rez": 6, "ĠRuiz": 7,
             "Ġpaciente": 8, "Ġel": 9, "ĠParkinson": 10, "Ġgarc": 11}
    data = {"version": "1.0", "added_tokens": [], "pre_tokenizer": {"type": "ByteLevel"},
            "decoder": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": vocab, "merges": []}}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tokenizer.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return folder


@pytest.fixture
def store(tmp_path: Path) -> VocabReviewStore:
    return VocabReviewStore(_review_csv(tmp_path / "review.csv"), reviewer="AB")


def _client(store: VocabReviewStore, login: bool = True) -> TestClient:
    app = create_app(token=TOKEN, pipeline=Pipeline(Config()), warmup=False, vocab_review=store)
    client = TestClient(app)
    if login:
        r = client.get(f"/review/vocab/login?token={TOKEN}", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/review/vocab"
    return client


def _by_token(store: VocabReviewStore) -> dict[str, int]:
    return {g.key: g.id for g in store.groups.values()}


def test_rows_are_grouped_by_the_text_scrub_vocab_compares(store: VocabReviewStore) -> None:
    assert token_key("ĠGarcÃŃa") == token_key("García") == token_key("garcía") == "garcia"
    groups = {g.key: g for g in store.groups.values()}
    assert set(groups) == {"garcia", "paciente", "perez", "el", "ruiz", "parkinson"}
    g = groups["garcia"]
    assert (g.count, g.best_rank, g.name_like, g.token) == (3, 1, 2, "García")
    assert g.to_dict()["forms"] == ["García", "garcía"]
    assert g.example == SENTENCES[0]  # the sentence of its best rank, masked
    assert "an original name" in g.reasons() and "capitalised" in g.reasons()
    assert groups["parkinson"].reasons() == ["capitalised", "medical eponym"] and not groups["parkinson"].name_like
    assert (groups["perez"].count, groups["perez"].best_rank) == (2, 3)
    # the page's order: name-like first, then by count; filters
    assert [x.key for x in store.ordered("name-like")] == ["garcia", "perez"]
    assert store.ordered("all")[:2] == store.ordered("name-like")
    assert len(store.ordered("undecided")) == 6
    assert store.progress() == {"tokens": 6, "decided": 0, "names": 0, "kept": 0, "undecided": 6, "name_like": 2}
    assert "García" not in repr(g) and "García" not in repr(store)


def test_api_needs_the_token(store: VocabReviewStore) -> None:
    client = _client(store, login=False)
    assert client.get("/review/vocab").status_code == 401
    assert client.post("/review/vocab/api/decide", json={"token": 1, "decision": "name"}).status_code == 401
    assert client.post("/review/vocab/api/save").status_code == 401
    assert client.get("/review/vocab/login?token=wrong").status_code == 401
    assert store.progress()["decided"] == 0 and not store.out.exists()
    assert client.get("/review/vocab/api/tokens", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_page_lists_tokens_with_judgement_and_masked_example(store: VocabReviewStore) -> None:
    client = _client(store)
    r = client.get("/review/vocab")
    assert r.status_code == 200
    html = r.text
    assert html.count('<tr data-id="') == 6
    assert "<code>García</code>" in html and "(garcía)" in html
    assert "Paciente &lt;mask&gt; ingresa por disnea." in html  # escaped, masked
    assert "name-like" in html and "medical eponym" in html
    assert "0 of 6 tokens decided" in html
    assert client.get("/review/static/vocab.js").status_code == 200
    assert client.get("/review/static/vocab.css").status_code == 200
    assert client.get("/review/vocab/api/tokens?filter=bogus").status_code == 422
    got = client.get("/review/vocab/api/tokens?filter=name-like").json()
    assert [t["token"] for t in got["tokens"]] == ["García", "Pérez"]


def test_decide_undo_save_and_the_round_trip_into_scrub_vocab(store: VocabReviewStore, tmp_path: Path) -> None:
    client = _client(store)
    ids = _by_token(store)

    def decide(key: str, decision: str | None) -> dict:
        r = client.post("/review/vocab/api/decide", json={"token": ids[key], "decision": decision})
        assert r.status_code == 200, r.text
        return r.json()

    decide("garcia", "name")
    decide("ruiz", "name")  # a surname the automatic judgement missed
    decide("perez", "keep")
    got = decide("parkinson", "name")  # a mistake ...
    assert got["progress"]["decided"] == 4
    r = client.post("/review/vocab/api/undo")  # ... taken back
    assert r.json()["token"]["id"] == ids["parkinson"] and r.json()["token"]["decision"] is None
    decide("perez", "name")  # changed mind: Pérez is a name
    decide("el", "keep")
    p = client.get("/review/vocab/api/tokens?filter=undecided").json()
    assert {t["token"] for t in p["tokens"]} == {"paciente", "Parkinson"}
    assert p["progress"] == {"tokens": 6, "decided": 4, "names": 3, "kept": 1, "undecided": 2, "name_like": 2}
    assert client.post("/review/vocab/api/decide", json={"token": 99, "decision": "name"}).status_code == 404
    assert client.post("/review/vocab/api/decide", json={"token": 1, "decision": "maybe"}).status_code == 422

    saved = client.post("/review/vocab/api/save").json()
    out = Path(saved["path"])
    assert out == tmp_path / "review.reviewed.csv" and saved["mode"] == "manual" and saved["names"] == 3
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    verdicts = {(r["prediction"], r["sentence"]): r["manual_verdict"] for r in rows}
    assert verdicts == {("García", "0"): "name", ("paciente", "0"): "", ("Pérez", "0"): "name", ("el", "1"): "keep",
                        ("garcía", "1"): "name", ("Ruiz", "1"): "name", ("Parkinson", "2"): "",
                        ("Pérez", "2"): "name", ("García", "2"): "name"}
    # every other column as the probe wrote it
    with (tmp_path / "review.csv").open(encoding="utf-8", newline="") as fh:
        before = list(csv.DictReader(fh))
    assert [{k: v for k, v in r.items() if k != "manual_verdict"} for r in rows] == \
        [{k: v for k, v in r.items() if k != "manual_verdict"} for r in before]

    # the round trip: scrub-vocab reads the saved CSV and renames exactly the accepted tokens
    names, how = tokens_from_review(out)
    assert (names, how) == ({"garcia", "perez", "ruiz"}, "manual")
    res = scrub_vocabulary(_tokenizer(tmp_path / "model"), tmp_path / "scrubbed", names)
    assert sorted(text for _, text, _ in res.renamed) == ["García", "Pérez", "Ruiz"]
    assert sorted(idx for idx, _, _ in res.renamed) == [5, 6, 7]
    vocab = json.loads((tmp_path / "scrubbed" / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    assert {"Ġpaciente", "Ġel", "ĠParkinson", "Ġgarc"} <= set(vocab) and "ĠRuiz" not in vocab

    # the log: who, when, token numbers and decisions; no token or sentence text
    log = store.log_path.read_text(encoding="utf-8")
    entries = [json.loads(x) for x in log.splitlines()]
    assert [e["action"] for e in entries] == ["open"] + ["decide"] * 4 + ["undo"] + ["decide"] * 2 + ["save"]
    assert all(e["reviewer"] == "AB" and e["time"] for e in entries)
    assert entries[1] == {**entries[1], "token": ids["garcia"], "before": None, "after": "name"}
    assert entries[6] == {**entries[6], "token": ids["perez"], "before": "keep", "after": "name"}
    for word in ("Garc", "garc", "Pérez", "Ruiz", "Parkinson", "paciente", SECRET_SENTENCE_WORD, "mask"):
        assert word not in log


def test_nothing_decided_saves_the_csv_unchanged(store: VocabReviewStore, tmp_path: Path) -> None:
    saved = store.save()
    assert saved["mode"] == "automatic" and saved["undecided"] == 6
    assert store.out.read_bytes() == (tmp_path / "review.csv").read_bytes()
    # and scrub-vocab then falls back to the automatic judgement, as the page says
    assert tokens_from_review(store.out) == ({"garcia", "perez"}, "automatic")


def test_rejecting_everything_scrubs_nothing(store: VocabReviewStore) -> None:
    for g in list(store.groups.values()):
        store.decide(g.id, "keep")
    store.save()
    assert tokens_from_review(store.out) == (set(), "manual")


def test_a_reviewed_csv_reopens_with_its_decisions_and_a_csv_without_the_column(tmp_path: Path) -> None:
    path = _review_csv(tmp_path / "review.csv")
    first = VocabReviewStore(path)
    ids = _by_token(first)
    first.decide(ids["garcia"], "name")
    first.decide(ids["el"], "keep")
    first.save()
    again = VocabReviewStore(first.out)
    assert again.out == first.out  # a *.reviewed.csv is saved in place
    assert {g.key: g.decision for g in again.groups.values() if g.decision} == {"garcia": "name", "el": "keep"}
    # a hand-edited file where one row of a token says "yes": the token is a name, as scrub-vocab reads it
    rows = list(csv.reader(path.open(encoding="utf-8", newline="")))
    col = rows[0].index("manual_verdict")
    rows[2][col] = "no"  # paciente
    rows[5][col] = "yes"  # garcía (lower case; García's other rows have no verdict)
    with path.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)
    mixed = VocabReviewStore(path, out=tmp_path / "elsewhere" / "r.csv")
    assert {g.key: g.decision for g in mixed.groups.values() if g.decision} == {"garcia": "name", "paciente": "keep"}
    assert mixed.log_path == tmp_path / "elsewhere" / "r.log.jsonl"

    # an older CSV without the verdict column (nor sentences): the column is added on save
    bare = tmp_path / "bare.csv"
    bare.write_text("sentence,mask,rank,prediction,probability,name_like\r\n0,0,1,Lotte,0.5,1\r\n"
                    "0,0,2,de,0.1,0\r\n", encoding="utf-8")
    s = VocabReviewStore(bare)
    s.decide(_by_token(s)["lotte"], "name")
    s.save()
    assert s.out.read_text(encoding="utf-8").splitlines() == [
        "sentence,mask,rank,prediction,probability,name_like,manual_verdict", "0,0,1,Lotte,0.5,1,name",
        "0,0,2,de,0.1,0,"]
    assert tokens_from_review(s.out) == ({"lotte"}, "manual")


def test_errors(tmp_path: Path, store: VocabReviewStore) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(InputError, match="no 'prediction' column"):
        VocabReviewStore(bad)
    latin = tmp_path / "latin.csv"
    latin.write_bytes("prediction\nGarc\xeda\n".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8") as e:
        VocabReviewStore(latin)
    assert "Garc" not in str(e.value)
    with pytest.raises(VocabReviewError, match="nothing to undo"):
        store.undo()
    assert _client(store).post("/review/vocab/api/undo").status_code == 409


def test_cli_registers_review_vocab(tmp_path: Path) -> None:
    from clinanon.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["review-vocab", "--help"])
    assert r.exit_code == 0 and "--out" in r.output
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n", encoding="utf-8")
    r = runner.invoke(app, ["review-vocab", str(bad), "--no-open"])
    assert r.exit_code != 0 and "prediction" in r.output


def test_both_review_pages_in_one_app(store: VocabReviewStore, tmp_path: Path) -> None:
    from clinanon.document import Document
    from clinanon.service.review import ReviewStore

    nlp = Pipeline(Config())
    docs = ReviewStore([Document("n1", "Control sin incidencias.", (), {"lang": "es"})], out_dir=tmp_path / "o",
                       pipeline=nlp)
    client = TestClient(create_app(token=TOKEN, pipeline=nlp, warmup=False, review=docs, vocab_review=store))
    client.get(f"/review/login?token={TOKEN}")
    assert client.get("/review").status_code == 200
    assert client.get("/review/vocab").status_code == 200
    assert client.get("/review/static/review.js").status_code == 200
    assert client.get("/review/static/vocab.js").status_code == 200
    assert "/review/vocab" not in client.get("/openapi.json", headers={"Authorization": f"Bearer {TOKEN}"}).text
