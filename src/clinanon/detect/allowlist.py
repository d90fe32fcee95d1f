"""Precision guards: words that look like PHI but are not (medical eponyms, common words, field labels).

An :class:`AllowList` holds, per language:

* **strong eponyms** — surnames that in clinical text almost always name a disease, sign, scale or device
  (Parkinson, Alzheimer, Dupuytren, Crohn, Glasgow, Apgar, Foley, Guillain-Barré ...): never PHI;
* **weak eponyms** — eponyms that are also common surnames (Wilson, Graves, Bell, Addison, Turner ...): not PHI
  only in an eponym context;
* **eponym contexts** — "enfermedad de", "síndrome de", "escala de", "Morbus", "ziekte van", "... sjukdom",
  "... disease", "-Syndrom": a name-like word in such a context is not PHI;
* **common words** that collide with first names / surnames / places and in clinical text are far more often not
  PHI (chosen per language from counts on training data: see ``benchmarks/gazetteer_probe.py``;
  :data:`clinanon.lang.lexicon.COMMON_COLLISIONS`);
* **field labels** (Nombre, Apellidos, Médico, Sexo ...: :data:`clinanon.lang.lexicon.FIELD_LABELS`);
* in English, **one-word list hits that are lower-case words of the lexicon where capitals say nothing** (in
  capitals, at a line's or sentence's start, before a colon, between capitalised words: "Good u/o", "Endo:",
  "CLEAR YELLOW URINE"), and clinical abbreviations in capitals whose Title-case form is a name ("BRADY", "MAE",
  "LIMA");
* in English, **drug, brand and device words** (:func:`drug_guard`, :func:`clinanon.lang.lexicon.drug_words`): a
  name or place candidate made of them ("Cozaar", "PRECEDEX", "Levo gtt", "Allegra") is dropped unless a title,
  kinship word or signature says it is a person ("Dr. Keppra", "wife Allegra", "Allegra Smith, RN");
* in English, **devices, procedures, languages and nationalities** (:func:`device_guard`, the table
  ``data/lexicons/not_names_en.tsv``): "Foley", "Ted hose", "Salem sump", "Russian" are no names or places unless
  a person cue stands beside them ("Dr. Foley", "son Ted"). The rules detector runs both last
  (:func:`word_list_guard`).

Users extend the allow-list (``extra``) and give a deny list (``deny``: terms that are always PHI, reported by
:meth:`AllowList.filter` with ``source="allowlist:deny"``). A denied term is never allowed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from types import MappingProxyType

from clinanon.caches import memo
from clinanon.document import Span
from clinanon.lang import check_language
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import (
    COMMON_COLLISIONS,
    FIELD_LABELS,
    common_lexicon,
    drug_words,
    name_words,
    trigger_words,
)
from clinanon.lang.phrases import PhraseIndex, as_table
from clinanon.text import Token, TokenTable, stop_words, tokenize

__all__ = ["EPONYMS", "WEAK_EPONYMS", "AllowList", "allowlist_for", "device_guard", "drug_guard", "is_latin_anatomy",
           "not_name_words", "word_list_guard"]

#: eponyms that are (almost) never a person in clinical text — shared by all languages
EPONYMS: tuple[str, ...] = (
    "Parkinson", "Alzheimer", "Dupuytren", "Crohn", "Hodgkin", "Gilles de la Tourette", "Tourette", "Cushing",
    "Babinski", "Glasgow", "Apgar", "Barthel", "Karnofsky", "Foley", "Swan-Ganz", "Whipple", "Raynaud",
    "Sjögren", "Guillain-Barré", "Guillain", "Barré", "Kaposi", "Wernicke", "Korsakoff", "Wolff-Parkinson-White",
    "Hashimoto", "Chagas", "Ebola", "Pfannenstiel", "Papanicolaou", "Gleason", "Breslow", "Doppler", "Holter",
    "Valsalva", "Trendelenburg", "Seldinger", "Fallot", "Marfan", "Klinefelter", "Asperger", "Huntington",
    "Kawasaki", "Behçet", "Paget", "Burkitt", "Ewing", "Wilms", "Meckel", "Hirschsprung", "Charcot",
    "Charcot-Marie-Tooth", "Ménière", "Willebrand", "von Willebrand", "Recklinghausen", "Waldenström",
    "Langerhans", "Glisson", "Lasègue", "Romberg", "Kernig", "Brudzinski", "McBurney", "Blumberg", "Rovsing",
    "Coombs", "Gram", "Giemsa", "Ziehl-Neelsen", "Killip", "Kussmaul", "Korotkoff", "Wenckebach", "Mobitz",
    "Brugada", "Child-Pugh", "Mallampati", "Epstein-Barr", "Creutzfeldt-Jakob", "Ehlers-Danlos", "Prader-Willi",
    "Budd-Chiari", "Zollinger-Ellison", "Mallory-Weiss", "Sengstaken-Blakemore", "Cheyne-Stokes", "Hill-Sachs",
    "Kirschner", "Ilizarov", "Lisfranc", "Chopart", "Bartholin", "Leydig", "Sertoli", "Wirsung", "Treitz",
    "Oddi", "Falopio", "Purkinje", "Malpighi", "Eustaquio", "Luschka", "Magendie", "Brodmann", "Virchow",
    "Lyme", "Sézary", "Krukenberg", "Klatskin", "Zenker", "Boerhaave", "Ebstein", "Down", "Pap", "Fisher",
    "Lown", "Forrester", "Charlson", "Yesavage", "Tinetti", "Downton", "Mini-Mental", "Folstein", "Zarit",
    "Lawton", "Brody", "Ranson", "Tanner", "Duke", "Ziehl", "Wright", "Gomori", "Masson", "Grocott", "Mantoux",
    "Heimlich", "Hartmann", "Billroth", "Roux", "Whipple", "Nissen", "Bankart", "Hartmann", "Lichtenstein",
    "Shouldice", "Milligan-Morgan", "Kocher", "Pringle", "Dieulafoy", "Osler", "Rendu-Osler-Weber",
    "Stevens-Johnson", "Lennox-Gastaut", "West", "Dravet", "Rett", "Angelman", "Noonan", "Patau", "Wolff",
    "Arnold-Chiari", "Chiari", "Dandy-Walker", "Sturge-Weber", "Hippel-Lindau", "Bernard-Soulier", "Glanzmann",
    "Bence Jones", "Bence-Jones", "Auspitz", "Nikolsky", "Koebner", "Darier", "Wickham", "Tzanck", "Breslow",
    "Clark", "Bethesda", "Dukes", "Astler-Coller", "Bismuth", "Forrest", "Hinchey", "Savary-Miller",
    "Cormack-Lehane", "Aldrete", "Ramsay", "Norton", "Braden", "NYHA", "Wells", "Caprini", "Silverman",
    "Capurro", "Ballard", "Denver", "Kegel", "Stokes-Adams", "Adams-Stokes", "Austin Flint", "Graham Steell",
    "Quincke", "Schirmer", "Tinel", "Phalen", "Finkelstein", "Lachman", "McMurray", "Thompson", "Homans",
    "Murphy", "Kehr", "Cullen", "Grey Turner", "Courvoisier", "Virchow", "Trousseau", "Chvostek", "Gottron",
    "Raynaud", "Libman-Sacks", "Janeway", "Argyll Robertson", "Horner", "Bell", "Addison", "Graves", "Basedow",
    "Wilson", "Gilbert", "Conn", "Sheehan", "Turner", "Reiter", "Still", "Barrett", "Hunter", "Hurler",
    "Edwards", "Weber", "Kaplan-Meier", "Pearson", "Student", "Wilcoxon", "Kruskal-Wallis", "Mann-Whitney",
    "Fisher", "Bonferroni", "Spearman", "Cohen", "Bland-Altman",
)

#: eponyms that are also common surnames: allowed only in an eponym context (never removed as words)
WEAK_EPONYMS: frozenset[str] = frozenset({
    "bell", "addison", "graves", "wilson", "gilbert", "conn", "sheehan", "turner", "reiter", "still", "barrett",
    "hunter", "edwards", "weber", "pearson", "fisher", "cohen", "spearman", "clark", "murphy", "thompson",
    "wright", "duke", "west", "wells", "norton", "ramsay", "forrest", "denver", "cullen", "horner", "tanner",
    "hartmann", "kocher", "masson", "brody", "lawton", "student", "wolff", "pringle", "osler", "kaplan-meier",
    "roux", "nissen", "basedow", "lown", "dukes", "bethesda", "ranson", "silverman", "ballard", "homans",
    "lichtenstein", "quincke", "darier", "patau", "noonan", "kegel", "wickham",
})

#: eponyms of Dutch and Swedish clinical writing that the shared list lacks (strong: never a person there)
_EPONYMS_LANG: dict[str, tuple[str, ...]] = {
    # drains, catheters, tubes and dressings named after a person or a maker (English clinical notes)
    "en": ("Penrose", "Jackson-Pratt", "Hemovac", "Dobhoff", "Groshong", "Mahurkar", "Broviac", "Yankauer", "Bovie",
           "Tenckhoff", "Shiley", "Passy-Muir", "Pleur-evac", "Venodyne", "Tegaderm", "Xeroform", "Kerlix"),
    "nl": ("Pierre-Robin", "Pierre Robin", "Bechterew", "Kahler", "de Quervain", "Quervain", "Lyell", "Sudeck",
           "Scheuermann", "Perthes", "Legg-Calvé-Perthes", "Osgood-Schlatter", "Kienböck", "Madelung",
           "Volkmann", "Buerger", "Bourneville", "Kawasaki", "Henoch-Schönlein", "Schönlein", "Stein-Leventhal",
           "Meniere", "Tietze", "Baastrup", "Bankart", "Weber A", "Weber B", "Weber C", "Salter-Harris", "Colles",
           "Monteggia", "Galeazzi", "Maisonneuve", "Lisfranc", "Segond", "Wilms", "Roux-en-Y", "Bricker",
           "Mantoux", "Lugol"),
    "sv": ("Pierre-Robin", "Pierre Robin", "Bechterew", "Bechterews", "Kahler", "de Quervain", "Quervain",
           "Sudeck", "Scheuermann", "Perthes", "Osgood-Schlatter", "Kienböck", "Henoch-Schönlein", "Schönlein",
           "Tietze", "Bankart", "Salter-Harris", "Colles", "Monteggia", "Galeazzi", "Maisonneuve", "Lisfranc",
           "Roux-en-Y", "Mantoux", "Lugol"),
}

#: Latin anatomy after a one- or two-letter abbreviation: "V. Cava", "N. Suralis", "M. Auricularis", "A. Axillaris",
#: "Lig. Collaterale" (artery, vein, nerve, muscle, ligament, ramus); plural abbreviations "Aa.", "Vv.", "Nn.", "Mm."
_LATIN_ABBREV = re.compile(r"(?:A|V|N|M|R|Aa|Vv|Nn|Mm|Rr|Lig|Ligg|Art|Lnn|Ln|Gl|Proc|Tr)\.?[ \t]{0,2}"
                           r"([A-Za-z]{3,30})(?:[ \t]{1,2}[a-z]{3,30}){0,3}\Z")
#: Latin words of vessels, nerves and muscles (lower case); with the adjectival endings below
_LATIN_ANATOMY_WORDS = (
    "cava porta aorta carotis jugularis subclavia femoralis saphena magna parva radialis ulnaris medianus "
    "ischiadicus suralis peroneus fibularis tibialis facialis vagus trigeminus phrenicus recurrens axillaris "
    "brachialis brachiocephalica iliaca iliacus renalis mesenterica hepatica lienalis splenica pulmonalis "
    "coronaria vertebralis basilaris cerebri ophthalmica temporalis biceps triceps deltoideus quadriceps "
    "gastrocnemius soleus rectus obliquus psoas iliopsoas gluteus trapezius pectoralis latissimus "
    "sternocleidomastoideus auricularis masseter orbicularis supraspinatus infraspinatus subscapularis teres "
    "levator sartorius semitendinosus semimembranosus gracilis piriformis popliteus popliteal plantaris extensor "
    "flexor abductor adductor opponens interosseus lumbricalis cutaneus digitalis digitales intercostalis "
    "thoracica thoracodorsalis musculocutaneus obturatorius pudendus genitofemoralis ilioinguinalis "
    "iliohypogastricus cephalica basilica cubiti profunda circumflexa epigastrica gastroepiploica "
    "gastroduodenalis cystica umbilicalis uterina ovarica testicularis spermatica dorsalis pedis "
    "hypoglossus glossopharyngeus accessorius abducens oculomotorius trochlearis opticus olfactorius "
    "vestibulocochlearis statoacusticus laryngeus lingualis alveolaris infraorbitalis supraorbitalis mentalis "
    "occipitalis frontalis parietalis maxillaris mandibularis buccinator zygomaticus platysma scalenus "
    "serratus rhomboideus diaphragma transversus multifidus erector spinae vastus lateralis medialis "
    "intermedius collaterale collaterales cruciatum cruciata patellae deltoideum talofibulare calcaneofibulare "
    "anterior posterior inferior superior externa interna communis"
)
_LATIN_ANATOMY = frozenset(_LATIN_ANATOMY_WORDS.split())
_LATIN_SUFFIX = re.compile(r"(?:alis|aris|ilis|icus|ica|eus|osus|iacus|iaca|ialis|orum|ium|acae|ales|ares|iae)\Z")


def is_latin_anatomy(surface: str) -> bool:
    """``surface`` is an abbreviated Latin anatomical name ("V. Cava", "N. Suralis", "M. Auricularis", "Aa.
    Iliacae"), not an initial and a surname: the abbreviation of a vessel, nerve, muscle or ligament and a Latin
    word of anatomy (from a list, or with an adjectival ending such as ``-alis``, ``-aris``, ``-icus``)."""
    m = _LATIN_ABBREV.match(surface.strip())
    if m is None:
        return False
    w = m.group(1).lower()
    return w in _LATIN_ANATOMY or (len(w) >= 6 and _LATIN_SUFFIX.search(w) is not None)


# Words before an eponym ("enfermedad de X"), folded, as token tuples; and words after it ("X disease").
_CONTEXT_BEFORE: dict[str, tuple[str, ...]] = {
    "es": ("enfermedad de", "enfermedad", "enf. de", "enf de", "síndrome de", "sindrome de", "síndrome",
           "sd. de", "sd de", "sdr. de", "signo de", "signos de", "maniobra de", "maniobras de", "test de",
           "prueba de", "pruebas de", "escala de", "índice de", "indice de", "clasificación de",
           "clasificacion de", "criterios de", "criterio de", "técnica de", "tecnica de", "operación de",
           "intervención de", "tumor de", "tumores de", "sarcoma de", "linfoma de", "quiste de", "fractura de",
           "reflejo de", "método de", "metodo de", "ley de", "puntuación de", "fórmula de", "formula de",
           "sonda de", "sonda", "catéter de", "cateter de", "catéter", "tinción de", "tinción", "células de",
           "celulas de", "glándula de", "glándulas de", "conducto de", "ligamento de", "tríada de",
           "triada de", "fenómeno de", "fenomeno de", "anomalía de", "tetralogía de", "úlcera de", "ulcera de",
           "nódulos de", "nódulo de", "bloqueo de", "virus de", "bacilo de", "cuerpos de", "cuerpo de",
           "bolsa de", "fondo de saco de", "espacio de", "ampolla de", "esfínter de", "ángulo de", "punto de",
           "cirugía de", "abordaje de", "incisión de", "posición de", "procedimiento de", "estadio de",
           "estadiaje de", "grado de", "score de", "morbus", "mal de", "corea de", "parálisis de",
           "paralisis de", "demencia de", "demencia tipo", "tipo", "escala", "índice", "ecuación de",
           "ecuacion de", "regla de", "curva de", "reacción de", "reaccion de", "tubo de", "férula de",
           "clavo de", "aguja de", "agujas de", "pinza de", "pinzas de", "hernia de", "divertículo de",
           "membrana de", "nervio de", "arco de", "tinción de", "reparación de", "test", "prueba", "sonda tipo",
           "tubo", "marcapasos", "cánula de", "canula de", "asa de", "fístula de", "fistula de", "eritema de",
           "esclerosis de", "tiroiditis de", "linfoma no", "estenosis de", "deformidad de", "prótesis de",
           "anillo de", "valoración de", "cuestionario de", "criterios", "clasificación", "escalas de",
           "índices de", "metástasis de", "lesión de", "lesiones de", "queratosis de", "técnicas de"),
    "en": ("morbus", "m."),
    "nl": ("ziekte van", "syndroom van", "morbus", "teken van", "test van", "fenomeen van", "score van",
           "schaal van", "classificatie van", "m."),
    "sv": ("morbus", "m."),
    "de": ("morbus", "m.", "typ", "nach"),
}
_CONTEXT_AFTER: dict[str, tuple[str, ...]] = {
    "es": (),
    "en": ("disease", "syndrome", "sign", "signs", "test", "score", "scale", "classification", "criteria",
           "maneuver", "manoeuvre", "catheter", "stain", "procedure", "operation", "fracture", "reflex", "tumor",
           "tumour", "lymphoma", "sarcoma", "cyst", "ulcer", "phenomenon", "triad", "position", "incision",
           "index", "grade", "stage", "palsy", "disorder", "thyroiditis", "chorea", "dementia", "tube", "method",
           "technique", "repair", "equation", "formula", "law", "criterion", "questionnaire", "coma",
           "pouch", "node", "nodes", "cell", "cells", "duct", "ligament", "virus", "body", "bodies", "hernia",
           "diverticulum", "anomaly", "tetralogy", "needle", "wire", "nail", "splint", "classification"),
    "nl": ("syndroom", "ziekte", "test", "score", "schaal", "classificatie", "katheter", "fractuur", "teken",
           "patiënten", "patienten", "manoeuvre", "reflex", "operatie", "techniek", "methode", "index",
           "fenomeen", "parese", "sonde", "criteria", "stadium", "lymfoom", "thyreoïditis", "contractuur",
           "vragenlijst", "frailty", "questionnaire", "richtlijn", "protocol"),
    "sv": ("sjukdom", "sjukdomen", "syndrom", "syndromet", "tecken", "test", "skala", "skalan", "klassifikation",
           "kateter", "fraktur", "poäng", "manöver", "reflex", "operation", "metod", "index", "pares",
           "stadium", "kriterier", "lymfom", "arterit", "tyreoidit", "kontraktur"),
    "de": ("syndrom", "krankheit", "erkrankung", "zeichen", "test", "skala", "score", "katheter", "fraktur",
           "klassifikation", "operation", "reflex", "tumor", "zyste", "ulkus", "ulcus", "lymphom", "sarkom",
           "phänomen", "trias", "stadium", "index", "manöver", "handgriff", "schlinge", "methode", "technik",
           "kriterien", "zelle", "zellen", "naht", "plastik", "lagerung", "schnitt", "versuch", "krise",
           "thyreoiditis", "demenz", "parese", "lähmung", "kontraktur", "ösophagus", "op", "anastomose"),
}

# Case-sensitive collisions (the same word in another case stays a name): lab tests, organisms, bank terms.
_COMMON_EXACT: dict[str, tuple[str, ...]] = {
    "es": ("ELISA", "Candida", "IBAN"),
    "en": ("ELISA", "Candida", "IBAN",
           # clinical abbreviations in capitals whose Title-case form is also a name ("Brady", "Mae", "Lima")
           "LIMA", "RIMA", "BRADY", "AMI", "MAE", "MAEW", "PERLA", "PERRLA", "HICKMAN", "SWAN", "LE", "UE", "GRAVES",
           "FOLEY", "DOPPLER", "TYLENOL", "LASIX", "MAE'S", "LE'S", "UE'S", "PEJ", "PEG"),
    "nl": ("ELISA", "Candida", "IBAN"),
    "sv": ("ELISA", "Candida", "IBAN"),
    "de": ("ELISA", "Candida", "IBAN"),
}

# Stop words of each language that are also first names / surnames but mostly not (spaCy's lists give more);
# a few real names that are also stop words are kept out on purpose (Hans, Ben, Inga).
_STOP_EXCEPTIONS = frozenset({"hans", "ben", "inga", "dan", "mina"})


#: case- and accent-folded form (memoised in :mod:`clinanon.lang.fold`)
_fold = fold


@memo(maxsize=8)
def _stop_words(lang: str) -> frozenset[str]:
    words = stop_words(lang)  # empty when spaCy is missing or has no list for the language
    return frozenset(_fold(w) for w in words if _fold(w) not in _STOP_EXCEPTIONS)


#: a span as a tuple in :class:`Span` field order (sorting and comparing tuples is the same as for spans)
_Row = tuple[int, int, str, str, float]


def _table(text: str, tokens: Sequence[Token] | TokenTable | None) -> TokenTable:
    return as_table(text, tokens)


class AllowList:
    """Terms that are not PHI even though a name or place list contains them, and terms that always are.

    ``extra``: more allowed terms (strings, matched case- and accent-insensitively, multi-word allowed).
    ``deny``: terms that are always PHI — an iterable of strings (label ``deny_label``) or a mapping
    term -> label. ``common_words``: include the language's common-word collisions (default True).
    """

    def __init__(self, lang: str = "es", extra: Iterable[str] = (), deny: Iterable[str] | Mapping[str, str] = (),
                 *, deny_label: str = "OTHER", common_words: bool = True, stop_words: bool = True) -> None:
        check_language(lang, exact=True)
        self.lang = lang
        extra = [extra] if isinstance(extra, str) else list(extra)
        deny_map: dict[str, str] = (dict(deny) if isinstance(deny, Mapping)
                                    else {d: deny_label for d in ([deny] if isinstance(deny, str) else deny)})
        self._deny = {_fold(k): v for k, v in deny_map.items() if k.strip()}
        terms = [*EPONYMS, *_EPONYMS_LANG.get(lang, ()), *FIELD_LABELS.get(lang, ()), *extra]
        if common_words:
            terms += list(COMMON_COLLISIONS.get(lang, ()))
        strong = {_fold(t) for t in terms if t.strip()} - WEAK_EPONYMS
        # devices and procedures of the language's not-name table ("Foley", "Whipple") are judged by
        # device_guard, which keeps them after a person cue ("Ted Foley, RN"), not allowed everywhere
        eponyms = {_fold(t) for t in (*EPONYMS, *_EPONYMS_LANG.get(lang, ()))}
        strong -= {w for w, (nxt, _caps, _demonym) in not_name_words(lang).items() if not nxt and w in eponyms}
        strong |= {_fold(t) for t in extra if t.strip()}
        self._allowed = frozenset(strong - set(self._deny))
        self._stop = _stop_words(lang) if stop_words else frozenset()
        self._exact = frozenset(_COMMON_EXACT.get(lang, ())) if common_words else frozenset()
        self._phrases = PhraseIndex(lang, accents="fold")
        for t in sorted(self._allowed):
            if len(tokenize(t, lang)) > 1:
                self._phrases.add(t, "allow")
        self._deny_index = PhraseIndex(lang, accents="fold")
        for t, label in sorted(deny_map.items()):
            self._deny_index.add(t, "deny", label)
        self._before: dict[str, list[tuple[str, ...]]] = {}  # cue phrases keyed by their last word
        for p in _CONTEXT_BEFORE.get(lang, ()):
            words = tuple(_fold(w) for w in p.split())
            self._before.setdefault(words[-1], []).append(words)
        self._before_max = max((len(p) for ps in self._before.values() for p in ps), default=0)
        self._after = frozenset(_fold(w) for w in _CONTEXT_AFTER.get(lang, ()))

    def __repr__(self) -> str:
        return f"AllowList(lang={self.lang!r}, allowed={len(self._allowed)}, denied={len(self._deny)})"

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and self.is_allowed(text)

    def is_denied(self, text: str) -> bool:
        """True when ``text`` (case- and accent-insensitive) is on the deny list: always PHI."""
        return _fold(text.strip()) in self._deny

    def is_allowed(self, text: str) -> bool:
        """True when ``text`` is an allowed term (strong eponym, field label, common word, stop word or user
        extra), also with an English/Germanic genitive ``s`` (``Parkinsons``); never for a denied term."""
        f = _fold(text.strip())
        if not f or f in self._deny:
            return False
        if text.strip() in self._exact:
            return True
        if f in self._allowed or f in self._stop:
            return True
        if self.lang in ("sv", "de", "nl", "en") and len(f) > 3:
            base = f[:-2] if f.endswith("'s") else f[:-1] if f.endswith("s") else ""
            if base and base in self._allowed:
                return True
        return False

    def in_eponym_context(self, text: str, start: int, end: int, tokens: Sequence[Token] | None = None) -> bool:
        """True when ``text[start:end]`` follows an eponym cue ("enfermedad de", "Morbus") or precedes one
        ("disease", "-Syndrom", "sjukdom") in the same line."""
        if self._before:
            window = text[max(0, start - 48):start]
            window = window[window.rfind("\n") + 1:]
            raw = window.replace("-", " ").split()[-self._before_max:]
            cues = self._before.get(_fold(raw[-1]), ()) if raw else ()  # cue phrases ending with the last word
            if cues:
                words = [_fold(w) for w in raw]
                for p in cues:
                    if len(p) <= len(words) and tuple(words[-len(p):]) == p:
                        return True
        if self._after:
            window = text[end:end + 40]
            window = window.split("\n", 1)[0]
            w = window.lstrip("'’").removeprefix("s ").removeprefix("s-") if window[:1] in ("'", "’") else window
            w = w.lstrip("- ")
            first = w.split(maxsplit=1)[0] if w.split() else ""
            first = first.strip(".,;:()")
            if re.match(r"(?i:i{1,3}|iv|v|vi{1,3})-", first):
                first = first.split("-", 1)[1]  # "Amsterdam II-criteria": a version of the criteria
            if first and _fold(first) in self._after:
                return True
        return False

    def allowed_regions(self, text: str, tokens: Sequence[Token] | TokenTable | None = None) -> list[tuple[int, int]]:
        """Character ranges of multi-word allowed phrases (``Gilles de la Tourette``) in ``text``."""
        return [(m.start, m.end) for m in self._phrases.match(text, _table(text, tokens), case="fold")]

    def deny_spans(self, text: str, tokens: Sequence[Token] | TokenTable | None = None) -> list[Span]:
        """Every occurrence of a denied term as a span (``source="allowlist:deny"``, score 1.0)."""
        if not self._deny:
            return []
        return [Span(m.start, m.end, m.attr, "allowlist:deny", 1.0)
                for m in self._deny_index.match(text, _table(text, tokens), case="fold")]

    def filter(self, text: str, spans: Iterable[Span], tokens: Sequence[Token] | TokenTable | None = None,
               *, keep_sources: Iterable[str] = ("hospital",)) -> list[Span]:
        """``spans`` minus those that are allowed terms, lie in an allowed phrase or (except sources containing
        one of ``keep_sources``) sit in an eponym context; plus the denied terms found in ``text`` where no kept
        span has the same extent. Sorted. ``tokens`` (a list or a :class:`~clinanon.text.TokenTable`) defaults
        to the tokens of ``text``."""
        rows = [(s.start, s.end, s.label, s.source, s.score) for s in spans]
        return [Span(*r) for r in self._filter_rows(text, rows, _table(text, tokens), tuple(keep_sources))]

    def _filter_rows(self, text: str, rows: Iterable[_Row], tokens: TokenTable,
                     keep: tuple[str, ...] = ("hospital",)) -> list[_Row]:
        """:meth:`filter` on spans given as tuples ``(start, end, label, source, score)`` (sorted, distinct)."""
        regions = self.allowed_regions(text, tokens)
        out: list[_Row] = []
        # the verdicts depend on the surface string / the extent only, which several spans often share
        verdicts: dict[str, int] = {}  # 1 = denied, 2 = allowed, 0 = neither
        contexts: dict[tuple[int, int], bool] = {}
        lexicon = common_lexicon(self.lang) if self.lang in _LEXICON_GUARD_LANGS else None
        for row in rows:
            start, end, _label, source, _score = row
            surface = text[start:end]
            v = verdicts.get(surface)
            if v is None:
                v = verdicts[surface] = (1 if self._deny and self.is_denied(surface)
                                         else 2 if self.is_allowed(surface) else 0)
            if v == 1:
                out.append(row)
                continue
            if v == 2:
                continue
            if lexicon is not None and _common_heading(text, start, end, lexicon):
                continue
            if regions and any(a < end and start < b for a, b in regions):
                continue
            if not any(k in source for k in keep):
                eponym = contexts.get((start, end))
                if eponym is None:
                    eponym = contexts[(start, end)] = self.in_eponym_context(text, start, end, tokens)
                if eponym and not (self.lang == "de" and _label.startswith("LOCATION")
                                   and _DE_MOVE_NACH.search(text, max(0, start - 40), start)):
                    continue
            out.append(row)
        if self._deny:
            kept = {(r[0], r[1]) for r in out}
            out.extend((d.start, d.end, d.label, d.source, d.score) for d in self.deny_spans(text, tokens)
                       if (d.start, d.end) not in kept)
        return sorted(set(out))


#: a move before German "nach" ("zog nach Suhl", "Verlegung nach Gera"): the place is a place, not an eponym's
#: method ("Resektion nach Billroth")
_DE_MOVE_NACH = re.compile(r"(?i:zog|zogen|gezogen|umgezogen|verzogen|kam|kamen|zurück|rückkehr|verlegung|verlegt"
                           r"|überwiesen|reise|reiste|flug|flog|fahrt|fuhr|transport|gebracht|ausgewandert"
                           r"|übergesiedelt|geflohen|flucht|pendelt|umzug|heimreise)(?:[ \t]{1,2}[\w.]+){0,4}?"
                           r"[ \t]{1,2}nach[ \t]{1,2}\Z")
#: languages whose single-word list hits that are common words are dropped where capitals say nothing (a line's
#: or sentence's first word, a word in capitals): "Good u/o", "Endo: QID FS", "CLEAR YELLOW URINE"
_LEXICON_GUARD_LANGS = frozenset({"en"})
_HEAD_BEFORE = frozenset(".:;!?\n-*•>#(")


def _common_heading(text: str, start: int, end: int, lexicon: dict[str, bool]) -> bool:
    """``text[start:end]`` is one word that the language's lexicon lists as a lower-case common word ("good",
    "clear", "pleasant", "add") and its capitals say nothing: it is in capitals, starts a line or a sentence, or a
    colon or dash follows it (a heading)."""
    surface = text[start:end]
    if not surface.isalpha() or lexicon.get(_fold(surface)) is not False:
        return False
    if surface.isupper() and len(surface) > 1:
        return True
    j = start
    while j > 0 and text[j - 1] in " \t" and start - j < 30:
        j -= 1
    if j == 0 or text[j - 1] in _HEAD_BEFORE:
        return True
    if text[end:end + 1] in (":", "-"):
        return True
    # between two capitalised words (a title-cased copy of a line typed in capitals, a heading): "Hr Good Pedal"
    prev = _PREV_WORD.search(text, max(0, j - 30), j)
    nxt = _NEXT_WORD.match(text, end, end + 30)
    return bool(prev and nxt and prev.group(1)[0].isupper() and nxt.group(1)[0].isupper())


_PREV_WORD = re.compile(r"([^\W\d_]+)[ \t]*\Z")
_NEXT_WORD = re.compile(r"[ \t]+([^\W\d_]+)")


#: words right before a name that make even a drug word a person's name ("Dr. Coumadin", "wife Allegra", "named X")
_EN_PERSON_CUES = frozenset(("dr", "doctor", "mr", "mrs", "ms", "miss", "mx", "mister", "prof", "professor", "named"))
_DRUG_WORD = re.compile(r"[^\W\d_]+")
_PREV_CUE = re.compile(r"([^\W\d_]+)[ \t]*[.,:]?[ \t]{0,2}\Z")
_NAME_IS = re.compile(r"name[ \t]+is[ \t]*:?[ \t]{0,2}\Z", re.IGNORECASE)
#: a signature's degree after the name ("Allegra Smith, RN", "allegra rn"), at the end of the line or a clause
_SIGNATURE_AFTER = re.compile(r"[ \t]*,?[ \t]{0,2}(?:RN|R\.N\.|MD|M\.D\.|NP|PA-C|LPN|RRT|CRNA)\b\.?[ \t]{0,3}"
                              r"(?:$|[,;/)\n])", re.IGNORECASE | re.MULTILINE)


@memo
def _plain_words(lang: str) -> frozenset[str]:
    """Folded lower-case common words of ``lang`` that no name or place list holds ("drip", "neb", "gtt")."""
    listed = name_words(lang)[1]
    return frozenset(w for w, cap in common_lexicon(lang).items() if not cap and w not in listed)


#: the labels the word-list guards judge (names and places; dates, contacts and IDs are never touched)
_NAME_OR_PLACE = ("NAME", "LOCATION")


def _person_cue(text: str, start: int, end: int, lang: str) -> bool:
    """A title, kinship word or "named" right before ``text[start:end]``, or a signature degree right after it."""
    m = _PREV_CUE.search(text, max(0, start - 24), start)
    if m is not None:
        w = m.group(1).casefold()
        if m.group(1) == "MS" and "." not in m.group(0):
            pass  # "MS Contin", "IV MS": morphine sulfate, not the honorific
        elif w in _EN_PERSON_CUES or w in trigger_words(lang, "kin"):
            return True
    if _NAME_IS.search(text, max(0, start - 16), start):
        return True
    return _SIGNATURE_AFTER.match(text, end, min(len(text), end + 16)) is not None


def drug_guard(text: str, spans: Iterable[Span], lang: str) -> list[Span]:
    """``spans`` minus the name and place candidates made of drug, brand and device words (English: "Cozaar",
    "ALBUTEROL", "Precedex gtt", "Allegra"; :func:`clinanon.lang.lexicon.drug_words`): names with at least one drug
    word and otherwise only lower-case common words that no name or place list holds ("drip", "neb"), places made of
    drug words alone ("Cozaar Street" stays); kept when a person cue stands beside them (a title or honorific, a
    kinship word, "named", a signature degree: "Dr. Keppra", "wife Allegra", "allegra, rn"). Languages without a
    drug lexicon are returned as they are."""
    spans = list(spans)
    drugs = drug_words(lang)
    if not drugs:
        return spans
    plain: frozenset[str] | None = None
    out: list[Span] = []
    for s in spans:
        if not s.label.startswith(_NAME_OR_PLACE):
            out.append(s)
            continue
        words = [_fold(w) for w in _DRUG_WORD.findall(text, s.start, s.end)]
        if not words or not any(w in drugs for w in words):
            out.append(s)
            continue
        if plain is None:
            plain = _plain_words(lang)
        other = plain if s.label.startswith("NAME") else frozenset()
        if any(w not in drugs and w not in other for w in words) or _person_cue(text, s.start, s.end, lang):
            out.append(s)
    return out


@memo
def not_name_words(lang: str) -> Mapping[str, tuple[frozenset[str], bool, bool]]:
    """Folded word -> (the words one of which must follow it, whether it alone in capitals counts, whether it is a
    language or nationality) of the language's not-name table ``clinanon/data/lexicons/not_names_<lang>.tsv``
    (English: devices, procedures, nationalities and languages; see the file's header). Empty for a language
    without one."""
    path = resources.files("clinanon") / "data" / "lexicons" / f"not_names_{lang}.tsv"
    try:
        raw = path.read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return MappingProxyType({})
    out: dict[str, tuple[frozenset[str], bool, bool]] = {}
    for line in raw.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        nxt = frozenset(_fold(w) for w in cols[2].split()) if len(cols) > 2 else frozenset()
        demonym = len(cols) > 1 and cols[1].strip() in ("language", "nationality")
        out[_fold(cols[0].strip())] = (nxt, len(cols) > 3 and cols[3].strip() == "caps", demonym)
    return MappingProxyType(out)


#: a word of a candidate, hyphenated and apostrophe compounds whole ("Swan-Ganz", "Hartmann's"); the word after one
_UNIT = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
_NEXT_UNIT = re.compile(r"[ \t\-–]{0,3}([^\W\d_]+)")
_LETTERS = re.compile(r"[^\W\d_]+")
#: words right before a device word that make it a person's name ("called Ted", "paged Swan")
_DEVICE_CUES = frozenset(("called", "call", "paged", "page", "named"))


def _device_units(text: str, start: int, end: int, table: Mapping[str, tuple[frozenset[str], bool, bool]],
                  plain: frozenset[str]) -> int:
    """Whether ``text[start:end]`` is made of not-name words whose condition holds (at least one), lower-case common
    words that no list holds and initials: 0 no; 1 yes; 2 yes, and every such word is a language or nationality."""
    hit = False
    demonyms = True
    for m in _UNIT.finditer(text, start, end):
        whole = _fold(m.group())
        units = ([(m.group(), m.end())] if whole in table
                 else [(p.group(), p.end()) for p in _LETTERS.finditer(text, m.start(), m.end())])
        for surface, u_end in units:
            w = _fold(surface)
            entry = table.get(w)
            if entry is not None:
                nxt, caps, demonym = entry
                after = _NEXT_UNIT.match(text, u_end, min(len(text), u_end + 24)) if nxt else None
                if (not nxt or (caps and surface.isupper() and len(surface) > 1)
                        or (after is not None and _fold(after.group(1)) in nxt)):
                    hit = True
                    demonyms = demonyms and demonym
                    continue
                return 0
            if len(w) == 1 or w in plain:
                continue
            return 0
    return (2 if demonyms else 1) if hit else 0


def device_guard(text: str, spans: Iterable[Span], lang: str) -> list[Span]:
    """``spans`` minus the name and place candidates made of the language's not-name words
    (:func:`not_name_words`; English: "Foley", "Hickman", "Ted hose", "TEDS", "Salem sump", "Miami J"), with
    lower-case common words and initials, unless a person cue stands beside them: a title or honorific, a kinship
    word, "named", "called", "paged", a signature degree ("Dr. Foley", "son Ted", "Ted Swan, RN"). A candidate made
    of language and nationality words ("Russian", "T.V. Russian", "Haitian Creole") is no name but a nationality:
    it is relabelled ``LOCATION.COUNTRY`` (not PHI under ``hipaa``, which keeps countries; replaced under
    ``gdpr-strict``, where a nationality singles a person out) and is not propagated as a name. Languages without
    a table are returned as they are."""
    spans = list(spans)
    table = not_name_words(lang)
    if not table:
        return spans
    plain: frozenset[str] | None = None
    out: list[Span] = []
    for s in spans:
        if not s.label.startswith(_NAME_OR_PLACE):
            out.append(s)
            continue
        if not any(_fold(w) in table for w in _LETTERS.findall(text, s.start, s.end)) and not any(
                _fold(u) in table for u in _UNIT.findall(text, s.start, s.end)):
            out.append(s)
            continue
        if plain is None:
            plain = _plain_words(lang)
        kind = _device_units(text, s.start, s.end, table, plain)
        if not kind or _person_cue(text, s.start, s.end, lang):
            out.append(s)
            continue
        m = _PREV_CUE.search(text, max(0, s.start - 24), s.start)
        if m is not None and m.group(1).casefold() in _DEVICE_CUES:
            out.append(s)
        elif kind == 2:
            out.append(Span(s.start, s.end, "LOCATION.COUNTRY", s.source, s.score))
    return out


#: English grading scales and classifications named after people or places, written with their grade ("Hunt-Hess
#: 3", "Fisher grade 4", "Glasgow 14", "Ranson 4", "Child-Pugh B", "Mallampati II", "Killip class 2")
_EN_SCALE_NAMES = (
    "hunt_(?:and_|&_)?hess", "fisher", "modified_fisher", "glasgow", "ranson", "child_pugh", "child", "mallampati",
    "killip", "forrest", "hinchey", "braden", "norton", "ramsay", "caprini", "gleason", "breslow", "clark", "tanner",
    "apgar", "karnofsky", "barthel", "aldrete", "cormack_lehane", "spetzler_martin", "rankin", "modified_rankin",
    "lown", "dukes", "bismuth", "savary_miller", "los_angeles", "mobitz", "gustilo", "salter_harris", "schatzker",
    "neer", "outerbridge", "kellgren_lawrence", "clavien_dindo", "wagner", "wells", "nyha", "ccs", "meld", "tinetti",
    "morse", "westley", "alvarado", "bishop", "nottingham", "gail", "centor", "wexner")
_EN_SCALE_ALT = "|".join(_EN_SCALE_NAMES).replace("_", r"[ \t-]{1,3}")
_EN_SCALE = re.compile(
    rf"(?<![\w\-])(?i:{_EN_SCALE_ALT})(?:[ \t]{{1,2}}(?i:grade|class|score|stage|type|scale))?"
    r"[ \t]{0,2}[:=]?[ \t]{0,2}(?:[IVX]{1,4}|\d{1,2}[a-c]?|[A-D])(?![\w\-/:]|\.\w)")  # "Fisher 3." ends a sentence
#: an instrument, sign or scale named after a person or place: capitalised words right before the word that says
#: so, up to two words between ("Hasson trocar", "Westley croup score", "Boston Bowel Prep Scale", "Beers
#: criteria", "Epley maneuver"); not "sign", "test" or "procedure" (a person signs, is tested, has a procedure)
_EN_EPONYM_HEADS = ("score", "scores", "scale", "scales", "criteria", "criterion", "maneuver", "maneuvers",
                    "manoeuvre", "classification", "trocar", "trocars", "forceps", "retractor", "retractors",
                    "reflex", "questionnaire")
_EN_EPONYM_BEFORE_HEAD = re.compile(
    r"(?<![\w\-'’])(?-i:[A-Z][\w'’\-]{1,30})(?:[ \t](?-i:[A-Za-z][\w\-]{1,20})){0,2}[ \t]"
    rf"(?i:{'|'.join(_EN_EPONYM_HEADS)})(?![\w\-])")


def scale_guard(text: str, spans: Iterable[Span], lang: str) -> list[Span]:
    """``spans`` minus the name and town candidates inside an English grading scale written with its grade
    ("Hunt-Hess 3", "Fisher 3", "Child-Pugh B", "Mallampati 2": :data:`_EN_SCALE`), unless a person cue stands
    beside them ("Dr. Fisher 3 times"). Wards, hospitals and organisations are kept ("transfer to Braden 4" is
    the care sites' call). Other languages pass through."""
    spans = list(spans)
    if lang != "en" or not any(s.label.startswith(_NAME_OR_PLACE) for s in spans):
        return spans
    scales = [m.span() for m in _EN_SCALE.finditer(text)]
    scales += [m.span() for m in _EN_EPONYM_BEFORE_HEAD.finditer(text)]
    if not scales:
        return spans
    out: list[Span] = []
    for s in spans:
        if (s.label.startswith(_NAME_OR_PLACE) and s.label not in _SITE_LABELS
                and any(a <= s.start and s.end <= b for a, b in scales)
                and not _person_cue(text, s.start, s.end, lang)):
            continue
        out.append(s)
    return out


_SITE_LABELS = frozenset(("LOCATION.DEPARTMENT", "LOCATION.HOSPITAL", "LOCATION.ORGANIZATION", "LOCATION.ROOM",
                          "LOCATION.STREET"))


def word_list_guard(text: str, spans: Iterable[Span], lang: str) -> list[Span]:
    """The name and place candidates of ``spans`` that the language's word lists say are no names or places taken
    out: :func:`device_guard` (devices, procedures; nationalities relabelled), then :func:`drug_guard` (drug and
    brand words), then :func:`scale_guard` (English grading scales with their grade). The last step of the rules
    detector; a language without those lists passes through."""
    return _span_edges(text, scale_guard(text, drug_guard(text, device_guard(text, spans, lang), lang), lang), lang)


#: words that stand before an English name but are none of it: kinship, companions, military and police ranks, a
#: company's representative ("Son Tou Xiong", "Friend Hank Ostby", "SSgt Dale Hoffner", "CO NAVARRETE", "REP TREVOR
#: DUNAWAY"), folded
_EN_LEAD_NOT_NAME = frozenset((
    "son", "daughter", "dtr", "wife", "husband", "mother", "father", "mom", "dad", "brother", "sister", "friend",
    "neighbor", "neighbour", "niece", "nephew", "aunt", "uncle", "cousin", "grandson", "granddaughter", "fiance",
    "fiancee", "girlfriend", "boyfriend", "partner", "roommate", "pvt", "pfc", "spc", "cpl", "sgt", "ssg", "ssgt",
    "sfc", "msg", "msgt", "1sg", "sgm", "cpo", "po", "lt", "capt", "cpt", "maj", "col", "gen", "a1c", "sra", "co",
    "cpl", "rep", "tpr", "trooper", "deputy", "officer", "det"))
#: weekdays after a name are no part of it ("Dr. Sattler Tues the 9th")
_EN_WEEKDAYS = frozenset(("mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "monday",
                          "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
#: the last word of a care site's or an organisation's name: a candidate name ending in it is none
_EN_INSTITUTION_TAILS = frozenset(("hosp", "hospital", "rehab", "nh", "snf", "ltac", "ltach", "clinic", "school",
                                   "academy", "hospice", "ctr", "inn", "motel", "elementary", "high"))
#: the first part of a hyphenated pair of initials right before a name ("H.-" of "H.-J. Ebersbach")
_HYPHEN_INITIAL = re.compile(r"(?<![\w.])[A-ZÄÖÜ]\.-")
#: abbreviated heads that are no name even alone ("Hosp" is a surname of the lists)
_EN_INSTITUTION_ABBREVIATIONS = frozenset(("hosp", "nh", "snf", "ltac", "ltach", "ctr"))
_EDGE_WORD = re.compile(r"[^\W\d_][\w.'’\-]*")


def _span_edges(text: str, spans: list[Span], lang: str) -> list[Span]:
    """Spans with their edges set right. Every language: a phone number written in brackets without them
    ("(334-555-0191)": the PhysioNet gold leaves them out of most such spans, the Dutch and German sets too). German
    and Dutch: a name with the first part of hyphenated initials ("H.-J. Ebersbach"). English: a name without a
    possessive ``'s`` at its end ("Dr. Aldous Fairweather's office"), without a kinship word or a rank before it
    (:data:`_EN_LEAD_NOT_NAME`) and without a weekday after it (:data:`_EN_WEEKDAYS`); a name candidate that ends
    in a care site's head ("Souhegan Valley Hosp") or is an abbreviated head alone ("Hosp") is dropped, the care
    sites' rules find the site."""
    out = []
    for s in spans:
        if s.label.startswith("NAME") and lang in ("de", "nl") and s.start >= 3 and _HYPHEN_INITIAL.match(
                text, s.start - 3, s.start):
            s = Span(s.start - 3, s.end, s.label, s.source, s.score)  # "H.-J. Ebersbach": the first initial too
        if s.label.startswith("NAME") and lang == "en":
            words = _EDGE_WORD.findall(text, s.start, s.end)
            tail = words[-1].rstrip(".").casefold() if words else ""
            if (len(words) > 1 and tail in _EN_INSTITUTION_TAILS) or tail in _EN_INSTITUTION_ABBREVIATIONS:
                continue  # "Souhegan Valley Hosp", "Larkspur Commons NH": a care site's name (the care-site rules)
            s = _en_name_edges(text, s)
        elif (s.label == "CONTACT.PHONE" and text[s.start:s.start + 1] == "(" and text[s.end - 1:s.end] == ")"
              and ")" not in text[s.start + 1:s.end - 1]):
            s = Span(s.start + 1, s.end - 1, s.label, s.source, s.score)  # the brackets are no part of the number
        out.append(s)
    return out


def _en_name_edges(text: str, s: Span) -> Span:
    words = list(_EDGE_WORD.finditer(text, s.start, s.end))
    start, end = s.start, s.end
    while len(words) > 1 and words[0].group().rstrip(".").casefold() in _EN_LEAD_NOT_NAME:
        words.pop(0)
        start = words[0].start()
    while len(words) > 1 and words[-1].group().rstrip(".").casefold() in _EN_WEEKDAYS:
        words.pop()
        end = words[-1].end()
    if end - start > 3 and text[end - 1:end] in ("s", "S") and text[end - 2:end - 1] in ("'", "’"):
        end -= 2
    return s if (start, end) == (s.start, s.end) else Span(start, end, s.label, s.source, s.score)


@memo
def allowlist_for(lang: str) -> AllowList:
    """The default :class:`AllowList` of ``lang`` (no user terms), built once per process and shared by the rules
    that consult it (names, letters, fields)."""
    return AllowList(lang)
