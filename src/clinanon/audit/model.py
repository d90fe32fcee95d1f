"""What a trained model remembers: the strings a model directory holds that look like PHI.

A model trained on real notes keeps words of those notes: a CRF keeps word forms in its feature strings
(``w=garcia``, ``bg=dr|garcia``), clinanon's word clusters (``clusters.tsv``) list training words, a spaCy
pipeline keeps its string store and vector keys, a transformer keeps its tokenizer vocabulary. :func:`audit_model`
reads every such source it finds in a directory, without loading the model for prediction:

* ``crf`` — ``*.crfsuite`` (python-crfsuite's ``Tagger.info()``: the attributes with a non-zero weight, which is
  what the file holds); word values of identity features (``w=``, ``-1w=`` … ``+2w=``, any key ending in ``w`` or
  holding ``word``) and both words of bigram features (``bg=a|b``);
* ``clusters`` — ``clusters.tsv`` (first column);
* ``spacy`` — every ``strings.json`` below the directory (the string store, which also names the vector keys);
* ``tokenizer`` — ``vocab.txt`` (WordPiece), ``vocab.json`` (BPE), ``tokenizer.json`` (any model type): the text
  of each entry (a byte-level piece decoded: ``ĠGarcÃŃa`` is "García"; the word-piece marks removed), only the
  entries with a name's form — those that begin a word (``Ġ``, ``▁``, no ``##``) or are capitalised; a lower-case
  piece inside a word ("ana" of "semana") spells no one (:mod:`clinanon.audit.pieces`);
* ``merges`` — the BPE merges of those files (``merges.txt`` beside a ``vocab.json``), the two halves put together,
  read as the entries are;
* ``config`` — in a folder that holds a tokenizer vocabulary (a Hugging Face model or tokenizer): the words of every
  other ``.json``, ``.txt`` or ``.csv`` file (configuration, tokenizer settings, special tokens), JSON string values
  only and without the values that name library classes and types (``model_type``, ``architectures``,
  ``tokenizer_class``, ``*_type``, ``*_class``, ``*_version``, ``*_act``, ``*dtype``).

A SentencePiece ``.model`` file is reported, not read.

Each string is put into a category: ``NAME`` (in the first-name or surname lists, not a common word, not a
medical eponym), ``NAME_OR_COMMON`` (in a name list and also a common word: "rosa", "mar"), ``LOCATION`` (in the
place lists, not common, not a first name: a town that is also a surname counts as a place), ``ID`` (six digits or
more), ``CONTACT.EMAIL``, ``DATE`` (a full or month-year date).
With ``reference`` (e.g. the words of the gold name mentions of the training data: :func:`reference_names`) the
audit also says which of those exact words the model holds — a precise answer when the training data is at hand.

The JSON form holds counts only; the strings themselves (what a reviewer must see) come from
:meth:`ModelAudit.rows`, which the CLI writes to a TSV file on request.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinanon.audit._text import date_triples, fold
from clinanon.audit.lexicon import EPONYMS, LANGUAGES, NameLists, name_lists
from clinanon.audit.pieces import read_vocabulary, vocabulary_words
from clinanon.document import Document
from clinanon.errors import InputError

__all__ = ["CATEGORIES", "ModelAudit", "audit_model", "classify", "model_strings", "reference_names"]

CATEGORIES = ("NAME", "NAME_OR_COMMON", "LOCATION", "ID", "CONTACT.EMAIL", "DATE")
#: the files read as a tokenizer vocabulary
_VOCABULARIES = ("vocab.txt", "vocab.json", "tokenizer.json")
#: files of a tokenizer folder read otherwise, or not text
_NOT_CONFIG = frozenset({*_VOCABULARIES, "merges.txt", "strings.json", "clusters.tsv"})


def _crf_strings(path: Path) -> set[str]:
    try:
        import pycrfsuite
    except ImportError:  # a core dependency; kept lazy so the audit imports without it
        raise InputError("reading a CRF model needs python-crfsuite", path=path) from None
    tagger = pycrfsuite.Tagger()
    try:
        tagger.open(str(path))
        attrs = {a for a, _ in tagger.info().state_features}
    except Exception as e:  # pycrfsuite raises plain ValueError/OSError for a bad file
        raise InputError(f"not a readable CRFsuite model ({type(e).__name__})", path=path) from None
    finally:
        tagger.close()
    out: set[str] = set()
    for a in attrs:
        key, sep, value = a.partition("=")
        if not sep or not value:
            continue
        if key == "bg" or key.endswith("bg"):
            out.update(v for v in value.split("|") if v and v != "<s>")
        elif key.endswith("w") or "word" in key:
            out.add(value)
    return out


def _clusters_strings(path: Path) -> set[str]:
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            out.add(line.split("\t", 1)[0])
    return out


def _tokenizer_strings(path: Path) -> tuple[set[str], set[str], int]:
    """The texts of the word-like entries and merges of one vocabulary file, and its number of entries."""
    vocab = read_vocabulary(path)
    entries, merges = vocabulary_words(vocab)
    return entries, merges, len(vocab.entries)


def _library_key(key: str) -> bool:
    """A configuration key whose value names a library class or type ("roberta", "gelu"), not data."""
    k = key.lower()
    return k == "architectures" or k.endswith(("_type", "_class", "_version", "_act", "dtype"))


def _json_values(data: Any, out: list[str]) -> None:
    if isinstance(data, str):
        out.append(data)
    elif isinstance(data, dict):
        for k, v in data.items():
            if not _library_key(str(k)):
                _json_values(v, out)
    elif isinstance(data, list):
        for v in data:
            _json_values(v, out)


def _config_strings(path: Path) -> set[str]:
    """The words (runs of letters and digits) of a configuration file: JSON string values, or the whole text."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    if path.suffix == ".json":
        try:
            values: list[str] = []
            _json_values(json.loads(text), values)
            text = "\n".join(values)
        except json.JSONDecodeError:
            pass
    return {w for w in "".join(c if c.isalnum() else " " for c in text).split()}


def _spacy_strings(path: Path) -> set[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise InputError("not a spaCy string store (JSON list expected)", path=path) from None
    if not isinstance(data, list):
        raise InputError("not a spaCy string store (JSON list expected)", path=path)
    return {str(s) for s in data}


def model_strings(directory: str | Path) -> tuple[dict[str, set[str]], list[str]]:
    """The strings of every source found in ``directory`` (``{source: strings}``) and notes on what was skipped."""
    d = Path(directory)
    if not d.is_dir():
        raise InputError("not a model directory", path=d)
    sources: dict[str, set[str]] = defaultdict(set)
    notes: list[str] = []
    files = [p for p in sorted(d.rglob("*")) if p.is_file()]
    tokenizer_folders = {p.parent for p in files if p.name in _VOCABULARIES}
    for p in files:
        if p.suffix == ".crfsuite":
            sources["crf"] |= _crf_strings(p)
        elif p.name == "clusters.tsv":
            sources["clusters"] |= _clusters_strings(p)
        elif p.name == "strings.json":
            sources["spacy"] |= _spacy_strings(p)
        elif p.name in _VOCABULARIES:
            entries, merges, n = _tokenizer_strings(p)
            sources["tokenizer"] |= entries
            if merges:
                sources["merges"] |= merges
            notes.append(f"{p.relative_to(d)}: {n} entries, {len(entries)} with a word's form read")
        elif p.suffix == ".model" and ("sentencepiece" in p.name.lower() or p.name in ("spm.model", "sp.model")):
            notes.append(f"{p.relative_to(d)}: a SentencePiece model, not read")
        elif p.parent in tokenizer_folders and p.name not in _NOT_CONFIG and p.suffix in (".json", ".txt", ".csv"):
            sources["config"] |= _config_strings(p)
    return dict(sources), notes


def classify(s: str, lists: NameLists) -> str | None:
    """The PHI-like category of one model string, or ``None``."""
    t = s.strip()
    if not t:
        return None
    digits = sum(c.isdigit() for c in t)
    if "@" in t and "." in t.split("@", 1)[-1]:
        return "CONTACT.EMAIL"
    if digits >= 4 and any(m is not None and (d is not None or y is not None) for y, m, d in date_triples(t)):
        return "DATE"
    if digits >= 6 and digits >= len(t) - 3:
        return "ID"
    if not any(c.isalpha() for c in t) or len(t) < 2:
        return None
    f = fold(t)
    if f in EPONYMS:
        return None
    common = f in lists.common
    if f in lists.places and not common and f not in lists.first_names:
        return "LOCATION"  # "Madrid", "Toledo": places first, though surnames too
    if f in lists.first_names or f in lists.surnames:
        return "NAME_OR_COMMON" if common else "NAME"
    return None


def reference_names(docs: Iterable[Document], *, scheme: str = "canonical", common: frozenset[str] = frozenset()
                    ) -> set[str]:
    """The folded words (two letters or more, not in ``common``) of every gold span whose category is a NAME."""
    from clinanon.taxonomy import get_scheme, parent

    sch = get_scheme(scheme)
    out: set[str] = set()
    for doc in docs:
        for s in doc.spans:
            try:
                cat = sch.category(s.label)
            except KeyError:
                continue
            if parent(cat) != "NAME":
                continue
            for w in fold(doc.text[s.start:s.end]).replace(".", " ").split():
                w = "".join(c for c in w if c.isalnum())
                if len(w) >= 2 and any(c.isalpha() for c in w) and w not in common:
                    out.add(w)
    return out


@dataclass
class ModelAudit:
    """The strings a model holds, by source and category (:meth:`to_dict` keeps counts only)."""

    path: str
    kind: str
    sizes: dict[str, int]
    found: dict[str, dict[str, set[str]]]
    notes: list[str] = field(default_factory=list)
    reference: set[str] | None = None
    held: dict[str, set[str]] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"ModelAudit(kind={self.kind!r}, sources={sorted(self.sizes)})"

    def rows(self) -> list[tuple[str, str, str]]:
        """``(source, category, string)`` for every PHI-like string, and ``(source, "REFERENCE", word)`` for every
        reference word the model holds: what a reviewer reads (this is model content, possibly PHI)."""
        out = [(src, cat, s) for src, cats in sorted(self.found.items()) for cat in CATEGORIES
               for s in sorted(cats.get(cat, ()))]
        out += [(src, "REFERENCE", s) for src, words in sorted(self.held.items()) for s in sorted(words)]
        return out

    def to_dict(self) -> dict[str, Any]:
        counts = {src: {cat: len(v) for cat, v in cats.items() if v} for src, cats in self.found.items()}
        out: dict[str, Any] = {"kind": self.kind, "sources": self.sizes, "counts": counts, "notes": self.notes}
        total_names = len({s for cats in self.found.values() for s in cats.get("NAME", ())})
        summary = (f"The model ({self.kind}) holds {sum(self.sizes.values())} strings in "
                   f"{len(self.sizes)} source(s); {total_names} look like person names")
        if self.reference is not None:
            held_any = set().union(*self.held.values()) if self.held else set()
            n = len(self.reference)
            out["reference"] = {"names": n, "held": len(held_any),
                                "share": round(len(held_any) / n, 4) if n else None,
                                "held_by_source": {k: len(v) for k, v in self.held.items()}}
            summary += (f"; it holds {len(held_any)} of the {n} distinct name words of the reference annotations "
                        f"({100 * len(held_any) / n:.1f} %)" if n else "")
        out["summary"] = summary + ". Share such a model only as you would share its training notes."
        return out


def _kind(sources: Sequence[str]) -> str:
    for k in ("crf", "spacy", "tokenizer", "clusters"):
        if k in sources:
            return k
    return "unknown"


def audit_model(directory: str | Path, *, langs: Sequence[str] = LANGUAGES, extra_names: Iterable[str] = (),
                reference: Iterable[str] | None = None) -> ModelAudit:
    """Read every string source of a model directory and put its PHI-like strings into categories.

    ``langs`` chooses the name, place and common-word lists; ``extra_names`` adds person names (e.g. a hospital's
    staff list); ``reference`` is a set of words to look for (case- and accent-folded), such as
    :func:`reference_names` of the training data.
    """
    sources, notes = model_strings(directory)
    if not sources:
        raise InputError("no model strings found (no .crfsuite, clusters.tsv, strings.json or tokenizer "
                         "vocabulary)", path=directory)
    lists = name_lists(tuple(langs))
    extra = list(extra_names)
    if extra:
        lists = lists.with_names(extra)
    found: dict[str, dict[str, set[str]]] = {}
    for src, strings in sources.items():
        cats: dict[str, set[str]] = defaultdict(set)
        for s in strings:
            c = classify(s, lists)
            if c is not None:
                cats[c].add(s)
        found[src] = dict(cats)
    audit = ModelAudit(str(directory), _kind(list(sources)), {k: len(v) for k, v in sources.items()}, found, notes)
    if reference is not None:
        ref = {fold(w) for w in reference if w}
        audit.reference = ref
        for src, strings in sources.items():
            folded = {fold(s) for s in strings}
            audit.held[src] = ref & folded
    return audit


def category_counts(audit: ModelAudit) -> Counter[str]:
    """PHI-like strings per category over all sources (a string in two sources counts once)."""
    c: Counter[str] = Counter()
    for cat in CATEGORIES:
        c[cat] = len({s for cats in audit.found.values() for s in cats.get(cat, ())})
    return c
