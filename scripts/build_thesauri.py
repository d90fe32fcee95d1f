"""Build the synonym thesauri of ``clinanon.corpus`` (technique ``synonyms``) from Debian packages.

Sources (install them first: ``apt-get install mythes-es mythes-de mythes-sv wordnet-base``):

* ``es``, ``de``, ``sv``: LibreOffice MyThes thesauri in ``/usr/share/mythes`` (``th_<ll>_<CC>_v2.dat``: a
  charset line, then ``headword|n`` followed by ``n`` lines ``pos|synonym|synonym...``). Licences (Debian's
  copyright files): Spanish (Marcelo Garrone) LGPL-2.1; German (OpenThesaurus, Daniel Naber) LGPL; Swedish
  (Viggo Kann) its own permissive licence ("custom2" in the Debian copyright file).
* ``en``: Princeton WordNet 3.0 from ``/usr/share/wordnet`` (``data.noun|verb|adj|adv``: the words of a synset
  are each other's synonyms), WordNet 3.0 licence (permissive).

Output: ``<out>/<lang>.tsv.gz`` in the lexicon format of :mod:`clinanon.corpus.thesaurus` (``headword<TAB>syn|syn``,
lower-case headwords, parenthesised notes such as ``(término relacionado)`` removed, gzip with a fixed time stamp:
the same input gives the same bytes), with the source and licence in its header lines; the default ``<out>`` is
where the technique looks (``$CLINANON_THESAURI`` or ``~/.local/share/clinanon/thesauri``). The files are not
shipped in the package: their licences differ from the package's.

Usage: ``python scripts/build_thesauri.py [--langs es,de,sv,en] [--out DIR] [--mythes /usr/share/mythes]
[--wordnet /usr/share/wordnet] [--max-synonyms 12]``
"""

from __future__ import annotations

import argparse
import gzip
import io
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from clinanon.corpus.thesaurus import default_dir

MYTHES = {"es": ("th_es_ES_v2.dat", "mythes-es", "LGPL-2.1 (Marcelo Garrone; Debian mythes-es)"),
          "de": ("th_de_DE_v2.dat", "mythes-de", "LGPL (OpenThesaurus, Daniel Naber; Debian mythes-de)"),
          "sv": ("th_sv_SE_v2.dat", "mythes-sv", "Viggo Kann's licence, 'custom2' in Debian mythes-sv copyright")}
_PAREN = re.compile(r"\s*\([^)]*\)")


def _clean(word: str) -> str:
    return _PAREN.sub("", word).strip()


def read_mythes(path: Path, max_synonyms: int) -> dict[str, list[str]]:
    """headword -> synonyms of a MyThes ``.dat`` file (all meanings, in order, deduplicated)."""
    raw = path.read_bytes()
    first, _, rest = raw.partition(b"\n")
    text = rest.decode(first.decode("ascii").strip() or "utf-8", errors="replace")
    lines = text.split("\n")
    out: dict[str, list[str]] = {}
    i = 0
    while i < len(lines):
        head, _, count = lines[i].partition("|")
        i += 1
        if not count.strip().isdigit():
            continue
        syns: list[str] = []
        key = _clean(head).lower()
        for line in lines[i:i + int(count)]:
            for w in line.split("|")[1:]:
                w = _clean(w)
                if w and w.lower() != key and w not in syns:
                    syns.append(w)
        i += int(count)
        if key and syns:
            out.setdefault(key, [])
            out[key] += [s for s in syns if s not in out[key]]
    return {k: v[:max_synonyms] for k, v in out.items()}


def read_wordnet(folder: Path, max_synonyms: int) -> dict[str, list[str]]:
    """headword -> synonyms: the other words of each WordNet synset of the word (data.* files)."""
    out: dict[str, list[str]] = defaultdict(list)
    for pos in ("noun", "verb", "adj", "adv"):
        with (folder / f"data.{pos}").open(encoding="latin-1") as fh:
            for line in fh:
                if line.startswith("  "):
                    continue  # the licence header
                f = line.split(" ")
                n = int(f[3], 16)
                words = [re.sub(r"\(.*\)$", "", f[4 + 2 * k]).replace("_", " ") for k in range(n)]
                for w in words:
                    for s in words:
                        if s.lower() != w.lower() and s not in out[w.lower()]:
                            out[w.lower()].append(s)
    return {k: v[:max_synonyms] for k, v in out.items() if v}


def write(lexicon: dict[str, list[str]], path: Path, header: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz, \
            io.TextIOWrapper(gz, encoding="utf-8", newline="\n") as fh:
        for h in header:
            fh.write(f"# {h}\n")
        for head in sorted(lexicon):
            syns = [s for s in lexicon[head] if not set(s) & {"\t", "|", "\n"}]
            if syns and "\t" not in head:
                fh.write(head + "\t" + "|".join(syns) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--langs", default="es,de,sv,en")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--mythes", type=Path, default=Path("/usr/share/mythes"))
    ap.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    ap.add_argument("--max-synonyms", type=int, default=12)
    args = ap.parse_args(argv)
    out = args.out or default_dir()
    missing = []
    for lang in [x for x in args.langs.split(",") if x]:
        if lang == "en":
            if not (args.wordnet / "data.noun").is_file():
                missing.append("wordnet-base")
                continue
            lex = read_wordnet(args.wordnet, args.max_synonyms)
            header = ["clinanon thesaurus en", "source: Princeton WordNet 3.0 (Debian wordnet-base)",
                      "licence: WordNet 3.0 licence (Princeton University), see /usr/share/doc/wordnet-base/copyright"]
        elif lang in MYTHES:
            name, package, licence = MYTHES[lang]
            src = args.mythes / name
            if not src.is_file():
                missing.append(package)
                continue
            lex = read_mythes(src, args.max_synonyms)
            header = [f"clinanon thesaurus {lang}", f"source: LibreOffice MyThes {name} (Debian {package})",
                      f"licence: {licence}, see /usr/share/doc/{package}/copyright"]
        else:
            print(f"no source for language {lang!r}: give a lexicon file instead", file=sys.stderr)
            continue
        path = out / f"{lang}.tsv.gz"
        write(lex, path, header)
        print(f"{lang}: {len(lex)} headwords -> {path}")
    if missing:
        print(f"missing sources; install with: apt-get install {' '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
