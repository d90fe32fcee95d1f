"""The fill-mask probe: does a masked language model trained on clinical notes predict people's names?

Protocol (after the anonymity test of a Dutch clinical language model, whose public test set is 100 hospital-note
sentences with a person's name replaced by ``<mask>``): for each sentence the model fills the mask; its top-k
predictions are judged *name-like* when they are capitalised, in a person-name list of the language(s) (the shipped
gazetteers, Faker's lists, user names), not a common word (a first name that is also a common word, such as Dutch
"Jan", still counts; a surname that is one, such as "Visser", is left to the reviewer) and not a medical eponym.
Reported: the share of name-like predictions, the sentences with a name-like prediction and the best rank of
one, and whether any *original* name (a list the user gives: the names that were masked, or the training data's
names) is predicted. A review CSV holds every prediction with the reasons, for the manual step that the automatic
judgement cannot replace (a rare surname in no list is capitalised but not name-like here: the reviewer sees it).

Needs PyTorch and transformers (an optional extra; pin ``torch==2.13.0``). Models load from a local directory
only (``local_files_only``): nothing is downloaded. Without the packages, :func:`fill_mask_probe` raises a
:class:`~clinanon.errors.ConfigError` that says so.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

from clinanon.audit._text import fold
from clinanon.audit.lexicon import EPONYMS, NameLists, name_lists
from clinanon.audit.pieces import PLAIN, piece_text
from clinanon.errors import ConfigError, InputError

__all__ = ["MASK", "Prediction", "ProbeResult", "fill_mask_probe", "judge", "lm_available",
           "prediction_text", "read_mask_sentences"]

#: the placeholder of a masked name in the test sentences
MASK = "<mask>"


def lm_available() -> tuple[bool, str]:
    """(True, "") when torch and transformers import, else (False, the reason)."""
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as e:
        return False, (f"the fill-mask probe needs torch and transformers ({e.name} is not installed): "
                       "pip install torch==2.13.0 transformers")
    return True, ""


def read_mask_sentences(path: str | Path, column: str = "sentences") -> list[str]:
    """Sentences from a file with a header line: a CSV file (the ``column`` column, else the first), or — when the
    header has one column, as in the published Dutch test set, whose sentences hold unquoted commas — one sentence
    per line (a line in double quotes is unquoted as a CSV field). Surrounding spaces are stripped."""
    p = Path(path)
    try:
        with p.open(encoding="utf-8", newline="") as fh:
            lines = fh.read().splitlines()
        if not lines:
            raise InputError("empty file", path=p)
        header = next(csv.reader([lines[0]]))
        if len(header) == 1:
            out = [next(csv.reader([ln]))[0].strip() if ln.lstrip().startswith('"') else ln.strip()
                   for ln in lines[1:] if ln.strip()]
        else:
            col = header.index(column) if column in header else 0
            out = [row[col].strip() for row in csv.reader(lines[1:]) if len(row) > col and row[col].strip()]
    except OSError as e:
        raise InputError(f"cannot read ({e.strerror})", path=p) from None
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 (byte {e.start})", path=p) from None
    if not out:
        raise InputError("no sentences", path=p)
    return out


@dataclass(frozen=True, slots=True)
class Prediction:
    """One prediction for one masked name (the token is model output, shown only in the review file)."""

    sentence: int
    mask: int
    rank: int
    token: str
    probability: float
    capitalised: bool
    in_name_list: bool
    common_word: bool
    eponym: bool
    name_like: bool
    original: bool

    def __repr__(self) -> str:
        return f"Prediction(sentence={self.sentence}, rank={self.rank}, name_like={self.name_like})"


def judge(token: str, lists: NameLists, originals: frozenset[str] = frozenset()) -> dict[str, bool]:
    """The name-likeness of one predicted token (its text: a vocabulary entry decoded by its tokenizer, see
    :func:`prediction_text`; a leading word-piece mark is removed), with its reasons."""
    t = piece_text(token, PLAIN)
    f = fold(t)
    cap = bool(t) and t[0].isupper() and any(c.isalpha() for c in t)
    first = bool(f) and f in lists.first_names
    in_list = first or (bool(f) and f in lists.surnames)
    common = f in lists.common
    epo = f in EPONYMS
    # a first name that is also a common word ("Jan", "Rosa") is still a name in a name's slot; a surname that is
    # a common word ("Visser", "Bakker") is left to the reviewer
    return {"capitalised": cap, "in_name_list": in_list, "common_word": common, "eponym": epo,
            "name_like": cap and in_list and (first or not common) and not epo, "original": bool(f) and f in originals}


@dataclass
class ProbeResult:
    sentences: int
    top_k: int
    predictions: list[Prediction] = field(default_factory=list)
    skipped: int = 0

    def __repr__(self) -> str:
        return f"ProbeResult(sentences={self.sentences}, top_k={self.top_k}, predictions={len(self.predictions)})"

    def to_dict(self) -> dict[str, Any]:
        n = len(self.predictions)
        names = [p for p in self.predictions if p.name_like]
        best: dict[tuple[int, int], int] = {}
        for p in names:
            key = (p.sentence, p.mask)
            best[key] = min(best.get(key, p.rank), p.rank)
        originals = sum(p.original for p in self.predictions)
        share = round(len(names) / n, 4) if n else None
        summary = (f"{len(names)} of {n} top-{self.top_k} predictions ({100 * (share or 0):.1f} %) are name-like; "
                   f"{len({s for s, _ in best})} of {self.sentences} sentences have one; "
                   + ("an original name is predicted " + str(originals) + " time(s)." if originals
                      else "no original name is predicted."))
        return {"sentences": self.sentences, "skipped_sentences": self.skipped, "top_k": self.top_k,
                "predictions": n, "name_like": len(names), "name_like_share": share,
                "sentences_with_name": len({s for s, _ in best}),
                "best_name_rank_median": median(best.values()) if best else None,
                "best_name_rank_min": min(best.values()) if best else None,
                "original_names_predicted": originals, "summary": summary}

    def write_review(self, path: str | Path, sentences: Sequence[str] | None = None) -> None:
        """The review CSV: one row per prediction with its reasons (and the sentence, when given)."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        with p.open("w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["sentence", "mask", "rank", "prediction", "probability", "capitalised", "in_name_list",
                        "common_word", "eponym", "name_like", "original", "manual_verdict", "text"])
            for x in self.predictions:
                text = sentences[x.sentence] if sentences is not None else ""
                w.writerow([x.sentence, x.mask, x.rank, x.token, f"{x.probability:.6f}", int(x.capitalised),
                            int(x.in_name_list), int(x.common_word), int(x.eponym), int(x.name_like),
                            int(x.original), "", text])


def prediction_text(tokenizer: Any, token: str) -> str:
    """The text of one vocabulary entry, decoded by its (Hugging Face) tokenizer: a byte-level BPE writes
    " García" as ``ĠGarcÃŃa``, a SentencePiece vocabulary as ``▁García``, WordPiece a piece inside a word as
    ``##cía``; surrounding spaces and a leading word-piece mark are removed (:func:`clinanon.audit.pieces.
    piece_text`)."""
    try:
        text = tokenizer.convert_tokens_to_string([token])
    except (TypeError, ValueError, AttributeError, KeyError):
        text = token
    return piece_text(text if isinstance(text, str) else token, PLAIN)


def fill_mask_probe(model_dir: str | Path, sentences: Sequence[str], *, top_k: int = 20, placeholder: str = MASK,
                    langs: Sequence[str] = ("nl",), extra_names: Iterable[str] = (),
                    originals: Iterable[str] = (), batch_size: int = 8, progress: bool = False) -> ProbeResult:
    """Run the fill-mask probe of a local masked-LM checkpoint (Hugging Face format) on ``sentences``.

    Every ``placeholder`` in a sentence is one masked name (each filled on its own, the others masked too);
    sentences without one are skipped and counted.
    """
    ok, why = lm_available()
    if not ok:
        raise ConfigError(why)
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from clinanon.audit._progress import progress_bar

    d = Path(model_dir)
    if not d.is_dir():
        raise InputError("not a model directory", path=d)
    try:
        tok = AutoTokenizer.from_pretrained(str(d), local_files_only=True)
        model = AutoModelForMaskedLM.from_pretrained(str(d), local_files_only=True)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot load a masked language model ({type(e).__name__})", path=d) from None
    if tok.mask_token is None:
        raise InputError("the tokenizer has no mask token", path=d)
    model.eval()
    lists = name_lists(tuple(langs))
    extra = list(extra_names)
    if extra:
        lists = lists.with_names(extra)
    orig = frozenset(fold(w) for n in originals for w in n.split() if w)
    result = ProbeResult(len(sentences), top_k)
    special = set(tok.all_special_ids)
    items: list[tuple[int, str]] = []
    for i, s in enumerate(sentences):
        if placeholder not in s:
            result.skipped += 1
            continue
        items.append((i, s.replace(placeholder, tok.mask_token)))
    with progress_bar("fill-mask", len(items), progress) as advance, torch.no_grad():
        for b in range(0, len(items), batch_size):
            batch = items[b:b + batch_size]
            enc = tok([s for _, s in batch], return_tensors="pt", padding=True, truncation=True)
            logits = model(**enc).logits
            probs = torch.softmax(logits, dim=-1)
            for row, (sent_idx, _) in enumerate(batch):
                positions = (enc["input_ids"][row] == tok.mask_token_id).nonzero().flatten().tolist()
                for m_idx, pos in enumerate(positions):
                    order = torch.argsort(probs[row, pos], descending=True).tolist()
                    rank = 0
                    for tid in order:
                        if tid in special:
                            continue
                        rank += 1
                        if rank > top_k:
                            break
                        text = prediction_text(tok, tok.convert_ids_to_tokens(tid))
                        result.predictions.append(Prediction(sent_idx, m_idx, rank, text,
                                                             float(probs[row, pos, tid]),
                                                             **judge(text, lists, orig)))
                advance()
    return result
