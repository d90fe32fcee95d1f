"""``clinanon audit <verb>``: the privacy audit from the command line (a Typer sub-app; thin over the library).

Nothing printed here holds note text: counts, rates and file names only. ``model --list`` and ``probe --review``
write model content (possibly PHI) to the files the user names, for review.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from clinanon.errors import ClinanonError

audit_app = typer.Typer(help="Privacy audit: residual PHI, re-identification search, linkage, model memory.",
                        no_args_is_help=True)
console = Console(stderr=True)

_FORMAT = typer.Option("--format", "-f", help="Reader format of the originals (default: detected).")
_SCHEME = typer.Option("--scheme", help="Label scheme of the gold labels (meddocan, i2b2-2014, canonical, ...).")
_LANG = typer.Option("--lang", help="Default language of the notes (es, en, nl, sv, de).")


def _fail(e: Exception) -> typer.Exit:
    console.print(f"[bold red]error:[/] {str(e).replace('[', chr(92) + '[')}", highlight=False)
    return typer.Exit(2)


def _read(path: Path, fmt: str | None = None) -> list[Any]:
    from clinanon import io as cio

    return list(cio.read(path, fmt))


def _emit(data: dict[str, Any], out: Path | None, html: Path | None = None) -> None:
    from clinanon.audit.report import write_report

    if out is None and html is None:
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    write_report(data, out, html)
    for p in (out, html):
        if p is not None:
            console.print(f"wrote {p}", highlight=False)


def _pairs(items: list[str] | None) -> dict[str, str]:
    out = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise ClinanonError("expected NAME=PATH")
        out[name] = value
    return out


@audit_app.command("run")
def run_cmd(
    original: Annotated[Path, typer.Argument(help="Original notes with gold spans (BRAT folder, JSONL, ...).")],
    fmt: Annotated[str | None, _FORMAT] = None,
    scheme: Annotated[str, _SCHEME] = "canonical",
    lang: Annotated[str, _LANG] = "es",
    operator: Annotated[list[str] | None, typer.Option(
        "--operator", "-o", help="Sanitize the originals with their gold spans by this operator (repeatable): tag, "
        "redact, surrogate, neighbors, suppress.")] = None,
    sanitized: Annotated[list[str] | None, typer.Option(
        "--sanitized", "-s", help="NAME=PATH: a sanitized version made elsewhere (repeatable).")] = None,
    method: Annotated[list[str] | None, typer.Option(
        "--method", "-m", help="Similarity: jaccard, bm25, minhash, embedding (repeatable; default the first three).")
    ] = None,
    key_file: Annotated[Path | None, typer.Option("--key-file", help="Secret key of the surrogate operator.")] = None,
    embeddings: Annotated[Path | None, typer.Option("--embeddings", help="Word vectors of the neighbors operator.")]
    = None,
    qi_table: Annotated[Path | None, typer.Option("--qi-table", help="Attacker's quasi-identifier table (CSV).")]
    = None,
    out: Annotated[Path | None, typer.Option("--out", help="JSON report.")] = None,
    html: Annotated[Path | None, typer.Option("--html", help="Self-contained HTML report.")] = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress")] = True,
) -> None:
    """Sanitize a gold corpus with each operator (or read sanitized versions), then measure residual PHI and
    re-identification by similarity search; write JSON and an HTML report."""
    from clinanon.audit.corpus import DEFAULT_METHODS, audit_corpus, sanitize
    from clinanon.audit.linkage import link_quasi_identifiers, read_qi_table

    try:
        docs = _read(original, fmt)
        versions: dict[str, Any] = {}
        for op in operator or ([] if sanitized else ["tag", "redact", "suppress"]):
            params: dict[str, Any] = {}
            if op == "surrogate" and key_file is not None:
                params["key_file"] = key_file
            if op == "neighbors":
                if embeddings is None:
                    raise ClinanonError("the neighbors operator needs --embeddings")
                params["embeddings"] = embeddings
            versions[op] = sanitize(docs, op, scheme=scheme, lang=lang, **params)
        for name, path in _pairs(sanitized).items():
            versions[name] = _read(Path(path))
        corpus = audit_corpus(docs, versions, scheme=scheme, lang=lang, methods=method or DEFAULT_METHODS,
                              progress=progress)
        report: dict[str, Any] = {"summary": corpus["summary"], "corpus": corpus}
        if qi_table is not None:
            table = read_qi_table(qi_table)
            report["linkage"] = {name: link_quasi_identifiers(table, v, lang=lang).to_dict()
                                 for name, v in versions.items()}
            report["linkage"]["summary"] = "; ".join(f"{k}: {v['summary']}" for k, v in report["linkage"].items())
        _emit(report, out, html)
    except ClinanonError as e:
        raise _fail(e) from None


@audit_app.command("residual")
def residual_cmd(
    original: Annotated[Path, typer.Argument(help="Original notes with gold spans.")],
    sanitized_path: Annotated[Path, typer.Argument(help="Sanitized notes (same document ids).")],
    fmt: Annotated[str | None, _FORMAT] = None,
    scheme: Annotated[str, _SCHEME] = "canonical",
    lang: Annotated[str, _LANG] = "es",
    out: Annotated[Path | None, typer.Option("--out", help="JSON file (default: stdout).")] = None,
) -> None:
    """Residual PHI: gold mentions still readable in the sanitized notes, per category; TAB entity recall."""
    from clinanon.audit.residual import residual_phi

    try:
        _emit(residual_phi(_read(original, fmt), _read(sanitized_path), scheme=scheme, lang=lang).to_dict(), out)
    except ClinanonError as e:
        raise _fail(e) from None


@audit_app.command("reid")
def reid_cmd(
    original: Annotated[Path, typer.Argument(help="Original notes (the attacker's collection).")],
    sanitized_path: Annotated[Path, typer.Argument(help="Sanitized notes (same document ids).")],
    fmt: Annotated[str | None, _FORMAT] = None,
    method: Annotated[list[str] | None, typer.Option("--method", "-m", help="jaccard, bm25, minhash, embedding.")]
    = None,
    lang: Annotated[str | None, _LANG] = None,
    out: Annotated[Path | None, typer.Option("--out", help="JSON file (default: stdout).")] = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress")] = True,
) -> None:
    """Re-identification by similarity search: found@1, found@5, MRR, a/o-sim, avg-sim per method."""
    from clinanon.audit.reid import reidentify

    try:
        docs, san = _read(original, fmt), _read(sanitized_path)
        data = {m: reidentify(docs, san, method=m, lang=lang, progress=progress).to_dict()
                for m in method or ["jaccard", "bm25", "minhash"]}
        _emit(data, out)
    except ClinanonError as e:
        raise _fail(e) from None


@audit_app.command("linkage")
def linkage_cmd(
    table: Annotated[Path, typer.Argument(help="CSV: id, year_of_birth, sex, town, admission_month (YYYY-MM).")],
    sanitized_path: Annotated[Path, typer.Argument(help="Sanitized notes (ids as in the table).")],
    lang: Annotated[str, _LANG] = "es",
    id_field: Annotated[str, typer.Option("--id-field", help="The table's id column.")] = "id",
    out: Annotated[Path | None, typer.Option("--out", help="JSON file (default: stdout).")] = None,
) -> None:
    """Linkage on quasi-identifiers: the share of sanitized notes that single out one patient of the table."""
    from clinanon.audit.linkage import link_quasi_identifiers, read_qi_table

    try:
        res = link_quasi_identifiers(read_qi_table(table, id_field), _read(sanitized_path), id_field=id_field,
                                     lang=lang)
        _emit(res.to_dict(), out)
    except ClinanonError as e:
        raise _fail(e) from None


@audit_app.command("model")
def model_cmd(
    directory: Annotated[Path, typer.Argument(help="A model directory (CRF, spaCy, Hugging Face tokenizer).")],
    lang: Annotated[list[str] | None, typer.Option("--lang", help="Name-list languages (repeatable; default all).")]
    = None,
    gold: Annotated[list[Path] | None, typer.Option(
        "--gold", help="Annotated training data: report which of its name words the model holds (repeatable).")]
    = None,
    scheme: Annotated[str, _SCHEME] = "canonical",
    names: Annotated[Path | None, typer.Option("--names", help="Extra person names, one per line.")] = None,
    list_path: Annotated[Path | None, typer.Option(
        "--list", help="Write every PHI-like string (source, category, string) to this TSV: model content, review "
        "it as PHI.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="JSON file (default: stdout).")] = None,
    html: Annotated[Path | None, typer.Option("--html", help="HTML report.")] = None,
) -> None:
    """List the strings a trained model holds that look like PHI, by category."""
    from clinanon.audit.lexicon import LANGUAGES, common_words, read_word_list
    from clinanon.audit.model import audit_model, reference_names

    try:
        langs = tuple(lang or LANGUAGES)
        ref = None
        if gold:
            common = frozenset().union(*(common_words(lg) for lg in langs))
            ref = set()
            for g in gold:
                ref |= reference_names(_read(g), scheme=scheme, common=common)
        audit = audit_model(directory, langs=langs, extra_names=read_word_list(names) if names else (),
                            reference=ref)
        if list_path is not None:
            list_path.parent.mkdir(parents=True, exist_ok=True)
            list_path.write_text("source\tcategory\tstring\n" + "".join(f"{a}\t{b}\t{c}\n" for a, b, c in
                                                                         audit.rows()), encoding="utf-8")
            console.print(f"wrote {list_path} ({len(audit.rows())} rows: model content, treat as PHI)",
                          highlight=False)
        data = audit.to_dict()
        _emit({"summary": data["summary"], "model": data} if html else data, out, html)
    except ClinanonError as e:
        raise _fail(e) from None


@audit_app.command("probe")
def probe_cmd(
    model_dir: Annotated[Path, typer.Argument(help="A local masked language model (Hugging Face format).")],
    sentences: Annotated[Path, typer.Argument(help="CSV of sentences with <mask> in place of a name.")],
    top_k: Annotated[int, typer.Option("--top-k", min=1)] = 20,
    lang: Annotated[list[str] | None, typer.Option("--lang", help="Name-list languages (default nl).")] = None,
    originals: Annotated[Path | None, typer.Option("--originals", help="The original names, one per line.")] = None,
    review: Annotated[Path | None, typer.Option("--review", help="Review CSV (every prediction and its reasons).")]
    = None,
    out: Annotated[Path | None, typer.Option("--out", help="JSON file (default: stdout).")] = None,
) -> None:
    """The fill-mask probe: name-like predictions of a masked LM for masked names (needs torch + transformers)."""
    from clinanon.audit.lexicon import read_word_list
    from clinanon.audit.probe import fill_mask_probe, read_mask_sentences

    try:
        sents = read_mask_sentences(sentences)
        res = fill_mask_probe(model_dir, sents, top_k=top_k, langs=tuple(lang or ("nl",)),
                              originals=read_word_list(originals) if originals else ())
        if review is not None:
            res.write_review(review, sents)
            console.print(f"wrote {review} (model predictions: review by hand)", highlight=False)
        _emit(res.to_dict(), out)
    except ClinanonError as e:
        raise _fail(e) from None


@audit_app.command("report")
def report_cmd(
    audit_json: Annotated[Path, typer.Argument(help="A JSON report written by 'clinanon audit run'.")],
    html: Annotated[Path, typer.Option("--html", help="Where to write the HTML page.")],
) -> None:
    """Render an audit JSON as a self-contained HTML page (plots embedded)."""
    from clinanon.audit.report import write_report

    try:
        try:
            data = json.loads(audit_json.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise ClinanonError(f"{audit_json}: not a readable JSON report ({type(e).__name__})") from None
        write_report(data, None, html)
        console.print(f"wrote {html}", highlight=False)
    except ClinanonError as e:
        raise _fail(e) from None
