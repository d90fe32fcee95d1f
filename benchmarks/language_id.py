"""How often :func:`clinanon.lang.identify.identify_language` names a note's language right, by note length.

Corpora (``../shared/data``, see its README, and ``tests/data``):

* es: MEDDOCAN train + dev case reports;
* en: the PhysioNet nursing notes (even patients) and the PII snippets of ``pii-synth-en`` (synthetic; many are
  bare address blocks of foreign names);
* de: the GraSCCo letters at hand and the hand-written German probes (``tests/data/probe_de*.json``);
* nl: the 100 Dutch hospital-note sentences (``<mask>`` removed), the same joined four by four into short notes,
  and the hand-written Dutch probes;
* sv: the hand-written Swedish probes and ``tests/data/langid_sv.jsonl`` (36 varied notes written for this
  benchmark);
* other (must be refused): ``tests/data/langid_other.jsonl``, 26 notes in French, Italian, Portuguese, Catalan,
  Galician, Danish, Norwegian, Polish, Romanian, Turkish, Finnish and Afrikaans, written for this benchmark.

Two views of each corpus: **whole notes** (bucketed by length), and **windows**: every note cut at word boundaries
into consecutive pieces of about 50, 100, 200 and 400 characters (pieces shorter than 70 % of that are dropped), the
short notes a ward writes. Each item is *correct* (its language; for ``other``: refused), *refused* (a supported
note called undecidable or unsupported: safe, it goes to the errors report) or *wrong* (a supported note given
another supported language, or an unsupported note accepted: the dangerous case).

The thresholds of the identifier (``OTHER_RATIO``, ``MIN_SHARE``, ``MIN_LETTERS``) were chosen while looking at
these figures, so they are the figures of its development data, not a held-out estimate.

It also times :func:`~clinanon.lang.identify.identify_language` and the view for detection
(:func:`clinanon.lang.normalize.detection_view`) on adversarial inputs (a 1 MB line, 100 000 capitalised words, a
million-digit run, 100 000 words joined by zero-width spaces, a million Cyrillic look-alikes, no-break spaces
between 100 000 words): each must stay linear.

Writes ``benchmarks/results/language_id.json``. Usage: ``python benchmarks/language_id.py [--data DIR]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from clinanon.lang import LANGUAGES
from clinanon.lang.identify import MAX_CHARS, MIN_LETTERS, MIN_SHARE, OTHER_RATIO, _identifier, identify_language
from clinanon.lang.normalize import detection_view

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests" / "data"
BUCKETS = ((0, 50), (50, 100), (100, 200), (200, 500), (500, 10**9))
WINDOWS = (50, 100, 200, 400)


def corpora(data: Path) -> Iterator[tuple[str, str, str]]:
    """``(language, source, text)`` of every note (``language`` ``"other"`` for the notes to refuse)."""
    for split in ("train", "dev"):
        for p in sorted((data / "meddocan" / split / "brat").glob("*.txt")):
            yield "es", "meddocan", p.read_text(encoding="utf-8")
    for p in sorted((data / "physionet-deid-dev" / "brat").glob("*.txt")):
        yield "en", "physionet", p.read_text(encoding="utf-8")
    for rec in json.loads((data / "pii-synth-en" / "dev.json").read_text(encoding="utf-8")):
        yield "en", "pii-synth", rec["full_text"]
    for p in sorted((data / "grascco-dev" / "brat").glob("*.txt")):
        yield "de", "grascco", p.read_text(encoding="utf-8")
    with (data / "nl-mask-sentences" / "anon_testset_public.csv").open(encoding="utf-8") as fh:
        sentences = [re.sub(r"\s+", " ", r["sentences"].replace("<mask>", "")).strip() for r in csv.DictReader(fh)]
    for s in sentences:
        yield "nl", "nl-mask", s
    for i in range(0, len(sentences), 4):
        yield "nl", "nl-mask-x4", " ".join(sentences[i:i + 4])
    for lang in ("de", "nl", "sv"):
        for suffix in ("", "_fresh"):
            for rec in json.loads((TESTS / f"probe_{lang}{suffix}.json").read_text(encoding="utf-8")):
                yield lang, "probe", rec["full_text"]
    for name in ("langid_sv", "langid_other"):
        for line in (TESTS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            yield ("other" if name == "langid_other" else rec["lang"]), name, rec["text"]


def windows(text: str, size: int) -> list[str]:
    """``text`` cut at word boundaries into consecutive pieces of at most about ``size`` characters (at least 70 %
    of it)."""
    out: list[str] = []
    cur = ""
    for word in re.findall(r"\S+\s*", text):
        if cur and len(cur) + len(word) > size:
            out.append(cur.strip())
            cur = ""
        cur += word
    if cur.strip():
        out.append(cur.strip())
    return [p for p in out if len(p) >= 0.7 * size]


ADVERSARIAL = {
    "1MB_line": lambda: "x" * 1_000_000,
    "100k_capitalised_words": lambda: " ".join(["García", "López"] * 50_000),
    "1M_digits": lambda: "7" * 1_000_000,
    "100k_words_zero_width_joined": lambda: "\u200b".join(["Ana"] * 100_000),
    "1M_cyrillic_lookalikes": lambda: "\u0430" * 1_000_000,
    "100k_words_nbsp": lambda: "\u00a0".join(["Ruiz"] * 100_000),
}


def adversarial() -> dict[str, dict[str, float]]:
    """Seconds of the view and of the identifier on each adversarial input (the model loaded before)."""
    _identifier()
    out: dict[str, dict[str, float]] = {}
    for name, make in ADVERSARIAL.items():
        text = make()
        t = time.perf_counter()
        detection_view(text)
        view_s = time.perf_counter() - t
        t = time.perf_counter()
        identify_language(text)
        out[name] = {"chars": len(text), "view_s": round(view_s, 3), "identify_s": round(time.perf_counter() - t, 3)}
    return out


def outcome(lang: str, guessed: str | None) -> str:
    if lang == "other":
        return "correct" if guessed is None else "wrong"
    if guessed is None:
        return "refused"
    return "correct" if guessed == lang else "wrong"


def _bucket(n: int) -> str:
    for lo, hi in BUCKETS:
        if lo <= n < hi:
            return f"{lo}-{hi - 1}" if hi < 10**9 else f">={lo}"
    raise AssertionError(n)


def _rate(c: dict[str, int]) -> dict[str, Any]:
    n = sum(c.values())
    return {"n": n, **c, "correct_rate": round(c.get("correct", 0) / n, 4) if n else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "language_id.json")
    args = ap.parse_args()
    t0 = time.perf_counter()
    _identifier()
    load_s = time.perf_counter() - t0
    notes = list(corpora(args.data))
    # whole notes: per source and length bucket; windows: per source and size
    whole: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    win: dict[tuple[str, str, int], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    errors: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    timing: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for lang, source, text in notes:
        t = time.perf_counter()
        g = identify_language(text)
        dt = time.perf_counter() - t
        b = _bucket(len(text))
        timing[b][0] += dt
        timing[b][1] += 1
        o = outcome(lang, g.lang)
        whole[(lang, source, b)][o] += 1
        if o != "correct":
            errors[f"whole {lang}"][g.lang or f"refused:{g.reason}:{g.other if g.reason == 'unsupported' else ''}"] += 1
        for size in WINDOWS:
            for piece in windows(text, size):
                g = identify_language(piece)
                o = outcome(lang, g.lang)
                win[(lang, source, size)][o] += 1
                if o != "correct":
                    errors[f"window{size} {lang}"][g.lang or f"refused:{g.reason}"] += 1

    def total(table: dict[Any, dict[str, int]], keep: Any) -> dict[str, Any]:
        c: dict[str, int] = defaultdict(int)
        for k, v in table.items():
            if keep(k):
                for kk, vv in v.items():
                    c[kk] += vv
        return _rate(dict(c))

    long_buckets = {"100-199", "200-499", ">=500"}
    summary = {
        "whole_notes_ge100_supported": total(whole, lambda k: k[2] in long_buckets and k[0] != "other"),
        "whole_notes_ge100_other": total(whole, lambda k: k[2] in long_buckets and k[0] == "other"),
        "whole_notes_lt100_supported": total(whole, lambda k: k[2] not in long_buckets and k[0] != "other"),
        **{f"windows_{s}_supported": total(win, lambda k, s=s: k[2] == s and k[0] != "other") for s in WINDOWS},
        **{f"windows_{s}_other": total(win, lambda k, s=s: k[2] == s and k[0] == "other") for s in WINDOWS},
    }
    per_lang = {
        lang: {
            "whole_ge100": total(whole, lambda k, lang=lang: k[0] == lang and k[2] in long_buckets),
            "whole_lt100": total(whole, lambda k, lang=lang: k[0] == lang and k[2] not in long_buckets),
            **{f"windows_{s}": total(win, lambda k, lang=lang, s=s: k[0] == lang and k[2] == s) for s in WINDOWS},
        }
        for lang in (*LANGUAGES, "other")
    }
    result = {
        "identifier": "py3langid (naive Bayes over byte n-grams) + clinanon.lang.identify decision rules",
        "thresholds": {"other_ratio": OTHER_RATIO, "min_share": MIN_SHARE, "min_letters": MIN_LETTERS,
                       "max_chars": MAX_CHARS},
        "model_load_s": round(load_s, 2),
        "ms_per_note_by_length": {b: round(1000 * s / n, 3) for b, (s, n) in sorted(timing.items()) if n},
        "summary": summary,
        "per_language": per_lang,
        "whole_notes": {f"{lang}/{src}/{b}": _rate(dict(c)) for (lang, src, b), c in sorted(whole.items())},
        "windows": {f"{lang}/{src}/{s}": _rate(dict(c)) for (lang, src, s), c in sorted(win.items())},
        "errors": {k: dict(sorted(v.items(), key=lambda kv: -kv[1])) for k, v in sorted(errors.items())},
        "adversarial": adversarial(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for k, v in summary.items():
        print(f"{k}: {v['correct_rate']} of {v['n']} (refused {v.get('refused', 0)}, wrong {v.get('wrong', 0)})",
              file=sys.stderr)


if __name__ == "__main__":
    main()
