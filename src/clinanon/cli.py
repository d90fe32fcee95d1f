"""``clinanon <verb>``: a thin layer over the library (Typer + Rich).

Nothing here prints document or span text: progress bars count documents, errors name files and offsets.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from clinanon import __version__
from clinanon.config import DEFAULT_CONFIG_TOML, Config
from clinanon.errors import ClinanonError

app = typer.Typer(
    name="clinanon",
    help="De-identify clinical free text: detect PHI, replace it, evaluate how well it worked.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True)
stdout = Console()


class LabelMode(StrEnum):
    native = "native"
    canonical = "canonical"
    type = "type"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"clinanon {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """clinanon: clinical text de-identification."""


def _fail(message: str, code: int = 2) -> typer.Exit:
    console.print(f"[bold red]error:[/] {message}", highlight=False, markup=True)
    return typer.Exit(code)


@contextmanager
def _errors() -> Iterator[None]:
    try:
        yield
    except ClinanonError as e:
        raise _fail(str(e).replace("[", "\\[")) from None


class _RateColumn(ProgressColumn):
    """Documents per second (rich's own speed estimate over the last seconds)."""

    def render(self, task: Any) -> Text:
        return Text(f"{task.speed:,.1f} docs/s" if task.speed else "… docs/s", style="progress.data.speed")


@contextmanager
def _progress(description: str, total: int | None) -> Iterator[Any]:
    columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), _RateColumn(),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn()]
    with Progress(*columns, console=console, transient=False, disable=not console.is_terminal) as prog:
        task = prog.add_task(description, total=total)
        yield lambda n: prog.update(task, completed=n)


def _build_config(config: Path | None, lang: str | None, operator: str | None,
                  scheme: str | None = None, profile: str | None = None) -> Config:
    """The configuration file (or the defaults) with the command line's flags applied, its own label schemes
    registered."""
    overrides: dict[str, Any] = {}
    if lang is not None:
        overrides["language"] = lang
    if profile is not None:
        overrides["profile"] = profile
    if scheme is not None:
        overrides["label_scheme"] = scheme
    if operator is not None:
        overrides["operators"] = {"*": {"operator": operator}}
    return Config.from_options(config, overrides, source="command line").register_schemes()


@contextmanager
def _warnings_to_console() -> Iterator[None]:
    """clinanon's warnings (a model not run on notes of another language: counts only) as ``warning:`` lines."""
    import warnings

    def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        console.print(f"[yellow]warning:[/] {str(message).replace('[', chr(92) + '[')}", highlight=False)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def _reader_options(pairs: list[str] | None) -> dict[str, Any]:
    """``["control_chars=strip", "check_text=false"]`` -> reader keyword options (JSON values where they parse)."""
    opts: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ClinanonError(f"expected KEY=VALUE, got a value without '=' ({len(pair)} characters)")
        try:
            opts[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            opts[key.strip()] = value
    return opts


def _run(input_path: Path, out: Path, in_format: str | None, out_format: str | None, config: Config,
         *, deidentify: bool, resume: bool, overwrite: bool, workers: int, errors: Path | None,
         read_options: dict[str, Any], unordered: bool = False) -> None:
    from clinanon.runner import prepare_batch

    job = prepare_batch(input_path, out, config, deidentify=deidentify, in_format=in_format, out_format=out_format,
                        read_options=read_options)
    with _progress(job.description, job.count_inputs()) as advance, _warnings_to_console():
        result = job.run(resume=resume, overwrite=overwrite, workers=workers, errors_path=errors, progress=advance,
                         **({"ordered": False} if unordered else {}))
    style = "red" if result.errors else "green"
    console.print(
        f"[{style}]{result.processed} processed, {result.resumed} resumed, {result.errors} errors[/] → {out}"
        + (f" (errors: {result.errors_path})" if result.errors else ""),
        highlight=False,
    )
    bad_ann = getattr(result.read_stats, "bad_annotations", 0)
    if bad_ann:
        console.print(f"[yellow]warning:[/] {bad_ann} .ann file(s) could not be read and were ignored (their texts "
                      "were processed; the warnings above name them)", highlight=False)
    if result.errors:
        raise typer.Exit(1)


def _metadata_options(cfg: Config, *, ids: str | None, keep: list[str] | None, deidentify: list[str] | None,
                      pseudonymize: list[str] | None, dates: list[str] | None, date_method: str | None,
                      key_file: Path | None) -> Config:
    """``cfg`` with the command line's metadata flags added to its ``[metadata]`` section (lists are extended)."""
    md = cfg.metadata.model_dump()
    changed = False
    for key, extra in (("keep_fields", keep), ("deidentify_fields", deidentify),
                       ("pseudonymize_fields", pseudonymize), ("date_fields", dates)):
        if extra:
            md[key] = [*md[key], *(f for f in extra if f not in md[key])]
            changed = True
    for key, value in (("ids", ids), ("date_method", date_method), ("key_file", key_file)):
        if value is not None:
            md[key] = value
            changed = True
    return cfg.with_overrides(metadata=md, source="command line") if changed else cfg


InputArg = Annotated[Path, typer.Argument(help="Input file or folder (format auto-detected).", exists=True)]
OutOpt = Annotated[Path, typer.Option("--out", "-o", help="Output file or folder.")]
FormatOpt = Annotated[str | None, typer.Option("--format", "-f", help="Input format (default: auto-detect).")]
OutFormatOpt = Annotated[str | None, typer.Option("--out-format", help="Output format (default: from --out or input).")]
LangOpt = Annotated[
    str | None,
    typer.Option("--lang", "-l", help="Language of the notes: auto (each note's own: its meta.lang, else identified "
                                      "from its text; notes in another language, or too short to tell, go to the "
                                      "errors report), en, es, nl, sv or de. Default: the configuration's "
                                      "`language`, auto unless set."),
]
ConfigOpt = Annotated[Path | None, typer.Option("--config", "-c", help="clinanon.toml", exists=True, dir_okay=False)]
ProfileOpt = Annotated[
    str | None,
    typer.Option("--profile", help="What counts as PHI: gdpr-strict (everything detected), hipaa (Safe Harbor: "
                                         "ages up to 89, clock times, sex, professions, states and countries are "
                                         "kept) or meddocan; see `clinanon profiles`. Default: the configuration's "
                                         "`profile`, gdpr-strict unless set."),
]
ResumeOpt = Annotated[bool, typer.Option("--resume", help="Continue an interrupted run into the same --out.")]
OverwriteOpt = Annotated[bool, typer.Option("--overwrite", help="Replace an existing --out.")]
WorkersOpt = Annotated[int, typer.Option("--workers", "-j", min=1, help="Worker processes.")]
UnorderedOpt = Annotated[bool, typer.Option("--unordered", help="With --workers: write each chunk as it finishes "
                                                                "(output order may differ from the input's; resume "
                                                                "stays correct).")]
EngineOpt = Annotated[str, typer.Option("--engine", help="local (processes: --workers) or spark (Parquet, CSV or "
                                                         "JSONL paths; needs clinanon[spark] and Java).")]
ErrorsOpt = Annotated[Path | None, typer.Option("--errors", help="Errors report (default: <out>.errors.jsonl).")]
ReadOpt = Annotated[
    list[str] | None,
    typer.Option("--read-option", "-O", help="Reader option KEY=VALUE, e.g. control_chars=strip, check_text=false "
                                              "(repeatable; see `clinanon formats`)."),
]


@app.command()
def deidentify(
    input_path: InputArg,
    out: OutOpt,
    in_format: FormatOpt = None,
    out_format: OutFormatOpt = None,
    lang: LangOpt = None,
    config: ConfigOpt = None,
    profile: ProfileOpt = None,
    operator: Annotated[
        str | None,
        typer.Option("--operator", help="One operator for every category: redact, tag, suppress, keep, surrogate, "
                                        "neighbors."),
    ] = None,
    scope: Annotated[
        str | None, typer.Option("--scope", help="Surrogate consistency scope: document, patient or corpus.")
    ] = None,
    key_file: Annotated[
        Path | None, typer.Option("--key-file", help="Surrogate key file (see `clinanon keygen`).", exists=True,
                                  dir_okay=False)
    ] = None,
    insecure_random_key: Annotated[
        bool, typer.Option("--insecure-random-key", help="Surrogates with a throw-away key (not reproducible).")
    ] = False,
    ledger: Annotated[
        str | None, typer.Option("--ledger", help="Record original -> surrogate in this SQLite file or PostgreSQL URL.")
    ] = None,
    ids: Annotated[
        str | None, typer.Option("--ids", help="Output document ids: auto (pseudonym with a key, else sequence), "
                                               "pseudonym, sequence (record-<n>) or keep (not PHI).")
    ] = None,
    keep_field: Annotated[
        list[str] | None, typer.Option("--keep-field", help="Copy this metadata field (CSV column, JSONL meta key) "
                                                            "as it is; repeatable. Others are dropped.")
    ] = None,
    deidentify_field: Annotated[
        list[str] | None, typer.Option("--deidentify-field", help="De-identify this free-text field like the note; "
                                                                  "repeatable.")
    ] = None,
    pseudonymize_field: Annotated[
        list[str] | None, typer.Option("--pseudonymize-field", help="Replace this id field (patient, encounter) by "
                                                                    "its keyed pseudonym; repeatable.")
    ] = None,
    date_field: Annotated[
        list[str] | None, typer.Option("--date-field", help="Shift this date field (date of birth) or keep its year "
                                                            "(see --date-method); repeatable.")
    ] = None,
    date_method: Annotated[
        str | None, typer.Option("--date-method", help="Date fields: auto, shift (the note's surrogate date offset) "
                                                       "or year.")
    ] = None,
    resume: ResumeOpt = False,
    overwrite: OverwriteOpt = False,
    workers: WorkersOpt = 1,
    unordered: UnorderedOpt = False,
    errors: ErrorsOpt = None,
    read_option: ReadOpt = None,
    engine: EngineOpt = "local",
) -> None:
    """Detect PHI and replace it; writes the sanitized documents (and their replacement log where the format can).

    Only the sanitized text, a replaced document id and `lang` are written: other metadata (CSV columns, JSONL
    meta) only when named by --keep-field, --deidentify-field, --pseudonymize-field, --date-field or [metadata]."""
    with _errors():
        cfg = _build_config(config, lang, operator, profile=profile)
        has_surrogate = any(op.operator == "surrogate" for op in cfg.operators.values())
        if scope or insecure_random_key or ledger or (key_file and has_surrogate):
            from clinanon.transform.surrogate.cli_support import apply_surrogate_options

            cfg = apply_surrogate_options(cfg, scope=scope, key_file=key_file,
                                          insecure_random_key=insecure_random_key, ledger=ledger)
        cfg = _metadata_options(cfg, ids=ids, keep=keep_field, deidentify=deidentify_field,
                                pseudonymize=pseudonymize_field, dates=date_field, date_method=date_method,
                                key_file=key_file if key_file and not has_surrogate else None)
        if _engine(engine, resume=resume, workers=workers, read_option=read_option) == "spark":
            _run_spark(input_path, out, in_format, out_format, cfg, deidentify=True, overwrite=overwrite,
                       errors=errors)
            return
        _run(input_path, out, in_format, out_format, cfg, deidentify=True, resume=resume, overwrite=overwrite,
             workers=workers, errors=errors, read_options=_reader_options(read_option), unordered=unordered)


def _engine(engine: str, *, resume: bool, workers: int, read_option: list[str] | None) -> str:
    if engine not in ("local", "spark"):
        raise _fail(f"--engine: {engine!r} is not one of local, spark")
    if engine == "spark" and (resume or workers != 1 or read_option):
        raise _fail("--engine spark takes no --resume, --workers or --read-option (Spark parallelises itself)")
    return engine


def _run_spark(input_path: Path, out: Path, in_format: str | None, out_format: str | None, cfg: Config, *,
               deidentify: bool, overwrite: bool, errors: Path | None) -> None:
    """``--engine spark``: :func:`clinanon.spark.run_spark` on a local or configured Spark (counts only)."""
    try:
        from clinanon.spark import run_spark
    except ImportError as e:
        raise _fail('--engine spark needs the spark extra: pip install "clinanon[spark]" '
                    f"({type(e).__name__})") from None
    res = run_spark(input_path, out, cfg, in_format=in_format, out_format=out_format,
                    deidentify=deidentify, overwrite=overwrite, errors_path=errors)
    console.print(f"{res.processed} processed, {res.errors} errors → {out}"
                  + (f" (errors: {res.errors_path})" if res.errors else ""), highlight=False)
    if res.errors:
        raise typer.Exit(1)


@app.command()
def detect(
    input_path: InputArg,
    out: OutOpt,
    in_format: FormatOpt = None,
    out_format: OutFormatOpt = None,
    lang: LangOpt = None,
    config: ConfigOpt = None,
    scheme: Annotated[str | None, typer.Option("--scheme", help="Label scheme of the predicted spans.")] = None,
    profile: ProfileOpt = None,
    resume: ResumeOpt = False,
    overwrite: OverwriteOpt = False,
    workers: WorkersOpt = 1,
    unordered: UnorderedOpt = False,
    errors: ErrorsOpt = None,
    read_option: ReadOpt = None,
    engine: EngineOpt = "local",
) -> None:
    """Detect PHI only: writes the documents with predicted spans (text unchanged)."""
    with _errors():
        cfg = _build_config(config, lang, None, scheme, profile)
        if _engine(engine, resume=resume, workers=workers, read_option=read_option) == "spark":
            _run_spark(input_path, out, in_format, out_format, cfg, deidentify=False, overwrite=overwrite,
                       errors=errors)
            return
        _run(input_path, out, in_format, out_format, cfg, deidentify=False, resume=resume, overwrite=overwrite,
             workers=workers, errors=errors, read_options=_reader_options(read_option), unordered=unordered)


@app.command()
def evaluate(
    gold: Annotated[Path, typer.Option("--gold", "-g", help="Gold annotations (any format).", exists=True)],
    pred: Annotated[Path | None, typer.Option("--pred", "-p", help="Predictions (any format).", exists=True)] = None,
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="Run this pipeline on the gold texts instead of --pred.",
                                  exists=True, dir_okay=False)
    ] = None,
    gold_format: Annotated[str | None, typer.Option("--gold-format")] = None,
    pred_format: Annotated[str | None, typer.Option("--pred-format")] = None,
    lang: LangOpt = None,
    scheme: Annotated[str | None, typer.Option("--scheme", help="Label scheme of the gold labels.")] = None,
    labels: Annotated[
        LabelMode, typer.Option("--labels", help="native, canonical or type labels.")
    ] = LabelMode.native,
    profile: Annotated[
        str | None,
        typer.Option("--profile", help="Score by this profile's convention (`clinanon profiles`): gold and "
                                             "predictions keep only what it counts as PHI (hipaa: no ages up to "
                                             "89, clock times, sex ...). With --config it is also the pipeline's "
                                             "profile. Default: no filtering (with --config: the configuration's "
                                             "profile for the pipeline).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON instead of a table.")] = False,
    save: Annotated[Path | None, typer.Option("--save", help="Also write the JSON report to this file.")] = None,
) -> None:
    """Score predictions against gold spans: token, entity (MEDDOCAN subtasks 1 and 2), overlap, per label, leaks."""
    from clinanon import io as cio
    from clinanon.evaluate import evaluate as run_eval
    from clinanon.evaluate.report import render_table

    with _errors():
        if (pred is None) == (config is None):
            raise _fail("give exactly one of --pred (a prediction file) or --config (a pipeline to run)")
        if profile is not None:
            from clinanon.profiles import get_profile

            profile = get_profile(profile).name  # an unknown profile fails before anything is read
        gold_docs = list(cio.read(gold, gold_format))
        cfg = _build_config(config, lang, None, scheme, profile) if config is not None else None
        # the tokens the metrics count are the same in every language: a fixed one only where none is given
        language = (lang if lang and lang != "auto" else None) or (cfg.given_language if cfg else None) or "es"
        if pred is not None:
            pred_docs = list(cio.read(pred, pred_format))
        else:
            from clinanon.pipeline import Pipeline

            assert cfg is not None
            nlp = Pipeline(cfg)
            with _progress("detecting", len(gold_docs)) as advance:
                pred_docs = []
                for i, d in enumerate(nlp.pipe(gold_docs, deidentify=False), 1):
                    pred_docs.append(d)
                    advance(i)
        scheme_name = scheme or (cfg.label_scheme if cfg else None)
        if profile is not None:
            gold_docs, pred_docs = _by_profile(gold_docs, pred_docs, profile, scheme_name)
        report = run_eval(gold_docs, pred_docs, lang=language, scheme=scheme_name, label_map=labels.value)
        data = report.to_dict()
        if save is not None:
            from clinanon.io.base import atomic_write_text

            atomic_write_text(save, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        if as_json:
            sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        else:
            render_table(report, stdout)


def _by_profile(gold: list[Any], pred: list[Any], profile: str, scheme: str | None) -> tuple[list[Any], list[Any]]:
    """Gold and predictions with only the spans that ``profile`` counts as PHI (labels read in ``scheme``, canonical
    without one). A gold label that maps to no canonical category would be kept whatever the profile says: that
    is an error naming the labels (the scores would not follow the profile)."""
    from clinanon.profiles import filter_documents
    from clinanon.steps.scheme import SchemeLabels
    from clinanon.taxonomy import CANONICAL_CATEGORIES, get_scheme

    labels = SchemeLabels(get_scheme(scheme or "canonical"))
    gold_labels = {s.label for d in gold for s in d.spans}
    unknown = sorted(lab for lab in gold_labels if labels.category(lab) not in CANONICAL_CATEGORIES)
    if unknown:
        raise ClinanonError(f"--profile: gold labels with no canonical category in the scheme "
                            f"{labels.scheme.name!r}: {', '.join(unknown)} (pass the corpus' scheme with --scheme; "
                            "a scheme of your own goes in [[schemes]] of a configuration, see `clinanon labels`)")
    return (filter_documents(gold, profile, labels.category), filter_documents(pred, profile, labels.category))


@app.command("profiles")
def profiles_cmd(
    name: Annotated[str | None, typer.Argument(help="A profile; omit to list the profiles.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table.")] = False,
) -> None:
    """List the legal profiles (what counts as PHI: `profile` in the configuration, --profile), or show one
    category by category with its legal reference (docs/profiles.md)."""
    from clinanon.profiles import DEFAULT_PROFILE, PROFILES, get_profile
    from clinanon.taxonomy import CANONICAL_CATEGORIES

    with _errors():
        if name is None:
            if as_json:
                sys.stdout.write(json.dumps([{"name": p.name, "description": p.description,
                                              "default": p.name == DEFAULT_PROFILE} for p in PROFILES.values()],
                                            indent=2) + "\n")
                return
            table = Table("profile", "default", "what is replaced", title="profiles (what counts as PHI)")
            for p in PROFILES.values():
                table.add_row(p.name, "yes" if p.name == DEFAULT_PROFILE else "", p.description)
            stdout.print(table)
            return
        prof = get_profile(name)
        rows = []
        for cat in [c for c in CANONICAL_CATEGORIES if "." not in c] + ["LOCATION.STATE", "LOCATION.COUNTRY"]:
            if cat == "AGE" and prof.min_age is not None:
                what = f"replaced from {prof.min_age}, kept below" if prof.covers(cat) else "kept"
            else:
                what = "replaced" if prof.covers(cat) else "kept"
            rows.append({"category": cat, "decision": what, "reference": prof.references.get(cat, "")})
        rows.append({"category": "DATE (time of day alone)", "decision": "replaced" if prof.times else "kept",
                     "reference": prof.references.get("DATE (time of day)", "")})
        if as_json:
            sys.stdout.write(json.dumps({"name": prof.name, "description": prof.description, "categories": rows},
                                        indent=2) + "\n")
            return
        table = Table("category", "decision", "reference", title=f"{prof.name}: {prof.description}")
        for r in rows:
            table.add_row(r["category"], r["decision"], r["reference"])
        stdout.print(table)


@app.command("labels")
def labels_cmd(
    scheme: Annotated[str | None, typer.Argument(help="A label scheme; omit to list the schemes.")] = None,
    config: ConfigOpt = None,
) -> None:
    """List the label schemes, or the labels of one scheme with their canonical categories."""
    from clinanon.taxonomy import get_scheme, list_schemes

    with _errors():
        if config is not None:
            Config.load(config).register_schemes()
        if scheme is None:
            table = Table("scheme", "labels", "description", title="label schemes")
            for name in list_schemes():
                s = get_scheme(name)
                table.add_row(s.name, str(len(s.labels)), s.description)
            stdout.print(table)
            return
        s = get_scheme(scheme)
        table = Table("label", "canonical category", "description", title=f"{s.name}: {s.description}")
        for native, cat in s.labels.items():
            table.add_row(native, cat, s.descriptions.get(native, ""))
        stdout.print(table)


@app.command("init-config")
def init_config(
    path: Annotated[Path, typer.Argument(help="Where to write the configuration.")] = Path("clinanon.toml"),
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write a commented default configuration file."""
    if path.exists() and not force:
        raise _fail(f"{path} exists; pass --force to overwrite it")
    path.write_text(DEFAULT_CONFIG_TOML, encoding="utf-8")
    console.print(f"wrote {path}")


@app.command()
def train(
    config: Annotated[Path | None, typer.Argument(help="Training config (TOML), e.g. configs/train_crf_meddocan.toml; "
                                                       "or give your annotated notes with --brat.",
                                                  exists=True, dir_okay=False)] = None,
    brat: Annotated[Path | None, typer.Option("--brat", "--data", help="Your annotated notes: a BRAT folder "
                                                                       "(.txt + .ann) or any format clinanon reads "
                                                                       "(see --format).", exists=True)] = None,
    lang: Annotated[str | None, typer.Option("--lang", "-l", help="With --brat: the language of the notes (en, "
                                                                  "es, nl, sv, de); its rules are the CRF's "
                                                                  "features and run beside it.")] = None,
    output: Annotated[Path | None, typer.Option("--out", "--output", "-o",
                                                help="Model directory (default: from the config).")] = None,
    data_format: Annotated[str | None, typer.Option("--format", "-f", help="With --brat: the data's format "
                                                                           "(default brat).")] = None,
    dev: Annotated[Path | None, typer.Option("--dev", help="With --brat: notes to score the model on (same "
                                                           "format).", exists=True)] = None,
    scheme: Annotated[str | None, typer.Option("--scheme", help="With --brat: the label scheme of your labels "
                                                                "(default: told from the labels).")] = None,
    label_map: Annotated[
        list[str] | None, typer.Option("--label-map", help="With --brat: LABEL=CATEGORY, your label as a canonical "
                                                           "category (`clinanon labels canonical`), '-' to leave it "
                                                           "out; repeatable. Labels whose name says it (PTName, "
                                                           "Date, LOCATION_CITY) need none.")
    ] = None,
    max_iterations: Annotated[int, typer.Option("--max-iterations", min=1, help="With --brat: CRF training "
                                                                                "iterations.")] = 100,
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="Override a config key: KEY=VALUE, e.g. crf.max_iterations=50.")
    ] = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show the progress bar.")] = True,
) -> None:
    """Train a detector; writes a model directory with meta.json (scores on dev).

    From a training config, or from your own annotated notes in any language:
    `clinanon train --brat notes/ --lang en --out models/my-crf` trains a CRF (the rules of that language as
    features) that the default pipeline then runs with those rules: set `detectors.models.crf` to the model
    directory, or use the `clinanon.toml` written into it."""
    from clinanon.train import TrainConfig, brat_config, use_config
    from clinanon.train import train as run_train

    with _errors():
        if (config is None) == (brat is None):
            raise ClinanonError("give a training config or --brat DIR (your annotated notes), not both")
        if brat is not None:
            if lang is None or lang == "auto":
                raise ClinanonError("--brat needs --lang: the language of the notes (en, es, nl, sv, de)")
            if output is None:
                raise ClinanonError("--brat needs --out: the model directory to write")
            mapping: dict[str, str] = {}
            for pair in label_map or []:
                key, sep, value = (part.strip() for part in pair.partition("="))
                if not sep or not key or not value:
                    raise ClinanonError("--label-map expects LABEL=CATEGORY, e.g. PTName=NAME.PATIENT")
                mapping[key] = value
            cfg = brat_config(brat, language=lang, output=output, data_format=data_format or (
                "brat" if brat.is_dir() else None), dev=dev, scheme=scheme, label_map=mapping,
                max_iterations=max_iterations)
            if set_:
                data = cfg.model_dump(mode="json")
                for key, value in _reader_options(set_).items():
                    node = data
                    *parents, last = key.split(".")
                    for part in parents:
                        node = node.setdefault(part, {})
                    node[last] = value
                cfg = TrainConfig.from_dict(data, source="command line")
            for native, cat in sorted(cfg.data.label_map.items()):
                console.print(f"label {native} -> {cat}", highlight=False, markup=False)
        else:
            assert config is not None
            if any(v is not None for v in (lang, data_format, dev, scheme)) or label_map:
                raise ClinanonError("--lang, --format, --dev, --scheme and --label-map go with --brat; a training "
                                    "config sets them itself (or use --set KEY=VALUE)")
            cfg = TrainConfig.load(config, _reader_options(set_))
        result = run_train(cfg, output=output, progress=progress and console.is_terminal,
                           log=lambda line: console.print(line, highlight=False, markup=False))
        if brat is not None:
            from clinanon.io.base import atomic_write_text

            atomic_write_text(result.model_dir / "clinanon.toml", use_config(result.model_dir, cfg.language))
            console.print(f"to use it: clinanon deidentify NOTES --out OUT --config "
                          f"{result.model_dir / 'clinanon.toml'}  (or set detectors.models.crf = "
                          f"\"{result.model_dir}\" in your configuration)", highlight=False, markup=False)
        dev = result.meta.get("scores", {}).get("dev") or {}
        table = Table("measure", "P", "R", "F1", title=f"dev scores of {result.model_dir}")
        for name, m in dev.items():
            if isinstance(m, dict) and {"precision", "recall", "f1"} <= set(m):
                table.add_row(name, f"{m['precision']:.4f}", f"{m['recall']:.4f}", f"{m['f1']:.4f}")
        stdout.print(table)


@app.command("learning-curve")
def learning_curve_cmd(
    train_data: Annotated[Path, typer.Argument(help="Training documents (any format).", exists=True)],
    dev_data: Annotated[Path, typer.Argument(help="Dev documents (any format).", exists=True)],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for learning_curve.json and .png.")],
    data_format: FormatOpt = None,
    detectors: Annotated[str, typer.Option("--detectors", help="Comma-separated: rules, crf, ensemble, spacy, "
                                                               "bilstm_crf.")]
    = "rules,crf",
    fractions: Annotated[str, typer.Option("--fractions", help="Comma-separated fractions of the training docs.")]
    = "0.01,0.05,0.1,0.25,0.5,1.0",
    seed: Annotated[int, typer.Option("--seed")] = 0,
    lang: Annotated[str, typer.Option("--lang", "-l")] = "es",
    scheme: Annotated[str, typer.Option("--scheme", help="Native label scheme of the data.")] = "meddocan",
    crf_iterations: Annotated[int, typer.Option("--crf-iterations", min=1)] = 50,
    plot: Annotated[bool, typer.Option("--plot/--no-plot", help="Also draw the PNG (needs matplotlib).")] = True,
) -> None:
    """Train every detector on 1, 5, 10, 25, 50, 100 % of the training documents (the same nested subsets) and
    score each on dev: a JSON table and a PNG plot of P, R and F1."""
    from clinanon.learning_curve import run

    with _errors():
        try:
            fracs = [float(f) for f in fractions.split(",") if f.strip()]
        except ValueError:
            raise ClinanonError("--fractions expects comma-separated numbers such as 0.1,0.5,1.0") from None
        run(train_data, dev_data, out, [d.strip() for d in detectors.split(",") if d.strip()], fmt=data_format,
            fractions=fracs, seed=seed, lang=lang, scheme=scheme, crf_iterations=crf_iterations, plot=plot,
            log=lambda line: console.print(line, highlight=False, markup=False))
        console.print(f"wrote {out / 'learning_curve.json'}")


def _member_specs(specs: list[str]) -> tuple[list[str], dict[str, Path]]:
    """``["rules", "crf=models/crf"]`` -> member names (registered detectors) and their model directories.

    ``NAME=MODEL``: MODEL is a model directory or the name of a shipped / user model (`clinanon models`); its
    ``meta.json`` must be a model of detector NAME."""
    from clinanon.models import find_model
    from clinanon.registry import get_detector_factory

    names: list[str] = []
    models: dict[str, Path] = {}
    for spec in specs:
        name, sep, target = (part.strip() for part in spec.partition("="))
        get_detector_factory(name)  # unknown names fail here, listing the known ones
        if name in names:
            raise ClinanonError(f"member {name!r} given twice (a member is a detector name: one model per detector)")
        names.append(name)
        if sep:
            if not target:
                raise ClinanonError(f"--member {name}=: expected a model directory or model name after '='")
            info = find_model(target)
            if info.detector is not None and info.detector != name:
                raise ClinanonError(f"--member {name}=...: {info.path} is a {info.detector!r} model, not {name!r}")
            models[name] = info.path.resolve()
    if not names:
        raise ClinanonError("give the members with --member, e.g. --member rules --member crf=models/crf")
    return names, models


def ensemble_toml(cfg: Config, table: Any, *, source: str = "") -> str:
    """A configuration (TOML, written by tomli-w under a comment header) that builds the chosen ensemble:
    ``language``, ``label_scheme``, ``[detectors]`` (``use = ["ensemble"]``, the members' models) and
    ``[detectors.ensemble]`` with the per-label strategies. ``Config.load`` of it gives back ``cfg``'s ensemble
    with ``table``'s strategies."""
    import tomli_w

    e = cfg.detectors.ensemble
    detectors: dict[str, Any] = {"use": ["ensemble"]}
    if cfg.detectors.models:
        detectors["models"] = {k: str(v) for k, v in cfg.detectors.models.items()}
    ensemble: dict[str, Any] = {"members": list(e.members), "default": table.default}
    if e.tiebreak is not None:
        ensemble["tiebreak"] = e.tiebreak
    ensemble["strategies"] = dict(sorted(table.strategies.items()))
    ensemble.update(e.model_dump(include={"profile", "protect", "protect_min_score"}))  # chosen under these
    detectors["ensemble"] = ensemble
    header = [f"# clinanon ensemble chosen on dev by `clinanon ensemble-choose`{f' ({source})' if source else ''}.",
              "# Use it as --config, or copy label_scheme and the [detectors] keys into your configuration",
              "# (the strategies are keyed by labels of that label_scheme)."]
    body = tomli_w.dumps({"language": cfg.language, "label_scheme": cfg.label_scheme, "detectors": detectors})
    return "\n".join(header) + "\n" + body


@app.command("ensemble-choose")
def ensemble_choose(
    dev: Annotated[Path, typer.Argument(help="Dev documents with gold spans (any format).", exists=True)],
    member: Annotated[
        list[str], typer.Option("--member", "-m", help="A member: a detector name (rules) or NAME=MODEL, a model "
                                                       "directory or model name (crf=models/crf). Repeatable; the "
                                                       "order is the priority.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the chosen ensemble (TOML).")],
    data_format: FormatOpt = None,
    lang: LangOpt = None,
    config: ConfigOpt = None,
    scheme: Annotated[
        str | None, typer.Option("--scheme", help="Label scheme of the gold labels; the members vote in it.")
    ] = None,
    default: Annotated[str, typer.Option("--default", help="Strategy of labels absent from dev.")] = "union",
    tiebreak: Annotated[
        str | None, typer.Option("--tiebreak", help="Member breaking even votes (default: the first).")
    ] = None,
    candidates: Annotated[
        str | None, typer.Option("--candidates", help="Comma-separated strategies to try (default: union, vote, "
                                                      "intersection and every member).")
    ] = None,
    overwrite: OverwriteOpt = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the choice as JSON instead of a table.")] = False,
    read_option: ReadOpt = None,
) -> None:
    """Choose per label how the members are combined (union, vote, intersection or one member), by exact F1 on
    dev; prints the choice and writes it as a configuration (TOML) that builds the ensemble."""
    from clinanon import io as cio
    from clinanon.io.base import atomic_write_text
    from clinanon.registry import get_detector_factory

    with _errors():
        if out.exists() and not overwrite:
            raise ClinanonError(f"{out} already exists; pass --overwrite to replace it")
        names, models = _member_specs(member)
        base = _build_config(config, lang, None, scheme)
        detectors = {**base.detectors.model_dump(), "use": ["ensemble"], "models": {**base.detectors.models, **models},
                     "ensemble": {**base.detectors.ensemble.model_dump(include={"profile", "protect",
                                                                                "protect_min_score"}),
                                  "members": names, "default": default, "tiebreak": tiebreak}}
        cfg = base.with_overrides(detectors=detectors, source="command line")
        ens = get_detector_factory("ensemble")(cfg)
        try:  # options are checked when the reader is made, before any document is read
            reader = cio.read(dev, data_format, **_reader_options(read_option))
        except TypeError:
            raise ClinanonError(f"{dev}: a --read-option is not one this format takes (see `clinanon formats`)"
                                ) from None
        docs = list(reader)
        if not docs:
            raise ClinanonError(f"{dev}: no documents")
        unknown = sorted({sp.label for d in docs for sp in d.spans if sp.label not in ens.scheme})
        if unknown:
            raise ClinanonError(f"{dev}: gold labels not in the label scheme {ens.scheme.name!r}: "
                                f"{', '.join(unknown)} (pass the corpus' scheme with --scheme)")
        cands = [c.strip() for c in candidates.split(",") if c.strip()] if candidates else None
        from clinanon.ensemble import BUILTIN_STRATEGIES

        for c in cands or ():
            if c not in BUILTIN_STRATEGIES and c not in names:
                raise ClinanonError(f"--candidates: {c!r} is neither one of {', '.join(BUILTIN_STRATEGIES)} nor a "
                                    f"member ({', '.join(names)})")
        console.print(f"running {', '.join(names)} on {len(docs)} dev documents and choosing per label",
                      highlight=False)
        table = ens.choose(docs, candidates=cands)
        used = {k: (v if v.is_absolute() or cfg.base_dir is None else cfg.resolve_path(v).resolve())
                for k, v in cfg.detectors.models.items() if k in names}  # written absolute: the TOML goes anywhere
        cfg = cfg.model_copy(update={"detectors": cfg.detectors.model_copy(update={"models": used})})
        atomic_write_text(out, ensemble_toml(cfg, table, source=f"{len(docs)} documents"))
        gold = {}
        for d in docs:
            for sp in d.spans:
                gold[sp.label] = gold.get(sp.label, 0) + 1
        rows = [{"label": label, "gold": gold.get(label, 0), "strategy": strat,
                 "dev_f1": table.scores.get(label, {}).get(strat)} for label, strat in sorted(table.strategies.items())]
        if as_json:
            sys.stdout.write(json.dumps({"members": names, "default": table.default, "labels": rows,
                                         "scores": table.to_dict()["scores"], "out": str(out)}, indent=2) + "\n")
        else:
            t = Table("label", "gold", "strategy", "dev F1", title=f"ensemble of {', '.join(names)} "
                                                                   f"(default {table.default})")
            for r in rows:
                t.add_row(r["label"], str(r["gold"]), r["strategy"],
                          "-" if r["dev_f1"] is None else f"{r['dev_f1']:.4f}")
            stdout.print(t)
        console.print(f"wrote {out}", highlight=False)


@app.command()
def keygen(
    path: Annotated[Path, typer.Argument(help="Where to write the key (mode 0600).")] = Path("clinanon.key"),
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing key file.")] = False,
) -> None:
    """Create a secret key for consistent surrogates; prints only its fingerprint."""
    from clinanon.transform.surrogate.cli_support import keygen as make_key

    with _errors():
        if path.exists() and not force:
            raise ClinanonError(f"{path}: key file already exists; pass --force to replace it (outputs made with "
                                "the old key can then no longer be reproduced or linked)")
        console.print(make_key(path, overwrite=force), highlight=False)


ledger_app = typer.Typer(help="The surrogate ledger: authorised re-identification.", no_args_is_help=True)
app.add_typer(ledger_app, name="ledger")

from clinanon.audit.cli import audit_app  # noqa: E402  (the privacy audit's verbs: clinanon audit ...)

app.add_typer(audit_app, name="audit")

from clinanon.privrep.cli import privrep_app  # noqa: E402  (privacy-preserving representations: clinanon privrep ...)

app.add_typer(privrep_app, name="privrep")

from clinanon.lm.cli import lm_app  # noqa: E402  (language-model anonymization: clinanon lm ...)

app.add_typer(lm_app, name="lm")

embeddings_app = typer.Typer(help="Word vectors for the neural detectors (needs the 'neural' extra).",
                             no_args_is_help=True)
app.add_typer(embeddings_app, name="embeddings")


@embeddings_app.command("train")
def embeddings_train_cmd(
    notes: Annotated[list[Path], typer.Argument(help="Unlabelled notes: folders or files in any format clinanon "
                                                     "reads (for a corpus with a test split: train and dev only).",
                                                exists=True)],
    out: Annotated[Path, typer.Option("--out", "-o", help="Vectors file to write (word2vec text format; .gz "
                                                          "compresses).")],
    data_format: FormatOpt = None,
    lang: Annotated[str, typer.Option("--lang", "-l", help="Language of the notes (sentence rules).")] = "es",
    method: Annotated[str, typer.Option("--method", help="fasttext (sub-words) or word2vec.")] = "fasttext",
    dim: Annotated[int, typer.Option("--dim", min=1)] = 100,
    epochs: Annotated[int, typer.Option("--epochs", min=1)] = 10,
    min_count: Annotated[int, typer.Option("--min-count", min=1)] = 1,
    seed: Annotated[int, typer.Option("--seed")] = 0,
) -> None:
    """Train word vectors with gensim on your own notes (clinanon tokens, case-folded, digits as 0); give them
    to a BiLSTM-CRF as `[bilstm_crf] vectors = FILE` in its training config."""
    from clinanon import io as cio
    from clinanon.detect.neural.embeddings import train_vectors

    with _errors():
        texts = [d.text for path in notes for d in cio.read(path, data_format)]
        stats = train_vectors(texts, lang, out, method=method, dim=dim, epochs=epochs,  # type: ignore[arg-type]
                              min_count=min_count, seed=seed)
        console.print(f"{stats['words']} word vectors ({stats['method']}, {stats['dim']} dimensions) from "
                      f"{len(texts)} notes, {stats['tokens']} tokens, in {stats['seconds']} s: wrote {out}",
                      highlight=False, markup=False)


@ledger_app.command("lookup")
def ledger_lookup_cmd(
    target: Annotated[str, typer.Argument(help="Ledger: a SQLite file path or a postgresql:// URL.")],
    doc: Annotated[str | None, typer.Option("--doc", help="Only this document id.")] = None,
    surrogate: Annotated[str | None, typer.Option("--surrogate", help="Find the original of this surrogate.")] = None,
    original: Annotated[str | None, typer.Option("--original", help="Find the surrogates of this original.")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1)] = 100,
    table: Annotated[str | None, typer.Option("--table", help="Ledger table name.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table.")] = False,
) -> None:
    """Authorised reversal: print original <-> surrogate records. THIS PRINTS PHI; restrict who may run it."""
    from clinanon.transform.surrogate.cli_support import format_entries, ledger_lookup

    with _errors():
        kwargs: dict[str, Any] = {"doc_id": doc, "surrogate": surrogate, "original": original, "limit": limit}
        if table is not None:
            kwargs["table"] = table
        typer.echo(format_entries(ledger_lookup(target, **kwargs), as_json=as_json))


@app.command()
def models(
    directory: Annotated[Path | None, typer.Option("--dir", help="A folder of user models (else $CLINANON_MODELS).")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table.")] = False,
) -> None:
    """List the shipped models and your own (trained with `clinanon train`)."""
    from clinanon.models import list_models

    with _errors():
        found = list_models(directory)
        if as_json:
            sys.stdout.write(json.dumps([m.to_dict() for m in found], indent=2) + "\n")
            return
        table = Table("name", "origin", "detector", "language", "scheme", "MB", "dev scores", "licence",
                      title="models")
        for m in found:
            scores = ", ".join(f"{k} {v:.4f}" for k, v in m.summary_scores().items()) or "-"
            table.add_row(m.name, m.origin, str(m.detector), str(m.language), str(m.label_scheme),
                          f"{m.size_bytes / 1e6:.2f}", scores, str(m.license or "-"))
        stdout.print(table)


@app.command()
def formats() -> None:
    """List the corpus formats clinanon reads and writes, with the options of each reader (--read-option)."""
    from clinanon import io as cio

    table = Table("format", "suffixes", "description", title="formats")
    for name, fmt in cio.FORMATS.items():
        table.add_row(name, " ".join(fmt.suffixes), fmt.description)
    stdout.print(table)
    options = Table("format", "reader option (-O KEY=VALUE)", "default", "what it does", title="reader options")
    for name in cio.FORMATS:
        for opt in cio.reader_options(name):
            default = "-" if opt.default is None else json.dumps(opt.default)
            options.add_row(name, opt.name, default, opt.help)
    stdout.print(options)


def _service_import() -> Any:
    """:mod:`clinanon.service` (the ``serve`` extra), or a clear error."""
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401

        import clinanon.service.app as service_app
    except ImportError:
        raise _fail('the service needs the serve extra: pip install "clinanon[serve]"') from None
    return service_app


@app.command()
def serve(
    config: ConfigOpt = None,
    host: Annotated[str, typer.Option("--host", help="Address to bind (a loopback one unless you mean it).")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", min=0, max=65535)] = 8000,
    workers: Annotated[int | None, typer.Option("--workers", "-j", min=1, help="Worker processes (default: one per "
                                                                             "CPU core, at most 4).")] = None,
    token_file: Annotated[
        Path | None, typer.Option("--token-file", help="Bearer token file (else $CLINANON_SERVICE_TOKEN).",
                                  exists=True, dir_okay=False)
    ] = None,
    no_auth: Annotated[bool, typer.Option("--no-auth", help="No authentication (loopback addresses only).")]
    = False,
    key_file: Annotated[
        Path | None, typer.Option("--key-file", help="Surrogate key file (else $CLINANON_SURROGATE_KEY); never "
                                                     "taken from a request.", exists=True, dir_okay=False)
    ] = None,
    max_body_mb: Annotated[float, typer.Option("--max-body-mb", min=0.001, help="Larger bodies: 413.")] = 10.0,
    max_documents: Annotated[int, typer.Option("--max-documents", min=1, help="Documents per request.")] = 100,
    max_chars: Annotated[int, typer.Option("--max-chars", min=1, help="Characters per document.")] = 200_000,
    log_level: Annotated[str, typer.Option("--log-level", help="info (the access log), warning, error.")] = "info",
) -> None:
    """Serve the pipeline over HTTP: POST /detect, /deidentify, /evaluate (docs/service.md)."""
    service_app = _service_import()
    from clinanon.service.server import default_workers, is_loopback
    from clinanon.service.server import serve as run_server

    with _errors():
        if no_auth and not is_loopback(host):
            raise ClinanonError(f"--no-auth binds to a loopback address only, not {host!r}")
        token = None if no_auth else service_app.token_from_env(token_file)
        api = service_app.create_app(config, token=token, auth=not no_auth, key_file=key_file,
                                     max_body_bytes=int(max_body_mb * 2**20), max_documents=max_documents,
                                     max_chars=max_chars)
        run_server(api, host=host, port=port, workers=workers or default_workers(), auth=not no_auth,
                   log_level=log_level)


def _run_review_page(api: Any, port: int, login_path: str, token: str, from_env: bool, open_browser: bool,
                     message: str) -> None:
    """Serve a review page on 127.0.0.1 until stopped. The login link holds the token: printed on a terminal only,
    else where to find it (docs/service.md); ``message`` has ``{link}`` where it goes."""
    from clinanon.service.server import browser_opener, login_link
    from clinanon.service.server import serve as run_server

    base = f"http://127.0.0.1:{port}"
    with login_link(base, login_path, token, stream=console.file, from_env=from_env) as shown, \
            ExitStack() as stack:
        console.print(message.replace("{link}", shown), highlight=False, markup=False, soft_wrap=True)
        if open_browser:  # a private redirect page: the token never goes on a browser's command line
            stack.enter_context(browser_opener(f"{base}{login_path}?token={token}"))
        run_server(api, host="127.0.0.1", port=port)


@app.command()
def review(
    input_path: InputArg,
    config: Annotated[Path | None, typer.Option("--config", "-c", help="clinanon.toml: the pipeline, and where "
                                                                       "the allow- and deny-lists are written.",
                                                dir_okay=False)] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output folder: BRAT/JSONL, review log, training "
                                                                 "data (default: <input>.review).")] = None,
    in_format: FormatOpt = None,
    lang: LangOpt = None,
    reviewer: Annotated[str, typer.Option("--reviewer", help="Your name or initials, for the review log.")]
    = "reviewer",
    port: Annotated[int, typer.Option("--port", "-p", min=0, max=65535)] = 8765,
    open_browser: Annotated[bool, typer.Option("--open/--no-open", help="Open the page in a browser.")] = True,
) -> None:
    """Review a folder or JSONL file in the browser (127.0.0.1 only): accept, reject, relabel, adjust, add spans."""
    _service_import()
    from clinanon.service.app import create_app
    from clinanon.service.review import ReviewStore
    from clinanon.service.server import session_token

    with _errors():
        store = ReviewStore.from_path(input_path, out_dir=out, fmt=in_format, config_path=config,
                                      reviewer=reviewer, lang=None if lang in (None, "auto") else lang)
        token, from_env = session_token()  # $CLINANON_SERVICE_TOKEN, else a random one
        api = create_app(config if config is not None and config.exists() else None, token=token,
                         pipeline=store.pipeline, review=store)
        _run_review_page(api, port, "/review/login", token, from_env, open_browser,
                         f"review {len(store.docs)} documents at {{link}}  (Ctrl+C to stop; output in "
                         f"{store.out_dir})")


@app.command("review-vocab")
def review_vocab(
    review_csv: Annotated[Path, typer.Argument(help="The review CSV of `clinanon lm probe --review`.", exists=True,
                                               dir_okay=False)],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="The reviewed CSV, for `clinanon lm scrub-vocab "
                                                                 "--review` (default: <input>.reviewed.csv).",
                                             dir_okay=False)] = None,
    reviewer: Annotated[str, typer.Option("--reviewer", help="Your name or initials, for the review log.")]
    = "reviewer",
    port: Annotated[int, typer.Option("--port", "-p", min=0, max=65535)] = 8766,
    open_browser: Annotated[bool, typer.Option("--open/--no-open", help="Open the page in a browser.")] = True,
) -> None:
    """Review the fill-mask probe's tokens in the browser (127.0.0.1 only): a name (scrub) or not (keep)."""
    _service_import()
    from clinanon.pipeline import Pipeline
    from clinanon.service.app import create_app
    from clinanon.service.server import session_token
    from clinanon.service.vocab_review import VocabReviewStore

    with _errors():
        store = VocabReviewStore(review_csv, out=out, reviewer=reviewer)
        token, from_env = session_token()  # $CLINANON_SERVICE_TOKEN, else a random one
        api = create_app(token=token, pipeline=Pipeline(Config()), warmup=False, vocab_review=store)
        _run_review_page(api, port, "/review/vocab/login", token, from_env, open_browser,
                         f"review {len(store.groups)} tokens at {{link}}  (Ctrl+C to stop; saves to {store.out})")



@app.command("utility")
def utility_cmd(
    config: Annotated[Path, typer.Argument(help="Utility experiment TOML (see clinanon.utility).", exists=True,
                                           dir_okay=False)],
    workers: Annotated[int | None, typer.Option("--workers", "-w", min=1,
                                                help="Parallel processes (default: protocol.workers).")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="Output folder (default: the config's output).")] = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show the progress bar.")] = True,
) -> None:
    """Train on each technique's output, test on the original notes: scores per run, mean ± sd, Mann-Whitney U
    against the original (Holm), box plot."""
    from clinanon.utility import markdown_table, run_utility

    with _errors():
        table = run_utility(config, progress=progress and console.is_terminal, workers=workers, output=output)
    console.print(markdown_table(table), highlight=False, markup=False)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
