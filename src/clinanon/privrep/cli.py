"""``clinanon privrep <verb>``: privacy-preserving representations from the command line (thin over the library).

* ``train NOTES --vectors V --out MODEL``: the representation model (``--strategy three_phase|dann|none``, ``-n``).
* ``evaluate MODEL NOTES --train TRAIN``: de-identification P/R/F on the representation, then a fresh adversary
  trained on the frozen representation, accuracy per epoch.
* ``export MODEL NOTES --out FILE.npz``: representations + labels, no text, no vocabulary.
* ``train-pooled FILE.npz ... --out HEAD``: a de-identification head on several sites' files.

Nothing printed holds note text: counts, scores and file names only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from clinanon.audit.cli import _fail, _read, console
from clinanon.errors import ClinanonError

privrep_app = typer.Typer(help="Privacy-preserving representations: adversarial training, export, pooled training.",
                          no_args_is_help=True)

_FORMAT = typer.Option("--format", "-f", help="Reader format of the notes (default: detected).")
_LANG = typer.Option("--lang", help="Default language of the notes (es, en, nl, sv, de).")
_DEVICE = typer.Option("--device", help="cpu (default), cuda, auto.")


def _model_and_notes(model_dir: Path, notes: Path, fmt: str | None, lang: str, device: str) -> tuple[Any, Any]:
    """A saved model and the notes encoded in its word space and tags."""
    from clinanon.privrep.data import encode_corpus
    from clinanon.privrep.model import PrivRepModel

    model = PrivRepModel.load(model_dir, device=device)
    return model, encode_corpus(_read(notes, fmt), model.space, lang=lang, tags=model.tags)


def _echo(info: dict[str, Any]) -> None:
    console.print(json.dumps(info), highlight=False)


@privrep_app.command("train")
def train_cmd(
    notes: Annotated[Path, typer.Argument(help="Training notes with gold spans (BRAT folder, JSONL, ...).")],
    vectors: Annotated[Path, typer.Option("--vectors", help="Word vectors (fastText/word2vec text format; "
                                          "`clinanon embeddings train`).")],
    out: Annotated[Path, typer.Option("--out", help="Model directory to write.")],
    strategy: Annotated[str, typer.Option("--strategy", help="three_phase, dann or none.")] = "three_phase",
    n: Annotated[int, typer.Option("-n", "--neighbors", help="N of the N-neighbour pseudonymization.")] = 100,
    lam: Annotated[float, typer.Option("--lambda", help="Weight of the adversarial term.")] = 1.0,
    pretrain_epochs: Annotated[int, typer.Option("--pretrain-epochs")] = 6,
    adv_warm_epochs: Annotated[int, typer.Option("--adv-warm-epochs")] = 2,
    epochs: Annotated[int, typer.Option("--epochs", help="Adversarial epochs (phase 3 / DANN).")] = 6,
    dim: Annotated[int, typer.Option("--dim", help="Representation dimension.")] = 50,
    deid_loss: Annotated[str, typer.Option("--deid-loss", help="De-identification loss per 'sentence' or per "
                                           "'token' (then --lambda 1 weighs the terms as the study does).")
                         ] = "sentence",
    pretrain_loss: Annotated[str | None, typer.Option("--pretrain-loss", help="De-identification loss of phase 1 "
                                                      "and the head epochs, 'sentence' or 'token' (default: "
                                                      "--deid-loss); 'sentence' trains them as the plain tagger.")
                             ] = None,
    phase3_clip: Annotated[float | None, typer.Option("--phase3-clip", help="Phase 3: gradient-norm clip of the "
                                                      "representation's step (default: 5, the clip of the other "
                                                      "phases); ≈ 0.11 suits --deid-loss token.")] = None,
    adv_steps: Annotated[int, typer.Option("--adv-steps", help="Phase 3: adversary steps per round.")] = 1,
    rep_steps: Annotated[int, typer.Option("--rep-steps", help="Phase 3: representation steps per round.")] = 1,
    noise_lr: Annotated[float | None, typer.Option("--noise-lr", help="Learning rate of the noise scales in "
                                                   "the privacy training (default: the model's).")] = None,
    noise_floor: Annotated[float, typer.Option("--noise-floor", help="Minimum scale of the output noise N_out "
                                               "(0: none); the BiLSTM output lies in [-1, 1].")] = 0.0,
    adv_reset: Annotated[int, typer.Option("--adv-reset", help="Phase 3: fresh (re-initialised, warmed) "
                                           "adversaries every K epochs (0: never).")] = 0,
    head_epochs: Annotated[int, typer.Option("--head-epochs", help="After the privacy training: the head trained "
                                             "up to K more epochs on the frozen representation, noise drawn as at "
                                             "export; early stopping on 10% of the training notes (0: none).")
                           ] = 0,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    fmt: Annotated[str | None, _FORMAT] = None,
    lang: Annotated[str, _LANG] = "es",
    device: Annotated[str, _DEVICE] = "cpu",
) -> None:
    """Train the representation model and its de-identification head (progress per epoch on stderr)."""
    from clinanon.privrep.data import WordSpace, encode_corpus
    from clinanon.privrep.model import PrivRepConfig, PrivRepModel

    try:
        space = WordSpace.from_file(vectors)
        corpus = encode_corpus(_read(notes, fmt), space, lang=lang)
        cfg = PrivRepConfig(strategy=strategy, n_neighbors=n, lam=lam, pretrain_epochs=pretrain_epochs,  # type: ignore[arg-type]
                            adv_warm_epochs=adv_warm_epochs, epochs=epochs, dim=dim, seed=seed, device=device,
                            deid_loss=deid_loss, adv_steps=adv_steps, rep_steps=rep_steps,  # type: ignore[arg-type]
                            noise_lr=noise_lr, noise_floor=noise_floor, adv_reset=adv_reset,
                            head_epochs=head_epochs, pretrain_loss=pretrain_loss,  # type: ignore[arg-type]
                            phase3_clip=phase3_clip)
        model = PrivRepModel(space, corpus.tags, cfg).fit(corpus, callback=_echo)
        model.save(out)
        console.print(f"wrote {out}", highlight=False)
    except ClinanonError as e:
        raise _fail(e) from None


@privrep_app.command("evaluate")
def evaluate_cmd(
    model_dir: Annotated[Path, typer.Argument(help="A model directory written by `privrep train`.")],
    notes: Annotated[Path, typer.Argument(help="Held-out notes with gold spans.")],
    train: Annotated[Path, typer.Option("--train", help="Notes the fresh adversary trains on.")],
    attack_epochs: Annotated[int, typer.Option("--attack-epochs")] = 50,
    n: Annotated[int | None, typer.Option("-n", "--neighbors", help="N of the attack (default: the model's).")]
    = None,
    fmt: Annotated[str | None, _FORMAT] = None,
    lang: Annotated[str, _LANG] = "es",
    device: Annotated[str, _DEVICE] = "cpu",
    out: Annotated[Path | None, typer.Option("--out", help="JSON file (default: stdout).")] = None,
) -> None:
    """De-identification on the representation, and a fresh adversary's accuracy per epoch (0.5 = chance)."""
    from clinanon.privrep.data import encode_corpus

    try:
        model, dev = _model_and_notes(model_dir, notes, fmt, lang, device)
        tr = encode_corpus(_read(train, fmt), model.space, lang=lang, tags=model.tags)
        report = {"deid": model.evaluate_deid(dev, lang=lang),
                  "attack": model.attack(tr, dev, epochs=attack_epochs, n_neighbors=n, callback=_echo)}
        text = json.dumps(report, indent=2)
        if out is None:
            typer.echo(text)
        else:
            out.write_text(text + "\n", encoding="utf-8")
    except ClinanonError as e:
        raise _fail(e) from None


@privrep_app.command("export")
def export_cmd(
    model_dir: Annotated[Path, typer.Argument(help="A model directory written by `privrep train`.")],
    notes: Annotated[Path, typer.Argument(help="This site's notes (with gold spans for labels).")],
    out: Annotated[Path, typer.Option("--out", help="The .npz file to share.")],
    labels: Annotated[bool, typer.Option("--labels/--no-labels", help="Write the gold tags.")] = True,
    site: Annotated[str | None, typer.Option("--site", help="A site name written into the metadata.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the noise and of the sentence order.")] = 0,
    fmt: Annotated[str | None, _FORMAT] = None,
    lang: Annotated[str, _LANG] = "es",
    device: Annotated[str, _DEVICE] = "cpu",
) -> None:
    """Write the notes' representations (and labels) to a portable file with no text and no vocabulary."""
    from clinanon.privrep.share import export_representations

    try:
        model, corpus = _model_and_notes(model_dir, notes, fmt, lang, device)
        meta = export_representations(model, corpus, out, seed=seed, labels=labels, site=site)
        console.print(f"wrote {out}: {meta['sentences']} sentences, {meta['tokens']} tokens", highlight=False)
    except ClinanonError as e:
        raise _fail(e) from None


@privrep_app.command("train-pooled")
def train_pooled_cmd(
    files: Annotated[list[Path], typer.Argument(help="Labelled .npz files of several sites (same model).")],
    out: Annotated[Path, typer.Option("--out", help="Directory of the trained head.")],
    dev: Annotated[Path | None, typer.Option("--dev", help="A labelled .npz file scored after every epoch.")]
    = None,
    epochs: Annotated[int, typer.Option("--epochs")] = 10,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    device: Annotated[str, _DEVICE] = "cpu",
) -> None:
    """Train a de-identification head on pooled representations."""
    from clinanon.privrep.share import train_pooled

    try:
        head = train_pooled(files, dev=dev, epochs=epochs, seed=seed, device=device, callback=_echo)
        head.save(out)
        console.print(f"wrote {out}", highlight=False)
    except ClinanonError as e:
        raise _fail(e) from None
