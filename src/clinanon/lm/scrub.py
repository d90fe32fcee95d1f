"""Vocabulary scrubbing: rename the name-like entries of a model's BPE vocabulary, keeping their ids, and export.

The second step of the Dutch clinical language-model study: the vocabulary entries that are people's names (picked
by hand from the fill-mask probe's predictions) are renamed ``unk`` + a random number, their ids kept, so that the
model's weights stay as trained while no vocabulary string spells a name. Here the entries come from

* a reviewed probe CSV (``manual_verdict`` = ``name`` / ``yes`` / ``y`` / ``1`` / ``x``), or, when no row has a
  verdict, its automatic judgement (``name_like`` = 1): :func:`tokens_from_review`;
* a list of name words, e.g. the gold names of the training notes (:func:`clinanon.lm.probe.name_words`).

An entry is scrubbed when its text (a byte-level piece decoded, the leading space and word-piece marks removed,
case- and accent-folded) equals one of those words and it has a name's form: it begins a word or is capitalised
(a lower-case piece inside a word, "ana" of "semana", is kept). The BPE merges that build a scrubbed entry or use
one are dropped (a merge list that names an entry the vocabulary lacks does not load, and the two halves of a
merge spell the name): text holding such a name is then cut into shorter pieces.

:func:`scrub_vocabulary` writes a folder that ``AutoModelForMaskedLM`` / ``AutoTokenizer`` load with no clinanon
import (the weights copied as they are; ``tokenizer.json`` rewritten). :func:`leaked_names` checks a folder: the
name words still spelled by a vocabulary entry, a merge, or a word of the configuration files.
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
from clinanon.errors import InputError
from clinanon.lm.tokenizer import SPECIAL_TOKENS, decode_piece

__all__ = ["ScrubResult", "leaked_names", "scrub_vocabulary", "tokens_from_review"]

_VERDICT_YES = frozenset({"name", "yes", "y", "1", "x", "true"})
_MARKS = ("##", "Ġ", "▁")
#: the files of a model folder copied unchanged (weights and model configuration)
_COPY = ("config.json", "model.safetensors", "generation_config.json", "pytorch_model.bin")


def _text(piece: str) -> str:
    t = decode_piece(piece).strip()
    for m in _MARKS:
        if t.startswith(m):
            t = t[len(m):]
    return t


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
            t = fold(_text(r["prediction"]))
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


def _word_like(piece: str) -> bool:
    """A piece that begins a word (after a space) or is capitalised: a name's form. A lower-case piece inside a
    word ("ana" of "semana", "san" of "sangre") is kept: it spells no one, and the words it builds need it."""
    t = decode_piece(piece)
    return t[:1].isspace() or piece.startswith(_MARKS) or t.strip()[:1].isupper()


def _merge_pair(m: Any) -> tuple[str, str]:
    if isinstance(m, str):
        a, _, b = m.partition(" ")
        return a, b
    return str(m[0]), str(m[1])


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
    specials = set(SPECIAL_TOKENS) | {t.get("content") for t in data.get("added_tokens") or []}
    rng = random.Random(seed)
    used = set(vocab)
    renamed: list[tuple[int, str, str]] = []
    new_vocab: dict[str, int] = {}
    gone: set[str] = set()
    for piece, idx in vocab.items():
        text = _text(piece)
        if piece not in specials and len(text) >= min_length and fold(text) in targets and _word_like(piece):
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
        a, b = _merge_pair(m)
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
    """The ``names`` (folded words) that ``directory`` still spells: ``vocabulary`` (an entry's text), ``merges``
    (the two halves of a merge put together) and ``files`` (a word of any other JSON or text file of the folder:
    configuration, tokenizer settings, ``vocab.json``/``merges.txt`` of a slow tokenizer)."""
    d = Path(directory)
    targets = {fold(n) for n in names if n and len(n) >= min_length}
    found: dict[str, set[str]] = {"vocabulary": set(), "merges": set(), "files": set()}
    # a vocabulary entry or merge counts when it has a name's form (:func:`_word_like`), as in scrubbing
    tj = d / "tokenizer.json"
    if tj.is_file():
        model = json.loads(tj.read_text(encoding="utf-8")).get("model") or {}
        vocab = model.get("vocab") or {}
        pieces = vocab.keys() if isinstance(vocab, dict) else [v[0] for v in vocab]
        found["vocabulary"] = {f for p in pieces if _word_like(p) and (f := fold(_text(p))) in targets}
        joined = ("".join(_merge_pair(m)) for m in model.get("merges") or [])
        found["merges"] = {f for p in joined if _word_like(p) and (f := fold(_text(p))) in targets}
    for p in sorted(d.rglob("*")):
        if p.is_file() and p.name != "tokenizer.json" and p.suffix in (".json", ".txt", ".model", ".csv"):
            try:
                text = p.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            words = {fold(_text(w)) for w in
                     "".join(c if c.isalnum() or c in "ĠÃ" or ord(c) > 127 else " " for c in text).split()}
            found["files"] |= words & targets
    return found
