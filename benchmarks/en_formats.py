"""Format and value perturbation probe of the English rules on the read PhysioNet nursing notes.

The held-back patients write dates and numbers in ways the read notes do not show. This probe rewrites every gold
``Date`` / ``DateYear`` / ``Phone`` span of the read parts (``half_a`` + ``quarter_b_dev`` of
:func:`real_notes.halves`; never ``quarter_b_check``) into the other formats a US clinician or unit clerk writes,
with random valid values, in the same context (gold offsets move with the text), and scores the rules (``hipaa``
profile on both sides, as ``real_notes.py`` does):

* **recall per format**: token-binary recall of the rewritten gold spans (a token is found when any prediction
  covers one of its characters), pooled over ``--seeds`` draws of values;
* **precision**: token-binary precision over the whole rewritten read notes (gold and predictions of every label),
  so that a rule that finds the new format by over-reaching shows up; ``baseline`` is the same on the notes as
  they are.

Families: a numeric day-and-month date (``8/12``, ``10/3``, ``8/24/89``, ``4-13-95``) is rewritten into each date
format; a year (``DateYear`` spans, a ``Date`` span of two or four digits: ``'79``, ``1977``) into each year format;
a phone number (adjacent ``Phone`` pieces of one number joined) into each phone format. Words a format brings with
it ("pager", "Mon", "the") stand outside the gold span, as the corpus annotates them; a pager or phone word right
before the original number is dropped when the format brings its own.

No note text is written or printed. Writes ``benchmarks/results/en_formats.json`` (or ``--out``).

Usage: ``python benchmarks/en_formats.py [--data ../shared/data] [--seeds 3] [--out PATH]``
"""

from __future__ import annotations

import argparse
import calendar
import json
import random
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import real_notes as rn
from clinanon import __version__
from clinanon.document import Document, Span
from clinanon.profiles import filter_documents
from clinanon.text import tokenize

ROOT = Path(__file__).resolve().parents[1]
_MONTHS = [calendar.month_name[i] for i in range(1, 13)]
_ABBR = [calendar.month_abbr[i] for i in range(1, 13)]
_WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

#: a rewritten span: (text before the gold span, the gold span's text, text after it)
Piece = tuple[str, str, str]


def _ordinal(d: int) -> str:
    return f"{d}{'th' if 10 <= d % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(d % 10, 'th')}"


def _md(rng: random.Random) -> tuple[int, int]:
    m = rng.randint(1, 12)
    return m, rng.randint(1, calendar.monthrange(2001, m)[1])


def _year(rng: random.Random) -> int:
    return rng.randint(1960, 2030)


#: date formats: name -> values -> (prefix, gold text, suffix)
DATE_FORMATS: dict[str, Callable[[random.Random], Piece]] = {
    "M/D": lambda r: ("", "{}/{}".format(*_md(r)), ""),
    "MM/DD": lambda r: ("", "{:02d}/{:02d}".format(*_md(r)), ""),
    "M-D": lambda r: ("", "{}-{}".format(*_md(r)), ""),
    "M.D": lambda r: ("", "{}.{}".format(*_md(r)), ""),
    "M/D/YY": lambda r: ("", "{}/{}/{:02d}".format(*_md(r), _year(r) % 100), ""),
    "M/D/YYYY": lambda r: ("", "{}/{}/{}".format(*_md(r), _year(r)), ""),
    "MM/DD/YY": lambda r: ("", "{:02d}/{:02d}/{:02d}".format(*_md(r), _year(r) % 100), ""),
    "Mon D": lambda r: (lambda m, d: ("", f"{_ABBR[m - 1]} {d}", ""))(*_md(r)),
    "Month Dth": lambda r: (lambda m, d: ("", f"{_MONTHS[m - 1]} {_ordinal(d)}", ""))(*_md(r)),
    "D-Mon": lambda r: (lambda m, d: ("", f"{d}-{_ABBR[m - 1]}", ""))(*_md(r)),
    "D Mon YYYY": lambda r: (lambda m, d: ("", f"{d} {_ABBR[m - 1]} {_year(r)}", ""))(*_md(r)),
    "Wkd M/D": lambda r: (lambda m, d: (f"{r.choice(_WEEKDAYS)} ", f"{m}/{d}", ""))(*_md(r)),
    "the Dth": lambda r: ("the ", _ordinal(_md(r)[1]), ""),
}
#: year formats
YEAR_FORMATS: dict[str, Callable[[random.Random], Piece]] = {
    "'YY": lambda r: ("'", f"{_year(r) % 100:02d}", ""),
    "YYYY": lambda r: ("", str(_year(r)), ""),
}


def _line(r: random.Random) -> str:
    return f"{r.randint(0, 9999):04d}"


def _exch(r: random.Random) -> str:
    return str(r.randint(200, 999))


def _area(r: random.Random) -> str:
    return f"{r.randint(2, 9)}{r.randint(0, 9)}{r.randint(0, 9)}"


#: phone, pager and extension formats
PHONE_FORMATS: dict[str, Callable[[random.Random], Piece]] = {
    "555-1234": lambda r: ("", f"{_exch(r)}-{_line(r)}", ""),
    "(617) 555-1234": lambda r: ("", f"({_area(r)}) {_exch(r)}-{_line(r)}", ""),
    "617.555.1234": lambda r: ("", f"{_area(r)}.{_exch(r)}.{_line(r)}", ""),
    "617-555-1234 x1234": lambda r: ("", f"{_area(r)}-{_exch(r)}-{_line(r)} x{r.randint(100, 9999)}", ""),
    "pager 12345": lambda r: ("pager ", f"{r.randint(10000, 99999)}", ""),
    "pgr #4-1234": lambda r: ("pgr #", f"{r.randint(1, 9)}-{_line(r)}", ""),
    "beeper 1234": lambda r: ("beeper ", f"{r.randint(1000, 9999)}", ""),
    "ext. 4321": lambda r: ("ext. ", f"{r.randint(1000, 9999)}", ""),
    "x4321": lambda r: ("", f"x{r.randint(1000, 9999)}", ""),
}
FAMILIES = {"date": DATE_FORMATS, "year": YEAR_FORMATS, "phone": PHONE_FORMATS}

_NUMERIC_DATE = re.compile(r"\d{1,2}[/-]\d{1,2}(?:[/-](?:\d\d){1,2})?")
_YEAR = re.compile(r"(?:\d\d|\d{4})")
#: a pager or phone word (and its "#", ":") right before a number, dropped when the format brings its own word
_LABEL_BEFORE = re.compile(r"(?i)\b(?:pager|pgr|pg|beeper|bpr|tel|ph|phone|cell|ext|x)\b\.?[ \t]{0,2}:?"
                           r"[ \t]{0,2}#?[ \t]{0,2}\Z")
_PHONE_GAP = re.compile(r"[\s\-.()]{0,3}")


def family_of(doc: Document, span: Span) -> str | None:
    text = doc.text[span.start:span.end]
    if span.label == "Phone":
        return "phone"
    if span.label == "DateYear" or (span.label == "Date" and _YEAR.fullmatch(text)):
        return "year" if _YEAR.fullmatch(text) else None
    if span.label == "Date" and _NUMERIC_DATE.fullmatch(text):
        return "date"
    return None


def _units(doc: Document) -> list[tuple[int, int, str, str]]:
    """The rewritable units of a note, in order: (start, end, gold label, family); the pieces of one phone number
    ("212- 476- 8356" annotated as three spans) joined into one."""
    out: list[tuple[int, int, str, str]] = []
    for s in sorted(doc.spans, key=lambda x: (x.start, x.end)):
        if out and s.start < out[-1][1]:
            continue
        fam = family_of(doc, s)
        if fam is None:
            out.append((s.start, s.end, s.label, ""))
            continue
        if (fam == "phone" and out and out[-1][3] == "phone"
                and _PHONE_GAP.fullmatch(doc.text[out[-1][1]:s.start])):
            out[-1] = (out[-1][0], s.end, s.label, fam)
            continue
        out.append((s.start, s.end, s.label, fam))
    return out


def rewrite(doc: Document, family: str, fmt: Callable[[random.Random], Piece],
            rng: random.Random) -> tuple[Document, list[Span]]:
    """``doc`` with every unit of ``family`` rewritten by ``fmt``; the new document (all gold spans moved) and the
    rewritten gold spans."""
    pieces: list[str] = []
    spans: list[Span] = []
    new: list[Span] = []
    pos = length = 0
    for start, end, label, fam in _units(doc):
        if fam != family:
            pieces.append(doc.text[pos:end])
            length += end - pos
            spans.append(Span(length - (end - start), length, label))
            pos = end
            continue
        pre, gold, post = fmt(rng)
        head = doc.text[pos:start]
        if pre.strip() and family == "phone":  # the format brings its own word: drop the note's
            m = _LABEL_BEFORE.search(head, max(0, len(head) - 16))
            if m is not None and m.group().strip():
                head = head[:m.start()] + ("" if head[:m.start()].endswith((" ", "\n", "\t", "(")) or
                                           not head[:m.start()] else " ")
        if pre.startswith("'") and head.endswith(("'", "’")):
            head = head[:-1]
        if family == "year" and not pre and head.endswith(("'", "’")):
            head = head[:-1]  # "'79" -> "1979", not "'1979"
        if family == "date" and pre and head.endswith("the "):
            head = head[:-4]
        if post and doc.text[end:end + 1].isalnum():
            post += " "
        pieces += [head, pre, gold, post]
        length += len(head) + len(pre)
        sp = Span(length, length + len(gold), label)
        spans.append(sp)
        new.append(sp)
        length += len(gold) + len(post)
        pos = end
    pieces.append(doc.text[pos:])
    return Document(doc.id, "".join(pieces), tuple(spans), doc.meta), new


def _token_counts(gold: Document, pred: Document, only: Sequence[Span] | None = None) -> tuple[int, int, int]:
    """Token-binary (tp, fp, fn) of one note; with ``only``: the tokens of those gold spans (tp, 0, fn)."""
    ps = pred.spans
    tp = fp = fn = 0
    for t in tokenize(gold.text, "en"):
        spans = only if only is not None else gold.spans
        g = any(s.start < t.end and t.start < s.end for s in spans)
        if only is not None and not g:
            continue
        p = any(s.start < t.end and t.start < s.end for s in ps)
        tp += g and p
        fp += p and not g
        fn += g and not p
    return tp, fp, fn


def _predict(nlp, docs: Sequence[Document]) -> dict[str, Document]:
    return {d.id: d for d in filter_documents(rn.predict(nlp, docs), "hipaa")}


def _gold(docs: Sequence[Document]) -> list[Document]:
    return filter_documents(docs, "hipaa", rn.physionet_scheme().category)


def probe(docs: Sequence[Document], seeds: int) -> dict:
    nlp = rn.pipeline("en", "rules")
    gold = _gold(docs)
    base_pred = _predict(nlp, gold)
    base = [_token_counts(g, base_pred[g.id]) for g in gold]

    def prf(counts: Sequence[tuple[int, int, int]]) -> dict:
        tp, fp, fn = (sum(c[i] for c in counts) for i in range(3))
        return {"precision": round(tp / max(1, tp + fp), 4), "recall": round(tp / max(1, tp + fn), 4),
                "tp": tp, "fp": fp, "fn": fn}

    result: dict = {"baseline": prf(base), "families": {}}
    for family, formats in FAMILIES.items():
        touched = [i for i, g in enumerate(gold) if any(u[3] == family for u in _units(g))]
        units = sum(sum(1 for u in _units(gold[i]) if u[3] == family) for i in touched)
        fam_out: dict = {"notes": len(touched), "units": units, "formats": {}}
        for name, fmt in formats.items():
            hit = tot = 0
            counts = list(base)
            for seed in range(seeds):
                rng = random.Random(f"{family}:{name}:{seed}")
                rewritten, new = zip(*(rewrite(gold[i], family, fmt, rng) for i in touched), strict=True)
                pred = _predict(nlp, rewritten)
                for i, d, sp in zip(touched, rewritten, new, strict=True):
                    t, _f, n = _token_counts(d, pred[d.id], sp)
                    hit += t
                    tot += t + n
                    counts[i] = _token_counts(d, pred[d.id])
                if seed == 0:
                    precision = prf(counts)
            fam_out["formats"][name] = {"gold_tokens": tot, "recall": round(hit / max(1, tot), 4),
                                        "precision_seed0": precision["precision"], "fp_seed0": precision["fp"]}
        result["families"][family] = fam_out
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "en_formats.json")
    args = ap.parse_args(argv)
    parts = rn.halves(rn.load_physionet(args.data))
    read = parts["half_a"] + parts["quarter_b_dev"]  # the read parts only; never quarter_b_check
    result = {"clinanon": __version__, "corpus": "physionet-deid-dev half_a + quarter_b_dev (read parts)",
              "profile": "hipaa", "seeds": args.seeds, **probe(read, args.seeds)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    b = result["baseline"]
    print(f"baseline (notes as they are) token binary P/R {b['precision']:.3f}/{b['recall']:.3f}", file=sys.stderr)
    for family, fam in result["families"].items():
        for name, row in fam["formats"].items():
            print(f"{family:6s} {name:20s} recall {row['recall']:.3f} ({row['gold_tokens']:4d} tokens)  "
                  f"P {row['precision_seed0']:.3f} (fp {row['fp_seed0']})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
