"""``clinanon lm <verb>``: anonymize a language model (a Typer sub-app; thin over :mod:`clinanon.lm`).

Nothing printed here holds note text: counts, losses and file names. ``probe --review`` and ``scrub-vocab --list``
write model content (possibly names) to the files the user names, for review.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from clinanon.errors import ClinanonError

lm_app = typer.Typer(help="Anonymize a language model: corpus, BPE vocabulary, RoBERTa pretraining, the fill-mask "
                          "probe, vocabulary scrubbing (needs the 'lm' extra).", no_args_is_help=True)
console = Console(stderr=True)


def _fail(e: Exception) -> typer.Exit:
    console.print(f"[bold red]error:[/] {str(e).replace('[', chr(92) + '[')}", highlight=False)
    return typer.Exit(2)


def _emit(data: dict[str, Any], out: Path | None) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if out is None:
        typer.echo(text)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + "\n", encoding="utf-8")
    console.print(f"wrote {out}", highlight=False)


def _texts(paths: list[Path], fmt: str | None) -> Any:
    from clinanon.lm.corpus import iter_texts

    for p in paths:
        yield from iter_texts(p, fmt)


_FORMAT = typer.Option("--format", "-f", help="Input format (default: detected).")


@lm_app.command("anonymize-corpus")
def anonymize_corpus_cmd(
    input_path: Annotated[Path, typer.Argument(help="The pretraining corpus: any format clinanon reads.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="JSONL file of the sanitized notes.")],
    config: Annotated[Path | None, typer.Option("--config", "-c", help="A clinanon configuration (TOML).")] = None,
    study_tags: Annotated[bool, typer.Option(
        "--study-tags/--config-operators",
        help="The study's operators (names -> PERSON, places -> GPE, the rest kept), or the configuration's.")]
    = True,
    lang: Annotated[str | None, typer.Option("--lang", "-l", help="Language of the notes (default: identified).")]
    = None,
    fmt: Annotated[str | None, _FORMAT] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", min=1, help="Worker processes.")] = 1,
    resume: Annotated[bool, typer.Option("--resume", help="Continue an interrupted run.")] = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing output.")] = False,
    report: Annotated[Path | None, typer.Option("--report", help="JSON report (default: stdout).")] = None,
) -> None:
    """Run a clinanon pipeline over a pretraining corpus (streaming, resumable, all cores) and report what was
    replaced, by category and by tag."""
    from clinanon.config import Config
    from clinanon.lm.corpus import anonymize_corpus, study_config

    try:
        overrides = {"language": lang} if lang else {}
        cfg = Config.from_options(config, overrides)
        if study_tags:
            cfg = study_config(cfg)
        res = anonymize_corpus(input_path, out, cfg, in_format=fmt, workers=workers, resume=resume,
                               overwrite=overwrite)
        _emit(res.to_dict(), report)
    except ClinanonError as e:
        raise _fail(e) from None


@lm_app.command("train-tokenizer")
def train_tokenizer_cmd(
    corpus: Annotated[list[Path], typer.Argument(help="Corpus files or folders (any format clinanon reads).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Tokenizer folder to write.")],
    vocab_size: Annotated[int, typer.Option("--vocab-size", min=261)] = 52_000,
    min_frequency: Annotated[int, typer.Option("--min-frequency", min=1)] = 2,
    max_length: Annotated[int, typer.Option("--max-length", min=8, help="The model's sequence length.")] = 512,
    fmt: Annotated[str | None, _FORMAT] = None,
) -> None:
    """Train a byte-level BPE vocabulary (RoBERTa's kind) with the tokenizers library."""
    from clinanon.lm.tokenizer import train_tokenizer

    try:
        train_tokenizer(_texts(corpus, fmt), out, vocab_size=vocab_size, min_frequency=min_frequency,
                        max_length=max_length)
        console.print(f"wrote {out}", highlight=False)
    except ClinanonError as e:
        raise _fail(e) from None


@lm_app.command("pretrain")
def pretrain_cmd(
    corpus: Annotated[list[Path], typer.Argument(help="Corpus files or folders (the sanitized corpus).")],
    tokenizer: Annotated[Path, typer.Option("--tokenizer", "-t", help="Folder written by train-tokenizer.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run folder: checkpoint/, model/, train_log.json.")],
    preset: Annotated[str, typer.Option("--preset", help="tiny (tests), small (CPU demo) or base.")] = "small",
    layers: Annotated[int | None, typer.Option("--layers", min=1)] = None,
    hidden_size: Annotated[int | None, typer.Option("--hidden-size", min=8)] = None,
    heads: Annotated[int | None, typer.Option("--heads", min=1)] = None,
    intermediate_size: Annotated[int | None, typer.Option("--intermediate-size", min=8)] = None,
    max_length: Annotated[int | None, typer.Option("--max-length", min=8)] = None,
    steps: Annotated[int | None, typer.Option("--steps", min=1)] = None,
    batch_size: Annotated[int | None, typer.Option("--batch-size", min=1)] = None,
    learning_rate: Annotated[float | None, typer.Option("--lr")] = None,
    seed: Annotated[int | None, typer.Option("--seed")] = None,
    save_every: Annotated[int | None, typer.Option("--save-every", min=1)] = None,
    device: Annotated[str | None, typer.Option("--device", help="cpu, cuda or auto.")] = None,
    threads: Annotated[int | None, typer.Option("--threads", min=1, help="CPU threads.")] = None,
    resume: Annotated[bool, typer.Option("--resume/--no-resume", help="Continue from out/checkpoint.")] = True,
    progress: Annotated[bool, typer.Option("--progress/--no-progress")] = True,
    fmt: Annotated[str | None, _FORMAT] = None,
) -> None:
    """Pretrain a RoBERTa masked LM from scratch (seeded, resumable, progress bar with the loss)."""
    from clinanon.lm.pretrain import PRESETS, pretrain

    try:
        if preset not in PRESETS:
            raise ClinanonError(f"--preset: {preset!r} is not one of {', '.join(PRESETS)}")
        cfg = PRESETS[preset].with_overrides(
            layers=layers, hidden_size=hidden_size, heads=heads, intermediate_size=intermediate_size,
            max_length=max_length, steps=steps, batch_size=batch_size, learning_rate=learning_rate, seed=seed,
            save_every=save_every, device=device, threads=threads)
        res = pretrain(list(_texts(corpus, fmt)), tokenizer, out, cfg, resume=resume, progress=progress)
        console.print(f"wrote {res.model_dir} (step {res.steps}, loss {res.to_dict()['final_loss']})",
                      highlight=False)
    except ClinanonError as e:
        raise _fail(e) from None


@lm_app.command("probe")
def probe_cmd(
    model_dir: Annotated[Path, typer.Argument(help="A local masked language model (Hugging Face format).")],
    sentences: Annotated[Path | None, typer.Option("--sentences", help="CSV of sentences with <mask> for a name.")]
    = None,
    notes: Annotated[Path | None, typer.Option(
        "--notes", help="Annotated notes: one test sentence per sentence with a gold name, the names masked.")]
    = None,
    train_notes: Annotated[Path | None, typer.Option(
        "--train-notes", help="The annotated training notes: split the results into names seen / not seen.")]
    = None,
    scheme: Annotated[str, typer.Option("--scheme", help="Label scheme of the gold labels.")] = "canonical",
    top_k: Annotated[int, typer.Option("--top-k", min=1)] = 20,
    lang: Annotated[list[str] | None, typer.Option("--lang", help="Name-list languages (default es).")] = None,
    review: Annotated[Path | None, typer.Option("--review", help="Review CSV (every prediction, its reasons).")]
    = None,
    out: Annotated[Path | None, typer.Option("--out", help="JSON file (default: stdout).")] = None,
) -> None:
    """The fill-mask name-leakage probe (shared with `clinanon audit probe`), byte-level pieces read as text."""
    from clinanon import io as cio
    from clinanon.audit.probe import ProbeResult, read_mask_sentences
    from clinanon.lm.probe import mask_sentences, name_words, probe, summarize

    try:
        langs = tuple(lang or ("es",))
        if (sentences is None) == (notes is None):
            raise ClinanonError("give --sentences or --notes (one of them)")
        if sentences is not None:
            texts = read_mask_sentences(sentences)
            res = probe(model_dir, texts, top_k=top_k, langs=langs, progress=True)
            data = res.to_dict()
        else:
            assert notes is not None
            train = name_words(cio.read(train_notes), scheme, langs[0]) if train_notes else set()
            sents = mask_sentences(cio.read(notes), scheme=scheme, lang=langs[0], seen_names=train)
            texts = [s.text for s in sents]
            res = probe(model_dir, texts, top_k=top_k, langs=langs,
                        originals=sorted({w for s in sents for w in s.originals}), progress=True)
            data = {"all": summarize(res, sents, train)}
            if train_notes:
                for name, flag in (("seen", True), ("unseen", False)):
                    idx = {i for i, s in enumerate(sents) if s.seen is flag}
                    sub = ProbeResult(len(idx), top_k, [p for p in res.predictions if p.sentence in idx])
                    data[name] = summarize(sub, sents, train)
        if review is not None:
            res.write_review(review, texts)
            console.print(f"wrote {review} (model predictions: review by hand)", highlight=False)
        _emit(data, out)
    except ClinanonError as e:
        raise _fail(e) from None


@lm_app.command("scrub-vocab")
def scrub_vocab_cmd(
    model_dir: Annotated[Path, typer.Argument(help="The model folder (Hugging Face format, BPE tokenizer).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder of the scrubbed model.")],
    review: Annotated[Path | None, typer.Option(
        "--review", help="A probe review CSV: the rows marked in manual_verdict (name/yes/1), else those judged "
        "name-like.")] = None,
    names: Annotated[Path | None, typer.Option("--names", help="Name words to scrub, one per line.")] = None,
    gold: Annotated[list[Path] | None, typer.Option(
        "--gold", help="Annotated training notes: scrub every word of their gold names (repeatable).")] = None,
    scheme: Annotated[str, typer.Option("--scheme", help="Label scheme of the gold labels.")] = "canonical",
    lang: Annotated[str, typer.Option("--lang", help="Language of the notes (function words kept).")] = "es",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the unk numbers.")] = 0,
    list_path: Annotated[Path | None, typer.Option(
        "--list", help="Write id, old entry, new entry to this TSV (model content: treat as PHI).")] = None,
    report: Annotated[Path | None, typer.Option("--report", help="JSON report (default: stdout).")] = None,
) -> None:
    """Rename name-like vocabulary entries to unk<number> (ids kept) and export a model that plain transformers
    loads; checks the export for the given names."""
    from clinanon import io as cio
    from clinanon.audit.lexicon import read_word_list
    from clinanon.lm.probe import name_words
    from clinanon.lm.scrub import leaked_names, scrub_vocabulary, tokens_from_review

    try:
        targets: set[str] = set()
        how = []
        if review is not None:
            toks, kind = tokens_from_review(review)
            targets |= toks
            how.append(f"review ({kind})")
        if names is not None:
            targets |= set(read_word_list(names))
            how.append("names file")
        check: set[str] = set()
        for g in gold or []:
            words = name_words(cio.read(g), scheme, lang)
            targets |= words
            check |= words
            how.append("gold names")
        if not how:
            raise ClinanonError("give --review, --names or --gold")
        res = scrub_vocabulary(model_dir, out, targets, seed=seed)
        if list_path is not None:
            list_path.parent.mkdir(parents=True, exist_ok=True)
            list_path.write_text("id\tentry\tnew\n" + "".join(f"{i}\t{a}\t{b}\n" for i, a, b in res.renamed),
                                 encoding="utf-8")
            console.print(f"wrote {list_path} (model content, treat as PHI)", highlight=False)
        data: dict[str, Any] = {**res.to_dict(), "lists": how}
        if check:
            data["gold_names_spelled_after"] = {k: len(v) for k, v in leaked_names(out, check).items()}
        _emit(data, report)
    except ClinanonError as e:
        raise _fail(e) from None
