"""The Spark engine: de-identify a Spark DataFrame of notes where it lies, on a cluster's executors.

>>> from clinanon.spark import deidentify                                                   # doctest: +SKIP
>>> out = deidentify(notes, "clinanon.toml", text_col="note_text", id_col="note_id",         # doctest: +SKIP
...                  patient_col="patient_id")
>>> out.write.parquet("/data/notes_deid")                                                   # doctest: +SKIP

:func:`deidentify` returns one row per input row: the id column (replaced as the ``[metadata] ids`` policy says:
a keyed pseudonym with a surrogate key, ``keep``, or ``record-p<partition>-<n>`` for ``sequence``, since a
distributed DataFrame has no record numbers), the metadata columns the policy lets through (:mod:`clinanon.metadata`:
``keep_fields`` as they are, ``pseudonymize_fields`` / ``date_fields`` / ``deidentify_fields`` replaced, nothing
else), ``lang`` (the note's language, given or identified), ``text_deid`` (the sanitized text), ``spans`` (what was
found, ``array<struct<start, end, label, source, score>>`` on the original text) and ``error`` (``null`` when the
row went through; else the reason, never text: a row that fails is never dropped, and its other columns are null).
:func:`detect` returns the id and metadata columns as they are, ``lang``, ``spans`` and ``error``.

How it runs: ``DataFrame.mapInPandas`` (Arrow batches). The configuration travels to the executors as plain data
(a JSON-able dict inside the task's function, a few kB; no ``SparkContext`` needed, so it works on Spark Connect,
Databricks shared and serverless clusters too), and each executor's Python worker builds its pipeline once: a
module-level cache keyed on the digest of that data (:data:`BUILDS` counts the builds of this process). Each Arrow
batch is cut into pipeline batches of ``batch_size`` notes (every detection step runs over the whole batch, as in
the local engine); a batch that fails is redone one note at a time, so that only the notes that fail get an
``error``.

**Consistency without shared state.** Surrogates and date shifts are keyed functions of (secret key, scope,
original) (:mod:`clinanon.transform.surrogate`), so the same patient gets the same surrogate name and date shift on
every executor, whatever the partitioning: nothing needs the notes of one patient in one partition. The key is
never part of the data sent: every executor reads it itself, from the surrogate operator's ``key_file`` (a path
every executor can read: ``/dbfs/...``, a mounted volume) or from its environment (``CLINANON_SURROGATE_KEY``, or
the operator's ``key_env``; set with ``spark.executorEnv.CLINANON_SURROGATE_KEY`` or the cluster's secrets). The
driver builds the pipeline first (a bad configuration or a missing key fails before any task starts) and sends the
key's fingerprint (12 hex characters of an HMAC of a constant: it reveals nothing); an executor whose key has
another fingerprint fails its task with a message that says so, rather than write inconsistent surrogates. Only a
throw-away ``insecure_random_key`` is made on the driver and sent with the task (otherwise each executor would
make its own), and a ``key`` written into the configuration itself travels with it.

The columns handed to the pipeline: the id and the text, ``patient_col``, ``lang_col`` (default: a ``lang``
column, as the file readers read it), ``meta_cols``, the columns the ``[metadata]`` lists name and the surrogate
operators' patient field, when the DataFrame has them.

:func:`run_spark` is ``clinanon deidentify --engine spark``: Parquet, CSV or JSONL paths in and out (Spark writes
folders of part files), the rows that failed to ``<out>.errors`` (JSON lines: id and reason).

Layering: an entry point beside :mod:`clinanon.service`; imports the pipeline, the metadata policy and the
configuration, never :mod:`clinanon.engines`. ``pyspark``, ``pandas`` and ``pyarrow`` come with the ``spark``
extra (``pip install clinanon[spark]``) and are imported only when a function here is called.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections import Counter, OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clinanon.config import Config
from clinanon.errors import ClinanonError, ConfigError, InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["BUILDS", "OUTPUT_COLUMNS", "SPANS_TYPE", "SparkRunResult", "default_session", "deidentify", "detect",
           "prepare_config", "run_spark", "worker_stats"]

#: the Spark SQL type of the ``spans`` column (offsets on the original text)
SPANS_TYPE = "array<struct<start:int,end:int,label:string,source:string,score:double>>"
#: the Spark SQL type of the optional ``replacements`` column (offsets in both texts)
REPLACEMENTS_TYPE = ("array<struct<start:int,end:int,out_start:int,out_end:int,label:string,category:string,"
                     "operator:string>>")
#: columns the engine writes (an input metadata column may not have these names)
OUTPUT_COLUMNS = ("lang", "text_deid", "spans", "replacements", "error")
#: notes per pipeline batch (as the local engine's :data:`clinanon.batch.BATCH_SIZE`)
BATCH_SIZE = 32
#: characters per pipeline batch (unless one note is longer)
BATCH_CHARS = 400_000
#: pipelines a worker process keeps (distinct configurations used in one Python worker)
_CACHE_SIZE = 4


# --- the driver: configuration and columns ----------------------------------------------------------------------
def _load_config(config: Config | dict[str, Any] | str | Path | None) -> Config:
    if config is None:
        return Config()
    if isinstance(config, Config):
        return config
    if isinstance(config, dict):
        return Config.from_dict(config, source="<config dict>")
    if isinstance(config, str | Path):
        return Config.load(config)
    raise ConfigError(f"config must be a Config, a dict or the path of a TOML file, not {type(config).__name__}")


def _surrogate_keys(config: Config) -> list[str]:
    return [k for k, op in config.operators.items() if op.operator == "surrogate"]


def prepare_config(config: Config | dict[str, Any] | str | Path | None = None, *, operator: str | None = None,
                   scope: str | None = None, key_file: str | Path | None = None, patient_col: str | None = None,
                   insecure_random_key: bool = False) -> Config:
    """The configuration an engine run uses: ``config`` (a :class:`Config`, a dict or a TOML path) with
    ``operator`` for every category, the surrogate options (``scope``, ``key_file``: a path every executor can
    read) and ``patient_col`` as the surrogate operators' and the metadata policy's patient field (with patient
    scope when the configuration does not set a scope). A throw-away random key (``insecure_random_key``, or the
    operators' own) is made here, once, so that every executor uses the same one."""
    from clinanon.transform.surrogate.cli_support import apply_surrogate_options
    from clinanon.transform.surrogate.keys import KEY_ENV, generate_key

    cfg = _load_config(config)
    if operator is not None:
        cfg = cfg.with_overrides(operators={"*": {"operator": operator}}, source="operator=")
    targets = _surrogate_keys(cfg)
    if scope is not None or insecure_random_key or (key_file is not None and targets):
        cfg = apply_surrogate_options(cfg, scope=scope, key_file=key_file, insecure_random_key=insecure_random_key,
                                      check=False)
    elif key_file is not None:  # no surrogate operator: the key of the metadata pseudonyms
        cfg = cfg.with_overrides(metadata={**cfg.metadata.model_dump(mode="json"), "key_file": str(key_file)},
                                 source="key_file=")
    if patient_col is not None:
        ops = {k: op.model_dump(mode="json") for k, op in cfg.operators.items()}
        for k in targets:
            ops[k]["patient_field"] = patient_col
            ops[k].setdefault("scope", "patient")  # a patient column asks for patient scope unless one is set
        md = {**cfg.metadata.model_dump(mode="json"), "patient_field": patient_col}
        cfg = cfg.with_overrides(operators=ops, metadata=md, source="patient_col=")
    random_key: str | None = None
    ops = {k: op.model_dump(mode="json") for k, op in cfg.operators.items()}
    for k in targets:
        p = ops[k]
        if p.get("insecure_random_key") and not p.get("key") and not p.get("key_file") \
                and not os.environ.get(str(p.get("key_env") or KEY_ENV)):
            if random_key is None:
                random_key = generate_key()
                warnings.warn("surrogates use a random key that is not saved: the mapping cannot be reproduced in a "
                              "later run", stacklevel=2)
            p["key"] = random_key
            p.pop("insecure_random_key")
    if random_key is not None:
        cfg = cfg.with_overrides(operators=ops, source="insecure_random_key")
    return cfg.register_schemes()


@dataclass(frozen=True)
class _Columns:
    """What the workers read: the id and text columns, the metadata columns (``meta``: name in the note's
    metadata, column) and which of them hold integers (pandas makes floats of integers with nulls)."""

    id: str
    text: str
    meta: tuple[tuple[str, str], ...]
    integral: tuple[str, ...]
    #: the output metadata columns, in order, and their Spark SQL types
    out_meta: tuple[tuple[str, str], ...]


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _columns(df: DataFrame, config: Config, *, text_col: str, id_col: str, patient_col: str | None,
             meta_cols: Sequence[str], lang_col: str | None, deidentify: bool) -> _Columns:
    from pyspark.sql import types as T

    schema = {f.name: f.dataType for f in df.schema.fields}
    for what, name in (("text_col", text_col), ("id_col", id_col), ("patient_col", patient_col),
                       ("lang_col", lang_col), *(("meta_cols", c) for c in meta_cols)):
        if name is not None and name not in schema:
            raise ConfigError(f"{what}: the DataFrame has no column {name!r} (its columns: {', '.join(schema)})")
    if not isinstance(schema[text_col], T.StringType):
        raise ConfigError(f"text_col: column {text_col!r} is {schema[text_col].simpleString()}, not a string")
    md = config.metadata
    listed = [*md.keep_fields, *md.deidentify_fields, *md.pseudonymize_fields, *md.date_fields]
    # the patient fields the surrogate operators and the date policy read (patient scope needs them)
    patient_fields = [str(op.params.get("patient_field") or "patient_id") for op in config.operators.values()
                      if op.operator == "surrogate"] + [md.patient_field]
    wanted = [*(c for c in meta_cols), *(c for c in listed + patient_fields if c in schema)]
    if patient_col is not None:
        wanted.append(patient_col)
    names: list[str] = []
    for c in [c for c in schema if c in wanted]:  # the DataFrame's column order
        if c in (id_col, text_col, lang_col) or c in names:
            continue
        if c in OUTPUT_COLUMNS:
            raise ConfigError(f"metadata column {c!r}: the engine writes a column of that name; rename it first")
        names.append(c)
    meta = [("lang", lang_col)] if lang_col is not None else []
    meta += [(c, c) for c in names]
    integral = tuple(c for c in names if isinstance(schema[c], T.ByteType | T.ShortType | T.IntegerType
                                                             | T.LongType))
    if not deidentify:
        out_meta = [(c, schema[c].simpleString()) for c in names]
    else:
        keep = set(md.keep_fields)
        out_meta = [(c, schema[c].simpleString() if c in keep else "string") for c in names
                    if c in keep or c in md.deidentify_fields or c in md.pseudonymize_fields or c in md.date_fields]
    return _Columns(id_col, text_col, tuple(meta), integral, tuple(out_meta))


def _select(df: DataFrame, config: Config, cols: _Columns, deidentify: bool) -> DataFrame:
    """The columns the workers read: ids as strings; identifiers and dates the policy replaces as strings (an
    integer id ``123`` is ``"123"``, a date ``1956-03-12``), the rest as they are."""
    from pyspark.sql import functions as F

    md = config.metadata
    as_text = set(md.pseudonymize_fields) | set(md.date_fields) if deidentify else set()
    exprs = [F.col(_quote(cols.id)).cast("string").alias(cols.id), F.col(_quote(cols.text))]
    for name, col in cols.meta:
        c = F.col(_quote(col))
        exprs.append((c.cast("string") if name == "lang" or name in as_text else c).alias(col))
    return df.select(*exprs)


def _fingerprints(nlp: Any, config: Config, deidentify: bool) -> list[str]:
    """The fingerprints of the keys a pipeline uses (surrogate operators, metadata pseudonyms): they reveal
    nothing of the keys; executors compare theirs with the driver's."""
    found: set[str] = set()
    anonymizer = nlp.anonymizer
    for op in [*anonymizer.operators.values(), getattr(anonymizer, "default", None)]:
        fp = getattr(op, "key_fingerprint", None)
        if isinstance(fp, str):
            found.add(fp)
    if deidentify:
        from clinanon.metadata import configured_key

        key = configured_key(config)
        if key is not None:
            found.add(key.fingerprint())
    return sorted(found)


def _config_data(config: Config) -> dict[str, Any]:
    """``config`` as plain JSON-able data, with the digests of the whole (``config_digest``) and of what the
    pipeline is built from (``pipeline_digest``: all but ``[metadata]``, which only the metadata policy reads)."""
    data: dict[str, Any] = {
        "config": config.model_dump(mode="json", exclude={"base_dir"}),
        "base_dir": str(config.base_dir) if config.base_dir is not None else None,
    }
    pipeline_part = {**data, "config": {k: v for k, v in data["config"].items() if k != "metadata"}}
    data["config_digest"] = _digest(data)
    data["pipeline_digest"] = _digest(pipeline_part)
    return data


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()


def _payload(config: Config, cols: _Columns, *, deidentify: bool, replacements: bool, control_chars: str,
             batch_size: int) -> dict[str, Any]:
    """Everything a worker needs, as plain JSON-able data; the digest of its configuration keys the workers'
    pipeline cache. The pipeline is built here first, on the driver (a bad configuration, a missing model or key
    fails before any task; the driver keeps it in the same cache)."""
    if control_chars not in ("error", "keep"):
        raise ConfigError(f"control_chars must be 'error' or 'keep', not {control_chars!r}")
    if batch_size < 1:
        raise ConfigError(f"batch_size must be at least 1 (got {batch_size})")
    data = _config_data(config)
    _, nlp = _pipeline(data)
    if deidentify:
        from clinanon.metadata import MetadataPolicy

        MetadataPolicy.from_config(config)  # a policy that needs a key without one fails here
    data |= {
        "columns": {"id": cols.id, "text": cols.text, "meta": [list(m) for m in cols.meta],
                    "integral": list(cols.integral), "out_meta": [list(m) for m in cols.out_meta]},
        "deidentify": deidentify,
        "replacements": replacements,
        "control_chars": control_chars,
        "batch_size": batch_size,
        "fingerprints": _fingerprints(nlp, config, deidentify),
    }
    return data


def _schema(cols: _Columns, deidentify: bool, replacements: bool) -> str:
    parts = [f"{_quote(cols.id)} string"]
    parts += [f"{_quote(name)} {typ}" for name, typ in cols.out_meta]
    parts.append("lang string")
    if deidentify:
        parts.append("text_deid string")
    parts.append(f"spans {SPANS_TYPE}")
    if deidentify and replacements:
        parts.append(f"replacements {REPLACEMENTS_TYPE}")
    parts.append("error string")
    return ", ".join(parts)


# --- the executors: one pipeline per Python worker process -------------------------------------------------------
#: pipelines built in this process, per pipeline digest (a test reads it through :func:`worker_stats`)
BUILDS: Counter[str] = Counter()
#: Spark tasks (partitions) run in this process, per pipeline digest
TASKS: Counter[str] = Counter()
_PIPELINES: OrderedDict[str, Any] = OrderedDict()
_CONFIGS: OrderedDict[str, Config] = OrderedDict()


def worker_stats() -> dict[str, dict[str, int]]:
    """``{pipeline digest: {"builds": n, "tasks": m}}`` of this process (for tests: one pipeline per worker)."""
    return {d: {"builds": BUILDS[d], "tasks": TASKS[d]} for d in BUILDS}


def _pipeline(payload: dict[str, Any]) -> tuple[Config, Any]:
    """The configuration and the pipeline of ``payload`` in this process. The pipeline is built on first use, then
    reused by every task of every call whose configuration differs at most in ``[metadata]`` (whatever the
    columns); the configuration itself is the payload's."""
    from clinanon.pipeline import Pipeline

    cfg = _CONFIGS.get(payload["config_digest"])
    if cfg is None:
        cfg = Config.from_dict(payload["config"], source="<spark payload>")
        if payload["base_dir"] is not None:
            cfg = cfg.model_copy(update={"base_dir": Path(payload["base_dir"])})
        _CONFIGS[payload["config_digest"]] = cfg.register_schemes()
        while len(_CONFIGS) > 4 * _CACHE_SIZE:
            _CONFIGS.popitem(last=False)
    digest = payload["pipeline_digest"]
    nlp = _PIPELINES.get(digest)
    if nlp is None:
        nlp = Pipeline(cfg)
        BUILDS[digest] += 1
        _PIPELINES[digest] = nlp
        while len(_PIPELINES) > _CACHE_SIZE:
            _PIPELINES.popitem(last=False)
    else:
        _PIPELINES.move_to_end(digest)
    return cfg, nlp


def _reason(exc: BaseException, in_id: str | None, out_id: str | None) -> str:
    """``"<ErrorType>: <reason>"`` (the input id replaced by the output id where the reason quotes it; an error
    that is not clinanon's own is named by its type only: its message could hold text)."""
    if isinstance(exc, InputError):
        reason = exc.reason
    elif isinstance(exc, ClinanonError):
        reason = str(exc)
    else:
        reason = "internal error"
    if in_id is not None and out_id is not None and in_id != out_id:
        reason = reason.replace(repr(in_id), repr(out_id))
    return f"{type(exc).__name__}: {reason}"


def _values(series: pd.Series, integral: bool) -> list[Any]:
    """Plain Python values of a column, ``None`` for nulls (integers that pandas made floats are integers)."""
    mask = series.isna().tolist()
    vals = series.tolist()
    if integral:
        return [None if m else int(v) for v, m in zip(vals, mask, strict=True)]
    return [None if (m is True) else v for v, m in zip(vals, mask, strict=True)]


class _Worker:
    """One task's view of the payload: the cached pipeline (:func:`_pipeline`), the metadata policy, the columns."""

    def __init__(self, payload: dict[str, Any]) -> None:
        from clinanon.metadata import MetadataPolicy

        self.config, self.nlp = _pipeline(payload)
        self.deidentify = bool(payload["deidentify"])
        self.policy = MetadataPolicy.from_config(self.config) if self.deidentify else None
        mine = _fingerprints(self.nlp, self.config, self.deidentify)
        if mine != payload["fingerprints"]:
            raise ConfigError(f"the surrogate key on this executor (fingerprint {', '.join(mine) or 'none'}) is not "
                              f"the driver's ({', '.join(payload['fingerprints']) or 'none'}): give every executor "
                              "the same key (key_file on a path all can read, or spark.executorEnv."
                              "CLINANON_SURROGATE_KEY)")
        c = payload["columns"]
        self.id_col: str = c["id"]
        self.text_col: str = c["text"]
        self.meta: list[tuple[str, str]] = [(m[0], m[1]) for m in c["meta"]]
        self.integral = set(c["integral"])
        self.out_meta: list[str] = [m[0] for m in c["out_meta"]]
        self.replacements = bool(payload["replacements"]) and self.deidentify
        self.control_chars: str = payload["control_chars"]
        self.batch_size: int = payload["batch_size"]

    # -- one Arrow batch -------------------------------------------------------------------------------------
    def process(self, pdf: pd.DataFrame, partition: int, first: int) -> Iterator[pd.DataFrame]:
        """The output rows of ``pdf`` (rows ``first``, ``first + 1``, ... of ``partition``), run through the
        pipeline ``batch_size`` notes at a time."""
        from clinanon.document import Document

        ids = _values(pdf[self.id_col], False)
        texts = _values(pdf[self.text_col], False)
        meta_vals = [(name, _values(pdf[col], col in self.integral)) for name, col in self.meta]
        rows: list[dict[str, Any]] = []
        pending: list[tuple[int, Any]] = []  # (row, document)
        chars = 0
        for i, (doc_id, text) in enumerate(zip(ids, texts, strict=True)):
            n = first + i + 1
            out_id = self._output_id(doc_id, partition, n)
            row: dict[str, Any] = {self.id_col: out_id}
            rows.append(row)
            try:
                if doc_id is None or doc_id == "":
                    raise InputError(f"the id column {self.id_col!r} is null or empty")
                if not isinstance(text, str):
                    raise InputError(f"the text column {self.text_col!r} is null")
                if self.control_chars == "error":
                    self._check_controls(text)
                meta = {name: vals[i] for name, vals in meta_vals if vals[i] is not None and vals[i] != ""}
                doc = Document(str(doc_id), text, (), meta)
            except Exception as exc:
                row["error"] = _reason(exc, doc_id, out_id)
                continue
            if pending and (len(pending) >= self.batch_size or chars + len(text) > BATCH_CHARS):
                self._run(pending, rows)
                pending, chars = [], 0
            pending.append((i, doc))
            chars += len(text)
        if pending:
            self._run(pending, rows)
        yield self._frame(rows)

    def _output_id(self, doc_id: Any, partition: int, n: int) -> str | None:
        if doc_id is None or doc_id == "":
            return None
        if self.policy is None or self.policy.ids == "keep":
            return str(doc_id)
        if self.policy.ids == "pseudonym":
            return self.policy.pseudonym(str(doc_id))
        return f"record-p{partition:05d}-{n:06d}"  # no global record numbers in a distributed DataFrame

    def _check_controls(self, text: str) -> None:
        from clinanon.io.base import CONTROL_CHARS

        m = CONTROL_CHARS.search(text)
        if m is not None:
            raise InputError(f"control character U+{ord(m.group()):04X} at character offset {m.start()}; "
                             "control_chars='keep' processes it")

    def _run(self, pending: list[tuple[int, Any]], rows: list[dict[str, Any]]) -> None:
        """Fill the rows of ``pending`` (row index, document): the whole batch at once, else one by one."""
        try:
            results = self._many([doc for _, doc in pending])
        except Exception:
            results = None
        if results is not None and len(results) == len(pending):
            for (i, _), res in zip(pending, results, strict=True):
                rows[i].update(res)
            return
        for i, doc in pending:
            try:
                [res] = self._many([doc])
            except Exception as exc:
                rows[i]["error"] = _reason(exc, doc.id, rows[i][self.id_col])
            else:
                rows[i].update(res)

    def _many(self, docs: list[Any]) -> list[dict[str, Any]]:
        nlp = self.nlp
        detected = list(nlp.pipe(docs, deidentify=False, batch_size=len(docs), batch_chars=BATCH_CHARS * 4))
        spans = [[{"start": s.start, "end": s.end, "label": s.label, "source": s.source, "score": float(s.score)}
                  for s in d.spans] for d in detected]
        if not self.deidentify:
            return [{"lang": d.meta.get("lang") or self.config.given_language, "spans": sp,
                     **{name: doc.meta.get(name) for name in self.out_meta}}
                    for doc, d, sp in zip(docs, detected, spans, strict=True)]
        # the documents as the operators see them (the language identified), with the spans found: what
        # Pipeline.pipe(deidentify=True) does, without detecting twice
        outs = list(nlp.anonymizer.anonymize_many([d.with_spans(doc.spans) for doc, d in zip(docs, detected,
                                                                                             strict=True)],
                                                  [list(d.spans) for d in detected]))
        assert self.policy is not None
        outs = self.policy.apply(docs, outs, lambda ds: list(nlp.pipe(ds, deidentify=True,
                                                                    batch_size=max(1, len(ds)))))
        results = []
        for out, sp in zip(outs, spans, strict=True):
            res = {"lang": out.meta.get("lang") or self.config.given_language, "text_deid": out.text, "spans": sp,
                   **{name: out.meta.get(name) for name in self.out_meta}}
            if self.replacements:
                res["replacements"] = [r.to_dict() for r in out.replacements]
            results.append(res)
        return results

    def _frame(self, rows: list[dict[str, Any]]) -> pd.DataFrame:
        import pandas as pd

        names = [self.id_col, *self.out_meta, "lang"]
        if self.deidentify:
            names.append("text_deid")
        names.append("spans")
        if self.replacements:
            names.append("replacements")
        names.append("error")
        return pd.DataFrame({name: pd.Series([r.get(name) for r in rows], dtype=object) for name in names},
                            columns=names)


class _MapFunction:
    """The function ``mapInPandas`` runs in each task: a module-level class, so that the executors use this
    module's pipeline cache (a closure would be pickled with copies of it); only the payload travels."""

    def __init__(self, payload: dict[str, Any]) -> None:
        self.payload = payload

    def __call__(self, batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        from pyspark import TaskContext

        worker = _Worker(self.payload)
        TASKS[self.payload["pipeline_digest"]] += 1
        ctx = TaskContext.get()
        partition = ctx.partitionId() if ctx is not None else 0
        first = 0
        for pdf in batches:
            yield from worker.process(pdf, partition, first)
            first += len(pdf)


# --- the public functions ----------------------------------------------------------------------------------------
def _engine(df: DataFrame, config: Any, *, deidentify: bool, text_col: str, id_col: str, patient_col: str | None,
            meta_cols: Sequence[str], lang_col: str | None, operator: str | None, scope: str | None,
            key_file: str | Path | None, insecure_random_key: bool, replacements: bool, control_chars: str,
            batch_size: int) -> DataFrame:
    cfg = prepare_config(config, operator=operator, scope=scope, key_file=key_file, patient_col=patient_col,
                         insecure_random_key=insecure_random_key)
    if isinstance(meta_cols, str):
        meta_cols = (meta_cols,)
    if lang_col is None and "lang" in df.columns:
        lang_col = "lang"  # as the file readers: a note's `lang` field is its language
    cols = _columns(df, cfg, text_col=text_col, id_col=id_col, patient_col=patient_col, meta_cols=meta_cols,
                    lang_col=lang_col, deidentify=deidentify)
    payload = _payload(cfg, cols, deidentify=deidentify, replacements=replacements, control_chars=control_chars,
                       batch_size=batch_size)
    return _select(df, cfg, cols, deidentify).mapInPandas(_MapFunction(payload),
                                                          _schema(cols, deidentify, replacements))


def deidentify(df: DataFrame, config: Config | dict[str, Any] | str | Path | None = None, *, text_col: str = "text",
               id_col: str = "id", patient_col: str | None = None, meta_cols: Sequence[str] = (),
               lang_col: str | None = None, operator: str | None = None, scope: str | None = None,
               key_file: str | Path | None = None, insecure_random_key: bool = False, replacements: bool = False,
               control_chars: str = "error", batch_size: int = BATCH_SIZE) -> DataFrame:
    """De-identify the notes of ``df`` (see the module docstring for the output columns); lazy, like any Spark
    transformation.

    ``config``: a :class:`~clinanon.config.Config`, a dict or the path of a TOML file (read on the driver).
    ``patient_col``: the patient id column (surrogates and date shifts consistent per patient: the surrogate
    operators get patient scope unless the configuration sets one). ``meta_cols``: more columns to hand to the
    pipeline as metadata (the columns the ``[metadata]`` lists name are handed anyway); only those the policy
    lists come out. ``lang_col``: each note's language (else the configuration's ``language``, else identified).
    ``operator``, ``scope``, ``key_file`` (a path every executor can read), ``insecure_random_key``: as the CLI's
    flags. ``replacements``: also a ``replacements`` column (offsets in both texts). ``control_chars``:
    ``error`` (a note with a C0 control character other than tab, newline, carriage return and form feed is an
    error row, as the file readers do) or ``keep``. ``batch_size``: notes per pipeline batch."""
    return _engine(df, config, deidentify=True, text_col=text_col, id_col=id_col, patient_col=patient_col,
                   meta_cols=meta_cols, lang_col=lang_col, operator=operator, scope=scope, key_file=key_file,
                   insecure_random_key=insecure_random_key, replacements=replacements, control_chars=control_chars,
                   batch_size=batch_size)


def detect(df: DataFrame, config: Config | dict[str, Any] | str | Path | None = None, *, text_col: str = "text",
           id_col: str = "id", patient_col: str | None = None, meta_cols: Sequence[str] = (),
           lang_col: str | None = None, control_chars: str = "error", batch_size: int = BATCH_SIZE) -> DataFrame:
    """The PHI spans of each note of ``df``: the id, ``patient_col`` and ``meta_cols`` as they are, ``lang``,
    ``spans`` (on the original text) and ``error``. No text comes out: join on the id to see it."""
    return _engine(df, config, deidentify=False, text_col=text_col, id_col=id_col, patient_col=patient_col,
                   meta_cols=meta_cols, lang_col=lang_col, operator=None, scope=None, key_file=None,
                   insecure_random_key=False, replacements=False, control_chars=control_chars,
                   batch_size=batch_size)


# --- paths in, paths out: `clinanon deidentify --engine spark` ------------------------------------------------------
_FORMATS = {".parquet": "parquet", ".csv": "csv", ".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl"}


@dataclass(frozen=True)
class SparkRunResult:
    out: Path
    errors_path: Path
    processed: int
    errors: int


def _path_format(path: Path, given: str | None, what: str) -> str:
    if given is not None:
        fmt = {"json": "jsonl", "ndjson": "jsonl"}.get(given.lower(), given.lower())
        if fmt not in ("parquet", "csv", "jsonl"):
            raise ConfigError(f"{what}: the Spark engine reads and writes parquet, csv and jsonl, not {given!r}")
        return fmt
    suffix = path.suffix.lower()
    if suffix not in _FORMATS and path.is_dir():
        found = {_FORMATS[p.suffix.lower()] for p in path.iterdir() if p.suffix.lower() in _FORMATS}
        if len(found) == 1:
            return found.pop()
    if suffix in _FORMATS:
        return _FORMATS[suffix]
    raise ConfigError(f"{what}: cannot tell the format of {path.name!r} (parquet, csv or jsonl); give it")


def default_session(app_name: str = "clinanon") -> SparkSession:
    """The active Spark session, else a new one from the environment (``spark-submit``'s settings, else
    ``local[*]`` bound to 127.0.0.1 with the UI off)."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.appName(app_name)
    if not os.environ.get("SPARK_MASTER") and "spark.master" not in os.environ.get("PYSPARK_SUBMIT_ARGS", ""):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = (builder.master("local[*]").config("spark.driver.host", "127.0.0.1")
                   .config("spark.driver.bindAddress", "127.0.0.1").config("spark.ui.enabled", "false"))
    return builder.getOrCreate()


def _read(spark: SparkSession, path: Path, fmt: str, text_col: str) -> DataFrame:
    from pyspark.sql import functions as F

    if fmt == "parquet":
        return spark.read.parquet(str(path))
    if fmt == "csv":
        # every column as text, as the CSV reader does; a note may span lines
        return spark.read.csv(str(path), header=True, multiLine=True, escape='"')
    df = spark.read.json(str(path))  # JSONL: {"id", "text", "meta": {...}, ...}; meta's fields become columns
    if "meta" in df.columns and df.schema["meta"].dataType.typeName() == "struct":
        inner = df.schema["meta"].dataType.names  # type: ignore[attr-defined]
        top = [c for c in df.columns if c not in ("meta", "spans") and c not in inner]
        df = df.select(*(F.col(_quote(c)) for c in top),
                       *(F.col("meta." + _quote(c)).alias(c) for c in inner))
    return df.drop("spans") if "spans" in df.columns else df


def _write(df: DataFrame, path: Path, fmt: str, overwrite: bool) -> None:
    from pyspark.sql import functions as F

    mode = "overwrite" if overwrite else "errorifexists"
    if fmt == "parquet":
        df.write.mode(mode).parquet(str(path))
    elif fmt == "csv":  # no nested types in CSV: spans and replacements as JSON text
        nested = [f.name for f in df.schema.fields if f.dataType.typeName() in ("array", "struct", "map")]
        df = df.select(*((F.to_json(F.col(_quote(c))) if c in nested else F.col(_quote(c))).alias(c)
                         for c in df.columns))
        df.write.mode(mode).csv(str(path), header=True, escape='"')
    else:
        df.write.mode(mode).json(str(path))


def run_spark(input_path: str | Path, out: str | Path, config: Config | dict[str, Any] | str | Path | None = None, *,
              in_format: str | None = None, out_format: str | None = None, deidentify: bool = True,
              spark: SparkSession | None = None, errors_path: str | Path | None = None, overwrite: bool = False,
              text_col: str = "text", id_col: str = "id", patient_col: str | None = None,
              meta_cols: Sequence[str] = (), lang_col: str | None = None, partitions: int | None = None,
              **options: Any) -> SparkRunResult:
    """De-identify (or, ``deidentify=False``, detect) the notes at ``input_path`` (a Parquet, CSV or JSONL file or
    folder; a JSONL ``meta`` object's fields become columns) into ``out`` (a folder of part files in
    ``out_format``, default: from ``out``'s suffix, else the input's). Rows that failed go to ``errors_path``
    (default ``<out>.errors``: JSON lines of the output id and the reason), not to ``out``. ``spark``: the session
    (default: the active one, else :func:`default_session`); ``partitions``: repartition the input first (the
    patient scope does not need it). ``options`` go to :func:`deidentify` (``operator``, ``scope``, ``key_file``
    ...). The output and errors folders must not exist unless ``overwrite``."""
    input_path, out = Path(input_path), Path(out)
    fmt = _path_format(input_path, in_format, "input")
    ofmt = _path_format(out, out_format, "output") if (out_format or out.suffix.lower() in _FORMATS) else fmt
    errors = Path(errors_path) if errors_path is not None else out.parent / f"{out.name}.errors"
    if not overwrite:
        for p in (out, errors):
            if p.exists():
                raise ClinanonError(f"{p} already exists; pass overwrite=True (--overwrite) to replace it")
    spark = spark or default_session()
    df = _read(spark, input_path, fmt, text_col)
    if partitions is not None:
        df = df.repartition(partitions)
    fn = globals()["deidentify"] if deidentify else detect
    kw = {"text_col": text_col, "id_col": id_col, "patient_col": patient_col, "meta_cols": meta_cols,
          "lang_col": lang_col, **options}
    result = fn(df, config, **kw).persist()
    try:
        ok = result.filter("error IS NULL").drop("error")
        _write(ok, out, ofmt, overwrite)
        bad = result.filter("error IS NOT NULL").select(id_col, "error")
        bad.coalesce(1).write.mode("overwrite" if overwrite else "errorifexists").json(str(errors))
        counts = {r["failed"]: r["n"] for r in
                  result.groupBy((result["error"].isNotNull()).alias("failed")).count()
                  .withColumnRenamed("count", "n").collect()}
    finally:
        result.unpersist()
    return SparkRunResult(out, errors, counts.get(False, 0), counts.get(True, 0))
