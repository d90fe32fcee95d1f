"""Build the common-word lexicons shipped in ``src/clinanon/data/lexicons/common/<lang>.txt.xz``.

Run from the repository root (a build-time dependency only: ``pip install spacy-lookups-data``; the output is
sorted and deterministic for a given version of it)::

    python scripts/build_lexicons.py

Source: the lemma tables (``<lang>_lemma_lookup``: inflected form -> lemma, keys and values) and, where the
package has them (es, en, de), the word-probability tables (``<lang>_lexeme_prob``, case-sensitive log
probabilities of a large web corpus) of `spacy-lookups-data <https://github.com/explosion/spacy-lookups-data>`_
(MIT licence, (c) ExplosionAI GmbH).

A word is *common* when the resource writes it as a vocabulary word:

* es / en: it is written in lower case at least half as often as capitalised (``rosa`` yes, ``garcía`` no), or
  it is a lower-case entry of the lemma table that the probability table does not contradict;
* de: as for es / en, plus the capitalised entries of the lemma table (German nouns: ``Haus``), which keep
  their capital as their usual form, except the words of the gazetteers' places (``Berlin``);
* nl / sv (no probability table): a lower-case entry of the lemma table (capitalised entries, proper nouns, are
  left out).

What ships (small): the ``TOP[lang]`` most frequent common words (by probability; nl / sv, which have no
frequencies, shortest words first), plus every common word that is also a word of the gazetteers
(``src/clinanon/data/gazetteers/<lang>/``), whatever its rank: those are the words a caseless text can turn
into false names or places (``IZQUIERDO``, ``ROCK``, ``ONDA``). Each line is the word in its usual case
(lower case, or capitalised for German nouns); the file is xz-compressed (deterministic).
"""

from __future__ import annotations

import gzip
import importlib.resources
import json
import lzma
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "clinanon" / "data" / "lexicons" / "common"
GAZ = ROOT / "src" / "clinanon" / "data" / "gazetteers"

LANGS = ("es", "en", "nl", "sv", "de")
#: how many of the most frequent common words ship per language (plus the gazetteer intersection)
TOP = {"es": 150_000, "en": 100_000, "de": 150_000, "nl": 100_000, "sv": 100_000}
#: a word is common when log P(lower) >= log P(Capitalised) - RATIO (ln 2: written in lower case at least half
#: as often as capitalised)
RATIO = 0.6931
_WORD = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_SPLIT = re.compile(r"[^\W\d_]+")


def fold(s: str) -> str:
    """Case-fold and strip accents (the lexicon's look-up key; the same as ``clinanon.lang.fold.fold``)."""
    return "".join(c for c in unicodedata.normalize("NFD", s.casefold()) if not unicodedata.combining(c))


def _table(lang: str, name: str) -> dict[str, object] | None:
    base = importlib.resources.files("spacy_lookups_data") / "data"
    path = base / f"{lang}_{name}.json.gz"
    if not path.is_file():
        return None
    with path.open("rb") as fh:
        return json.loads(gzip.decompress(fh.read()).decode("utf-8"))


def _cap(w: str) -> str:
    return w[:1].upper() + w[1:]


def common_words(lang: str) -> dict[str, tuple[str, float]]:
    """Folded key -> (usual form, rank score; higher = more frequent) of the common words of ``lang``."""
    lemma = _table(lang, "lemma_lookup") or {}
    prob: dict[str, float] = {k: float(v) for k, v in (_table(lang, "lexeme_prob") or {}).items()}
    entries = {w for pair in lemma.items() for w in pair if isinstance(w, str) and _WORD.fullmatch(w)}
    out: dict[str, tuple[str, float]] = {}

    def add(form: str, score: float) -> None:
        key = fold(form)
        if key not in out or score > out[key][1]:
            out[key] = (form, score)

    if prob:
        floor = min(prob.values()) - 1.0
        lower_entries = {w for w in entries if w.islower()}
        for w in sorted({w for w in prob if w.islower() and _WORD.fullmatch(w)} | lower_entries):
            low = prob.get(w, floor)
            cap = prob.get(_cap(w), floor)
            if w in prob and low >= cap - RATIO:
                add(w, low)
            elif w not in prob and w in lower_entries and _cap(w) not in prob:
                add(w, floor)  # a dictionary word the corpus never saw, in either case
        if lang == "de":  # nouns: capitalised lemma-table entries, except the gazetteers' places ("Berlin")
            places = gazetteer_words(lang, ("cities.txt", "regions.txt", "countries.txt"))
            for w in sorted(w for w in entries if w[:1].isupper() and w[1:].islower() and fold(w) not in places):
                add(w, prob.get(w, floor))
    else:
        for w in sorted(w for w in entries if w.islower()):
            add(w, -float(len(w)))  # no frequencies: shorter words first
    return out


def gazetteer_words(lang: str, files: tuple[str, ...] = ()) -> set[str]:
    """Folded words of the gazetteer lists of ``lang`` (every column-1 entry, split into words; all lists, or
    the ``files`` named)."""
    words: set[str] = set()
    for path in sorted((GAZ / lang).glob("*.txt")):
        if files and path.name not in files:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("#") or not line.strip():
                continue
            for w in _SPLIT.findall(line.split("\t")[0]):
                words.add(fold(w))
    return words


def build(lang: str) -> list[str]:
    common = common_words(lang)
    ranked = sorted(common, key=lambda k: (-common[k][1], k))
    keep = set(ranked[: TOP[lang]]) | (gazetteer_words(lang) & set(common))
    return sorted((common[k][0] for k in keep), key=lambda w: (fold(w), w))


def write(lang: str, words: list[str]) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{lang}.txt.xz"
    body = f"# common words of {lang}: see README.md (spacy-lookups-data, MIT)\n" + "\n".join(words) + "\n"
    path.write_bytes(lzma.compress(body.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
    return path


def main(langs: list[str]) -> None:
    for lang in langs or list(LANGS):
        words = build(lang)
        path = write(lang, words)
        print(f"{lang}: {len(words)} words -> {path.relative_to(ROOT)} ({path.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main(sys.argv[1:])
