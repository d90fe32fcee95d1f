"""Token/annotation alignment and tokenizer speed on MEDDOCAN (BRAT).

For each split, counts the gold spans whose start or end is not a token boundary, for

* ``clinanon``            - :func:`clinanon.text.tokenize`
* ``word_vs_punct``       - the plain "word characters vs punctuation" split (``\\d+|[^\\W\\d_]+|[^\\w\\s]|_``)
* ``spacy_default_es``    - ``spacy.blank("es").tokenizer`` (what a spaCy NER pipeline uses by default)
* ``spacy_extended_es``   - a spaCy ``Tokenizer`` given our rules as prefix/suffix/infix patterns
* ablations of ``clinanon``: no glued-word split, e-mails / URLs / dates / decimals kept whole, runs of two
  or more identical punctuation characters merged

and measures tokenization throughput on the first split (chars/s, median of ``--runs`` runs after a warm-up),
plus the time of ``tokenize`` + ``split_sentences`` on adversarial 1 MB inputs. Residual misaligned spans are
listed by label and boundary shape (character classes, no text). Writes ``benchmarks/results/alignment.json``.

    python benchmarks/alignment.py [--data ../shared/data/meddocan] [--split train --split dev] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import spacy
from spacy.tokenizer import Tokenizer

from clinanon.bio import alignment_report
from clinanon.document import Document
from clinanon.io import read
from clinanon.text import IGNORABLE_CHARS, Token, split_sentences, tokenize

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("CLINANON_SHARED_DATA", REPO.parent / "shared" / "data")) / "meddocan"
TokenizeFn = Callable[[str], Sequence[Token]]


# --- tokenizers compared ----------------------------------------------------------------------------------------

_WORD_PUNCT = re.compile(r"\d+|[^\W\d_]+|[^\w\s]|_")


def word_vs_punct(text: str) -> list[Token]:
    return [Token(*m.span()) for m in _WORD_PUNCT.finditer(text)]


def _spacy_tokens(tok: Tokenizer) -> TokenizeFn:
    def run(text: str) -> list[Token]:
        return [Token(t.idx, t.idx + len(t)) for t in tok(text) if not t.is_space]
    return run


def spacy_default() -> TokenizeFn:
    return _spacy_tokens(spacy.blank("es").tokenizer)


def spacy_extended() -> TokenizeFn:
    """spaCy's tokenizer loop with our rules: every punctuation character is a prefix, suffix or infix; letter/
    digit boundaries are zero-width infixes. (No glued-word split, no punctuation runs: close to word_vs_punct.)"""
    punct = rf"[^\w\s{IGNORABLE_CHARS}]|_"
    tok = Tokenizer(
        spacy.blank("es").vocab, rules={},
        prefix_search=re.compile(rf"^(?:{punct})").search,
        suffix_search=re.compile(rf"(?:{punct})$").search,
        infix_finditer=re.compile(rf"{punct}|(?<=\d)(?=[^\W\d_])|(?<=[^\W\d_])(?=\d)").finditer,
    )
    return _spacy_tokens(tok)


def _merged(pattern: str) -> TokenizeFn:
    """clinanon tokens, with the tokens inside each match of ``pattern`` merged into one."""
    rx = re.compile(pattern)

    def run(text: str) -> list[Token]:
        tokens = tokenize(text)
        spans = [m.span() for m in rx.finditer(text)]
        if not spans:
            return tokens
        out: list[Token] = []
        k = 0
        for t in tokens:
            while k < len(spans) and spans[k][1] <= t.start:
                k += 1
            inside = k < len(spans) and spans[k][0] <= t.start and t.end <= spans[k][1]
            if inside and out and out[-1].start >= spans[k][0]:
                out[-1] = Token(out[-1].start, t.end)
                continue
            out.append(t)
        return out
    return run


def _no_glue(text: str) -> list[Token]:
    from clinanon.text import _TOKEN_RE
    return [Token(*m.span()) for m in _TOKEN_RE.finditer(text)]


ABLATIONS: dict[str, TokenizeFn] = {
    "clinanon_no_glue_split": _no_glue,
    "clinanon_emails_whole": _merged(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    "clinanon_urls_whole": _merged(r"(?:https?://|www\.)[^\s<>\"]*[^\s<>\".,;:!?)\]]"),
    "clinanon_dates_whole": _merged(r"\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}"),
    "clinanon_decimals_whole": _merged(r"\d+(?:[.,]\d+)+"),
    "clinanon_punct_runs_2plus": _merged(r"([^\w\s])\1+"),
}


# --- measurements -----------------------------------------------------------------------------------------------

def throughput(fn: Callable[[str], object], texts: Sequence[str], runs: int) -> float:
    """Chars per second: median of ``runs`` timed passes after one warm-up pass."""
    for t in texts:
        fn(t)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for t in texts:
            fn(t)
        times.append(time.perf_counter() - t0)
    return sum(map(len, texts)) / statistics.median(times)


ADVERSARIAL: dict[str, str] = {
    "1MB dashes": "-" * 1_000_000,
    "1MB periods": "." * 1_000_000,
    "1MB digits": "1" * 1_000_000,
    "1MB spaces": " " * 1_000_000,
    "100k capitalised words": "García " * 100_000,
    "'Dr. ' x 250k": "Dr. " * 250_000,
    "glued words x 166k": "abcDef" * 166_666,
    "numbered items x 200k": "\n1. A" * 200_000,
    "'a. ' x 333k": "a. " * 333_333,
}


def adversarial() -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name, text in ADVERSARIAL.items():
        t0 = time.perf_counter()
        n_tok = len(tokenize(text))
        t1 = time.perf_counter()
        n_sent = len(split_sentences(text))
        t2 = time.perf_counter()
        out[name] = {"chars": len(text), "tokens": n_tok, "tokenize_s": round(t1 - t0, 3),
                     "sentences": n_sent, "split_sentences_s": round(t2 - t1, 3)}
    ext = spacy_extended()
    for n in (5_000, 10_000, 20_000):
        t0 = time.perf_counter()
        ext("-" * n)
        out[f"spacy_extended_es: {n} dashes"] = {"chars": n, "tokenize_s": round(time.perf_counter() - t0, 3)}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="MEDDOCAN folder (with <split>/brat)")
    ap.add_argument("--split", action="append", dest="splits", help="splits (default: train and dev)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "alignment.json")
    ap.add_argument("--no-adversarial", action="store_true")
    args = ap.parse_args(argv)
    splits = args.splits or ["train", "dev"]

    tokenizers: dict[str, TokenizeFn] = {
        "clinanon": lambda text: tokenize(text, "es"),
        "word_vs_punct": word_vs_punct,
        "spacy_default_es": spacy_default(),
        "spacy_extended_es": spacy_extended(),
        **ABLATIONS,
    }
    result: dict[str, object] = {
        "corpus": "MEDDOCAN (BRAT)", "python": platform.python_version(), "spacy": spacy.__version__,
        "machine": platform.machine(), "splits": {},
    }
    for split in splits:
        folder = args.data / split / "brat"
        if not folder.is_dir():
            print(f"skipping {split}: {folder} not found", file=sys.stderr)
            continue
        docs: list[Document] = list(read(folder, format="brat"))
        rows: dict[str, object] = {}
        for name, fn in tokenizers.items():
            rep = alignment_report(docs, "es", tokenizer=fn)
            row: dict[str, object] = {"total": rep.total, "misaligned": rep.misaligned,
                                      "ratio": round(rep.ratio, 6)}
            if name in ("clinanon", "word_vs_punct", "spacy_default_es"):
                row["by_label_shape"] = rep.by_shape()
            if name == "clinanon":
                row["per_label"] = rep.per_label
                row["cases"] = [c.to_dict() for c in rep.cases]
            rows[name] = row
        entry: dict[str, object] = {"documents": len(docs), "chars": sum(len(d.text) for d in docs),
                                    "alignment": rows}
        if split == splits[0]:
            texts = [d.text for d in docs]
            speed = {name: round(throughput(tokenizers[name], texts, args.runs))
                     for name in ("clinanon", "word_vs_punct", "spacy_default_es", "spacy_extended_es")}
            speed["clinanon_split_sentences"] = round(throughput(lambda t: split_sentences(t, "es"), texts,
                                                                 args.runs))
            entry["chars_per_second"] = speed
        result["splits"][split] = entry  # type: ignore[index]
    if not args.no_adversarial:
        result["adversarial"] = adversarial()

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    _print(result)
    print(f"\nwrote {args.out}")
    return 0


def _print(result: dict[str, object]) -> None:
    for split, entry in result["splits"].items():  # type: ignore[attr-defined]
        print(f"\nMEDDOCAN {split}: {entry['documents']} documents, {entry['chars']} chars")
        print(f"{'tokenizer':28s} {'misaligned':>10s} {'of':>7s} {'ratio':>8s} {'chars/s':>12s}")
        speed = entry.get("chars_per_second", {})
        for name, row in entry["alignment"].items():
            cps = f"{speed[name]:,}" if name in speed else ""
            print(f"{name:28s} {row['misaligned']:>10d} {row['total']:>7d} {row['ratio']:>8.3%} {cps:>12s}")
        if "clinanon_split_sentences" in speed:
            print(f"{'(split_sentences, clinanon)':28s} {'':>10s} {'':>7s} {'':>8s} "
                  f"{speed['clinanon_split_sentences']:>12,}")
        print("residual (clinanon), by label and boundary shape:")
        for key, n in entry["alignment"]["clinanon"]["by_label_shape"].items():
            print(f"  {n:3d}  {key}")
    if "adversarial" in result:
        print("\nadversarial inputs (seconds):")
        for name, row in result["adversarial"].items():  # type: ignore[attr-defined]
            sent = f"  split_sentences {row['split_sentences_s']:.2f}" if "split_sentences_s" in row else ""
            print(f"  {name:34s} tokenize {row['tokenize_s']:.2f}{sent}")


if __name__ == "__main__":
    raise SystemExit(main())
