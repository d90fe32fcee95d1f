"""The audit report (JSON + self-contained HTML) and the ``clinanon audit`` sub-app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinanon import Document, Span
from clinanon import io as cio
from clinanon.audit.cli import audit_app
from clinanon.audit.corpus import audit_corpus, sanitize, summary_sentence
from clinanon.audit.report import render_html

NAMES = ["Lucía Ferrer", "Tomás Ibarra", "Nuria Castells", "Óscar Villalba", "Irene Montoya", "Raúl Quintero"]
BODIES = ["refiere dolor abdominal de tres días con fiebre y vómitos",
          "acude por disnea progresiva y edemas en miembros inferiores",
          "presenta cefalea intensa con fotofobia desde la mañana",
          "consulta por tos productiva y dolor pleurítico derecho",
          "ingresa por fractura de cadera tras caída casual en domicilio",
          "refiere astenia, pérdida de peso y sudoración nocturna"]


def docs() -> list[Document]:
    out = []
    for i, (name, body) in enumerate(zip(NAMES, BODIES, strict=True)):
        text = f"Paciente: {name}. Fecha: 0{i + 1}/03/2019. La paciente {body}."
        a = text.index(name)
        d = text.index("0")
        out.append(Document(f"n{i}", text, (Span(a, a + len(name), "NAME.PATIENT"), Span(d, d + 10, "DATE"))))
    return out


def test_corpus_audit_and_html_report() -> None:
    pytest.importorskip("matplotlib")
    originals = docs()
    versions = {op: sanitize(originals, op) for op in ("tag", "redact", "suppress")}
    result = audit_corpus(originals, versions, methods=("jaccard", "bm25"))
    rows = {r["name"]: r for r in result["rows"]}
    assert rows["tag"]["reid"]["jaccard"]["found@1"] == 1.0  # the bodies tell the notes apart
    assert rows["tag"]["residual"]["overall"]["partial"]["leaked"] == 0
    assert result["summary"].startswith("Of 6 notes, none of the 12 annotated PHI mentions can be read")
    assert "finds the original of 100.0 %" in result["summary"]
    page = render_html({"summary": result["summary"], "corpus": result})
    assert page.count("data:image/png;base64,") >= 3 and "<table>" in page
    for secret in ("Ferrer", "Ibarra", "fiebre", "disnea"):
        assert secret not in page and secret not in json.dumps(result)
    assert summary_sentence([]) == "Nothing was audited."


def test_cli_run_residual_reid_model_report(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    gold = tmp_path / "gold.jsonl"
    cio.write(docs(), gold, "jsonl")
    san = tmp_path / "tag.jsonl"
    cio.write([s.to_document() for s in sanitize(docs(), "tag")], san, "jsonl")
    runner = CliRunner()
    out, page = tmp_path / "audit.json", tmp_path / "audit.html"
    r = runner.invoke(audit_app, ["run", str(gold), "-o", "tag", "-o", "redact", "-s", f"mine={san}",
                                  "-m", "jaccard", "--out", str(out), "--html", str(page), "--no-progress"])
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [row["name"] for row in data["corpus"]["rows"]] == ["tag", "redact", "mine"]
    assert page.read_text(encoding="utf-8").startswith("<!doctype html>")
    r = runner.invoke(audit_app, ["residual", str(gold), str(san)])
    assert r.exit_code == 0 and json.loads(r.stdout)["overall"]["mentions"] == 12
    r = runner.invoke(audit_app, ["reid", str(gold), str(san), "-m", "jaccard", "--no-progress"])
    assert r.exit_code == 0 and json.loads(r.stdout)["jaccard"]["found@1"] == 1.0
    page2 = tmp_path / "again.html"
    r = runner.invoke(audit_app, ["report", str(out), "--html", str(page2)])
    assert r.exit_code == 0 and page2.is_file()
    r = runner.invoke(audit_app, ["model", str(tmp_path / "nowhere")])
    # (the error line wraps at the console's width: a long temporary path breaks it anywhere)
    assert r.exit_code == 2 and "not a model directory" in " ".join(r.output.split())
    r = runner.invoke(audit_app, ["run", str(gold), "-o", "neighbors"])
    assert r.exit_code == 2 and "--embeddings" in r.output


def test_registered_as_clinanon_audit() -> None:
    from clinanon.cli import app

    r = CliRunner().invoke(app, ["audit", "--help"])
    assert r.exit_code == 0
    for verb in ("run", "residual", "reid", "linkage", "model", "probe", "report"):
        assert verb in r.output


def test_corpus_audit_of_aggregated_notes() -> None:
    import random

    from clinanon.corpus import Aggregation

    originals = [d.with_meta(label="x") for d in docs()]
    joined = Aggregation(size=2).transform(originals, random.Random(0))
    result = audit_corpus(originals, {"aggregate 2": joined, "tag": sanitize(originals, "tag")},
                          methods=("jaccard",))
    agg, tag = result["rows"]
    assert agg["aggregated_queries"] == 3 and agg["reid"]["jaccard"]["queries"] == 3
    # every original is paired with the note it went into: nothing missing, and no PHI was removed
    assert agg["residual"]["missing_documents"] == 0 and agg["documents"] == 6
    assert agg["residual"]["overall"]["exact"]["rate"] == 1.0
    assert agg["reid"]["jaccard"]["members"]["members"] == 6
    assert "members" not in tag["reid"]["jaccard"] and tag["residual"]["overall"]["exact"]["rate"] == 0.0
