"""Age patterns for en, es, nl, sv, de (label ``AGE``).

What the span covers: by default the number **with its unit** (``"70 años"``, ``"45-jarige"``, ``"3 meses"``,
``"un año y cinco meses"``), which is MEDDOCAN practice (``EDAD_SUJETO_ASISTENCIA``), without ``"de edad"``
or the words around it. English defaults to the number only (``"45"`` in ``"45-year-old"``), which is i2b2
practice, and so do Dutch, Swedish and German (GraSCCo marks ``"[73]-jährige"``); ``recognizers(lang,
include_unit=...)`` overrides either default.

A number with an age unit is ambiguous (``"desde hace 2 años"`` is a duration), so the generic pattern starts
below the threshold and needs context: a person word before it (``varón de``, ``patient``, ``Frau``), an age
word after it (``de edad``, ``old``, ``oud``, ``alt``), or an explicit form (``Edad:``, ``45-year-old``,
``45 y/o``, ``45-jarige``, ``45-årig``, ``45-jährige``, ``aged 45``, ``a los 45 años``, ``edad 45``). Duration
words (``hace``, ``durante``, ``evolución``, ``ago``, ``geleden``, ``sedan``, ``seit``) lower the score. An age in
apposition after a person (``Paciente Juan García López, 45 años, ingresó``, ``Konrad Mühlbauer, 66 Jahre``) counts
when the sentence (Spanish) or line names the person.

All quantifiers are bounded; matching is linear in the text length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clinanon.caches import memo
from clinanon.detect.base import Detector
from clinanon.detect.engine import Context, RulePattern, RuleRecognizer
from clinanon.detect.rules.lexicon import trie_regex
from clinanon.document import Span
from clinanon.lang import LANGUAGES
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import name_sets

__all__ = ["age_patterns", "recognizers"]


@dataclass(frozen=True)
class _AgeLang:
    number_words: str  # trie regex of spelled-out numbers 1..99 (no capturing groups)
    years: str  # alternation of year units (singular / plural / abbreviations)
    other_units: str  # months, weeks, days
    and_word: str  # "1 año y 5 meses"
    half: str  # "y medio" / "and a half" / "en een half" ...
    field_labels: str  # "edad", "age" ...
    person_before: str  # regex ending in "$": what comes right before an age ("varón de", "tiene")
    age_after: str  # regex matched right after the span: "de edad", "old", "oud", "alt"
    duration_before: tuple[str, ...]  # words among the 2 before the number that make it a duration
    duration_after: str  # regex matched right after the span: "de evolución", "ago", "geleden"
    relatives: str  # regex: a relative in the same clause ("Tío materno fallecido a los 60 años")
    include_unit: bool = True


def _es_numbers() -> list[str]:
    units = ["uno", "una", "un", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"]
    teens = ["diez", "once", "doce", "trece", "catorce", "quince", "dieciséis", "dieciseis", "diecisiete", "dieciocho",
             "diecinueve", "veinte", "veintiuno", "veintiún", "veintiun", "veintiuna", "veintidós", "veintidos",
             "veintitrés", "veintitres", "veinticuatro", "veinticinco", "veintiséis", "veintiseis", "veintisiete",
             "veintiocho", "veintinueve", "cien"]
    tens = ["treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa"]
    return [*units, *teens, *tens, *(f"{t} y {u}" for t in tens for u in units)]


def _en_numbers() -> list[str]:
    units = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    teens = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
             "nineteen"]
    tens = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    return [*units, *teens, *tens, *(f"{t}{j}{u}" for t in tens for u in units for j in ("-", " "))]


def _nl_numbers() -> list[str]:
    units = ["een", "één", "twee", "drie", "vier", "vijf", "zes", "zeven", "acht", "negen"]
    teens = ["tien", "elf", "twaalf", "dertien", "veertien", "vijftien", "zestien", "zeventien", "achttien",
             "negentien"]
    tens = ["twintig", "dertig", "veertig", "vijftig", "zestig", "zeventig", "tachtig", "negentig"]
    return [*units, *teens, *tens,
            *(f"{u}{'ën' if u.endswith('e') else 'en'}{t}" for t in tens for u in units if u != "één")]


def _sv_numbers() -> list[str]:
    units = ["ett", "en", "två", "tre", "fyra", "fem", "sex", "sju", "åtta", "nio"]
    teens = ["tio", "elva", "tolv", "tretton", "fjorton", "femton", "sexton", "sjutton", "arton", "nitton"]
    tens = ["tjugo", "trettio", "fyrtio", "femtio", "sextio", "sjuttio", "åttio", "nittio"]
    return [*units, *teens, *tens, *(f"{t}{u}" for t in tens for u in units if u != "en")]


def _de_numbers() -> list[str]:
    units = ["ein", "eins", "eine", "einem", "einen", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun"]
    teens = ["zehn", "elf", "zwölf", "dreizehn", "vierzehn", "fünfzehn", "sechzehn", "siebzehn", "achtzehn", "neunzehn"]
    tens = ["zwanzig", "dreißig", "dreissig", "vierzig", "fünfzig", "sechzig", "siebzig", "achtzig", "neunzig"]
    return [*units, *teens, *tens, *(f"{u}und{t}" for t in tens for u in units[:1] + units[5:])]


_ES_PERSONS = trie_regex(["paciente", "varón", "varon", "mujer", "hombre", "niño", "niña", "lactante", "adolescente",
                          "anciano", "anciana", "masculino", "femenino", "femenina", "chico", "chica", "bebé", "bebe",
                          "nacido", "nacida", "neonato", "neonata", "señor", "señora", "joven", "individuo", "sujeto",
                          "gestante", "primigesta", "secundigesta", "caucásico", "caucásica", "caucasiana",
                          "caucasiano", "blanca", "blanco", "negro", "negra", "pretérmino", "prematuro", "prematura",
                          "enfermo", "enferma", "afroamericano", "afroamericana", "diestro", "diestra", "zurdo",
                          "zurda", "natural", "casada", "casado", "soltera", "soltero", "viuda", "viudo", "jubilado",
                          "jubilada"])

_LANG: dict[str, _AgeLang] = {
    "es": _AgeLang(
        # "a." only in lower case after a blank ("varón de 45 a."): "2A." is a floor, "la 11a." an ordinal
        number_words=trie_regex(_es_numbers()), years=r"años|año|(?<=\s)(?-i:a\.)",
        other_units=r"meses|mes|semanas|semana|días|"
        r"dias|día", and_word=r"y", half=r"y\s{1,2}medio|y\s{1,2}media", field_labels=r"edad",
        person_before=(rf"\b(?:{_ES_PERSONS}),?\s{{1,3}}(?:de|con)\s{{1,3}}$"
                       r"|\b(?:tiene|tenía|tenia|contaba\s{1,2}con|cumplir|cumplidos|cumplió|edad\s{1,2}de|"
                       r"alrededor\s{1,2}de\s{1,2}los)\s{1,3}$"
                       r"|\b(?:a|desde|hasta)\s{1,2}los\s{1,3}\d{1,3}\s{1,2}(?:y|a|o)\s{1,2}(?:los\s{1,2})?$"),
        age_after=r"\s{0,2}(?:de\s{1,3}(?:edad|vida)|cumplidos)\b",
        duration_before=("hace", "hacía", "durante", "tras", "cada", "últimos", "últimas", "primeros", "primeras",
                         "próximos", "plazo", "período", "periodo", "lapso", "después", "antes", "cabo", "luego",
                         "seguimiento", "intervalo", "total", "aproximadamente", "evolución", "dentro",
                         "transcurridos", "pasados", "apenas", "casi", "menos", "más", "lleva", "llevaba", "cursó",
                         "en", "unos", "unas", "otros", "otras", "estos", "dichos", "semanas", "posteriormente"),
        duration_after=(r"\s{0,2},?\s{0,2}(?:de\s{1,3}(?:evoluci[óo]n|duraci[óo]n|seguimiento|tratamiento|antigüedad|"
                        r"diagn[óo]stico|la|el|su|sus|estancia|ingreso|gestaci[óo]n|embarazo|amenorrea|"
                        r"postoperatorio|haber|iniciad[oa]|comenzad[oa])|del|despu[ée]s|antes|tras|atr[áa]s|"
                        r"previ[oa]s?|anteriores|siguientes|posteriores|postoperatori[oa]s?|m[áa]s\s{1,2}tarde|"
                        r"aproximadamente|consecutiv[oa]s|continuad[oa]s|seguid[oa]s|postrasplante)\b"),
        relatives=(r"\b(?:padre|madre|herman[oa]s?|t[íi][oa]s?|abuel[oa]s?|prim[oa]s?|hij[oa]s?|espos[oa]|marido|"
                   r"pareja|cuñad[oa]s?|sobrin[oa]s?|niet[oa]s?|suegr[oa]|su\s{1,2}mujer|familiares?|gemel[oa]|"
                   r"progenitor(?:es)?|novi[oa])\b"),
    ),
    "en": _AgeLang(
        number_words=trie_regex(_en_numbers()), years=r"years|year|yrs|yr", other_units=r"months|month|mos|mo|"
        r"weeks|week|wks|wk|days|day", and_word=r"and", half=r"and\s{1,2}a\s{1,2}half", field_labels=r"age",
        person_before=(r"\b(?:aged|patient|pt|man|woman|male|female|boy|girl|gentleman|lady|infant|child|baby|"
                       r"toddler|newborn|neonate|adolescent|teenager)\s{1,2}(?:of\s{1,2}|is\s{1,2}|was\s{1,2})?$"
                       r"|\b(?:is|was|turned|turning)\s{1,2}$"),
        age_after=r"(?:-|\s{1,2})old\b|\s{1,2}of\s{1,2}age\b",
        duration_before=("for", "past", "last", "over", "within", "after", "since", "every", "per", "x", "ago",
                         "previous", "prior", "next", "about", "approximately", "nearly", "almost", "than",
                         "duration", "history", "hx", "in", "of"),
        duration_after=(r"\s{0,2},?\s{0,2}(?:ago|later|earlier|prior|previously|before|after|post|postop|"
                        r"postoperatively|since|of\s{1,2}(?:follow|history|treatment|therapy|symptoms|duration))\b"),
        relatives=(r"\b(?:father|mother|brother|sister|siblings?|uncle|aunt|grand(?:father|mother|parents?)|"
                   r"cousin|son|daughter|wife|husband|spouse|partner|nephew|niece|family\s{1,2}history)\b"),
        include_unit=False,
    ),
    "nl": _AgeLang(
        number_words=trie_regex(_nl_numbers()), years=r"jaar|jr",
        other_units=r"maanden|maand|mnd|weken|week|wkn|dagen|dag",  # "3 mnd oud"
        and_word=r"en", half=r"en\s{1,2}een\s{1,2}half", field_labels=r"leeftijd",
        person_before=(r"\b(?:leeftijd|pati[ëe]nte?|cli[ëe]nte?|man|vrouw|jongen|meisje|kind|baby|zuigeling|peuter|"
                       r"kleuter|tiener|puber|heer|mevrouw|dame|mevr|dhr|pt|zoon|dochter|broer|broertje|zus|zusje|"
                       r"kleinzoon|kleindochter|kleinkind|zoontje|dochtertje|neefje|nichtje|vader|moeder|opa|oma|"
                       r"oom|tante)\.?,?\s{1,2}(?:van\s{1,2})?$|\b(?:is|was|werd|wordt)\s{1,2}$"),
        age_after=r"\s{1,2}oude?\b",
        duration_before=("sinds", "sedert", "gedurende", "al", "na", "binnen", "afgelopen", "laatste", "ruim",
                         "ongeveer", "circa", "voor", "elke", "iedere", "per", "over"),
        duration_after=r"\s{1,2}(?:geleden|later|eerder|lang|daarna|daarvoor|nadien|sinds)\b",
        relatives=(r"\b(?:vader|moeder|broer|zus|zuster|oom|tante|opa|oma|grootvader|grootmoeder|neef|nicht|zoon|"
                   r"dochter|echtgenoot|echtgenote|partner|familie)\b"),
        include_unit=False,  # "[45]-jarige", "[6,5] jaar": the number, as Dutch de-identification suites mark it
    ),
    "sv": _AgeLang(
        number_words=trie_regex(_sv_numbers()), years=r"år|års", other_units=r"månader|månad|mån|veckor|vecka|"
        r"dagar|dag", and_word=r"och", half=r"och\s{1,2}en\s{1,2}halv", field_labels=r"ålder",
        person_before=(r"\b(?:ålder|åldern|patient|patienten|pat|man|mannen|kvinna|kvinnan|pojke|flicka|barn|barnet|"
                       r"spädbarn|bebis|pojken|flickan|dam|herre)\.?,?\s{1,2}(?:på\s{1,2}|om\s{1,2})?$"
                       r"|\b(?:är|var|blev|fyllde|fyller)\s{1,2}$"),
        age_after=r"\s{1,2}(?:gammal|gamla|gammalt)\b",
        duration_before=("sedan", "under", "efter", "för", "senaste", "inom", "ca", "cirka", "drygt", "varje",
                         "per", "i", "över", "nästan"),
        duration_after=r"\s{1,2}(?:sedan|senare|tidigare|tillbaka|framåt)\b",
        relatives=(r"\b(?:far|mor|pappa|mamma|bror|syster|morbror|farbror|moster|faster|morfar|farfar|mormor|"
                   r"farmor|kusin|son|dotter|make|maka|sambo|partner)\b"),
        include_unit=False,
    ),
    "de": _AgeLang(
        # "a" (annus) before "alt": Austrian letters write "die 36 a alte Patientin"
        number_words=trie_regex(_de_numbers()), years=r"jahren|jahre|jahr|j\.|lj\.|a(?=\s{1,2}alt)",
        other_units=r"monaten|monate|"
        r"monat|wochen|woche|tagen|tage|tag", and_word=r"und", half=r"und\s{1,2}einhalb", field_labels=r"alter",
        person_before=(r"\b(?:alter|alters|patient|patientin|pat|mann|frau|junge|mädchen|kind|säugling|baby|herr|"
                       r"patienten|pt)\.?,?\s{1,2}(?:von\s{1,2}|mit\s{1,2})?$|\b(?:ist|war|wurde|wird)\s{1,2}$"),
        age_after=r"\s{1,2}(?:alt|alte|alten|alter|altes)\b",
        duration_before=("seit", "vor", "nach", "für", "innerhalb", "letzten", "über", "binnen", "ca", "etwa",
                         "alle", "pro", "während", "knapp", "fast", "mehr", "weniger"),
        duration_after=r"\s{1,2}(?:lang|später|zuvor|her|danach|vorher|früher|postoperativ)\b",
        relatives=(r"\b(?:vater|mutter|bruder|schwester|onkel|tante|großvater|großmutter|grossvater|grossmutter|opa|"
                   r"oma|cousin|cousine|sohn|tochter|ehemann|ehefrau|partner|partnerin|geschwister)\b"),
        include_unit=False,  # "[73]-jährige", "[84] J.", "([93] Jahre)": the number, as GraSCCo marks it
    ),
}


def _relative_adjust(lang: str):  # type: ignore[no-untyped-def]
    """A relative earlier in the same clause (``"Tío materno fallecido a los 60 años"``) lowers the score:
    the age is probably not the patient's (MEDDOCAN annotates only the patient's age)."""
    rx = re.compile(_LANG[lang].relatives, re.IGNORECASE)
    clause_end = re.compile(r"[.;\n]")

    def adjust(text: str, start: int, end: int) -> float:
        lo = max(0, start - 60)
        window = text[lo:start]
        cut = max((m.end() for m in clause_end.finditer(window)), default=0)
        return -0.45 if rx.search(window, cut) else 0.0

    return adjust


# suffixed compact forms: "45-year-old", "45-jarige", "45-årig", "45-jährige"
_COMPACT: dict[str, str] = {
    "en": r"(?:-|\s{1,2})(?:years?|yrs?|months?|mos?|weeks?|wks?|days?)(?:-|\s{1,2})old\b",
    "nl": r"(?:(?:-|\s)?(?:jarige|jarig)|(?:-|\s{1,2})(?:maanden|weken|dagen)(?:-|\s{1,2})oude)\b",
    "sv": r"(?:-|\s)?(?:åriga|årige|åringen|åring|årig|månaders|veckors|dagars)\b",
    "de": r"(?:-|\s)?(?:j(?:ä|ae|a)hrig(?:en|er|es|e)?|monatigen|monatiger|monatige|monatig|"
          r"wöchigen|wöchiger|wöchige|wöchig)\b",
}


_LEADING_NUMBER = re.compile(r"\d{1,3}")


def _validator(s: str) -> bool:
    m = _LEADING_NUMBER.match(s)
    return m is None or int(m.group()) <= 125


@memo
def age_patterns(lang: str) -> tuple[RulePattern, ...]:
    """The age patterns of ``lang``, most specific first. Each pattern's PHI group is the number + unit."""
    if lang not in _LANG:
        raise ValueError(f"unsupported language {lang!r}; expected one of: {', '.join(LANGUAGES)}")
    spec = _LANG[lang]
    IC = re.IGNORECASE
    digits = r"(?<![\w.,])\d{1,3}(?![.,]\d)"
    spelled = rf"\b{spec.number_words}(?!\w)"
    num = rf"(?:{digits}|{spelled})"
    unit_any = rf"(?:{spec.years}|{spec.other_units})"
    more = (rf"(?:(?:\s{{1,2}}(?:{spec.and_word})|,)\s{{1,2}}{num}\s{{0,2}}(?:{spec.other_units})(?!\w))?"
            rf"(?:\s{{1,2}}{spec.half}\b)?")

    def expr(first: str = num, units: str = unit_any) -> str:
        """``70 años``, ``1 año y 5 meses``, ``tres meses y medio``."""
        return rf"{first}\s{{0,2}}(?:{units})(?!\w){more}"

    out: list[RulePattern] = [
        # "Edad: 70 años", "Edad: 70", "Edad: 35 A", "Age: 45", "Alter: 45 J."
        RulePattern("age_field", first="letter",
                    regex=rf"\b(?:{spec.field_labels})\s{{0,3}}[:=]\s{{0,5}}"
                          rf"({num}(?:\s{{0,3}}(?:{unit_any}|a\b)(?!\w))?{more})",
                    score=0.95, flags=IC, group=1, validator=_validator,
                    context=Context.of(neg_before=("su", "sus", "para", "mi", "la", "esta", "dicha", "his", "her",
                                                   "their", "for", "zijn", "haar", "hans", "hennes", "sein", "ihr"),
                                       n_before=2, penalty=0.5)),
    ]
    if lang in _COMPACT:
        out += [RulePattern("age_compact", first="digit", regex=digits + _COMPACT[lang], score=0.9, flags=IC,
                            validator=_validator),
                RulePattern("age_compact_spelled", first="letter", regex=spelled + _COMPACT[lang], score=0.9,
                            flags=IC)]
    if lang == "en":
        out += [
            RulePattern("age_yo", first="digit",
                        regex=digits + r"\s{0,2}(?:yo|y/o|y\.o\.?|yr\.?\s?old|yrs\.?\s?old)(?!\w)",
                        score=0.9, flags=IC, validator=_validator),
            # "turned 60", "I'll turn 23", "turned 64 last week": a bare number after a birthday verb, not followed
            # by a unit ("turned 90 degrees", "turn 2 times")
            RulePattern("age_turned", first="letter",
                        regex=r"\b(?:turned|turning|turns|turn)\s{1,2}(\d{1,3})(?![.,]?\d)(?!\s{0,2}(?:%|/|°|"
                              r"(?:degrees?|percent|times|points?|mg|ml|units?|min|minutes?|hours?|hrs?|days?|"
                              r"weeks?|months?|o'clock|pm|am|to|into|out)\b))",
                        score=0.8, flags=IC, group=1, validator=_validator),
            # "She is 82.", "when he was 64 he moved", "the patient is now 71, lives alone": a person subject, a
            # copula and a bare number that ends the clause ("he was 5 minutes late" has a unit: not an age)
            RulePattern("age_copula", first="letter",
                        regex=r"\b(?:he|she|who|the\s{1,2}patient|patient|pt\.?)(?:\s{1,2}(?:is|was|'s)|['’]s)\s{1,2}"
                              r"(?:now\s{1,2}|only\s{1,2}|just\s{1,2}|also\s{1,2})?(\d{1,3})"
                              r"(?=\s{0,2}(?:[.,;:)!?]|\r?\n|\Z|(?:and|when|he|she|at|in|but)\b))",
                        score=0.75, flags=IC, group=1, validator=_validator),
            # "Mr. Lane, 93, was admitted", "Theodora Vance, 91, lives alone": an age over 89 in apposition after
            # an honorific and a name or after two capitalised name words; only 90-119 (an age under 90 is no
            # identifier under Safe Harbor, and a value in a list of labs has no name before its comma)
            RulePattern("age_apposition_en", first="letter",
                        regex=r"(?:\b(?:Mr|Mrs|Ms|Miss|Mx)\.?[ \t]{1,2}(?:[A-Z][\w'’-]{1,30}[ \t]{1,2}){0,2}"
                              r"|\b[A-Z][a-z'’-]{1,30}[ \t]{1,2}(?:[A-Z]\.[ \t]{1,2})?"
                              r"(?:[A-Z][a-z'’-]{1,30}[ \t]{1,2})?)"
                              r"[A-Z][\w'’-]{1,30},[ \t]{1,2}(9\d|1[01]\d)"
                              r"(?=[ \t]{0,2}[,;)]|[ \t]{1,2}(?:was|is|who|with|lives|presents|presented|and)\b)",
                        score=0.8, group=1, validator=_validator),
            RulePattern("age_aged", first="letter",
                        regex=rf"\b(?:aged|age|at\s{{1,2}}(?:the\s{{1,2}})?age\s{{1,2}}of)\s{{1,3}}"
                              rf"({num}(?:\s{{0,2}}{unit_any}(?!\w))?)",
                        score=0.85, flags=IC, group=1, validator=_validator),
        ]
    if lang == "es":
        out += [
            # "a los 34 años" is an age; "a los 3 años de la cirugía" is not
            RulePattern("age_at", first="letter",
                        regex=rf"\b(?:a|desde|hasta|con)\s{{1,2}}los\s{{1,2}}({expr(units=spec.years)})",
                        score=0.65, flags=IC, group=1, validator=_validator,
                        context=Context.of(neg_after_rx=spec.duration_after, penalty=0.4),
                        adjust=_relative_adjust(lang)),
            # "a los 7 meses de edad" is an age; "a los 3 meses" (later) is not
            RulePattern("age_at_months", first="letter",
                        regex=rf"\b(?:a|desde|hasta|con)\s{{1,2}}(?:los|las)\s{{1,2}}({expr()})",
                        score=0.3, flags=IC, group=1, validator=_validator,
                        context=Context.of(after_rx=spec.age_after, neg_after_rx=spec.duration_after,
                                           boost=0.4, penalty=0.4),
                        adjust=_relative_adjust(lang)),
            RulePattern("age_of_edad", first="letter", regex=rf"\bedad\s{{1,2}}de\s{{1,2}}({expr()})",
                        score=0.85, flags=IC, group=1, validator=_validator),
            # "edad 38 años", "Edad 45 ," (no colon: the field pattern's): the number, with its unit when one follows
            RulePattern("age_edad", first="letter",
                        regex=rf"\bedad[ \t]{{1,2}}({num}(?:[ \t]{{0,2}}{unit_any}(?!\w){more}"
                              r"|(?![.,]?\d)(?![ \t]{0,2}(?:%|/|[^\W\d_]))))",
                        score=0.85, flags=IC, group=1, validator=_validator),
            *_es_apposition_patterns(digits, spec.years),
        ]
    at = {"de": r"alter\s{1,2}von", "nl": r"leeftijd\s{1,2}van", "sv": r"ålder(?:n)?\s{1,2}(?:av\s{1,2})?"}
    if lang in at:
        out.append(RulePattern("age_at", first="letter", regex=rf"\b{at[lang]}\s{{1,2}}({expr()})", score=0.85,
                               flags=IC, group=1, validator=_validator))
    if lang == "de":
        out += _german_patterns(digits)
    if lang == "nl":
        out += _dutch_patterns(digits)
    if lang in _CHILDREN_AGES:
        out += _children_ages(lang)
    out += _apposition_patterns(lang)
    ctx = Context.of(neg_before=spec.duration_before, before_rx=spec.person_before, after_rx=spec.age_after,
                     neg_after_rx=spec.duration_after, n_before=2, boost=0.45, penalty=0.45)
    # (Dutch notes mark every person's age, a relative's too: "dochter van 14 jaar")
    rel = _relative_adjust(lang) if lang != "nl" else None
    if lang in ("nl", "sv"):  # "een 6,5 jaar oud meisje", "2,5 år gammal": a decimal age (not a decimal duration)
        out.append(RulePattern("age_unit_decimal", first="digit",
                               regex=expr(r"(?<![\w.,])\d{1,2}[.,]\d(?![.,]?\d)", spec.years), score=0.3, flags=IC,
                               validator=_validator, context=ctx, adjust=rel))
    out += [RulePattern("age_unit", first="digit", regex=expr(digits), score=0.3, flags=IC, validator=_validator,
                        context=ctx, adjust=rel),
            RulePattern("age_unit_spelled", first="letter", regex=expr(spelled), score=0.3, flags=IC, context=ctx,
                        adjust=rel)]
    return tuple(out)


#: a person in the line before an age in apposition: an honorific, a patient word, or a line that starts with
#: two to four capitalised words and a comma ("Elsa Nyberg, 151202-3787, 8 år"; one word is not enough in
#: German, where every noun is capitalised: "Nikotinabusus, 30 Jahre")
_PERSON_LINE: dict[str, re.Pattern[str]] = {
    lang: re.compile(rf"(?<![\w.])(?:{words})(?![\w])|^[ \t]{{0,4}}[A-ZÄÖÜÅ][\w'’-]{{1,30}}"
                     rf"(?:[ \t]{{1,2}}[A-ZÄÖÜÅ][\w'’-]{{1,30}}){{1,3}},", re.MULTILINE)
    for lang, words in {
        "de": r"Herrn?|Frau|Hr\.|Fr\.|Pat\.|Patientin|Patient|Patienten|Name|Patient:|Geboren|geboren|geb\.",
        "nl": r"[Dd]hr\.?|[Mm]evr\.?|[Mm]w\.?|[Mm]evrouw|[Mm]eneer|[Dd]e[ \t]heer|[Pp]ati[ëe]nte?|[Pp]t\.?|[Pp]at\.?"
              r"|Naam|[Ee]chtgeno(?:o|t)te?|[Zz]oon|[Dd]ochter|[Kk]ind|[Bb]aby|[Vv]ader|[Mm]oeder|[Pp]artner"
              r"|[Cc]li[ëe]nte?|Betreft|[Bb]roer(?:tje)?|[Zz]us(?:je)?|[Kk]lein(?:zoon|dochter)|[Oo]pa|[Oo]ma"
              r"|[Gg]eboren|[Gg]eb\.",
        "sv": r"[Pp]at\.?|[Pp]atient(?:en)?|[Hh]err|[Ff]ru|Namn|[Bb]arnet|[Hh]ustrun|[Mm]aken|[Mm]akan|[Ss]onen"
              r"|[Dd]ottern|[Mm]annen|[Kk]vinnan|[Ss]ambon",
    }.items()
}
_AGE_UNIT: dict[str, str] = {"de": r"Jahre|Jahren|J\.|J(?![\w.])|Lj\.", "nl": r"jaar|jr\.?", "sv": r"år|år\.|å\."}


#: a Dutch child or relative word right before an age in parentheses ("een zoon (12)", "broertje (4)")
_NL_KIN_PAREN = re.compile(r"(?<![\w])(?:zoon|zoontje|dochter|dochtertje|broer|broertje|zus|zusje|kind|kleinzoon"
                           r"|kleindochter|neef|nicht)[ \t]?\([ \t]?\Z")
#: the word right before an age in parentheses, and the German kinship nouns that may stand there
_DE_WORD_BEFORE_PAREN = re.compile(r"([A-ZÄÖÜ][\w'’-]{1,30})[ \t]?\([ \t]?\Z")
_DE_KIN_PAREN = re.compile(r"Tochter|Sohn|Bruder|Schwester|Enkel|Enkelin|Kind|Kinder|Mutter|Vater|Ehefrau|Ehemann"
                           r"|Partner|Partnerin|Neffe|Nichte|Cousin|Cousine")


def _apposition_patterns(lang: str) -> list[RulePattern]:
    """An age after a person's name: in apposition (``Konrad Mühlbauer, 66 Jahre``, ``Mevrouw de Groot, 83
    jaar, werd``, ``Rune Ekström, 88 år, på``) or in parentheses (``Hauschild (87 J.)``, ``Smit (71 jr)``,
    ``Mevr. Anouk Brouwer (23)``); German, Dutch and Swedish. Scored 0.3 and raised to 0.8 only when the line
    before names a person (an honorific, a patient word, or a line that starts with a name and a comma), so
    durations in lists ("Nikotinabusus, 30 Jahre") stay out; a bare number in parentheses also needs a
    capitalised word right before the parenthesis."""
    if lang not in _AGE_UNIT:
        return []
    person = _PERSON_LINE[lang]
    unit = _AGE_UNIT[lang]

    def person_before(text: str, start: int, end: int) -> float:
        lo = max(0, start - 100)
        line = text.rfind("\n", lo, start) + 1 or lo
        if person.search(text, line, start) is not None:
            return 0.5
        if lang == "de":  # German: a first name of the lists or a kinship noun right before the parenthesis
            w = _DE_WORD_BEFORE_PAREN.search(text, max(0, start - 34), start)  # ("Noah (11 Jahre)", "Tochter (9)")
            if w is not None and (fold(w.group(1)) in name_sets("de")[0] or _DE_KIN_PAREN.fullmatch(w.group(1))):
                return 0.5
        return 0.0

    bare_before = re.compile(r"[A-ZÄÖÜÅ][\w'’-]{1,30}[ \t]?\([ \t]?\Z")

    def bare_adjust(text: str, start: int, end: int) -> float:
        if lang == "nl" and _NL_HONORIFIC_NAME_PAREN.search(text, max(0, start - 80), start) is not None:
            return 0.5  # "mw. bets van der meer (88)": a name in lower case after an honorific
        if lang == "nl" and _NL_KIN_PAREN.search(text, max(0, start - 20), start) is not None:
            return 0.5  # "een zoon (12) en een dochter (9)"
        if bare_before.search(text[max(0, start - 34):start]) is None:
            return 0.0
        return person_before(text, start, end)

    return [
        RulePattern("age_apposition", first="digit",
                    regex=rf"(?<=,[ \t])\d{{1,3}}[ \t]{{0,2}}(?:{unit})"
                          rf"(?=[ \t]{{0,2}}(?:[,;)]|\.?[ \t]*(?:\r?\n|\Z)|\.[ \t]))",
                    score=0.3, validator=_validator, adjust=person_before),
        RulePattern("age_parenthesis", first="digit",
                    regex=rf"(?<=\()[ \t]?\d{{1,3}}[ \t]{{0,2}}(?:{unit})[ \t]?(?=\))",
                    score=0.3, validator=_validator, adjust=person_before),
        RulePattern("age_parenthesis_bare", first="digit", regex=r"(?<=\()\d{1,3}(?=\))", score=0.3,
                    validator=_validator, adjust=bare_adjust),
    ]


#: a person before a Spanish age in apposition: a patient or person word, an honorific ("Paciente Juan García,
#: 45 años,", "la Sra. Ruiz, 70 años,", "mujer, 44 años,")
_ES_PERSON_CUE = re.compile(rf"(?<![\w.])(?:{_ES_PERSONS}|sra?\.|srta\.|dña\.?|dª|don|doña)(?![\w])", re.IGNORECASE)
#: a sentence end (not the dot of an honorific or of an initial: "Sr. J. García, 45 años")
_ES_SENTENCE_END = re.compile(r"(?<![Ss]r)(?<![Ss]ra)(?<![Ss]rta)(?<!Dña)(?<!Dra)(?<!Dr)(?<!\b[A-ZÁÉÍÓÚÑ])"
                              r"(?<=[^\W\d_])[.!?](?=\s)"
                              r"|(?<=[\d)\]])[.!?](?=\s)|[;\n]")
#: two to four capitalised words (particles between them) right before ", 45 años": a name when one of them but the
#: last is a known first name ("Juan García López, 45 años")
_ES_CAPITALISED = re.compile(r"[A-ZÁÉÍÓÚÑÜ][\w'’-]{1,30}")
_ES_NAME_RUN = re.compile(r"(?<![\w'’-])([A-ZÁÉÍÓÚÑÜ][\w'’-]{1,30})(?:[ \t]{1,2}(?:(?:de|del|de[ \t]la|y)[ \t]{1,2})?"
                          r"[A-ZÁÉÍÓÚÑÜ][\w'’-]{1,30}){1,3}[ \t]{0,2},[ \t]{0,2}\Z")


def _es_person_before(text: str, start: int, end: int) -> float:
    """+0.5 when the sentence before a Spanish age in apposition names a person: a person word or honorific
    (:data:`_ES_PERSON_CUE`), or a run of capitalised words ending at the comma whose first word is a known first
    name; 0 otherwise ("Diabetes Mellitus, 10 años" is no person)."""
    lo = max(0, start - 120)
    cut = max((m.end() for m in _ES_SENTENCE_END.finditer(text, lo, start)), default=lo)
    if _ES_PERSON_CUE.search(text, cut, start) is not None:
        return 0.5
    m = _ES_NAME_RUN.search(text, cut, start)
    if m is not None:
        first = name_sets("es")[0]
        words = _ES_CAPITALISED.findall(m.group())
        if any(fold(w) in first for w in words[:-1]):  # "Ingresa Juan García López, 45 años"
            return 0.5
    return 0.0


def _es_apposition_patterns(digits: str, years: str) -> list[RulePattern]:
    """A Spanish age in apposition after the person it is of, as MEDDOCAN annotates the patient's age
    (``EDAD_SUJETO_ASISTENCIA``): ``"Paciente Juan García López, 45 años, ingresó"``, ``"Paciente mujer, 44 años,
    derivada"``, ``"la Sra. Ruiz, 70 años."``. The number and its year unit right after ``", "`` and before ``,``
    ``;`` ``)`` or a sentence end (so ``"En la actualidad, 16 años después"`` is left: a duration), scored 0.3 and
    raised to 0.8 only when the same sentence names a person before it (:func:`_es_person_before`)."""
    return [RulePattern("age_apposition", first="digit",
                        regex=rf"(?<=,[ \t]){digits}[ \t]{{0,2}}(?:{years})(?!\w)"
                              r"(?=[ \t]{0,2}(?:[,;)]|\.?[ \t]*(?:\r?\n|\Z)|\.[ \t]))",
                        score=0.3, flags=re.IGNORECASE, validator=_validator, adjust=_es_apposition_adjust)]


_ES_RELATIVE = _relative_adjust("es")


def _es_apposition_adjust(text: str, start: int, end: int) -> float:
    """:func:`_es_person_before`, less 0.45 for a relative earlier in the clause ("su madre, 70 años,": MEDDOCAN
    annotates only the patient's age)."""
    return _es_person_before(text, start, end) + _ES_RELATIVE(text, start, end)


#: a person noun right after a German age ("50-j. Patientin", "45 J. Mann")
_DE_PERSON_AFTER = (r"(?=[ \t]{1,2}(?:(?i:patient|patientin|mann|frau|junge|mädchen|kind|säugling|herr|dame|"
                    r"männlich|weiblich)\b|(?i:pat|pt)\.))")
#: a bare number that is no age: a unit, a sign or a decimal after it ("Alter von 57 kg" is no letter's German)
_DE_NO_UNIT = (r"(?![.,]?\d)(?![ \t]{0,2}(?:[%°/+x×*]|(?i:mg|g|kg|µg|mcg|ml|l|mmol|cm|mm|m|mmhg|ie|einheiten|"
               r"stück|mal|min|std|h|tage?n?|wochen?|monate?n?|jahre?n?|j)(?![^\W\d_])))")


def _german_patterns(digits: str) -> list[RulePattern]:
    """German ages the generic patterns miss; the span is the number (as GraSCCo marks it): "50-j. Patientin" (the
    abbreviated unit needs a person noun after it: "10-j. Überleben" is a rate), "im Alter von 57" (no unit),
    "Vater mit 57 an Pankreas-Ca verstorben", "Mutter mit 101 verstorben" (a relative, "mit" and the number before
    a word of dying or falling ill: "Vater mit 2 Stents" is no age)."""
    relatives = _LANG["de"].relatives
    return [
        RulePattern("age_j_person", first="digit", regex=rf"({digits})(?:-|[ \t])?[jJ]\.{_DE_PERSON_AFTER}",
                    score=0.85, group=1, validator=_validator),
        RulePattern("age_at_bare", first="letter", regex=rf"(?i:\balter[ \t]{{1,2}}von)[ \t]{{1,2}}({digits})"
                    + _DE_NO_UNIT, score=0.8, group=1, validator=_validator),
        RulePattern("age_relative_with", first="letter",
                    regex=rf"(?i:{relatives}|\b(?:patient|patientin|pat\.|er|sie))[ \t]{{1,2}}"
                          rf"(?:(?i:ist|war|wurde|verstarb|starb|erkrankte)[ \t]{{1,2}})?(?i:mit)[ \t]{{1,2}}"
                          rf"({digits})(?=[ \t]{{1,2}}(?i:an|am|verstorben|gestorben|verstarb|verst\.|erkrankt|"
                          rf"erkrankte|erblindet|dement|Jahren)(?![^\W\d_]))",
                    score=0.8, group=1, validator=_validator),
        # "Erste Episode mit 19 Jahren", "Vater ... mit 58 Jahren verstorben" (a duration is "seit" / "vor" /
        # "für 19 Jahre(n)"; "mit 3 Jahren Laufzeit" has a noun after it), "im 60. Lebensjahr", "seit dem 14. Lj."
        RulePattern("age_with_years", first="letter", regex=rf"(?i:\bmit)[ \t]{{1,2}}({digits})[ \t]{{1,2}}"
                    r"(?i:jahren)(?![^\W\d_])(?![ \t]{1,2}[A-ZÄÖÜ][a-zäöüß])",  # not "mit 3 Jahren Laufzeit"
                    score=0.8, group=1, validator=_validator),
        RulePattern("age_life_year", first="letter",
                    # (a possessive too: "seit ihrem 4. Lebensjahr", "bis zu seinem 57. Lebensjahr")
                    regex=rf"(?i:\b(?:im|ab[ \t]{{1,2}}dem|seit[ \t]{{1,2}}dem|bis[ \t]{{1,2}}zum|vor[ \t]{{1,2}}dem"
                          rf"|nach[ \t]{{1,2}}dem"
                          rf"|(?:seit|ab|bis[ \t]{{1,2}}zu|vor|nach|in)[ \t]{{1,2}}(?:ihrem|seinem)))"
                          rf"[ \t]{{1,2}}({digits})\.[ \t]{{0,2}}(?i:lebensjahr(?:es|s)?|lj\.)",
                    score=0.85, group=1, validator=_validator),
        # the age opening a history's field ("Anamnese: 72 J., ECOG 1")
        RulePattern("age_history_field", first="letter",
                    regex=rf"(?i:\b(?:anamnese|pat\.|patientin|patient))[ \t]{{0,2}}:[ \t]{{0,2}}({digits})[ \t]?J\."
                          r"(?=[ \t]?[,;])",
                    score=0.8, group=1, validator=_validator),
    ]


#: the second number of a German compound age ("3 Jahre und 8 Monate")
_DE_AND_NUMBER = re.compile(r"[ \t]und[ \t]{1,2}(\d{1,2})(?![\d.,])")


#: an honorific, then one to five words in any case (a name typed in lower case) and an opening parenthesis
_NL_HONORIFIC_NAME_PAREN = re.compile(
    r"(?<![\w.])(?i:dhr|mevr|mw|mevrouw|meneer)\.?[ \t]{1,2}(?:[^\W\d_][\w.'’-]{0,30}[ \t]{1,2}){0,4}"
    r"[^\W\d_][\w'’-]{1,30}[ \t]?\([ \t]?\Z")
#: count nouns after a Dutch ordinal that make it no age ("zijn 3e poging", "haar 2e zwangerschap")
_NL_ORDINAL_NOUNS = (r"keer|maal|poging|pogingen|kuur|kuren|cyclus|zwangerschap|graviditeit|partus|bevalling|kind|"
                     r"operatie|opname|behandeling|lijn|dosis|gift|week|dag|maand|jaar|plaats|rij|ronde|sessie|"
                     r"consult|afspraak|episode|recidief|infarct|cva|lijns|graads|graad")


def _dutch_patterns(digits: str) -> list[RulePattern]:
    """Dutch ages the generic patterns miss; the span is the number: an ordinal after a possessive ("sinds zijn
    40e", "vanaf haar 16de", "op z'n 65ste"; not "zijn 3e poging"), and both numbers of "(5 jaar en 5 maanden)"
    right after a person's line (an honorific, a patient or client word, "Betreft")."""
    person = _PERSON_LINE["nl"]

    def person_line(text: str, start: int, end: int) -> float:
        lo = max(0, start - 100)
        line = text.rfind("\n", lo, start) + 1 or lo
        return 0.5 if person.search(text, line, start) is not None else 0.0

    years_months = r"(?:jaar|jr\.?)[ \t]{1,2}en[ \t]{1,2}"
    return [
        RulePattern("age_ordinal_nl", first="letter",
                    regex=rf"\b(?i:sinds|vanaf|op|rond|na|voor|vóór|tot|tussen|van)[ \t]{{1,2}}"
                          rf"(?i:zijn|haar|z'n|d'r|mijn|hun)[ \t]{{1,2}}({digits})(?:e|ste|de)(?![\w])"
                          rf"(?![ \t]{{1,2}}(?i:{_NL_ORDINAL_NOUNS})(?![\w]))",
                    score=0.75, group=1, validator=_validator),
        RulePattern("age_parenthesis_years_nl", first="digit",
                    regex=rf"(?<=\()({digits})(?=[ \t]{{0,2}}{years_months}\d{{1,2}}[ \t]{{0,2}}(?:maanden|mnd)\))",
                    score=0.3, group=1, validator=_validator, adjust=person_line),
        RulePattern("age_parenthesis_months_nl", first="letter",  # (starts at "jaar": the years' match ends there)
                    regex=rf"(?<=\(\d[ \t]|\d\d[ \t])(?<!\d\d\d[ \t]){years_months}(\d{{1,2}})"
                          rf"(?=[ \t]{{0,2}}(?:maanden|mnd)\))",
                    score=0.3, group=1, validator=_validator, adjust=person_line),
    ]


#: children (or grandchildren) words, the joiners and the unit of their ages ("Kinderen van 8 en 11 jaar", "zwei
#: Kinder (8 und 4 Jahre)"), and the words of a duration before the first number ("seit 3 und 5 Jahren")
_CHILDREN_AGES = {
    "nl": (r"kinderen|kind|zonen|zoons|dochters|kleinkinderen", ("en", ","), r"jaar|jr\.?", r"sinds|geleden|na|voor"),
    "de": (r"kinder|kind|söhne|töchter|enkel|enkelkinder", ("und", ","), r"jahre|jahren|j\.", r"seit|vor|nach|für"),
}


def _children_ages(lang: str) -> list[RulePattern]:
    """Both ages of two children written as a list ("Kinderen van 8 en 11 jaar", "twee kinderen (6 en 9 jaar)",
    "Mutter zweier Kinder (8 und 4 Jahre)"): each number is an age, when a children's word comes shortly before."""
    kids, joins, unit, duration = _CHILDREN_AGES[lang]
    kids_rx = re.compile(rf"(?i:\b(?:{kids}))\b[^.\n;]{{0,25}}\Z")
    join = "|".join(joins)
    duration_rx = re.compile(rf"(?i:\b(?:{duration}))[ \t]{{1,2}}\d{{0,2}}[ \t]{{0,2}}(?:{join})?[ \t]{{0,2}}\Z")

    def after_kids(text: str, start: int, end: int) -> float:
        lo = max(0, start - 45)
        if duration_rx.search(text, lo, start) or not kids_rx.search(text, lo, start):
            return 0.0
        return 0.45

    # (after the word only: "geb. 19.07.1944, 79 J." is the age pattern's)
    second_lb = "|".join(rf"(?<=\d[ \t]{j}[ \t])" for j in joins if j != ",")
    return [
        RulePattern("age_children_first", first="digit", regex=rf"(?<![\w.,])\d{{1,2}}(?=[ \t]{{0,2}}(?i:{join})"
                    rf"[ \t]{{1,2}}\d{{1,2}}[ \t]{{1,2}}(?i:{unit})(?![\w]))", score=0.3, adjust=after_kids,
                    validator=_validator),
        RulePattern("age_children_second", first="digit", regex=rf"(?:{second_lb})(\d{{1,2}})"
                    rf"(?=[ \t]{{1,2}}(?i:{unit})(?![\w]))", score=0.3, group=1, adjust=after_kids,
                    validator=_validator),
    ]


def _number_only(lang: str):  # type: ignore[no-untyped-def]
    spec = _LANG[lang]
    rx = re.compile(rf"\d{{1,3}}(?:[.,]\d(?!\d))?|(?:{spec.number_words})(?!\w)", re.IGNORECASE)

    def trim(text: str, spans: list[Span]) -> list[Span]:
        out = []
        for s in spans:
            m = rx.match(text, s.start, s.end)
            out.append(Span(s.start, m.end(), s.label, s.source, s.score) if m else s)
            if m and lang == "de":  # "[2] Jahre und [4] Monate": each number, as GraSCCo marks them
                more = _DE_AND_NUMBER.search(text, m.end(), s.end)
                if more is not None:
                    out.append(Span(*more.span(1), s.label, s.source, s.score))
        return out

    return trim


@memo
def _age_recognizer(lang: str, min_score: float, include_unit: bool) -> RuleRecognizer:
    return RuleRecognizer("age", "AGE", age_patterns(lang), min_score=min_score,
                          postprocess=None if include_unit else _number_only(lang))


def recognizers(lang: str, *, min_score: float = 0.5, include_unit: bool | None = None) -> list[Detector]:
    """The age recognizer of ``lang``.

    ``include_unit`` (default: per language, ``False`` for English, ``True`` otherwise) decides whether the span
    is ``"70 años"`` or ``"70"``.
    """
    if lang not in _LANG:
        raise ValueError(f"unsupported language {lang!r}; expected one of: {', '.join(LANGUAGES)}")
    unit = _LANG[lang].include_unit if include_unit is None else include_unit
    return [_age_recognizer(lang, min_score, unit)]
