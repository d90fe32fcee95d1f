"""The Spark engine (clinanon.spark) on ``local[2]``: one Spark session for the whole test run, bound to 127.0.0.1.

Skipped only when pyspark (the ``spark`` extra) or Java is missing. The notes are synthetic, made here from
templates and made-up names."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clinanon.config import Config
from clinanon.document import Document
from clinanon.errors import ConfigError

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'clinanon[spark]')")
pytest.importorskip("pandas", reason="pandas is not installed (pip install 'clinanon[spark]')")
pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'clinanon[spark]')")


def _java_ok() -> bool:
    java = shutil.which("java") or (os.path.join(os.environ["JAVA_HOME"], "bin", "java")
                                    if os.environ.get("JAVA_HOME") else None)
    if java is None or not os.path.exists(java):
        return False
    try:
        return subprocess.run([java, "-version"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


if not _java_ok():
    pytest.skip("no Java runtime (Spark needs Java 17 or newer: apt-get install openjdk-17-jre-headless)",
                allow_module_level=True)

from clinanon import spark as cspark  # noqa: E402

KEY_HEX = "3f" * 16 + "a1" * 16  # a fixed test key (32 bytes)

ES_NAMES = ["María Lucía Ferrer Ortega", "Jorge Alberto Ruiz Peña", "Carmen Isabel Vidal Soto",
            "Andrés Manuel Iglesias Mora", "Lucía Beatriz Navarro Gil", "Tomás Ignacio Herrera Cano"]
EN_NAMES = ["Margaret Ellen Whitfield", "Gregory Paul Harrington", "Deborah Ann Castellano", "Walter James Pruitt"]
ES_TEMPLATES = [
    "Paciente {name}, de {age} años, ingresó el {day}/03/2019 por dolor torácico. Vive en Valencia. "
    "Teléfono de contacto: 612 345 {n:03d}.",
    "Mujer de {age} años remitida por su médico de cabecera. Nombre: {name}. Fecha de ingreso: {day} de mayo de "
    "2018. Correo: paciente{n}@correo.es.",
    "Varón de {age} años. Antecedentes: hipertensión arterial. Se le diagnostica neumonía el {day}/11/2020. "
    "Firmado: Dr. {name}.",
]
EN_TEMPLATES = [
    "Patient {name}, {age} years old, was admitted on {day}/04/2019 with chest pain. Lives in Boston. "
    "Phone 617-555-{n:04d}.",
    "Discharge summary for {name}. Seen in clinic on March {day}, 2020. Follow up with cardiology in two weeks.",
]


def make_notes(n: int, patients: int = 40) -> list[dict]:
    """``n`` synthetic notes (about 3 in 4 Spanish, 1 in 4 English) of ``patients`` patients."""
    rows = []
    for i in range(n):
        pid = i % patients
        if pid % 4 == 3:
            text = EN_TEMPLATES[i % len(EN_TEMPLATES)].format(name=EN_NAMES[pid % len(EN_NAMES)], age=30 + pid,
                                                              day=1 + pid % 27, n=i)
        else:
            text = ES_TEMPLATES[i % len(ES_TEMPLATES)].format(name=ES_NAMES[pid % len(ES_NAMES)], age=30 + pid,
                                                              day=1 + pid % 27, n=i)
        rows.append({"id": f"note-{i:04d}", "text": text, "patient_id": f"P{pid:03d}", "ward": f"W{i % 3}"})
    return rows


@pytest.fixture(scope="session")
def spark():
    """One ``local[2]`` session for the whole run, on 127.0.0.1 only, workers on this Python."""
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("clinanon-tests")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.default.parallelism", "4")
               .config("spark.python.worker.reuse", "true")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def key_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("key") / "clinanon.key"
    path.write_text(KEY_HEX, encoding="ascii")
    path.chmod(0o600)
    return path


@pytest.fixture(scope="session")
def config(key_file) -> Config:
    """Surrogates in patient scope with a key file; ward kept, patient ids pseudonymized."""
    return Config.from_dict({
        "operators": {"*": {"operator": "surrogate", "scope": "patient", "key_file": str(key_file)}},
        "metadata": {"keep_fields": ["ward"], "pseudonymize_fields": ["patient_id"]},
    })


def _by_id(rows) -> dict:
    return {r["id"]: r for r in rows}


def test_matches_local_engine_and_pipeline(spark, config, tmp_path):
    """A few hundred notes, Spanish and English (identified): the Spark output equals the local engine's (ids,
    texts, languages, kept and pseudonymized fields, what was replaced) and its spans equal the pipeline's."""
    from clinanon.engines.local import run_local
    from clinanon.metadata import MetadataPolicy
    from clinanon.pipeline import Pipeline

    notes = make_notes(240)
    src = tmp_path / "notes.jsonl"
    src.write_text("".join(json.dumps(n, ensure_ascii=False) + "\n" for n in notes), encoding="utf-8")
    local_out = tmp_path / "local.jsonl"
    res = run_local(src, local_out, config, workers=1)
    assert res.errors == 0 and res.processed == 240
    local = _by_id(json.loads(line) for line in local_out.read_text(encoding="utf-8").splitlines())

    df = spark.createDataFrame(notes).repartition(5)
    rows = cspark.deidentify(df, config, patient_col="patient_id").collect()
    assert len(rows) == 240
    assert [r["error"] for r in rows if r["error"]] == []
    assert set(rows[0].asDict()) == {"id", "patient_id", "ward", "lang", "text_deid", "spans", "error"}
    got = _by_id(r.asDict(recursive=True) for r in rows)
    assert set(got) == set(local)  # pseudonymized ids: the same keyed pseudonyms
    for doc_id, mine in got.items():
        theirs = local[doc_id]
        assert mine["text_deid"] == theirs["text"]
        assert mine["lang"] == theirs["meta"]["lang"]
        assert mine["ward"] == theirs["meta"]["ward"]
        assert mine["patient_id"] == theirs["meta"]["patient_id"] != "P000"
    assert {r["lang"] for r in rows} == {"es", "en"}

    # what the local engine replaced is what Spark found (sex words are kept by the surrogate operator, so the
    # replacement log is a subset), and Spark's spans are the pipeline's
    for doc_id, mine in got.items():
        replaced = [(r["start"], r["end"], r["label"]) for r in local[doc_id]["meta"]["replacements"]]
        assert replaced, "every synthetic note holds PHI"
        assert set(replaced) <= {(s["start"], s["end"], s["label"]) for s in mine["spans"]}
    policy = MetadataPolicy.from_config(config)
    sample = notes[:40]
    expected = Pipeline(config).detect_spans_many([Document(n["id"], n["text"]) for n in sample])
    for note, spans in zip(sample, expected, strict=True):
        mine = got[policy.output_id(0, note["id"])]["spans"]
        assert [(s["start"], s["end"], s["label"], s["source"], round(s["score"], 6)) for s in mine] == \
            [(s.start, s.end, s.label, s.source, round(s.score, 6)) for s in spans]
    # the original names are gone from every output
    texts = " ".join(r["text_deid"] for r in rows)
    assert not any(name in texts for name in ES_NAMES + EN_NAMES)


def test_patient_consistent_across_partitions(spark, config):
    """The notes of one patient, spread over partitions (and processed by both worker processes), get the same
    surrogate name and date shift; two patients with the same name do not share a surrogate."""
    from pyspark.sql import functions as F

    text = "Paciente María Lucía Ferrer Ortega, ingresó el 12/03/2019 por dolor torácico."
    rows = [{"id": f"n{i}", "text": text, "patient_id": "P1" if i % 2 == 0 else "P2", "ward": "A"} for i in range(24)]
    df = spark.createDataFrame(rows).repartition(6).withColumn("part", F.spark_partition_id())
    cfg = config.with_overrides(metadata={"keep_fields": ["ward", "part"], "pseudonymize_fields": ["patient_id"]})
    out = cspark.deidentify(df, cfg, patient_col="patient_id").collect()
    assert all(r["error"] is None for r in out)
    by_patient: dict[str, set[str]] = {}
    parts: dict[str, set[int]] = {}
    for r in out:
        by_patient.setdefault(r["patient_id"], set()).add(r["text_deid"])
        parts.setdefault(r["patient_id"], set()).add(r["part"])
    assert len(by_patient) == 2
    assert all(len(p) >= 2 for p in parts.values()), "each patient's notes lie in several partitions"
    assert all(len(texts) == 1 for texts in by_patient.values()), "one surrogate text per patient"
    t1, t2 = (next(iter(t)) for t in by_patient.values())
    assert t1 != t2 and "Ferrer" not in t1 + t2 and "12/03/2019" not in t1 + t2


def test_errors_are_rows_with_a_reason_never_text(spark, config):
    """A null text, a control character, a note in an unsupported language and a bad date field each give an
    ``error`` row (reason only, no text; the other columns null) and the other rows are not affected."""
    from pyspark.sql import types as T

    secret = "Xiomara Quintanilla Buendía"
    good = f"Paciente {secret}, de 54 años, ingresó el 3/02/2019 por disnea."
    rows = [("a", good, "P1", "1956-03-12", 7), ("b", None, "P1", "1956-03-12", None),
            ("c", f"Paciente {secret}\x01 ingresó ayer.", "P1", "1956-03-12", 3),
            ("d", f"{secret} 这是一个测试句子，用于检查语言识别是否拒绝中文文本。", "P2", "1956-03-12", None),
            ("e", good, "P2", "not a date", 5), ("f", good, "P2", "1950-01-01", None)]
    schema = T.StructType([T.StructField("id", T.StringType()), T.StructField("text", T.StringType()),
                           T.StructField("patient_id", T.StringType()), T.StructField("dob", T.StringType()),
                           T.StructField("visits", T.LongType())])
    df = spark.createDataFrame(rows, schema).coalesce(1)
    cfg = config.with_overrides(metadata={"keep_fields": ["visits"], "date_fields": ["dob"], "ids": "keep"})
    out = {r["id"]: r for r in cspark.deidentify(df, cfg, patient_col="patient_id").collect()}
    assert set(out) == set("abcdef")
    assert out["a"]["error"] is None and out["f"]["error"] is None
    assert out["a"]["visits"] == 7 and out["f"]["visits"] is None  # integers with nulls stay integers
    assert out["a"]["dob"] != "1956-03-12" and out["a"]["dob"]  # shifted by the patient's offset
    for bad in "bcde":
        r = out[bad]
        assert r["error"], bad
        assert r["text_deid"] is None and r["spans"] is None and r["visits"] is None and r["dob"] is None
        assert secret not in r["error"] and "Paciente" not in r["error"]
    assert "null" in out["b"]["error"]
    assert "U+0001" in out["c"]["error"]
    assert out["d"]["error"].startswith("LanguageRefused")
    assert "dob" in out["e"]["error"]
    assert secret not in out["a"]["text_deid"]


def test_pipeline_built_once_per_worker_process(spark, config):
    """The pipeline is built once per Python worker, whatever the number of partitions, batches and calls."""
    import pandas as pd

    df = spark.createDataFrame(make_notes(32)).repartition(8)
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "3")
    try:
        for _ in range(2):
            assert cspark.deidentify(df, config, patient_col="patient_id").filter("error IS NOT NULL").count() == 0
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")

    def stats(batches):
        from clinanon import spark as mod

        for _ in batches:
            pass
        yield pd.DataFrame({"pid": [os.getpid()], "stats": [json.dumps(mod.worker_stats())]})

    probe = spark.range(0, 16, numPartitions=16).mapInPandas(stats, "pid long, stats string").collect()
    per_pid = {r["pid"]: json.loads(r["stats"]) for r in probe}
    digest = cspark._config_data(cspark.prepare_config(config, patient_col="patient_id"))["pipeline_digest"]
    mine = [s[digest] for s in per_pid.values() if digest in s]
    assert mine, "the deidentify tasks ran in these worker processes"
    assert all(s["builds"] == 1 for s in mine)  # one build per process ...
    assert len(mine) <= 2 and sum(s["tasks"] for s in mine) >= 16  # ... for 2 calls x 8 partitions (and more)


def test_detect_returns_spans_only(spark, config):
    from clinanon.pipeline import Pipeline

    notes = make_notes(12)
    df = spark.createDataFrame(notes)
    out = cspark.detect(df, config, patient_col="patient_id", meta_cols=["ward"]).collect()
    assert set(out[0].asDict()) == {"id", "patient_id", "ward", "lang", "spans", "error"}
    expected = dict(zip([n["id"] for n in notes],
                        Pipeline(config).detect_spans_many([Document(n["id"], n["text"]) for n in notes]),
                        strict=True))
    for r in out:
        assert r["patient_id"].startswith("P")  # as it is: detection keeps ids and metadata
        assert [(s["start"], s["end"], s["label"]) for s in r["spans"]] == \
            [(s.start, s.end, s.label) for s in expected[r["id"]]]


def test_default_config_sequence_ids_and_replacements(spark):
    """Without a key (the default tag operator) the ids are ``record-p<partition>-<n>``; ``replacements=True``
    adds the replacement log, whose offsets map the spans into ``text_deid``."""
    notes = make_notes(6)
    out = cspark.deidentify(spark.createDataFrame(notes).coalesce(2), replacements=True).collect()
    assert len(out) == 6 and all(r["error"] is None for r in out)
    assert len({r["id"] for r in out}) == 6
    assert all(r["id"].startswith("record-p0000") for r in out)
    assert not {n["id"] for n in notes} & {r["id"] for r in out}
    for r in out:
        assert "patient_id" not in r.asDict() and "ward" not in r.asDict()  # not listed: dropped
        assert r["replacements"]
        for rep in r["replacements"]:
            assert r["text_deid"][rep["out_start"]:rep["out_end"]].startswith("[")  # the tag operator's [TYPE]


def test_run_spark_paths(spark, config, tmp_path):
    """JSONL in (``meta`` flattened), Parquet and CSV out; failed rows go to <out>.errors, not to the output."""
    import pyarrow.parquet as pq

    notes = make_notes(20)
    src = tmp_path / "in.jsonl"
    lines = [{"id": n["id"], "text": n["text"], "meta": {"patient_id": n["patient_id"], "ward": n["ward"]}}
             for n in notes]
    lines.append({"id": "bad", "text": "Paciente con \x02 carácter de control.", "meta": {"patient_id": "P9"}})
    src.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "out.parquet"
    res = cspark.run_spark(src, out, config, spark=spark, patient_col="patient_id")
    assert (res.processed, res.errors) == (20, 1)
    table = pq.read_table(out).to_pylist()
    assert len(table) == 20 and {"id", "ward", "patient_id", "text_deid", "spans"} <= set(table[0])
    assert all("error" not in row for row in table)
    errs = [json.loads(line) for p in sorted(res.errors_path.glob("part-*")) for line in p.read_text().splitlines()]
    assert len(errs) == 1 and "U+0002" in errs[0]["error"] and errs[0]["id"] != "bad"
    with pytest.raises(Exception, match="already exists"):
        cspark.run_spark(src, out, config, spark=spark)
    csv_out = tmp_path / "out.csv"
    res = cspark.run_spark(src, csv_out, config, spark=spark, out_format="csv", patient_col="patient_id")
    assert res.processed == 20
    header = next(p for p in sorted(csv_out.glob("part-*.csv")) if p.stat().st_size).read_text().splitlines()[0]
    assert header.split(",")[:2] == ["id", "patient_id"] and "spans" in header


def test_bad_configuration_fails_on_the_driver(spark, tmp_path):
    df = spark.createDataFrame([{"id": "1", "text": "x"}])
    with pytest.raises(ConfigError, match="no column 'note'"):
        cspark.deidentify(df, text_col="note")
    with pytest.raises(ConfigError):  # a surrogate operator without a key: before any task
        cspark.deidentify(df, {"operators": {"*": {"operator": "surrogate", "key_env": "CLINANON_TEST_NO_SUCH"}}})


def test_executor_with_another_key_refuses(config, key_file, tmp_path):
    """An executor whose key differs from the driver's (its fingerprint) fails its task instead of writing
    inconsistent surrogates (checked without Spark: the worker side alone)."""
    from clinanon.spark import _Columns, _payload, _Worker

    cols = _Columns("id", "text", (), (), ())
    payload = _payload(config, cols, deidentify=True, replacements=False, control_chars="error", batch_size=8)
    _Worker(payload)  # same key: fine
    other = tmp_path / "other.key"
    other.write_text("5c" * 32, encoding="ascii")
    other.chmod(0o600)
    cfg2 = config.with_overrides(operators={"*": {"operator": "surrogate", "scope": "patient",
                                                  "key_file": str(other)}})
    bad = dict(_payload(cfg2, cols, deidentify=True, replacements=False, control_chars="error", batch_size=8),
               fingerprints=payload["fingerprints"])
    with pytest.raises(ConfigError, match="not the driver's") as exc:
        _Worker(bad)
    assert "5c5c" not in str(exc.value) and KEY_HEX not in str(exc.value)


def test_random_key_made_once_on_the_driver(monkeypatch):
    """``insecure_random_key``: one key made on the driver and sent with the task (each executor making its own
    would break consistency); the patient column gives the surrogate operator patient scope and its field."""
    from clinanon.transform.surrogate.keys import KEY_ENV

    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.warns(UserWarning, match="random key"):
        cfg = cspark.prepare_config(operator="surrogate", insecure_random_key=True, patient_col="pid")
    params = cfg.operators["*"].params
    assert len(params["key"]) == 64 and "insecure_random_key" not in params
    assert (params["scope"], params["patient_field"], cfg.metadata.patient_field) == ("patient", "pid", "pid")
    explicit = cspark.prepare_config({"operators": {"*": {"operator": "surrogate", "scope": "document",
                                                           "key": KEY_HEX}}}, patient_col="pid")
    assert explicit.operators["*"].params["scope"] == "document"  # a scope the configuration sets is kept


def test_cli_engine_spark(spark, tmp_path):
    """``clinanon deidentify --engine spark`` runs run_spark on the active session; the local-only flags are refused."""
    from typer.testing import CliRunner

    from clinanon.cli import app

    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": n["id"], "text": n["text"]}, ensure_ascii=False) + "\n"
                           for n in make_notes(6)), encoding="utf-8")
    out = tmp_path / "out.parquet"
    runner = CliRunner()
    res = runner.invoke(app, ["deidentify", str(src), "--out", str(out), "--engine", "spark", "--lang", "es"])
    assert res.exit_code == 0, res.output
    assert "6 processed, 0 errors" in res.output
    res = runner.invoke(app, ["deidentify", str(src), "--out", str(tmp_path / "o2.parquet"), "--engine", "spark",
                              "--workers", "2"])
    assert res.exit_code != 0 and "--engine spark takes no" in res.output
