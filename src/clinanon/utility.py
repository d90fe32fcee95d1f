"""``clinanon utility CONFIG``: how much does a corpus technique (de-identification, masking, shuffling, ...) cost a
downstream model? Train on the technique's output, test on the original notes, compare with the original.

A TOML config names the data, the task, the protocol and the techniques::

    name = "meddocan-crf"
    language = "es"
    seed = 0
    output = "utility-out"                 # relative paths are relative to the config file

    [data]
    train = "../shared/data/meddocan/train/brat"
    # test = "../shared/data/meddocan/dev/brat"   # a fixed test set (hold-out protocol) instead of k-fold
    # limit = 100                                 # the first N notes by id

    [task]
    type = "ner"                           # or "classification" (labels from the metadata field label_field)
    label_scheme = "meddocan"
    [task.crf]                             # clinanon.train's [crf] table
    max_iterations = 100

    [protocol]
    folds = 10                             # k-fold cross-validation on `train` (no `test`)
    repeats = 1                            # repeated k-fold with other splits
    technique_seeds = 5                    # runs per fold of a stochastic technique (5 x 5 with folds = 5)
    workers = 2                            # folds in parallel processes

    [[techniques]]
    technique = "original"
    [[techniques]]
    name = "surrogates"
    technique = "deidentify"
    operator = "surrogate"
    [[techniques]]
    technique = "word_swap"
    fraction = 1.0

Protocol: for every repeat, fold and (for stochastic techniques) technique seed, the **training split only** is
rewritten by the technique (:mod:`clinanon.corpus`) and a model is trained on it; the model is tested on the
**original** test split. With ``data.test`` the whole ``train`` is the training split and ``test`` the test split
(hold-out; ``folds`` is ignored). Tasks: ``ner`` (the CRF of :mod:`clinanon.detect.crf` with the hyper-parameters
of ``[task.crf]``; score: micro F1 of exact (start, end, label) matches = MEDDOCAN subtask 1; subtask 2 ignores the
label) and ``classification`` (scikit-learn TF-IDF + logistic regression; score: macro F1; accuracy too).

Statistics (:func:`compare`): per-run scores, mean ± sd, median; two-sided Mann-Whitney U of each technique's
scores against the baseline's (scipy when installed, else :func:`mann_whitney_u_python`), Holm correction over
the techniques (:func:`holm`), the rank-biserial effect size (= Cliff's delta, in [-1, 1]; negative: the technique
scores lower). In the hold-out protocol a deterministic technique has one score; the comparison is then a paired
bootstrap over the test notes (:func:`paired_bootstrap`), Holm-corrected as well.

Output folder: ``utility.json`` (the table, every run's scores, the config), ``table.md``, ``boxplot.png``
(matplotlib), and ``units/`` — one JSON file per (technique, repeat, fold, seed): a run with the same config
reuses them (resumable); a changed config or technique recomputes only what changed. Runs go through a process pool
(``workers``) with a progress bar on stderr; nothing ever prints note text.

Entry points: :func:`run_utility` (config object, mapping or TOML path -> the table) and :func:`main`
(``python -m clinanon.utility CONFIG``).
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import math
import random
import statistics
import sys
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from clinanon.config import resolve_path
from clinanon.corpus import TECHNIQUES, make_technique
from clinanon.document import Document
from clinanon.errors import ConfigError
from clinanon.train import CRFSection

__all__ = ["ClassifierSection", "UtilityConfig", "compare", "holm", "kfold_splits", "load_config", "main",
           "mann_whitney_u", "mann_whitney_u_python", "paired_bootstrap", "rank_biserial", "run_utility",
           "write_plot"]


# --- configuration ------------------------------------------------------------------------------------------------

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DataSection(_Strict):
    #: one path, or several read one after the other (e.g. MEDDOCAN train and dev for a k-fold on both)
    train: Path | list[Path]
    train_format: str | None = None
    #: a fixed test set (hold-out protocol); none: k-fold cross-validation on ``train``
    test: Path | None = None
    test_format: str | None = None
    #: the first N training notes by id (smoke runs)
    limit: int | None = Field(None, ge=2)
    test_limit: int | None = Field(None, ge=1)


class ClassifierSection(_Strict):
    """TF-IDF + logistic regression (scikit-learn)."""

    ngram_max: int = Field(2, ge=1, le=3)
    min_df: int = Field(1, ge=1)
    max_features: int | None = Field(None, ge=1)
    C: float = Field(10.0, gt=0)
    max_iter: int = Field(2000, ge=10)


class TaskSection(_Strict):
    type: Literal["ner", "classification"]
    #: classification: the metadata field that holds a note's label
    label_field: str = "label"
    #: NER: the label scheme of the gold spans (checked by the CRF; given to ``deidentify`` techniques)
    label_scheme: str | None = None
    crf: CRFSection = Field(default_factory=lambda: CRFSection(dev_each_iteration=False))
    classifier: ClassifierSection = Field(default_factory=ClassifierSection)


class ProtocolSection(_Strict):
    folds: int = Field(10, ge=2)
    repeats: int = Field(1, ge=1)
    #: runs per fold of a stochastic technique, each with its own seed (deterministic ones run once)
    technique_seeds: int = Field(5, ge=1)
    workers: int = Field(1, ge=1)
    #: the technique every other is compared with (its ``name``)
    baseline: str = "original"
    #: metadata field that groups notes (e.g. a patient id): a group never spans two folds
    group_field: str | None = None
    #: significance level for the ``significant`` column (after Holm)
    alpha: float = Field(0.05, gt=0, lt=1)
    bootstrap: int = Field(1000, ge=100)


class UtilityConfig(_Strict):
    name: str = "utility"
    language: str = "es"
    seed: int = 0
    output: Path = Path("utility-out")
    plot: bool = True
    data: DataSection
    task: TaskSection
    protocol: ProtocolSection = Field(default_factory=ProtocolSection)
    techniques: list[dict[str, Any]] = Field(min_length=1)

    def labelled_techniques(self) -> list[tuple[str, dict[str, Any]]]:
        """(name, full technique spec) per technique: the task's language and label scheme filled in where the
        technique takes them and the config does not say; names unique."""
        out: list[tuple[str, dict[str, Any]]] = []
        for spec in self.techniques:
            spec = dict(spec)
            tech = str(spec.get("technique", ""))
            cls = TECHNIQUES.get(tech)
            if cls is None:
                raise ConfigError(f"techniques: unknown technique {tech!r}; one of: {', '.join(TECHNIQUES)}")
            accepted = inspect.signature(cls.__init__).parameters
            if "lang" in accepted:
                spec.setdefault("lang", self.language)
            if "scheme" in accepted and self.task.label_scheme:
                spec.setdefault("scheme", self.task.label_scheme)
            if "label_field" in accepted:
                spec.setdefault("label_field", self.task.label_field)
            name = str(spec.pop("name", None) or _default_name(spec))
            if any(name == n for n, _ in out):
                raise ConfigError(f"techniques: two techniques are named {name!r}; give each a `name`")
            out.append((name, spec))
        if self.protocol.baseline not in [n for n, _ in out]:
            raise ConfigError(f"protocol.baseline: no technique is named {self.protocol.baseline!r}")
        return out


def _default_name(spec: Mapping[str, Any]) -> str:
    tech = str(spec["technique"])
    if tech == "deidentify":
        op = spec.get("operator", "surrogate")
        return f"deidentify-{op if isinstance(op, str) else op.get('operator')}"
    for key in ("fraction", "size", "probability"):
        if key in spec:
            return f"{tech}-{spec[key]}"
    return tech


def load_config(source: UtilityConfig | Mapping[str, Any] | str | Path) -> UtilityConfig:
    """A validated config from an object, a mapping (paths relative to the working folder) or a TOML file (paths
    relative to the file)."""
    if isinstance(source, UtilityConfig):
        return source
    base = Path.cwd()
    if isinstance(source, str | Path):
        path = Path(source)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise ConfigError(f"{path}: {e}") from None
        base = path.resolve().parent
    else:
        data = dict(source)
    try:
        cfg = UtilityConfig.model_validate(data)
    except ValidationError as e:
        raise ConfigError(f"utility config: {e}") from None
    d = cfg.data
    train = [resolve_path(p, base) for p in d.train] if isinstance(d.train, list) else resolve_path(d.train, base)
    data_section = d.model_copy(update={
        "train": train, "test": None if d.test is None else resolve_path(d.test, base)})
    return cfg.model_copy(update={"data": data_section, "output": resolve_path(cfg.output, base)})


# --- statistics ---------------------------------------------------------------------------------------------------

def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _u_statistic(x: Sequence[float], y: Sequence[float]) -> tuple[float, list[float]]:
    ranks = _ranks(list(x) + list(y))
    n1 = len(x)
    return sum(ranks[:n1]) - n1 * (n1 + 1) / 2, ranks


def _exact_sf(u: float, n1: int, n2: int) -> float:
    """P(U >= u) under H0 without ties (the counts of rank-sum configurations, by recursion)."""
    from functools import cache

    @cache
    def count(a: int, b: int, k: int) -> int:
        if k < 0:
            return 0
        if a == 0 or b == 0:
            return 1 if k == 0 else 0
        return count(a - 1, b, k - b) + count(a, b - 1, k)

    total = math.comb(n1 + n2, n1)
    kmax = n1 * n2
    return sum(count(n1, n2, k) for k in range(math.ceil(u), kmax + 1)) / total


def mann_whitney_u_python(x: Sequence[float], y: Sequence[float], *, method: str = "auto") -> dict[str, Any]:
    """Two-sided Mann-Whitney U test, as ``scipy.stats.mannwhitneyu(x, y)`` computes it: ``U`` is x's statistic;
    ``method="auto"``: exact when one sample has at most 8 values and there are no ties, otherwise the normal
    approximation with tie correction and continuity correction."""
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        raise ValueError("both samples need at least one value")
    u1, ranks = _u_statistic(x, y)
    ties = len(set(ranks)) < len(ranks)
    if method == "auto":
        method = "exact" if min(n1, n2) <= 8 and not ties else "asymptotic"
    u2 = n1 * n2 - u1
    big = max(u1, u2)
    if method == "exact":
        p = min(1.0, 2 * _exact_sf(big, n1, n2))
    else:
        n = n1 + n2
        counts: dict[float, int] = {}
        for r in ranks:
            counts[r] = counts.get(r, 0) + 1
        tie_term = sum(t ** 3 - t for t in counts.values())
        var = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)))
        if var <= 0:
            p = 1.0
        else:
            z = (big - n1 * n2 / 2 - 0.5) / math.sqrt(var)
            p = min(1.0, math.erfc(z / math.sqrt(2)))
    return {"U": u1, "p": p, "method": method}


def mann_whitney_u(x: Sequence[float], y: Sequence[float]) -> dict[str, Any]:
    """Two-sided Mann-Whitney U of ``x`` against ``y``: scipy's when installed, else :func:`mann_whitney_u_python`
    (the same numbers); ``{"U", "p", "method", "implementation"}``."""
    try:
        from scipy.stats import mannwhitneyu
    except ImportError:
        return {**mann_whitney_u_python(x, y), "implementation": "clinanon"}
    res = mannwhitneyu(list(x), list(y), alternative="two-sided", method="auto")
    n1, n2 = len(x), len(y)
    ties = len(set(list(x) + list(y))) < n1 + n2
    method = "exact" if min(n1, n2) <= 8 and not ties else "asymptotic"
    return {"U": float(res.statistic), "p": float(res.pvalue), "method": method, "implementation": "scipy"}


def rank_biserial(u: float, n1: int, n2: int) -> float:
    """The rank-biserial correlation of x's ``U`` (= Cliff's delta): ``2 U / (n1 n2) - 1``, in [-1, 1]; -1: every
    x is below every y."""
    return 2 * u / (n1 * n2) - 1


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (``None`` stays ``None`` and does not count in the family)."""
    idx = sorted((i for i, p in enumerate(pvalues) if p is not None), key=lambda i: pvalues[i])  # type: ignore
    m = len(idx)
    out: list[float | None] = [None] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (m - rank) * float(pvalues[i])))  # type: ignore[arg-type]
        out[i] = running
    return out


def paired_bootstrap(score: Callable[[Sequence[int]], float], other: Callable[[Sequence[int]], float], n: int,
                     *, samples: int = 1000, seed: int = 0) -> dict[str, float]:
    """Paired bootstrap over ``n`` test items: ``score`` and ``other`` compute a metric on a list of item indices
    (resampled with replacement, the same indices for both). Returns the observed difference ``score - other``,
    its 95 % interval and a two-sided p: twice the share of resampled differences on the far side of 0, counted as
    ``(count + 1) / (samples + 1)`` so that it is never 0."""
    rng = random.Random(seed)
    full = list(range(n))
    observed = score(full) - other(full)
    diffs = []
    for _ in range(samples):
        idx = [rng.randrange(n) for _ in range(n)]
        diffs.append(score(idx) - other(idx))
    diffs.sort()
    below = sum(1 for d in diffs if d <= 0)
    above = sum(1 for d in diffs if d >= 0)
    return {"difference": observed, "ci_low": diffs[int(0.025 * samples)], "ci_high": diffs[int(0.975 * samples) - 1],
            "p": min(1.0, 2 * (min(below, above) + 1) / (samples + 1)), "samples": samples}


# --- splits -------------------------------------------------------------------------------------------------------

def kfold_splits(docs: Sequence[Document], k: int, seed: int, *, label_field: str | None = None,
                 group_field: str | None = None) -> list[list[int]]:
    """The test indices of each of ``k`` folds: notes sorted by id, shuffled with ``seed``, dealt round-robin —
    label by label when ``label_field`` (stratified), group by group when ``group_field`` (a group in one fold;
    with ``label_field`` too, the groups are dealt label by label, a group's label being its first note's).
    Every note is in exactly one fold; the same notes and seed give the same folds."""
    if len(docs) < k:
        raise ConfigError(f"{k} folds need at least {k} notes (got {len(docs)})")
    order = sorted(range(len(docs)), key=lambda i: docs[i].id)
    rng = random.Random(f"{seed}:folds")
    folds: list[list[int]] = [[] for _ in range(k)]
    if group_field:
        groups: dict[str, list[int]] = {}
        for i in order:
            groups.setdefault(str(docs[i].meta.get(group_field, docs[i].id)), []).append(i)
        keys = sorted(groups)
        rng.shuffle(keys)
        if label_field:  # stable: shuffled within a label
            keys.sort(key=lambda key: str(docs[groups[key][0]].meta.get(label_field, "")))
        if len(keys) < k:
            raise ConfigError(f"{k} folds need at least {k} groups of {group_field!r} (got {len(keys)})")
        for n, key in enumerate(keys):
            folds[n % k] += groups[key]
    else:
        rng.shuffle(order)
        if label_field:
            order.sort(key=lambda i: str(docs[i].meta.get(label_field, "")))  # stable: shuffled within a label
        for n, i in enumerate(order):
            folds[n % k].append(i)
    return [sorted(f) for f in folds]


# --- one run ------------------------------------------------------------------------------------------------------

_DATA: dict[str, list[Document]] = {}


def _init_worker(train: list[Document], test: list[Document]) -> None:
    _DATA["train"], _DATA["test"] = train, test


def _span_counts(gold: Document, pred: Document) -> tuple[int, int, int, int, int, int]:
    g = {s.key for s in gold.spans}
    p = {s.key for s in pred.spans}
    g2 = {(s.start, s.end) for s in gold.spans}
    p2 = {(s.start, s.end) for s in pred.spans}
    return (len(g & p), len(p - g), len(g - p), len(g2 & p2), len(p2 - g2), len(g2 - p2))


def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def ner_scores(counts: Sequence[Sequence[int]]) -> dict[str, float]:
    """Micro P/R/F1 of exact (start, end, label) matches (subtask 1) and F1 of exact spans (subtask 2) from per-note
    counts ``(tp, fp, fn, tp2, fp2, fn2)``."""
    s = [sum(c[i] for c in counts) for i in range(6)]
    p, r, f = _prf(s[0], s[1], s[2])
    return {"f1": f, "precision": p, "recall": r, "subtask2_f1": _prf(s[3], s[4], s[5])[2]}


def classification_scores(gold: Sequence[str], pred: Sequence[str]) -> dict[str, float]:
    """Macro F1 over the gold and predicted labels, and accuracy."""
    labels = sorted(set(gold) | set(pred))
    f1s = []
    for lab in labels:
        tp = sum(1 for g, p in zip(gold, pred, strict=True) if g == lab and p == lab)
        fp = sum(1 for g, p in zip(gold, pred, strict=True) if g != lab and p == lab)
        fn = sum(1 for g, p in zip(gold, pred, strict=True) if g == lab and p != lab)
        f1s.append(_prf(tp, fp, fn)[2])
    acc = sum(1 for g, p in zip(gold, pred, strict=True) if g == p) / len(gold) if gold else 0.0
    return {"f1": sum(f1s) / len(f1s) if f1s else 0.0, "accuracy": acc}


def _train_and_test(cfg: UtilityConfig, train: list[Document], test: list[Document]) -> dict[str, Any]:
    if cfg.task.type == "ner":
        from clinanon.detect.crf import CRFDetector

        c = cfg.task.crf
        det = CRFDetector(cfg.language, c1=c.c1, c2=c.c2, max_iterations=c.max_iterations, min_freq=c.min_freq,
                          seed=cfg.seed, rules=c.rules, score=c.score, label_scheme=cfg.task.label_scheme,
                          clusters=c.clusters, triggers=c.triggers, structure=c.structure,
                          case_augment=c.case_augment)
        det.fit(train)
        pred = det.predict([d.with_spans(()) for d in test])
        counts = [list(_span_counts(g, p)) for g, p in zip(test, pred, strict=True)]
        return {"scores": ner_scores(counts), "per_doc": counts}
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    field = cfg.task.label_field
    k = cfg.task.classifier
    y = [str(d.meta[field]) for d in train]
    gold = [str(d.meta.get(field, "")) for d in test]
    if len(set(y)) < 2:
        pred = [y[0]] * len(test)
    else:
        vec = TfidfVectorizer(ngram_range=(1, k.ngram_max), min_df=k.min_df, max_features=k.max_features,
                              sublinear_tf=True)
        x = vec.fit_transform([d.text for d in train])
        clf = LogisticRegression(C=k.C, max_iter=k.max_iter, random_state=cfg.seed)
        clf.fit(x, y)
        pred = [str(p) for p in clf.predict(vec.transform([d.text for d in test]))]
    return {"scores": classification_scores(gold, pred), "per_doc": [[g, p] for g, p in zip(gold, pred, strict=True)]}


def _run_unit(cfg_json: str, spec: dict[str, Any], train_idx: list[int], test_idx: list[int] | None,
              rng_seed: str) -> dict[str, Any]:
    cfg = UtilityConfig.model_validate_json(cfg_json)
    all_train = _DATA["train"]
    train = [all_train[i] for i in train_idx]
    test = _DATA["test"] if test_idx is None else [all_train[i] for i in test_idx]
    if cfg.task.type == "classification":
        missing = [d.id for d in train if cfg.task.label_field not in d.meta]
        if missing:
            raise ConfigError(f"note {missing[0]!r} has no metadata field {cfg.task.label_field!r}")
    t0 = time.perf_counter()
    technique = make_technique(spec)
    sanitized = technique.transform(train, random.Random(rng_seed))
    t1 = time.perf_counter()
    result = _train_and_test(cfg, sanitized, test)
    t2 = time.perf_counter()
    return {**result, "train_documents": len(sanitized), "test_documents": len(test),
            "test_ids": [d.id for d in test], "technique_stats": technique.stats.to_dict(),
            "transform_seconds": round(t1 - t0, 2), "train_test_seconds": round(t2 - t1, 2)}


# --- the experiment -----------------------------------------------------------------------------------------------

def _read(path: Path | list[Path], fmt: str | None, limit: int | None) -> list[Document]:
    from clinanon import io as cio

    paths = path if isinstance(path, list) else [path]
    docs = sorted((d for p in paths for d in cio.read(p, fmt)), key=lambda d: d.id)
    ids = [d.id for d in docs]
    if len(set(ids)) != len(ids):
        raise ConfigError("utility: two notes share an id (ids must be unique across the data paths)")
    return docs[:limit] if limit else docs


def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _progress(total: int, enabled: bool) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("[bold]utility"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                    TimeElapsedColumn(), console=Console(stderr=True), disable=not enabled, transient=False)


def run_utility(config: UtilityConfig | Mapping[str, Any] | str | Path, *, progress: bool = False,
                workers: int | None = None, output: str | Path | None = None) -> dict[str, Any]:
    """Run the experiment of ``config`` (see the module docstring); returns the table (also written to
    ``<output>/utility.json``). ``workers`` / ``output`` override the config's."""
    cfg = load_config(config)
    if output is not None:
        cfg = cfg.model_copy(update={"output": Path(output)})
    n_workers = workers or cfg.protocol.workers
    techniques = cfg.labelled_techniques()
    for _, spec in techniques:
        make_technique(spec)  # validate every technique before any work
    t_start = time.perf_counter()
    train = _read(cfg.data.train, cfg.data.train_format, cfg.data.limit)
    test = _read(cfg.data.test, cfg.data.test_format, cfg.data.test_limit) if cfg.data.test else []
    holdout = cfg.data.test is not None
    if not train or (holdout and not test):
        raise ConfigError("utility: no training notes" if not train else "utility: no test notes")
    data_key = _digest([[d.id, hashlib.sha256(d.text.encode()).hexdigest(), [s.key for s in d.spans],
                         sorted(d.meta.items(), key=lambda kv: kv[0])] for d in train + test])
    task_key = _digest([cfg.task.model_dump(mode="json"), cfg.language, cfg.seed, data_key, holdout])
    out_dir = Path(cfg.output)
    (out_dir / "units").mkdir(parents=True, exist_ok=True)

    # every (technique, repeat, fold, seed) unit
    repeats = 1 if holdout else cfg.protocol.repeats
    splits: list[list[list[int]]] = []
    for r in range(repeats):
        if holdout:
            splits.append([[]])
        else:
            splits.append(kfold_splits(train, cfg.protocol.folds, cfg.seed + r,
                                       label_field=cfg.task.label_field if cfg.task.type == "classification"
                                       else None, group_field=cfg.protocol.group_field))
    units: list[dict[str, Any]] = []
    for name, spec in techniques:
        seeds = cfg.protocol.technique_seeds if make_technique(spec).stochastic else 1
        for r in range(repeats):
            for f, fold in enumerate(splits[r]):
                for s in range(seeds):
                    # k-fold: the fold's notes are in the key, so a change of the split recomputes the unit
                    key = _digest([task_key, spec, r, f, s, cfg.protocol.folds, *([] if holdout else [fold])])
                    units.append({"technique": name, "spec": spec, "repeat": r, "fold": f, "seed": s, "key": key,
                                  "path": out_dir / "units" / _safe(name) / f"r{r}_f{f}_s{s}.json",
                                  "fold_idx": fold})
    results: dict[tuple[str, int, int, int], dict[str, Any]] = {}
    todo = []
    for u in units:
        p: Path = u["path"]
        if p.is_file():
            try:
                cached = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                cached = None
            if cached and cached.get("key") == u["key"]:
                results[(u["technique"], u["repeat"], u["fold"], u["seed"])] = cached
                continue
        todo.append(u)
    cfg_json = cfg.model_dump_json()
    n_train = len(train)

    def args_of(u: dict[str, Any]) -> tuple[Any, ...]:
        if holdout:
            train_idx, test_idx = list(range(n_train)), None
        else:
            held = set(u["fold_idx"])
            train_idx, test_idx = [i for i in range(n_train) if i not in held], list(u["fold_idx"])
        rng_seed = f"{cfg.seed}:{u['repeat']}:{u['fold']}:{u['seed']}"
        return (cfg_json, u["spec"], train_idx, test_idx, rng_seed)

    def store(u: dict[str, Any], res: dict[str, Any]) -> None:
        rec = {"key": u["key"], "technique": u["technique"], "repeat": u["repeat"], "fold": u["fold"],
               "seed": u["seed"], **res}
        p: Path = u["path"]
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(".tmp")
        tmp.write_text(json.dumps(rec), encoding="utf-8")
        tmp.replace(p)
        results[(u["technique"], u["repeat"], u["fold"], u["seed"])] = rec

    with _progress(len(units), progress) as bar:
        task = bar.add_task(f"{len(units) - len(todo)} cached", total=len(units), completed=len(units) - len(todo))
        if n_workers <= 1 or len(todo) <= 1:
            _init_worker(train, test)
            for u in todo:
                store(u, _run_unit(*args_of(u)))
                bar.update(task, advance=1, description=u["technique"])
        else:
            import multiprocessing as mp

            ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context("spawn")
            with ProcessPoolExecutor(max_workers=n_workers, mp_context=ctx, initializer=_init_worker,
                                     initargs=(train, test)) as pool:
                futures = {pool.submit(_run_unit, *args_of(u)): u for u in todo}
                for fut in as_completed(futures):
                    u = futures[fut]
                    store(u, fut.result())
                    bar.update(task, advance=1, description=u["technique"])
    table = compare(cfg, techniques, results, holdout)
    table["seconds"] = round(time.perf_counter() - t_start, 1)
    table["units_computed"] = len(todo)
    table["units_cached"] = len(units) - len(todo)
    (out_dir / "utility.json").write_text(json.dumps(table, indent=1), encoding="utf-8")
    (out_dir / "table.md").write_text(markdown_table(table), encoding="utf-8")
    if cfg.plot:
        try:
            write_plot(table, out_dir / "boxplot.png")
        except ConfigError:
            table["plot"] = "matplotlib is not installed: no box plot"
    return table


def _bootstrap_metric(task: str, per_doc: list[Any]) -> Callable[[Sequence[int]], float]:
    if task == "ner":
        return lambda idx: ner_scores([per_doc[i] for i in idx])["f1"]
    return lambda idx: classification_scores([per_doc[i][0] for i in idx], [per_doc[i][1] for i in idx])["f1"]


def compare(cfg: UtilityConfig, techniques: Sequence[tuple[str, Mapping[str, Any]]],
            results: Mapping[tuple[str, int, int, int], Mapping[str, Any]], holdout: bool) -> dict[str, Any]:
    """The table: per technique its runs' scores, mean ± sd, and the tests against the baseline."""
    base = cfg.protocol.baseline
    by_tech: dict[str, list[Mapping[str, Any]]] = {n: [] for n, _ in techniques}
    for (name, _r, _f, _s), rec in sorted(results.items()):
        if name in by_tech:
            by_tech[name].append(rec)
    base_scores = [r["scores"]["f1"] for r in by_tech[base]]
    rows: list[dict[str, Any]] = []
    for name, spec in techniques:
        recs = by_tech[name]
        scores = [r["scores"]["f1"] for r in recs]
        row: dict[str, Any] = {
            "technique": name, "spec": {k: v for k, v in spec.items() if k != "key"}, "runs": len(scores),
            "scores": [round(s, 4) for s in scores],
            "mean": round(statistics.fmean(scores), 4) if scores else None,
            "sd": round(statistics.stdev(scores), 4) if len(scores) > 1 else 0.0,
            "median": round(statistics.median(scores), 4) if scores else None,
            "other_scores": {k: round(statistics.fmean(r["scores"][k] for r in recs), 4)
                             for k in (recs[0]["scores"] if recs else {}) if k != "f1"},
            "transform": {k: sum(r["technique_stats"].get(k, 0) for r in recs) for k in
                          ("documents_in", "documents_out", "changed", "dropped_spans")},
        }
        if base_scores and scores and row["mean"] is not None:
            row["delta_mean"] = round(statistics.fmean(scores) - statistics.fmean(base_scores), 4)
        row["test"] = None
        if name != base and scores and base_scores:
            if len(scores) >= 2 and len(base_scores) >= 2:
                t = mann_whitney_u(scores, base_scores)
                row["test"] = {"name": "mann-whitney-u", "U": t["U"], "p": t["p"], "method": t["method"],
                               "implementation": t["implementation"],
                               "effect_rank_biserial": round(rank_biserial(t["U"], len(scores), len(base_scores)),
                                                             4)}
            elif holdout:
                mine = next(r for r in recs if r["seed"] == 0)
                ref = next(r for r in by_tech[base] if r["seed"] == 0)
                if mine["test_ids"] == ref["test_ids"]:
                    b = paired_bootstrap(_bootstrap_metric(cfg.task.type, mine["per_doc"]),
                                         _bootstrap_metric(cfg.task.type, ref["per_doc"]), len(mine["per_doc"]),
                                         samples=cfg.protocol.bootstrap, seed=cfg.seed)
                    row["test"] = {"name": "paired-bootstrap", "p": b["p"],
                                   "difference": round(b["difference"], 4),
                                   "ci95": [round(b["ci_low"], 4), round(b["ci_high"], 4)],
                                   "samples": b["samples"], "runs_used": "seed 0 of each"}
        rows.append(row)
    adjusted = holm([r["test"]["p"] if r["test"] else None for r in rows])
    for row, p in zip(rows, adjusted, strict=True):
        if row["test"] is not None:
            row["test"]["p_holm"] = p
            row["significant"] = p is not None and p < cfg.protocol.alpha
        else:
            row["significant"] = None
    metric = "subtask-1 micro F1 (exact span + label)" if cfg.task.type == "ner" else "macro F1"
    return {"name": cfg.name, "task": cfg.task.type, "metric": metric, "language": cfg.language, "seed": cfg.seed,
            "protocol": "hold-out" if holdout else f"{cfg.protocol.folds}-fold x {cfg.protocol.repeats}",
            "technique_seeds": cfg.protocol.technique_seeds, "baseline": base, "alpha": cfg.protocol.alpha,
            "correction": "holm", "rows": rows, "config": json.loads(cfg.model_dump_json())}


def markdown_table(table: Mapping[str, Any]) -> str:
    lines = [f"# {table['name']}: {table['metric']}, {table['protocol']} (baseline: {table['baseline']})", "",
             "| technique | runs | mean ± sd | Δ vs baseline | test | p (Holm) | effect |",
             "|---|---:|---:|---:|---|---:|---:|"]
    for r in table["rows"]:
        t = r["test"] or {}
        effect = t.get("effect_rank_biserial", t.get("difference", ""))
        p = t.get("p_holm")
        lines.append(f"| {r['technique']} | {r['runs']} | {r['mean']:.4f} ± {r['sd']:.4f} | "
                     f"{r.get('delta_mean', 0):+.4f} | {t.get('name', '-')} | "
                     f"{'' if p is None else f'{p:.3g}'} | {effect} |")
    return "\n".join(lines) + "\n"


def write_plot(table: Mapping[str, Any], path: str | Path) -> Path:
    """Box plots of each technique's run scores (matplotlib, the ``plot`` extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("the utility box plot needs matplotlib: pip install 'clinanon[plot]'") from None
    rows = table["rows"]
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(rows) + 2), 4.5))
    ax.boxplot([r["scores"] for r in rows], showmeans=True)
    ax.set_xticks(range(1, len(rows) + 1))
    ax.set_xticklabels([r["technique"] + (" *" if r.get("significant") else "") for r in rows], rotation=30,
                       ha="right")
    ax.set_ylabel(table["metric"])
    ax.set_title(f"{table['name']}: {table['protocol']} (* = p < {table['alpha']} after Holm)")
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=110)
    plt.close(fig)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m clinanon.utility CONFIG [--workers N] [--output DIR] [--no-progress]``."""
    ap = argparse.ArgumentParser(prog="clinanon utility", description=__doc__.split("\n\n")[0])
    ap.add_argument("config", type=Path)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--output", type=Path, default=None)
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    try:
        table = run_utility(args.config, progress=not args.no_progress, workers=args.workers, output=args.output)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(markdown_table(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
