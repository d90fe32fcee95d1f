"""Per-language word lists of the ground floor: common words, trigger words, honorifics and field labels.

* :func:`common_words` -- case-folded words that are never part of a person's name (stop words, Faker's English
  lorem words that are not names, field labels, honorifics and titles, month and weekday names, clinical
  words); the name rules, the address and organisation rules and the caseless guard use it.
* :func:`common_lexicon` -- the large common-word lexicon of a language (``clinanon/data/lexicons/common/
  <lang>.txt.xz``, built by ``scripts/build_lexicons.py`` from spacy-lookups-data, plus the stop words and
  :func:`common_words`): folded word -> whether it is usually capitalised (German nouns); :func:`is_common`.
* :func:`drug_words` / :func:`is_drug_word` -- the folded drug, brand and device words of ``clinanon/data/
  lexicons/drugs/<lang>.txt.xz`` (English: FDA UNII names and a drug dictionary, built by
  ``scripts/build_drug_lexicon.py``); never a name or a place without a cue.
* :func:`name_words` / :func:`is_name_word` -- the folded words of the shipped name and place lists;
  :func:`name_sets` -- the one-word first names and surnames that are not common words.
* :func:`trigger_lexicon` / :func:`trigger_words` -- the trigger categories of ``clinanon/data/lexicons/
  <lang>.tsv`` (kin, org, hosp, care, comp, dept).
* :data:`CLINICAL_ABBREVIATIONS` -- shorthand of English clinical notes ("pt", "endo", "a-line", "micu"), part of
  :func:`common_words`.
* :data:`HONORIFICS`, :data:`MORE_TITLES`, :data:`FIELD_LABELS`, :data:`COMMON_COLLISIONS`,
  :data:`STRONG_STREET_TYPES` -- hand-written tables.

Everything is loaded on first use and cached per language (:func:`clinanon.caches.memo`).
"""

from __future__ import annotations

import contextlib
import importlib
import lzma
import re
from importlib import resources

from clinanon.caches import memo
from clinanon.lang.fold import fold, fold_uncached
from clinanon.lang.wordlists import load_rows
from clinanon.text import stop_words

__all__ = [
    "ANATOMY_DE",
    "CLINICAL_ABBREVIATIONS",
    "COMMON_COLLISIONS",
    "FIELD_LABELS",
    "HONORIFICS",
    "MORE_TITLES",
    "STRONG_STREET_TYPES",
    "WORD_RX",
    "common_lexicon",
    "common_words",
    "drug_words",
    "is_common",
    "is_drug_word",
    "is_name_word",
    "name_sets",
    "name_words",
    "trigger_lexicon",
    "trigger_words",
]

#: a word: letters, with inner apostrophes or hyphens ("O'BRIEN", "JEAN-PAUL")
WORD_RX = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def _split(words: str) -> tuple[str, ...]:
    return tuple(words.split())


#: honorifics that introduce a person's name (not doctor titles: see fields.py); "Prof." introduces a clinician
HONORIFICS: dict[str, tuple[str, ...]] = {
    "en": ("Mr", "Mrs", "Ms", "Miss", "Mx", "Mister", "Madam", "Sir", "Lady", "Prof", "Professor"),
    "es": ("Sr", "Sra", "Srta", "Don", "Doña", "Dña", "Dª", "Prof", "Profa", "Profesor", "Profesora"),
    "nl": ("Dhr", "Mevr", "Mw", "Mevrouw", "Meneer", "Mej", "Heer", "Prof", "Professor"),
    "sv": ("Herr", "Fru", "Fröken", "Frk", "Prof", "Professor"),
    "de": ("Herr", "Herrn", "Frau", "Hr", "Fr", "Prof", "Professor"),
}

#: titles that may follow an honorific before the name ("Prof. Dr. med. Müller", "Mevr. drs. Jansen")
MORE_TITLES: tuple[str, ...] = ("Dr", "Dra", "med", "dent", "rer", "nat", "habil", "Drs", "drs", "Ir", "ir", "Ing",
                                 "Dipl", "Mag", "PD", "Priv.-Doz", "Doz", "dr", "mr", "Mr")

_MONTHS_DAYS = _split(
    "january february march april may june july august september october november december monday tuesday "
    "wednesday thursday friday saturday sunday enero febrero marzo abril mayo junio julio agosto septiembre "
    "octubre noviembre diciembre lunes martes miércoles jueves viernes sábado domingo januari februari maart mei "
    "juni juli augustus oktober maandag dinsdag woensdag donderdag vrijdag zaterdag zondag mars maj augusti "
    "måndag tisdag onsdag torsdag fredag lördag söndag januar februar märz juni oktober dezember montag dienstag "
    "mittwoch donnerstag freitag samstag sonntag"
)
#: capitalised words of clinical text that are never a name part (all languages; case-folded)
_CLINICAL = _split(
    "patient patients doctor nurse hospital clinic department service unit ward room bed emergency surgery "
    "medicine history diagnosis discharge admission allergies medications medication plan assessment impression "
    "exam examination labs lab results follow up note notes report procedure operation consult consultation "
    "attending resident physician provider signed dictated summary disease syndrome test scale score coma "
    "catheter tube disorder chronic acute pain fever cancer tumor heart lung kidney liver brain blood left right "
    "bilateral normal negative positive street road avenue suite apt box city state country county "
    "university college center centre institute foundation company corporation group inc ltd llc "
    "paciente médico médica doctora enfermera servicio unidad planta cama habitación urgencias informe "
    "diagnóstico tratamiento antecedentes evolución exploración alta ingreso hospitalario universitario "
    "patiënt patiënte arts afdeling ziekenhuis kamer opname ontslag läkare avdelning sjukhus sjuksköterska "
    "arzt ärztin station klinik krankenhaus abteilung befund diagnose therapie entlassung aufnahme "
    "calle avda av avenida plaza paseo ctra carretera residente apartado correos fundación hermanos edificio "
    "straat laan weg plein gatan vägen straße strasse allee platz fax tel teléfono telefono phone email correo "
    "rúa rua via"
)
#: abbreviations and shorthand of English clinical notes (nursing notes, ICU flowsheets, discharge summaries) that
#: are never a person's name or a place, whatever their case; some collide with name lists ("Endo", "Bil", "Aline")
CLINICAL_ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "en": _split(
        "pt pts pt's ptx endo neuro neuros resp cv cvs gi gu heme skin integ psych dispo access lines social "
        "a-line aline alines art-line picc piccs cvl tlc ij sc fem ett ngt ogt peg foley condom bipap cpap peep "
        "psv simv vent abg abgs vbg cxr kub ekg ecg tee tte echo cath pci ptca cabg avr mvr lad lcx rca om pda "
        "lima rima svg svgs iabp lvad rvad crrt cvvh cvvhd hd pd ffp prbc prbcs plt plts inr ptt hct hgb wbc bun "
        "cr k mg phos lfts ast alt alk bili bil tbili dbili lipase amylase ck cks cpk trop tropo bnp lactate "
        "perla perrla perrl mae maew aox3 a&o a&ox3 ox3 nad wnl nkda nka nsr sb afib aflutter svt vt vf pvc "
        "pvcs pac pacs brady tachy bradycardia tachycardia hypotension hypertension htn dm iddm niddm cad chf copd "
        "pna uti gib ugib lgib dvt pe cva tia mi ami nstemi stemi cp sob doe pnd le les ue ues lle rle lue rue bue "
        "ble bs bm bms uo u/o i&o prn qd bid tid qid qhs qam qpm q2h q4h q6h q8h po iv ivp ivpb sq sl pr gtt gtts "
        "ivf ns lr d5w d5 kcl lasix bumex heparin hep insulin nph ssri ss rss fs fsbs bg bgs ac hs npo cl clr "
        "diuresis diurese diuresed diuresing diuretic sedated sedation propofol fentanyl versed ativan morphine "
        "mso4 contin dilaudid tylenol motrin toradol percocet levo levophed neo dopa dobutamine milrinone nitro ntg "
        "amio amiodarone lopressor captopril integrilin integrelin aggrastat nipride nicardipine vanco vancomycin "
        "zosyn flagyl levaquin cipro ceftaz cefazolin kefzol protonix pepcid colace senna dulcolax "
        "micu sicu ccu csru ctic picu nicu pacu icu ew er or osh ems rn lpn np rrt pt/ot ot slp cm ho hos"
    ),
}
#: letter openings and addressing words before a name
_GREETINGS = _split("dear hello hi hey thanks thank attn attention to cc re fao estimado estimada querido querida "
                    "hola beste geachte hallo hej kära bäste liebe lieber sehr geehrte geehrter hallo "
                    "kollegin kollege kolleginnen kollegen collega collegae collegas kollega kollegor")

#: capitalised words that match a name or place list but in clinical text are far more often not PHI.
#: Spanish: chosen from MEDDOCAN train counts (gazetteer hits that overlap no gold PHI); others: by hand.
COMMON_COLLISIONS: dict[str, tuple[str, ...]] = {
    "es": ("Niña", "Niño", "Oral", "Plaza", "Camino"),
    "en": ("May", "June", "April", "August", "Will", "Mark", "Bill", "Grant", "Hope", "Faith", "Joy", "Dawn",
           "Summer", "Autumn", "Winter", "Spring", "Art", "Guy", "Pat", "Sue", "Ray", "Rich", "Frank", "Chase",
           "Hunter", "Wade", "Dale", "Lane", "Long", "Brown", "White", "Green", "Black", "Young", "King", "Hill",
           "Wood", "Hall", "Best", "Little", "Small", "Strong", "Short", "Head", "Cross", "Bone", "Blood", "Rose",
           "Iris", "Amber", "Ruby", "Crystal", "Gene", "Page", "Ward", "Bay", "Case", "Drew", "Miles", "Rusty",
           "Sunny", "Stone", "Price", "Cash", "Major", "General", "Doctor", "Nurse", "Patient", "Hospital",
           "Care", "Chief", "Plan", "Mercy", "Trinity", "Glory", "Destiny", "Harmony", "Unity", "Haven", "Love",
           "Don", "Baby", "Carry", "Day", "English", "Press", "Monday", "Tuesday", "Wednesday", "Thursday",
           "Friday", "Saturday", "Sunday", "January", "February", "March", "July", "September", "October",
           "November", "December"),
    "nl": ("Van", "De", "Den", "Der", "Ten", "Ter", "Het", "Zorg", "Arts", "Patiënt", "Patient", "Bed",
           "Kamer", "Maag", "Hart", "Long", "Nier", "Dam", "Berg", "Bos", "Veld", "Post", "Meer", "Smit"),
    "sv": ("Dag", "Del", "Mina", "Inga", "Sol", "Vård", "Patient", "Patienten", "Läkare", "Sjuksköterska",
           "Mor", "Far", "Son", "Dotter", "Bror", "Syster", "Berg", "Ström", "Lund", "Sand", "Holm", "Björk",
           "Lind", "Ek", "Dal", "Vik", "Sten", "Ros"),
    "de": ("Anders", "Gute", "Lange", "Arzt", "Ärztin", "Patient", "Patientin", "Station", "Klinik", "Kurz",
           "Klein", "Groß", "Gross", "Weiss", "Weiß", "Schwarz", "Braun", "Roth", "Rot", "Herz", "Kopf",
           "Hand", "Fuchs", "Vogel", "Mai", "Juni", "Juli", "August", "März", "Winter", "Sommer", "Frühling",
           "Herbst", "Berg", "Bach", "Wolf", "Stein", "Busch", "Kaiser", "König", "Koch", "Bauer", "Meister",
           "Lehmann", "Jung", "Alt", "Morgen", "Abend", "Nacht", "Tag"),
}

#: German organs, anatomy and body regions, capitalised like every German noun; some are also surnames or towns
#: of the gazetteers ("Leber", "Milz", "Herz", "Lunge"). A one-word list hit among them is no name or place
#: without a name beside it (:func:`clinanon.detect.rules.detector.german_noun_guard`)
ANATOMY_DE: frozenset[str] = frozenset(_split(
    "leber milz niere nieren lunge lungen herz magen darm dünndarm dickdarm enddarm mastdarm blinddarm galle "
    "gallenblase blase harnblase harnleiter harnröhre pankreas bauchspeicheldrüse schilddrüse nebenniere "
    "nebennieren prostata hoden eierstock eierstöcke gebärmutter uterus scheide brust brüste mamma achsel leiste "
    "leisten hals kopf schädel gehirn hirn kleinhirn stammhirn rückenmark nerv nerven auge augen ohr ohren nase "
    "mund zunge zahn zähne kiefer lippe lippen rachen kehlkopf luftröhre speiseröhre bronchus bronchien rippe "
    "rippen brustbein wirbel wirbelsäule becken hüfte hüften knie schulter schultern arm arme hand hände finger "
    "daumen bein beine fuß füße zehe zehen ferse sprunggelenk ellenbogen handgelenk gelenk gelenke knochen "
    "muskel muskeln sehne sehnen haut bauch rücken gesäß steiß nabel aorta vene venen arterie arterien "
    "lymphknoten thorax abdomen herzbeutel pleura bauchfell zwerchfell duodenum ileum jejunum kolon colon "
    "rektum sigma zökum appendix ösophagus trachea leberlappen milzpol nierenbecken"))

#: field labels of clinical forms (never PHI themselves)
FIELD_LABELS: dict[str, tuple[str, ...]] = {
    "es": ("Nombre", "Apellidos", "Apellido", "Médico", "Medico", "Sexo", "Edad", "Fecha", "Domicilio",
           "Localidad", "Provincia", "País", "Pais", "Paciente", "Servicio", "Dirección", "Direccion",
           "Teléfono", "Telefono", "NHC", "NASS", "CP", "Informe", "Diagnóstico", "Tratamiento", "Antecedentes",
           "Exploración", "Evolución", "Juicio", "Remitido", "Correo", "Ingreso", "Alta", "Historia",
           "Datos", "Cama", "Habitación", "Doctor", "Doctora", "Dr", "Dra", "Enfermera", "Enfermero",
           "Especialidad", "Centro", "Unidad", "Planta", "Hospital", "Clínica"),
    "en": ("Name", "Surname", "First", "Last", "Sex", "Gender", "Age", "Date", "Address", "City", "State",
           "Country", "Phone", "Patient", "Physician", "Doctor", "Dr", "Admission", "Discharge", "Diagnosis",
           "History", "Hospital", "Ward", "Room", "Bed", "MRN", "DOB"),
    "nl": ("Naam", "Achternaam", "Voornaam", "Geslacht", "Leeftijd", "Datum", "Adres", "Woonplaats",
           "Plaats", "Land", "Telefoon", "Patiënt", "Arts", "Huisarts", "Opname", "Ontslag", "Diagnose",
           "Afdeling", "Ziekenhuis", "Kamer"),
    "sv": ("Namn", "Efternamn", "Förnamn", "Kön", "Ålder", "Datum", "Adress", "Ort", "Land", "Telefon",
           "Patient", "Läkare", "Inskrivning", "Utskrivning", "Diagnos", "Avdelning", "Sjukhus", "Rum"),
    "de": ("Name", "Nachname", "Vorname", "Geschlecht", "Alter", "Datum", "Adresse", "Wohnort", "Ort", "Land",
           "Telefon", "Patient", "Arzt", "Aufnahme", "Entlassung", "Diagnose", "Station", "Zimmer",
           "Krankenhaus", "Klinik"),
}


#: street-type words that start a street and little else ("Calle", "C/", "Avda.", "Ctra."): Spanish and Catalan
#: forms as written, with their abbreviations
STRONG_STREET_TYPES: tuple[str, ...] = (
    "Calle", "CALLE", "C/", "C\\", "C./", "C/.", "Avda.", "Avda", "AVDA.", "Avenida", "AVENIDA", "Avenido",
    "Avd.", "Av.", "Av/", "Av", "Pº", "P.º", "Pso.", "Pso", "Pza.", "Plza.", "Ctra.", "Crta.", "Carr.", "CRT.",
    "Rúa", "Rua", "Carrer", "Passeig", "Pg.", "Avinguda", "Travesía", "Travesia", "Trav.", "Glorieta", "Gta.",
    "Cra.", "Carrera",
)


@memo
def common_words(lang: str) -> frozenset[str]:
    """Case-folded words that are never part of a name in ``lang``: the language's stop words (spaCy),
    Faker's lorem words, allow-list common words and field labels, honorifics, titles, degrees, month and
    weekday names and capitalised clinical words."""
    words: set[str] = set(_MONTHS_DAYS) | set(_CLINICAL) | set(_GREETINGS)
    words |= stop_words(lang)
    loc = {"en": "en_US"}.get(lang)  # the other languages' lorem lists are texts full of names and places
    with contextlib.suppress(ImportError, AttributeError, TypeError):
        # lorem texts contain names ("Martín"): a word the gazetteer lists as a name is not taken from them
        names = {fold(r[0]) for kind in ("first_name", "surname") for r in load_rows(lang, kind)}
        lorem = importlib.import_module(f"faker.providers.lorem.{loc}").Provider.word_list
        words |= {w for w in lorem if fold(w) not in names}
    words |= set(COMMON_COLLISIONS.get(lang, ()))
    words |= set(CLINICAL_ABBREVIATIONS.get(lang, ()))
    words |= set(FIELD_LABELS.get(lang, ()))
    words |= set(HONORIFICS[lang]) | set(MORE_TITLES) | {"dr", "dra", "doctor", "doctora", "md", "phd", "rn"}
    return frozenset(w.casefold() for w in words if w)


@memo
def common_lexicon(lang: str) -> dict[str, bool]:
    """Folded common word of ``lang`` -> whether it is usually capitalised (German nouns).

    The shipped lexicon (``clinanon/data/lexicons/common/<lang>.txt.xz``, see ``scripts/build_lexicons.py``),
    plus spaCy's stop words and :func:`common_words` of the language (lower case).
    Loaded on first use and cached; an absent file gives only the runtime words.
    """
    out: dict[str, bool] = {}
    path = resources.files("clinanon") / "data" / "lexicons" / "common" / f"{lang}.txt.xz"
    with contextlib.suppress(FileNotFoundError):
        raw = lzma.decompress(path.read_bytes()).decode("utf-8")
        for line in raw.splitlines():
            if line and not line.startswith("#"):
                out[fold_uncached(line)] = line[:1].isupper()  # (not remembered: 150 000 words would flush the memo)
    extra: set[str] = set()
    extra |= stop_words(lang)
    with contextlib.suppress(ImportError, ValueError):
        extra |= set(common_words(lang))
    for w in extra:
        out.setdefault(fold_uncached(w), False)
    return out


def is_common(word: str, lang: str) -> bool:
    """Whether ``word`` (any case, accents optional) is a common word of ``lang``."""
    return fold(word) in common_lexicon(lang)


@memo
def drug_words(lang: str) -> frozenset[str]:
    """Folded drug, brand and device words of ``lang`` ("albuterol", "cozaar", "precedex", "levo", "coude"): the
    shipped lexicon ``clinanon/data/lexicons/drugs/<lang>.txt.xz`` (``scripts/build_drug_lexicon.py``; English
    only so far). Loaded on first use and cached; an absent file gives an empty set."""
    path = resources.files("clinanon") / "data" / "lexicons" / "drugs" / f"{lang}.txt.xz"
    try:
        raw = lzma.decompress(path.read_bytes()).decode("utf-8")
    except (FileNotFoundError, OSError):
        return frozenset()
    return frozenset(fold_uncached(w) for w in raw.splitlines() if w and not w.startswith("#"))


def is_drug_word(word: str, lang: str) -> bool:
    """Whether ``word`` (any case, accents optional) is a drug, brand or device word of ``lang``."""
    return fold(word) in drug_words(lang)


def is_name_word(word: str, lang: str) -> bool:
    """Whether ``word`` (any case, accents optional) is a one-word first name or surname of ``lang``'s gazetteer."""
    return fold(word) in name_words(lang)[0]


@memo
def name_words(lang: str) -> tuple[frozenset[str], frozenset[str]]:
    """(folded one-word gazetteer first names and surnames, folded words of every name and place list)."""
    names: set[str] = set()
    every: set[str] = set()
    for kind in ("first_name", "surname", "city", "region", "country", "hospital"):
        for row in load_rows(lang, kind):
            words = [fold(w) for w in WORD_RX.findall(row[0])]
            every.update(words)
            if kind in ("first_name", "surname"):
                names.update(words)
    return frozenset(names), frozenset(every)


@memo
def name_sets(lang: str) -> tuple[frozenset[str], frozenset[str]]:
    """Folded one-word first names and surnames (three letters or more) of the shipped lists of ``lang``, common
    words (:func:`common_words`) removed."""
    common = common_words(lang)

    def words(kind: str) -> frozenset[str]:
        out = set()
        for row in load_rows(lang, kind):
            w = row[0]
            if " " not in w and len(w) >= 3 and w.casefold() not in common:
                out.add(fold(w))
        return frozenset(out)

    return words("first_name"), words("surname")


@memo(maxsize=8)
def trigger_lexicon(lang: str) -> dict[str, tuple[str, ...]]:
    """Folded word -> its trigger categories (file order), from ``clinanon/data/lexicons/<lang>.tsv``."""
    path = resources.files("clinanon") / "data" / "lexicons" / f"{lang}.tsv"
    try:
        raw = path.read_text(encoding="utf-8") if path.is_file() else ""
    except OSError:  # pragma: no cover
        raw = ""
    out: dict[str, list[str]] = {}
    for line in raw.splitlines():
        if not line or line.startswith("#") or "\t" not in line:
            continue
        cat, word = line.split("\t", 1)
        cats = out.setdefault(fold_uncached(word.strip()), [])
        if cat not in cats:
            cats.append(cat)
    return {w: tuple(c) for w, c in out.items()}


@memo(maxsize=64)
def trigger_words(lang: str, category: str) -> frozenset[str]:
    """The folded (case- and accent-insensitive) words of one lexicon category (``"kin"``, ``"org"`` ...) of
    ``clinanon/data/lexicons/<lang>.tsv``; compare with :func:`clinanon.lang.fold.fold`."""
    return frozenset(w for w, cats in trigger_lexicon(lang).items() if category in cats)
