"""Vocabulary scrubbing: rename the name-like entries of a model's BPE vocabulary, keeping their ids, and export.

The second step of the Dutch clinical language-model study: the vocabulary entries that are people's names (picked
by hand from the fill-mask probe's predictions) are renamed ``unk`` + a random number, their ids kept, so that the
model's weights stay as trained while no vocabulary string spells a name. Here the entries come from

* a reviewed probe CSV (``manual_verdict`` = ``name`` / ``yes`` / ``y`` / ``1`` / ``x``), or, when no row has a
  verdict, its automatic judgement (``name_like`` = 1): :func:`tokens_from_review`;
* a list of name words, e.g. the gold names of the training notes (:func:`clinanon.lm.probe.name_words`).

An entry is scrubbed when its text (a byte-level piece decoded, the leading space and word-piece marks removed,
case- and accent-folded) equals one of those words and it has a name's form: it begins a word or is capitalised
(a lower-case piece inside a word, "ana" of "semana", is kept). Entries are read as the model audit reads them
(:mod:`clinanon.audit.pieces`). The BPE merges that build a scrubbed entry or use
one are dropped (a merge list that names an entry the vocabulary lacks does not load, and the two halves of a
merge spell the name): text holding such a name is then cut into shorter pieces.

:func:`scrub_vocabulary` writes a folder that ``AutoModelForMaskedLM`` / ``AutoTokenizer`` load with no clinanon
import (the weights copied as they are; ``tokenizer.json`` rewritten). :func:`leaked_names` checks a folder: the
name words still spelled by a vocabulary entry, a merge, or a word of the configuration files — the strings the
model audit reads (:func:`clinanon.audit.model.model_strings`).
"""

from __future__ import annotations

import csv
import json
import random
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinanon.audit._text import fold
from clinanon.audit.pieces import merge_pair, piece_text, tokenizer_kind, word_like
from clinanon.errors import InputError
from clinanon.lm.tokenizer import SPECIAL_TOKENS

__all__ = ["ScrubResult", "leaked_names", "scrub_vocabulary", "tokens_from_review"]

_VERDICT_YES = frozenset({"name", "yes", "y", "1", "x", "true"})
#: the files of a model folder copied unchanged (weights and model configuration)
_COPY = ("config.json", "model.safetensors", "generation_config.json", "pytorch_model.bin")


def tokens_from_review(path: str | Path) -> tuple[set[str], str]:
    """The folded texts to scrub from a probe review CSV, and how they were chosen (``"manual"`` when any row has
    a verdict, else ``"automatic"``: the rows judged name-like)."""
    p = Path(path)
    try:
        with p.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
    except OSError as e:
        raise InputError(f"cannot read ({e.strerror})", path=p) from None
    if rows and "prediction" not in rows[0]:
        raise InputError("not a probe review file (no 'prediction' column)", path=p)
    manual = any((r.get("manual_verdict") or "").strip() for r in rows)
    out = set()
    for r in rows:
        verdict = (r.get("manual_verdict") or "").strip().lower()
        if (verdict in _VERDICT_YES) if manual else (r.get("name_like") or "").strip() == "1":
            t = fold(piece_text(r["prediction"]))  # the probe's decoded text, or a byte-level piece
            if t:
                out.add(t)
    return out, "manual" if manual else "automatic"


@dataclass
class ScrubResult:
    out: Path
    vocabulary: int
    scrubbed: int
    merges_dropped: int
    #: (id, original entry text, new entry): model content, for the reviewer's file only
    renamed: list[tuple[int, str, str]] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"ScrubResult(vocabulary={self.vocabulary}, scrubbed={self.scrubbed})"

    def to_dict(self) -> dict[str, Any]:
        return {"out": str(self.out), "vocabulary": self.vocabulary, "scrubbed": self.scrubbed,
                "merges_dropped": self.merges_dropped}


def scrub_vocabulary(model_dir: str | Path, out_dir: str | Path, names: Iterable[str], *, seed: int = 0,
                     min_length: int = 2) -> ScrubResult:
    """Rename every vocabulary entry of ``model_dir``'s ``tokenizer.json`` whose text equals one of ``names``
    (folded words; entries shorter than ``min_length`` characters are kept) to ``unk<number>``, keeping its id;
    drop the merges that build or use it; write the model with the new tokenizer to ``out_dir``."""
    src, out = Path(model_dir), Path(out_dir)
    tj = src / "tokenizer.json"
    if not tj.is_file():
        raise InputError("no tokenizer.json (a Hugging Face fast tokenizer is needed)", path=src)
    data = json.loads(tj.read_text(encoding="utf-8"))
    model = data.get("model") or {}
    vocab = model.get("vocab")
    if model.get("type") != "BPE" or not isinstance(vocab, dict):
        raise InputError("the tokenizer is not a BPE (vocabulary scrubbing supports BPE vocabularies)", path=tj)
    targets = {fold(n) for n in names if n}
    kind = tokenizer_kind(data)
    specials = set(SPECIAL_TOKENS) | {t.get("content") for t in data.get("added_tokens") or []}
    rng = random.Random(seed)
    used = set(vocab)
    renamed: list[tuple[int, str, str]] = []
    new_vocab: dict[str, int] = {}
    gone: set[str] = set()
    for piece, idx in vocab.items():
        text = piece_text(piece, kind)
        if piece not in specials and len(text) >= min_length and fold(text) in targets and word_like(piece, kind):
            new = f"unk{rng.randrange(10**6, 10**7)}"
            while new in used:
                new = f"unk{rng.randrange(10**6, 10**7)}"
            used.add(new)
            new_vocab[new] = idx
            gone.add(piece)
            renamed.append((idx, text, new))
        else:
            new_vocab[piece] = idx
    merges = model.get("merges") or []
    kept = []
    for m in merges:
        a, b = merge_pair(m)
        if a in gone or b in gone or a + b in gone:
            continue
        kept.append(m)
    model["vocab"] = dict(sorted(new_vocab.items(), key=lambda kv: kv[1]))
    model["merges"] = kept
    data["model"] = model
    if out.resolve() == src.resolve():
        raise InputError("write the scrubbed model to another folder", path=out)
    out.mkdir(parents=True, exist_ok=True)
    for name in _COPY:
        if (src / name).is_file():
            shutil.copy2(src / name, out / name)
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        if (src / name).is_file():
            shutil.copy2(src / name, out / name)
    (out / "tokenizer.json").write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    for stale in ("vocab.json", "merges.txt"):  # a slow tokenizer's files would still hold the old entries
        (out / stale).unlink(missing_ok=True)
    return ScrubResult(out, len(vocab), len(renamed), len(merges) - len(kept), renamed)


def leaked_names(directory: str | Path, names: Iterable[str], *, min_length: int = 2) -> dict[str, set[str]]:
    """The ``names`` (folded words) that ``directory`` still spells, from the strings the model audit reads
    (:func:`clinanon.audit.model.model_strings`): ``vocabulary`` (the text of an entry with a name's form: it
    begins a word or is capitalised), ``merges`` (the two halves of such a merge put together) and ``files`` (a
    word of the folder's configuration files, or of any other model source)."""
    from clinanon.audit.model import model_strings

    targets = {fold(n) for n in names if n and len(n) >= min_length}
    sources, _notes = model_strings(directory)
    found: dict[str, set[str]] = {"vocabulary": set(), "merges": set(), "files": set()}
    for src, strings in sources.items():
        key = {"tokenizer": "vocabulary", "merges": "merges"}.get(src, "files")
        found[key] |= {f for s in strings if (f := fold(s)) in targets}
    return found
