"""Layouts and phrasings of German, Dutch and Swedish clinical letters and notes (``de``, ``nl``, ``sv``).

:class:`LetterLayoutRecognizer` finds, without any gazetteer:

* the town of a ``postcode Town`` line (``90530 Wendelstein``, ``3026 HB Rotterdam``, ``413 45 Göteborg``,
  ``D-04177 Leipzig``) in an address context (the postcode starts its line or follows a comma, a bar, a middle
  dot, a dash, a street or "in" / "te" / "i"): ``LOCATION.CITY`` 0.75, and the postcode itself
  (``LOCATION.ZIP`` 0.7, without a country prefix such as ``D-``); one to three capitalised words, with
  connectors (``Frankfurt am Main``, ``Halle (Saale)``), never starting with a common word;
* the town of a letter's place-and-date line (``Wendelstein, den 17.03.2021``, ``Utrecht, 3 mei 2023``,
  ``Göteborg, 2023-03-09``; the comma is required): ``LOCATION.CITY`` 0.7;
* ward and room identifiers after a ward or room word: ``Station 4B``, ``Station 7 Nord``, ``Intensivstation
  ITS 2``, ``verpleegafdeling C3``, ``Afdeling: B4 Oost``, ``avd. 34``, ``Avdelning 7`` (``LOCATION.DEPARTMENT``
  0.75) and ``Zimmer 712``, ``kamer 214``, ``sal 3`` (``LOCATION.ROOM`` 0.75); the identifier must hold a digit
  (``afdeling Cardiologie`` is a specialty, not a ward); a German ward named after a person (``Station
  Laennec``) is taken when the word is not a common word or a specialty (0.6);
* in Dutch and Swedish (nouns in lower case), one or two capitalised words after a place preposition (``in``,
  ``te``, ``uit``, ``naar``; ``i``, ``från``, ``till``): ``vårdcentralen i Holmsund``, ``woont te Amersfoort``
  (``LOCATION.CITY`` 0.6), unless the word is common, allowed (an eponym), a known first name or surname
  (``naar Anna``) or in capitals (``naar SEH``);
* relatives' first names after a kinship noun (``Tochter Gabi``, ``zijn vrouw Truus``, ``sonen Lars``):
  ``NAME.RELATIVE`` 0.7; the word must not be a common word or a kinship noun of the language, and in German
  (where every noun is capitalised) it must be a known first name or surname.

For German, :class:`GermanLetterCueRecognizer` adds the names and places that no list holds, found by the letter's
own cues (patient and staff cues, titles, birth markers, practices, hospital heads, "wohnhaft", Swiss cantons), and
the letter-layout recognizer takes the addressee's name line above the street line of an address block.

The ward identifier and the town are the spans; the ward / room word, the postcode label and the date are not.
All regexes are bounded and start with a digit class, a line start or (the cue families, joined in one
alternation) a word start that the engine's word-start scan skips to; matching is linear in the text
(``tests/test_rules_multilingual.py`` does not time it; ~1 s per MB of adversarial input was measured by hand).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from clinanon.caches import memo
from clinanon.detect.allowlist import allowlist_for
from clinanon.detect.engine import finditer_word_start, word_start_scan
from clinanon.detect.gazetteer import context_city_keys
from clinanon.document import Document, Span
from clinanon.lang.fold import fold
from clinanon.lang.lexicon import ANATOMY_DE, common_lexicon, common_words, drug_words
from clinanon.lang.wordlists import load_rows

__all__ = ["LANGS", "SPECIALTY", "GermanLetterCueRecognizer", "LetterLayoutRecognizer", "recognizers"]

LANGS: frozenset[str] = frozenset({"de", "nl", "sv"})

_UP = "A-ZÄÖÜÅÉÈÀÁÓÚÍÇØÆ"
_LO = "a-zäöüåéèàáóúíçøæß"
#: a capitalised place word ("Wendelstein", "Garmisch-Partenkirchen", "'s-Hertogenbosch")
_WORD = rf"(?:'s-)?[{_UP}][{_LO}][\w'’]{{0,30}}(?:-[{_UP}]?[\w'’]{{1,30}}){{0,2}}"
_CONNECT = {
    "de": r"am|an[ \t]der|an[ \t]dem|a\.[ \t]?d\.|im|in|bei|ob[ \t]der|auf[ \t]der|vor[ \t]der|(?:i\.|in[ \t]der)",
    "nl": r"aan[ \t]de|aan[ \t]den|op|en|bij|ter|ten|a/d",
    "sv": r"i|på|vid",
}
#: postcode shapes (each starts with a digit class, which the regex engine skips to); a country prefix
#: ("D-", "NL-", "SE-") is not part of the span
_POSTCODE = {
    # German 5 digits; Austrian and Swiss 4 digits after their country prefix ("A-2236", "CH-8001") or, without
    # it, before a town of the gazetteer ("9020 Klagenfurt": checked in LetterLayoutRecognizer.analyze)
    "de": r"[0-9]{5}|[1-9][0-9]{3}",
    "nl": r"[1-9][0-9]{3}[ \t]?(?!SA|SD|SS)[A-Z]{2}",
    "sv": r"[1-9][0-9]{2}[ \t][0-9]{2}",
}
#: what may come right before a postcode in an address line (besides a line start)
_PC_BEFORE = {
    "de": r"(?:[,;·•|–—/][ \t]{0,3}|\b(?:in|wohnhaft|aus)[ \t]{1,2})",
    "nl": r"(?:[,;·•|–—/][ \t]{0,3}|\b(?:te|in|wonende|uit)[ \t]{1,2})",
    "sv": r"(?:[,;·•|–—/][ \t]{0,3}|\b(?:i|boende|från)[ \t]{1,2})",
}
#: ward and room words (matched case-insensitively)
_WARD = {
    "de": r"station|normalstation|intensivstation|wachstation|stat\.|wohnbereich",
    "nl": r"verpleegafdeling|afdeling|afd\.|verpleegunit|unit",
    "sv": r"vårdavdelning|avdelning|avd\.?|vårdenhet",
}
_ROOM = {
    "de": r"zimmer|zi\.|zimmer-?nr\.?|raum|bettenzimmer",
    "nl": r"kamer|kamernummer|box|bednummer|bed",  # "bed 4": the bed of a ward's room
    "sv": r"sal|salen|rum|rummet|sal-?nr\.?",
}
_DIRECTION = {
    "de": r"Nord|Süd|Ost|West|Mitte|links|rechts|oben|unten|Nordflügel|Südflügel",
    "nl": r"Noord|Zuid|Oost|West|Midden|Links|Rechts|noord|zuid|oost|west",
    "sv": r"Norr|Söder|Öst|Väst|norra|södra|östra|västra",
}
#: an identifier with a digit: "4B", "7", "C3", "B4", "P2", "ITS 2", "1.12", "2-3"
_CODE = r"(?:[A-Z]{1,4}[ \t-]?)?\d{1,3}(?:[.-]\d{1,3})?[A-Za-z]?(?![\w-]|[.,:/]\d)"
#: prepositions after which a capitalised word is a place, in the languages that write nouns in lower case
_PLACE_PREP = {"nl": r"in|te|uit|naar|nabij|vanuit|gemeente|[Gg]emeente", "sv": r"i|från|till|utanför|nära"}
#: capitalised words after a place preposition that name a care setting ("naar Intensive Care")
_NOT_PLACES = frozenset({"intensive", "care", "medium", "high", "spoedeisende", "eerste", "hulp", "recovery",
                         "holding", "stroke", "unit", "cardiac", "coronary", "emergency", "ic", "icu", "ccu"})
#: a duration or count after a number: "afdeling 4 dagen" is not a ward
_DURATION_AFTER = re.compile(r"[ \t]{1,2}(?i:dagen|dag|weken|week|uur|uren|maanden|jaar|tage|tagen|tag|wochen|woche"
                             r"|stunden|monate|monaten|jahre|jahren|dagar|dygn|veckor|vecka|timmar|timme|månader|år"
                             r"|mg|ml|g|mal|keer|gånger|x)(?![\w])")
#: kinship nouns before a relative's first name
_KIN = {
    "de": r"Ehefrau|Ehemann|Gattin|Gatte|Tochter|Sohn|Mutter|Vater|Bruder|Schwester|Enkel|Enkelin|Enkeltochter"
          r"|Lebensgefährte|Lebensgefährtin|Partnerin|Partner|Nichte|Neffe|Schwiegertochter|Schwiegersohn|Betreuerin"
          r"|Betreuer|Nachbarin|Nachbar",
    "nl": r"vrouw|man|echtgenote|echtgenoot|dochter|zoon|moeder|vader|broer|zus|zuster|partner|kleinzoon"
          r"|kleindochter|schoonzoon|schoondochter|buurvrouw|buurman|vriendin|vriend|nicht|neef|mantelzorger",
    "sv": r"fru|frun|make|maken|maka|makan|hustru|hustrun|man|mannen|dotter|dottern|son|sonen|mor|modern|far|fadern"
          r"|bror|brodern|syster|systern|sambo|sambon|mamma|pappa|barnbarn|barnbarnet|granne|grannen|väninna|vän",
}
_KIN_WORDS = {lang: re.compile(rf"(?i:{kin})") for lang, kin in _KIN.items()}
#: German words after "Station" that name a specialty or a kind of ward, not a ward's own name
SPECIALTY = re.compile(r"(?i).*(?:logie|iatrie|chirurgie|medizin|therapie|pflege|ambulanz|aufnahme|station|"
                       r"einheit|bereich|intensiv\w*|innere|allgemein\w*|geriatrie|pädiatrie|gynäkologie|"
                       r"onkologie|psychosomatik|orthopädie|unfall\w*|notaufnahme)$")


@memo
def _common(lang: str) -> frozenset[str]:
    return common_words(lang)


@memo
def _known_names(lang: str) -> frozenset[str]:
    return frozenset(fold(r[0]) for kind in ("first_name", "surname") for r in load_rows(lang, kind))


#: the Swiss cantons' two-letter codes
_CH_CANTONS = ("AG|AI|AR|BE|BL|BS|FR|GE|GL|GR|JU|LU|NE|NW|OW|SG|SH|SO|SZ|TG|TI|UR|VD|VS|ZG|ZH")
#: what stands before a postcode that starts an address's last part: the line's start, a separator or a house number
_ADDRESS_BEFORE = re.compile(r"(?:^|[,·|•]|\d[a-z]?)[ \t]*(?:[A-Z]{1,2}-)?\Z", re.MULTILINE)
#: the end of a postcode line's town: the line's or sentence's end or a separator of a letter head ("90547 Stein ·
#: Tel.", "wohnhaft Hauptstraße 5, 90547 Stein. Er ...")
_TOWN_LINE_END = re.compile(r"[ \t]*(?:$|[,·|;]|\.(?:[ \t]|$))", re.MULTILINE)


@memo
def _regexes(lang: str) -> dict[str, re.Pattern[str]]:
    saint = r"(?:St\.[ \t]{0,2}|Sankt[ \t])?" if lang == "de" else ""  # "A-3340 St. Anna im Tal", "Sankt Gallen"
    # German qualifiers after a town's name: "Weiden i. d. OPf.", "Frankfurt a. M.", "Freiburg i. Br.",
    # "Lahr/Schwarzwald", a Swiss canton's code ("Wald ZH")
    qualifier = (rf"|[ \t](?:i|a|b)\.[ \t]?(?:d\.[ \t]?)?[{_UP}][\w]{{0,20}}\.?|/[{_UP}][{_LO}]{{2,20}}"
                 rf"|[ \t](?:{_CH_CANTONS})(?=[ \t]*(?:\r?\n|$|[,·|]))" if lang == "de" else "")
    place = (rf"{saint}{_WORD}(?:[ \t](?:(?:{_CONNECT[lang]})[ \t])?{_WORD}){{0,2}}"
             rf"(?:[ \t]\([{_UP}][\w.]{{1,20}}\){qualifier})?")
    date = (r"(?:\d{1,2}\.[ \t]?\d{1,2}\.[ \t]?\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}-\d{1,2}-\d{4}"
            r"|\d{1,2}\.?[ \t]{1,2}[^\W\d_]{3,12}\.?[ \t]{1,2}\d{4})")
    # German: a weekday may stand before the date ("Leipzig, Mi, 22.03.2023", "Graz, Montag, den 3.4.2023")
    date_lead = {"de": r"(?:(?:(?:Mo|Di|Mi|Do|Fr|Sa|So)\.?|Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag"
                       r"|Sonntag),[ \t]{1,2}(?:den[ \t]{1,2})?|(?:den|d\.|am)[ \t]{1,2})",
                 "nl": r"(?:de|d\.d\.)[ \t]{1,2}", "sv": r"(?:den)[ \t]{1,2}"}
    ward_code = rf"{_CODE}(?:[ \t](?:{_DIRECTION[lang]})(?![\w]))?"
    return {
        "postcode": re.compile(rf"(?P<pc>{_POSTCODE[lang]})(?![\w-])[ \t]{{1,3}}(?P<city>{place})(?![\w\-])"),
        "pc_before": re.compile(rf"(?:^|{_PC_BEFORE[lang]})[ \t]{{0,4}}(?:[A-Z]{{1,2}}-)?\Z", re.MULTILINE),
        # (a right-aligned date line of a letter head starts after many blanks)
        "place_date": re.compile(rf"(?m)^[ \t]{{0,60}}(?P<city>{place}),[ \t]{{0,3}}"
                                 rf"(?:{date_lead[lang]})?{date}[ \t.]{{0,2}}$"),
        # the cue families in one alternation (one scan of the word starts): wards need a digit in their code,
        # so a named ward ("Station Laennec") is tried after them; at most one family matches at a position
        "cues": re.compile(
            rf"(?<![\w])(?<!-)(?:"
            rf"(?i:{_WARD[lang]})[ \t]{{0,2}}:?[ \t]{{0,3}}(?i:(?:{_WARD[lang]})[ \t]{{0,2}})?(?P<ward>{ward_code})"
            rf"|(?i:{_ROOM[lang]})[ \t]{{0,2}}:?[ \t]{{0,3}}(?P<room>{_CODE})"
            rf"|{'Station' if lang == 'de' else 'x^'}[ \t]{{1,2}}(?P<named>[{_UP}][{_LO}]{{2,30}}"
            rf"(?:-[{_UP}][{_LO}]{{2,30}})?)(?![\w-])"
            rf"|(?:{_PLACE_PREP.get(lang, 'x^')})[ \t]{{1,2}}(?P<place>{_WORD}(?:[ \t]{_WORD})?)(?![\w-])"
            rf"|(?i:{_KIN[lang]})[ \t]{{1,2}}(?P<kin>[{_UP}][{_LO}][\w'’]{{1,30}}(?:-[{_UP}][{_LO}]{{1,30}})?)"
            rf"(?P<next>[ \t]{{1,2}}[{_UP}][{_LO}][\w'’-]{{1,30}})?(?![\w-])"
            rf")"),
    }


class LetterLayoutRecognizer:
    """Towns of postcode lines and place-date lines, ward and room identifiers, relatives after kinship nouns
    (see the module docstring); one language of :data:`LANGS`."""

    def __init__(self, lang: str) -> None:
        if lang not in LANGS:
            raise ValueError(f"unsupported language {lang!r}; expected one of: {', '.join(sorted(LANGS))}")
        self.lang = lang
        self.name = f"letters_{lang}"
        self._rx = _regexes(lang)
        self._scans = {"cues": word_start_scan(self._rx["cues"].pattern, self._rx["cues"].flags)}

    def __repr__(self) -> str:
        return f"LetterLayoutRecognizer(lang={self.lang!r})"

    def _place_words_ok(self, text: str, start: int, end: int) -> tuple[int, int] | None:
        """The place span without trailing common words; ``None`` when its first word is common."""
        common = _common(self.lang)
        words = [(m.start(), m.end()) for m in re.finditer(r"[\w'’.()-]+", text[start:end])]
        words = [(start + a, start + b) for a, b in words]
        if not words or text[words[0][0]:words[0][1]].casefold() in common:
            return None
        while words and text[words[-1][0]:words[-1][1]].casefold() in common:
            words.pop()
        return (words[0][0], words[-1][1]) if words else None

    def _iter(self, key: str, text: str) -> Iterator[re.Match[str]]:
        """``self._rx[key].finditer(text)``, scanning only the word starts that can begin a match."""
        scan = self._scans.get(key)
        rx = self._rx[key]
        return rx.finditer(text) if scan is None else finditer_word_start(scan, rx, text)

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        rx = self._rx
        if _DIGIT.search(text) is not None:
            for m in rx["postcode"].finditer(text):
                if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_"):
                    continue
                lo = max(0, m.start() - 30)
                line = text.rfind("\n", lo, m.start()) + 1 or lo
                if rx["pc_before"].search(text, line, m.start()) is None and not _after_street(text, m.start()):
                    continue
                ext = self._place_words_ok(text, *m.span("city"))
                if (ext is None and self.lang == "de" and _TOWN_LINE_END.match(text, m.end("city"))
                        and _ADDRESS_BEFORE.search(text, line, m.start())):
                    # a town that is a word ends an address: "90547 Stein" on its line or after a street's
                    # number and a separator ("Faberstraße 9 · 90547 Stein"); not "in 12345 Fällen"
                    ext = m.span("city")
                if self.lang == "de" and len(m.group("pc")) == 4 and not _de_four_digit_ok(text, m, ext):
                    continue
                if (self.lang == "de" and ext is not None and _de_count_noun(text, *ext)
                        and not _ADDRESS_BEFORE.search(text, line, m.start()) and not _after_street(text, m.start())):
                    continue  # "in 12345 Fällen", "aus 20000 Proben": a count before a noun, no address
                pc_start = m.start("pc")
                if self.lang == "de" and len(m.group("pc")) == 4:  # an Austrian or Swiss postcode keeps its
                    # country prefix ("A-2236", "CH-8001"; GraSCCo annotates it so); a German one does not ("D-")
                    pc_start -= next((len(p) for p in ("CH-", "A-") if text[max(0, pc_start - len(p)):pc_start]
                                      == p), 0)
                out.append(Span(pc_start, m.end("pc"), "LOCATION.ZIP", f"{self.name}:postcode", 0.7))
                if ext:
                    out.append(Span(*ext, "LOCATION.CITY", f"{self.name}:postcode_city", 0.75))
                if self.lang == "de":
                    out.extend(_de_street_lines(text, m.start(), m.end(), self.name))
            for m in rx["place_date"].finditer(text):
                ext = self._place_words_ok(text, *m.span("city"))
                if ext is None and self.lang == "de" and fold(m.group("city")) in _de_town_names():
                    ext = m.span("city")  # a listed town that is a word dates the letter: "Stein, 14.03.2024"
                if ext:
                    out.append(Span(*ext, "LOCATION.CITY", f"{self.name}:place_date", 0.7))
        common = _common(self.lang)
        known = _known_names(self.lang)
        for m in self._iter("cues", text):
            if m.group("ward") is not None or m.group("room") is not None:
                if _DURATION_AFTER.match(text, m.end()):
                    continue  # "op afdeling 4 dagen"
                key = "ward" if m.group("ward") is not None else "room"
                label = "LOCATION.DEPARTMENT" if key == "ward" else "LOCATION.ROOM"
                out.append(Span(*m.span(key), label, f"{self.name}:{key}", 0.75))
            elif m.group("named") is not None:
                w = m.group("named")
                if w.casefold() not in common and not SPECIALTY.match(w):
                    out.append(Span(*m.span("named"), "LOCATION.DEPARTMENT", f"{self.name}:named_ward", 0.6))
            elif m.group("place") is not None:
                span = self._prep_place(text, m, common, known)
                if span is not None:
                    out.append(span)
            elif m.group("kin") is not None:
                span = self._relative(text, m, common, known)
                if span is not None:
                    out.append(span)
        return out

    def _prep_place(self, text: str, m: re.Match[str], common: frozenset[str],
                    known: frozenset[str]) -> Span | None:
        """The place after a place preposition, without a second word that is common or allowed."""
        allow = allowlist_for(self.lang)
        base = m.start("place")
        words = [(base + x.start(), base + x.end()) for x in _NON_SPACE.finditer(m.group("place"))]
        if len(words) == 2 and (text[words[1][0]:words[1][1]].casefold() in common
                                or allow.is_allowed(text[words[1][0]:words[1][1]])):
            words.pop()
        w = text[words[0][0]:words[0][1]]
        if (w.casefold() in common or w.casefold() in _NOT_PLACES or allow.is_allowed(w) or fold(w) in known
                or w.isupper()):
            return None
        if (self.lang == "nl" and text[m.start():m.start() + 3].casefold() == "gem"
                and fold(w) in common_lexicon("nl")):
            return None  # "de gemeente Regelt": after "gemeente" a municipality's name, not a word
        return Span(words[0][0], words[-1][1], "LOCATION.CITY", f"{self.name}:place_prep", 0.6)

    def _relative(self, text: str, m: re.Match[str], common: frozenset[str], known: frozenset[str]) -> Span | None:
        """The first name (and a following surname) after a kinship noun."""
        a, b = m.span("kin")
        w = m.group("kin")
        if w.casefold() in common or _KIN_WORDS[self.lang].fullmatch(w):
            return None
        if self.lang == "de" and fold(w) not in known:
            return None  # German capitalises every noun: "Vater Herzinfarkt"
        nxt = m.group("next")
        if nxt and nxt.strip().casefold() not in common and (fold(nxt.strip()) in known or self.lang != "de"):
            b = m.end("next")
        return Span(a, b, "NAME.RELATIVE", f"{self.name}:kin", 0.7)

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


_DIGIT = re.compile(r"\d")
_NON_SPACE = re.compile(r"\S+")
_STREET_END = re.compile(r"(?:straße|strasse|str\.|weg|allee|platz|gasse|ring|damm|ufer|straat|laan|plein|gracht|"
                         r"dreef|kade|singel|gatan|vägen|gränd|torget|stigen)[ \t]{1,2}\d{1,4}[a-zA-Z]?"
                         r"(?:[ \t]?-[ \t]?\d{1,4})?[ \t]{1,3}\Z", re.IGNORECASE)


def _after_street(text: str, start: int) -> bool:
    """A street and house number right before ``start`` on the same line ("Kerkstraat 14 4001 BD")."""
    return _STREET_END.search(text[max(0, start - 40):start]) is not None


@memo
def _de_towns() -> frozenset[str]:
    """Folded first words of the German-language gazetteer's towns (DE, AT, CH)."""
    out = set()
    for r in load_rows("de", "city"):
        m = re.match(r"[^\W\d_]+", r[0])
        if m:
            out.add(fold(m.group()))
    return frozenset(out)


@memo
def _de_town_country_rx() -> re.Pattern[str]:
    """A town after "in"/"aus"/"nach"/"bei" and before its country in brackets ("in Kayseri (Türkei)", "in Breslau
    (heute Wrocław, Polen)"): towns abroad that no German list holds."""
    countries = sorted({r[0] for r in load_rows("de", "country")}, key=len, reverse=True)
    alt = "|".join(re.escape(c) for c in countries)
    return re.compile(rf"(?<![\w])(?:in|aus|nach|bei)[ \t]{{1,2}}"
                      rf"(?P<town>[{_UP}][{_LO}]{{2,25}}(?:-[{_UP}][{_LO}]{{2,25}})?)[ \t]{{0,2}}"
                      rf"\((?:heute[ \t]{{1,2}}(?P<now>[{_UP}][\w]{{2,25}}),[ \t]{{1,2}})?(?:{alt})\)")


def _de_town_before_country(text: str, src: str) -> list[Span]:
    out: list[Span] = []
    for m in _de_town_country_rx().finditer(text):
        if not _de_word_ok(m.group("town"), strict=True):
            continue
        out.append(Span(*m.span("town"), "LOCATION.CITY", f"{src}:town_country", 0.75))
        if m.group("now"):
            out.append(Span(*m.span("now"), "LOCATION.CITY", f"{src}:town_country", 0.75))
    return out


@memo
def _de_town_names() -> frozenset[str]:
    """Folded names of the German-language gazetteer's towns (DE, AT, CH)."""
    return frozenset(fold(r[0]) for r in load_rows("de", "city"))


def _de_count_noun(text: str, start: int, end: int) -> bool:
    """Whether the first word of a would-be town after a postcode is a German noun of the lexicon that names no
    town of the gazetteers ("Fällen", "Proben"; not "Hagen", "Singen")."""
    m = re.match(r"[\w'’-]+", text[start:end])
    f = fold(m.group()) if m else ""
    return bool(_lexicon_de().get(f)) and f not in _de_town_names() and f not in context_city_keys("de", True)


def _de_four_digit_ok(text: str, m: re.Match[str], ext: tuple[int, int] | None) -> bool:
    """An Austrian or Swiss 4-digit postcode: after its country prefix ("A-2236", "CH-8001"), or before a town of
    the gazetteer ("9020 Klagenfurt"); "1500 Einheiten", "2000 Leukozyten" are no postcodes."""
    s = m.start("pc")
    if text[max(0, s - 3):s] in ("CH-",) or text[max(0, s - 2):s] in ("A-", "D-"):
        return True
    if ext is None:
        return False
    first = re.match(r"[^\W\d_]+", text[ext[0]:ext[1]])
    if first is not None and fold(first.group()) in _de_towns():
        return True
    # an address's last part: after a house number and a comma ("Birsweg 5, 4242 Laufen"), or at a line's start
    # under a street line ("Hauptstrasse 14" / "4242 Laufen", "Spitalgasse 10, 3580 Horn")
    line = text.rfind("\n", 0, s) + 1
    if re.search(r"\d{1,4}[a-zA-Z]?[ \t]*,[ \t]*\Z", text[line:s]):
        return True
    if text[line:s].strip() == "" and line > 1:
        prev = text[text.rfind("\n", 0, line - 1) + 1:line - 1]
        return _DE_STREET_LINE.fullmatch(prev) is not None
    return False


#: a street line of a German letter head without a street-type word: one to three capitalised words and a house
#: number ("Eichkamp 15", "Am Sonnenhang 3a", "Obere Au 12-14"), alone on its line (a comma may end it)
_DE_STREET_LINE = re.compile(
    rf"[ \t]{{0,8}}(?P<street>{_WORD}(?:[ \t]{_WORD}){{0,2}}[ \t]{{1,2}}\d{{1,4}}[a-zA-Z]?"
    rf"(?:[ \t]?[-/][ \t]?\d{{1,4}}[a-zA-Z]?)?)[ \t]{{0,3}},?[ \t]{{0,3}}")


def _de_street_lines(text: str, start: int, end: int, name: str) -> list[Span]:
    """The street line right above or below a postcode line of a letter head (the postcode starts its line)."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip(" \tADCH-"):
        return []
    out = []
    # the line before
    if line_start >= 2:
        prev_start = text.rfind("\n", 0, line_start - 1) + 1
        street = _de_street_line(text, prev_start, line_start - 1, name)
        out += street
        if street and prev_start >= 2:  # the addressee's name above the street line ("Erika Muster")
            top = text.rfind("\n", 0, prev_start - 1) + 1
            out += _de_name_line(text, top, prev_start - 1, name)
    # the line after
    nl = text.find("\n", end)
    if nl != -1:
        nxt_end = text.find("\n", nl + 1)
        out += _de_street_line(text, nl + 1, len(text) if nxt_end == -1 else nxt_end, name)
    return out


def _de_street_line(text: str, a: int, b: int, name: str) -> list[Span]:
    if b - a > 60:
        return []
    m = _DE_STREET_LINE.fullmatch(text, a, b)
    if m is None:
        return []
    first = re.match(r"[^\W\d_]+", m.group("street"))
    common = _common("de")
    if first is None or (first.group().casefold() in common and first.group().casefold() not in ("am", "an", "im")):
        return []
    return [Span(*m.span("street"), "LOCATION.STREET", f"{name}:street_line", 0.7)]


# --- German letters: names and places that no list holds, found by the letter's own cues ----------------------

#: a capitalised or upper-case German name word ("Müller", "MÜLLER", "Meier-Lind", "O'Brien")
_DE_NW = rf"[{_UP}][{_LO}{_UP}'’]{{1,30}}(?:-[{_UP}][{_LO}{_UP}'’]{{1,30}}){{0,2}}"
#: academic titles and staff titles of German and Austrian letters, before a name ("Priv.-Doz. Dr. med.",
#: "Prim. DDr.", "Dr.in", "OÄ", "DGKS" (Austrian certified nurse), "Mag.", "Univ.-Prof."); the doctor titles
#: proper are the first group
_DE_DOC_TITLE = (r"(?:(?:Ao\.?[ \t]?)?Univ\.[ \t]?-?[ \t]?Prof\.|Assoz\.[ \t]?-?[ \t]?Prof\.|Prof\."
                 r"|(?:Priv|Univ)\.[ \t]?-?[ \t]?Doz\.|Doz\.|PD|DDr\.|Dres\.|Dr\.in(?![\w])"
                 r"|Dr\.(?:[ \t]?(?i:med|univ|univers|rer|nat|dent|habil|vet|phil|sc|hum|biol|pharm|jur|dipl|psych)\.)"
                 r"{0,3}|Dr(?=[ \t])|Prim\.|Primar(?:ius|ia)?"
                 r"|OA|OÄ|OÄin|FA|FÄ|FOA|Ass\.[ \t]?-?[ \t]?(?:Ärztin|Arzt|Dr\.)?)")
_DE_STAFF_TITLE = r"(?:DGKS|DGKP|DGKKS|DGKKP|PFA|Mag\.(?:a|\.a)?|MSc|BSc|B\.[ \t]?Sc\.|M\.[ \t]?Sc\.|Dipl\.-\w{2,8}\.)"
_DE_TITLES = rf"(?:(?:{_DE_DOC_TITLE}|{_DE_STAFF_TITLE})(?:(?<=\.)|(?![\w]))[ \t]{{0,2}}){{1,5}}"
#: the name after the titles: up to three words, a "Surname, Firstname" pair included
_DE_NAME = rf"{_DE_NW}(?:[ \t]{{1,2}}{_DE_NW}){{0,2}}"
#: words that introduce the patient ("Patientin", "den Patienten", "Herrn", "Frau", "Pat."; "o.g. Patientin")
_DE_PERSON_CUE = (r"Patientin|Patienten|Patient|Pat\.|Herrn|Herr|Frau|Hr\.|Fr\."
                  # the person of a care home's, an insurer's or a form's own fields ("Bewohnerin: X, Y",
                  # "Versicherte/r: X, Y", "Name, Vorname: X, Y")
                  r"|Bewohnerin|Bewohner|Versicherte/r|Versicherter|Versicherte|Klientin|Klient|Vorname")
#: words that introduce who wrote, examined or assisted ("Geschrieben von", "Untersuchung durch:", "Assistenz:")
_DE_STAFF_CUE = (r"(?:[Gg]eschrieben|[Dd]iktiert|[Ee]rstellt|[Gg]eprüft|[Vv]idiert|[Bb]efundet|[Uu]nterschrieben"
                 r"|[Ff]reigegeben|[Vv]alidiert|[Uu]ntersucht|[Oo]periert|[Gg]egengelesen|[Kk]orrigiert)"
                 r"[ \t]{1,2}(?:von|durch)[ \t]{0,2}:?"
                 r"|(?:Untersuchung|Befundung|Beurteilung|Durchführung|Operation|Eingriff|Aufklärung|Visite"
                 r"|Sonographie|Endoskopie)[ \t]{1,2}durch[ \t]{0,2}:?"
                 r"|(?:Assistenz|Operateur(?:in)?|Untersucher(?:in)?|Befunder(?:in)?|Anästhesist(?:in)?|Anästhesie"
                 r"|Instrumentierung|Springer(?:in)?|Ansprechpartner(?:in)?|Bezugspflege(?:kraft)?|Diktat"
                 r"|Schreibkraft|Sekretariat|Arzt|Ärztin|Hebamme|(?:OP-)?Pflege|Pflegekraft|Physiotherapeut(?:in)?"
                 r"|Ergotherapeut(?:in)?|Logopäd(?:e|in)|Sozialdienst|Psycholog(?:e|in)|Seelsorge(?:r|rin)?"
                 r"|Diabetesberater(?:in)?|Case-?Manager(?:in)?)[ \t]{0,2}:"
                 # "Frau Kollegin X" (a comma after the word: the salutation)
                 r"|Kollegin|Kollegen|Kollege|Pfarrer(?:in)?|Seelsorger(?:in)?|Diakon(?:in)?|Hebamme")
#: Swiss cantons after a town in brackets ("Trüllikon (ZH)"), German states' abbreviations are not used so
_CANTONS = "AG|AI|AR|BE|BL|BS|FR|GE|GL|GR|JU|LU|NE|NW|OW|SG|SH|SO|SZ|TG|TI|UR|VD|VS|ZG|ZH"
#: what starts a department line of a hospital head ("Abt. für Dermatologie", "Epilepsie-Einheit")
_DE_DEPT = (r"(?:Abt\.|Abteilung|Klinik|Universitätsklinik|Institut|Zentrum|Department|Fachbereich|Sektion"
            r"|Ambulanz|Station|Poliklinik|Medizinische|Chirurgische|Innere)(?![\w])"
            rf"|[{_UP}][\w]{{1,30}}-(?:Einheit|Station|Ambulanz|Klinik|Zentrum|Abteilung|Bereich)(?![\w])")
#: verbs that follow a patient's initial that starts a sentence ("M. wird vorgestellt", "K. klagt über")
_DE_SUBJECT_VERBS = (r"wird|wurde|ist|war|hat|hatte|kam|kommt|klagt|klagte|berichtet|berichtete|erhielt|erhält"
                     r"|zeigt|zeigte|befindet|leidet|litt|lebt|wohnt|besucht|geht|ging|stellte|stellt|gibt|gab"
                     r"|verneint|verneinte|äußert|äußerte|möchte|wünscht|wünschte|kann|konnte|soll|sollte|muss")
#: German noun endings that a name hardly has ("Aufnahme" is in the lexicon; "Gefäßverkalkung" is not)
_DE_NOUN_END = re.compile(r"(?i).{3,}(?:ung|ungen|heit|keit|schaft|ion|ionen|ität|ismus|logie|iatrie|therapie|pflege"
                          r"|ärztin|arzt|ärzte|schwester|pfleger|pflegerin|mediziner|medizinerin|kraft|station"
                          r"|klinik|zentrum|praxis|befund|befunde|diagnostik|ambulanz|gruppe|einheit|abteilung"
                          r"|bereich|chirurg|chirurgin|loge|login|iater|iaterin|ose|osen|itis|ome|omen|ektomie"
                          r"|tomie|skopie|graphie|gramm|ase|asen|ämie|urie|plastik|therapeut|therapeutin"
                          r"|koordinator|koordinatorin|betreuer|betreuerin|leiter|leiterin|assistent|assistentin)$")
#: the closing formula of a German letter; the signatures follow within a few lines
_DE_CLOSING = re.compile(r"(?i:mit[ \t]+(?:freundlichen|kollegialen|besten|herzlichen)[ \t]+grüßen|hochachtungsvoll"
                         r"|mit[ \t]+freundlichen[ \t]+grüssen)")
#: the titles before a signature's name (:data:`_DE_TITLES`)
_DE_SIGN_TITLES = re.compile(_DE_TITLES)


def _de_signature_columns(text: str, src: str) -> list[Span]:
    """Names of a signature block set side by side in columns after the closing formula ("Dr. med. F. Haas
    ␣␣␣␣␣ Kübra Yılmaz" above "Chefarzt ␣␣␣ Assistenzärztin"): each column's name without its titles, two or three
    words that may be names (``NAME.DOCTOR`` 0.7)."""
    out: list[Span] = []
    for c in _DE_CLOSING.finditer(text):
        end = c.end()
        for _ in range(5):
            nl = text.find("\n", end + 1)
            line_end = nl if nl >= 0 else len(text)
            for seg in re.finditer(r"\S+(?:[ \t]{1,2}\S+)*", text[end:line_end]):
                a = end + seg.start()
                t = _DE_SIGN_TITLES.match(text, a)
                if t is not None:
                    a = t.end()
                words = list(re.finditer(r"[^\W\d_][\w'’-]*", text[a:end + seg.end()]))
                if not 2 <= len(words) <= 3 or len(words) != len(text[a:end + seg.end()].split()):
                    continue
                if all(w.group()[:1].isupper() and (_de_word_ok(w.group(), strict=True) or fold(w.group()) in
                                                    _de_names()) for w in words):
                    out.append(Span(a + words[0].start(), a + words[-1].end(), "NAME.DOCTOR", f"{src}:signature",
                                    0.7))
            if nl < 0:
                break
            end = nl
    return out


#: a care institution's, practice's or care service's head noun, alone or ending a compound ("Herzzentrum",
#: "Kreiskliniken", "Seniorenheim", "Gemeinschaftspraxis", "Institutsambulanz", "Asklepios-Klinik", "KfH-Nierenzentrum",
#: "St.-Josefs-Hospital"); a name must follow it (checked in code: :func:`_de_institution_name`)
_DE_INST = re.compile(
    rf"(?<![\w\-.])(?P<head>(?:[{_UP}][\w.]{{0,20}}-){{0,2}}(?:[{_UP}][{_LO}]{{0,25}})?"
    r"(?:[Zz]entrum|[Kk]liniken|[Kk]linikum|[Kk]linik|[Kk]rankenhaus|[Hh]ospital|[Ss]pital|[Hh]eim|[Ss]tift|[Pp]raxis"
    r"|[Aa]mbulanz|[Pp]flegedienst|[Ss]ozialstation|[Hh]ospiz|[Rr]esidenz|[Ll]abor|Kita|Kindergarten|Kinderkrippe"
    # networks, imaging and pathology practices, schools, clubs, hotels, authorities and services
    r"|[Nn]etz|[Rr]adiologie|[Nn]uklearmedizin|[Pp]athologie|[Hh]otel|[Ss]chule|[Gg]ymnasium|[Vv]erein"
    r"|[Ss]taatsanwaltschaft|[Gg]ericht|[Ll]andkreis|[Aa]mt|[Hh]eilstätte|[Dd]ienst))"
    r"(?![\w\-])")
#: the head nouns of :data:`_DE_INST`, as literals: found first (:func:`_de_head_ends`), then the word is matched
_DE_INST_HEADS = ("zentrum", "kliniken", "klinikum", "klinik", "krankenhaus", "hospital", "spital", "heim", "stift",
                  "praxis", "ambulanz", "pflegedienst", "sozialstation", "hospiz", "residenz", "labor", "kita",
                  "kindergarten", "kinderkrippe", "netz", "radiologie", "nuklearmedizin", "pathologie", "hotel",
                  "schule", "gymnasium", "verein", "staatsanwaltschaft", "gericht", "landkreis", "amt", "heilstätte",
                  "dienst")
#: heads whose institutions are hospitals (the others: care homes, practices, services, laboratories, day care)
_DE_INST_HOSPITAL = re.compile(r"(?i).*(?:klinik|kliniken|klinikum|krankenhaus|hospital|spital|zentrum)$")
_DE_INST_NOT_HOSPITAL = re.compile(r"(?i)(?:senioren|alten|pflege|wohn|kinder|sozial).*")
#: the word before the head that belongs to the name: an adjective ("Evangelisches Krankenhaus X", "Onkologisches
#: Zentrum X", "Radiologische Gemeinschaftspraxis am X") or an acronym ("MVZ Labor X", "LKH-Univ. Klinikum X")
_DE_INST_PRE = re.compile(rf"(?:(?<=[\s(:;])|^)(?P<pre>[{_UP}][{_LO}]{{2,25}}(?:isch|lich|sch)(?:es|e|en|er)"
                          rf"|Allgemeines|Allgemeine|[{_UP}]{{2,5}}(?:-[{_UP}][\w]{{0,12}}\.?)?|{_DE_NW})"
                          r"[ \t]{1,2}\Z")
_DE_INST_ACRONYM = re.compile(rf"[{_UP}]{{2,5}}(?:-.*)?")
_DE_INST_ADJECTIVE = re.compile(r"(?:isch|lich|sch)(?:es|e|en|er)$")
#: what joins a head and its name: a saint or a house ("Seniorenheim St. Anna", "Haus Abendsonne"), a place
#: preposition ("Praxis am Rathaus", "Klinikum an der Weißach"), a specialty ("Zentrum für Psychiatrie X"),
#: a doctor ("Labor Dr. X")
_DE_INST_JOIN = re.compile(
    rf"[ \t]{{1,2}}(?:(?P<saint>St\.|Sankt|Haus)[ \t]{{1,2}}|(?P<prep>am|an[ \t]der|auf[ \t]der|im|zum|zur)[ \t]{{1,2}}"
    rf"|(?P<spec>für[ \t]{{1,2}}{_DE_NW}(?:[ \t]{{1,2}}und[ \t]{{1,2}}{_DE_NW})?)[ \t]{{1,2}}"
    rf"|(?P<doc>(?:Dr|Dres|Prof)\.[ \t]{{0,2}}(?:med\.[ \t]{{0,2}})?))?(?=[{_UP}])")
#: what may follow an institution's name made of common words ("Kita Regenbogen in X", "Haus Abendsonne,"; not a
#: full stop: "Im Pflegeheim Stürze.")
_DE_INST_END = re.compile(r"[ \t]{0,2}(?:[,;:)\n–]|\Z|(?:in|im|bei|und|mit|\(|-)(?![\w]))")
_DE_NW_RX = re.compile(_DE_NW)
_DE_INST_GAP = re.compile(rf"[ \t]{{1,2}}(?=[{_UP}])")
_DE_INST_TAIL = re.compile(r"[ \t]{1,2}(?:&|und)[ \t]{1,2}(?:Kollegen|Kolleginnen|Partner|Partnerinnen)(?![\w])")
#: words after a head that are no name: times ("Praxis am Nachmittag"), weekdays and months
_DE_INST_NOT_NAME = frozenset((
    "morgen", "vormittag", "mittag", "nachmittag", "abend", "wochenende", "tag", "anfang", "ende", "montag",
    "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag", "januar", "februar", "märz", "april",
    "mai", "juni", "juli", "august", "september", "oktober", "november", "dezember", "aufnahmetag", "vortag",
    "entlassungstag"))

#: the patient's occupation after a cue of work ("arbeitet als X", "als X (bei Y) tätig", "von Beruf X", "Beruf:
#: X", "gelernter X", "berufliche Tätigkeit: X"; an adjective may come first: "Medizinische Fachangestellte")
_DE_PROF_WORD = (rf"(?:[{_UP}][{_LO}]{{2,25}}(?:e|er|es)[ \t]{{1,2}})?[{_UP}][{_LO}]{{2,30}}"
                 rf"(?:-[{_UP}]?[{_LO}]{{2,30}})?")
_DE_PROFESSION = re.compile(
    rf"(?<![\w])(?:(?:(?:[Aa]rbeit|[Jj]obb)(?:et|ete|te)|[Tt]ätig|[Bb]eschäftigt|[Aa]ngestellt|[Bb]erufstätig)"
    # "arbeitet in Teilzeit als X", "Beschäftigt als: X"
    rf"(?:[ \t]{{1,2}}(?:in|im|seit|noch|dort|zuletzt|Teilzeit|Vollzeit|\d{{1,2}}|Jahren?)){{0,3}}"
    rf"[ \t]{{1,2}}als[ \t]{{0,2}}:?|[Vv]on[ \t]{{1,2}}Beruf|Beruf[ \t]{{0,2}}:"
    rf"|[Bb]erufliche[ \t]{{1,2}}Tätigkeit[ \t]{{0,2}}:"
    rf"|[Gg]elernte[rn]?|[Pp]ensionierte[rn]?|[Bb]erentete[rn]?)[ \t]{{1,3}}(?P<prof>{_DE_PROF_WORD})(?![\w\-])"
    rf"|(?<![\w])als[ \t]{{1,2}}(?P<prof2>{_DE_PROF_WORD})(?![\w\-])"
    rf"(?=(?:[ \t]{{1,2}}[^\s.;:!?]{{1,30}}){{0,6}}?[ \t]{{1,2}}(?:tätig|beschäftigt|angestellt|gearbeitet)(?![\w]))")
#: words after a work cue that are no occupation ("als Aushilfe", "in Teilzeit")
_DE_NOT_PROFESSION = frozenset(("teilzeit", "vollzeit", "aushilfe", "minijob", "schichtdienst", "nachtdienst"))
#: weaker cues of a past or present occupation ("früher Schneiderin", "ehemaliger Elektriker", "Tätigkeit als
#: Lagerist", "seine Zeit als Lokführer", "Die Mutter war Verkäuferin", "bis zur Rente Hebamme"); the word must end
#: like an occupation (:data:`_DE_OCCUPATION_END`) except after "bis zur Rente", and be none of
#: :data:`_DE_NOT_OCCUPATION` ("früher Raucher")
_DE_PROFESSION_WEAK = re.compile(
    rf"(?<![\w])(?:(?P<rente>[Bb]is[ \t]{{1,2}}zur[ \t]{{1,2}}(?:Rente|Berentung|Pensionierung))"
    rf"|(?:[Ee]hemalige[rn]?|[Ff]rüher(?:e[rn]?)?|[Ss]päter|[Zz]uletzt(?:[ \t]{{1,2}}als)?|[Tt]ätigkeit[ \t]{{1,2}}als"
    rf"|[Zz]eit[ \t]{{1,2}}als|(?:war|ist|sei)(?:[ \t]{{1,2}}(?:früher|zuletzt))?"
    # "ist selbständiger Elektromeister", "sei gelernte Friseurin"
    rf"(?:[ \t]{{1,2}}(?:selb(?:st)?ständige|gelernte|angestellte|ausgebildete|examinierte|verbeamtete)[rn]?)?))"
    rf"[ \t]{{1,3}}(?P<prof3>[{_UP}][{_LO}]{{2,30}}(?:-[{_UP}]?[{_LO}]{{2,30}})?)(?![\w\-])"
    # strong cues, any word: "Ausbildung zum Fachlageristen", "Lehre zum Kfz-Mechatroniker", "Beruf des
    # Textilmaschinenführers"
    rf"|(?<![\w])(?:[Aa]usbildung|[Ll]ehre|[Uu]mschulung)[ \t]{{1,2}}(?:zum|zur|als)[ \t]{{1,2}}"
    rf"(?P<prof4>[{_UP}][\w]{{1,30}}(?:-[{_UP}]?[{_LO}]{{2,30}})?)(?![\w\-])"
    rf"|(?<![\w])[Bb]eruf[ \t]{{1,2}}(?:des|der)[ \t]{{1,2}}(?P<prof5>[{_UP}][{_LO}]{{2,30}})(?![\w\-])")
_DE_OCCUPATION_END = re.compile(r"(?:er|erin|ist|istin|eur|eurin|euse|ant|antin|ent|entin|frau|mann|kraft|hilfe"
                                r"|wirt|wirtin|meister|meisterin|arbeiter|arbeiterin|helfer|helferin|angestellte[rn]?)$")
_DE_NOT_OCCUPATION = frozenset((
    "raucher", "raucherin", "nichtraucher", "nichtraucherin", "exraucher", "exraucherin", "trinker", "trinkerin",
    "alkoholiker", "alkoholikerin", "diabetiker", "diabetikerin", "allergiker", "allergikerin", "patient",
    "patientin", "rentner", "rentnerin", "linkshänder", "rechtshänder", "fußgänger", "radfahrer", "beifahrer",
    "beifahrerin", "teilnehmer", "teilnehmerin", "träger", "trägerin", "partner", "partnerin", "ehemann", "mann",
    "bruder", "vater", "mutter", "schwester", "tochter", "sohn", "fieber", "zimmer", "winter", "sommer", "oktober",
    "november", "dezember", "september", "oberarzt", "kollege", "kollegin", "nachbar", "nachbarin", "spender",
    "spenderin", "empfänger", "empfängerin", "sportler", "sportlerin", "läufer", "läuferin", "wanderer",
    "frau", "herr", "herrn", "vegetarier", "vegetarierin", "veganer", "veganerin", "rollstuhlfahrer",
    "rollstuhlfahrerin", "autofahrer",
    "autofahrerin", "nichtschwimmer", "bluter", "betreuer", "betreuerin", "vormund", "erbe", "erbin",
    "mitglied", "experte", "expertin", "ansprechpartner", "ansprechpartnerin", "angehöriger", "pflegefall"))

_DE_RX = {
    # cue + name; the name's words are checked in code (_de_name_words)
    "person": re.compile(rf"(?<![\w.])(?P<cue>{_DE_PERSON_CUE})[ \t]{{0,2}}:?[ \t]{{1,3}}"
                         rf"(?:(?:Dr|Prof|Mag|DI|Dipl\.-Ing)\.[ \t]{{0,2}}){{0,3}}"
                         rf"(?P<name>{_DE_NAME}(?:,[ \t]{{1,2}}{_DE_NW}(?:[ \t]{{1,2}}{_DE_NW})?)?)"),
    "initial": re.compile(rf"(?<![\w.])(?:Herrn|Herr|Frau|Hr\.|Fr\.)[ \t]{{1,2}}"
                          rf"(?P<init>[{_UP}]\.)(?![\w.])(?![ \t]{{0,2}}[{_LO}]\.)"),
    "initial_subject": re.compile(rf"(?m)^[ \t]{{0,8}}(?P<init>[{_UP}]\.)[ \t]{{1,2}}(?:{_DE_SUBJECT_VERBS})(?![\w])"),
    "titled": re.compile(rf"(?<![\w.\-])(?P<titles>{_DE_TITLES})(?P<name>{_DE_NAME})"),
    "staff": re.compile(rf"(?<![\w])(?:{_DE_STAFF_CUE})[ \t]{{1,3}}(?:{_DE_TITLES})?(?P<name>{_DE_NAME})"),
    "maiden": re.compile(rf"(?<![\w])geb\.[ \t]{{1,2}}(?P<name>{_DE_NW})(?![\w.])"),
    # birth markers: the name is looked for before them, on the same line
    "birth": re.compile(r"\*[ \t]{0,2}\d|(?<![\w])(?:geb\.|geboren)(?![\w])"),
    "before_birth": re.compile(rf"(?:^|(?<=[\s(:;]))(?P<name>{_DE_NW}(?:[ \t]{{1,2}}{_DE_NW}){{0,2}}"
                               rf"(?:,[ \t]{{1,2}}{_DE_NW}(?:[ \t]{{1,2}}{_DE_NW})?)?)"
                               r"[ \t]{0,2},?[ \t]{0,2}\(?[ \t]{0,2}\Z"),
    "practice": re.compile(rf"(?<![\w\-])(?P<org>(?:[{_UP}][{_LO}]{{1,30}})?[Pp]raxis[ \t]{{1,2}}"
                           rf"(?:(?:Dr|Dres|Prof|DDr|Dipl\.-Med)\.[ \t]{{0,2}}(?:med\.[ \t]{{0,2}})?)?)"
                           rf"(?P<name>{_DE_NAME})"),
    "head": re.compile(rf"(?m)^[ \t]{{0,8}}(?P<org>{_DE_NW}(?:[ \t]{{1,2}}(?:{_DE_NW}|St\.|der|des|am|an|im|zu"
                       rf"|zum|zur|und|für|vom|von)){{0,7}}),[ \t]{{1,2}}(?:{_DE_DEPT})"),
    # after a place preposition only: "Base Excess (BE)", "Broteinheiten (BE)" are no towns
    "canton": re.compile(rf"(?<![\w])(?:aus|in|von|nach|wohnhaft|wohnt|bei)[ \t]{{1,2}}"
                         rf"(?P<city>{_DE_NW}(?:[ \t]{{1,2}}{_DE_NW})?[ \t]\((?:{_CANTONS})\))"),
    "resident": re.compile(rf"(?<![\w])wohnhaft[ \t]{{1,2}}(?:in[ \t]{{1,2}})?(?:(?:A|CH|D)-)?(?P<pc>[1-9]\d{{3,4}})"
                           rf"[ \t]{{1,2}}(?P<city>{_DE_NW}(?:[ \t]{{1,2}}{_DE_NW})?)(?![\w\-])"
                           rf"|(?<![\w])wohnhaft[ \t]{{1,2}}(?:in[ \t]{{1,2}})?(?P<street>{_DE_NW}(?:[ \t]{{1,2}}"
                           rf"{_DE_NW}){{0,2}}\.?[ \t]{{1,2}}\d{{1,4}}[a-z]?(?:[ \t]?[-/][ \t]?\d{{1,4}})?)"
                           rf"(?=[ \t]{{0,2}}[,;])"),
}


@memo
def _de_names() -> frozenset[str]:
    return _known_names("de")


@memo
def _de_first_names() -> frozenset[str]:
    """Folded first names of the German lists, three letters or more ("Charlotte", "Marie": in the lexicon too)."""
    return frozenset(f for f in (fold(r[0]) for r in load_rows("de", "first_name")) if len(f) >= 3)


def _de_compound_noun(word: str) -> bool:
    """A German compound noun ("Kinderärztin", "Fallnummer"): a capitalised noun of the lexicon of four letters
    or more ends it after a first part of three or more, or it ends like a noun ("-ung", "-logie", "-ärztin")."""
    if _DE_NOUN_END.match(word):
        return True
    lex = _lexicon_de()
    f = fold(word)
    return any(lex.get(f[i:]) for i in range(3, len(f) - 3))


@memo
def _lexicon_de() -> dict[str, bool]:
    return common_lexicon("de")


def _de_word_ok(word: str, *, strict: bool, after_name: bool = False) -> bool:
    """Whether ``word`` may be (part of) a person's or a place's name in a German letter: no common word (German
    nouns and organs included: "Leber" is a surname of the lists too), allowed term, specialty, short acronym or
    (``strict``) compound noun; a gazetteer name that is no common word; after a gazetteer first name
    (``after_name``), any gazetteer name ("Amadea Leber")."""
    w = word.strip(".'’")
    if len(w) < 2:
        return False
    f = fold(w)
    known = f in _de_names()
    if (after_name and known) or f in _de_first_names():
        return True
    if w.isupper() and len(w) <= 3:
        return False
    if (f in _lexicon_de() or w.casefold() in _common("de") or w.casefold() in ANATOMY_DE or SPECIALTY.match(w)
            or allowlist_for("de").is_allowed(w)):
        return False
    if known:
        return True
    if f in drug_words("en") or (len(w) >= 8 and _DE_TERM_END.search(f)):
        return False  # a drug ("Insulin", "Apixaban": the INN are the same in German) or a medical term
    return not (strict and _de_compound_noun(w))


#: endings of German medical and abstract nouns, at eight letters or more ("Plexusanästhesie", "Infektion",
#: "Arthrose", "Gastritis"); not "-ie" or "-ien" alone, which surnames have ("Kamithien")
_DE_TERM_END = re.compile(r"(?:thesie|skopie|graphie|grafie|tomie|plastie|therapie|pathie|algie|ämie|urie|tion|sion"
                          r"|tionen|sionen|itis|ose|osen|ismus|ität)$")


_DE_WORD_RX = re.compile(rf"{_DE_NW}|,")
#: the end of a name's slot: the line's end, a comma or bracket, or the wide gap between two signatures
_SLOT_END = re.compile(r"[ \t]*(?:\r?\n|\Z|[,;()])|[ \t]{3,}")


def _de_name_words(text: str, start: int, end: int, *, strict: bool, caps_surname: bool = False
                   ) -> tuple[int, int] | None:
    """The leading run of name words of ``text[start:end]``: words that pass :func:`_de_word_ok`, at most one
    comma between them ("Surname, Firstname"); a surname in capitals before the comma passes when
    ``caps_surname`` ("CHRIST, Charlotte")."""
    toks = [(m.start(), m.end()) for m in _DE_WORD_RX.finditer(text, start, end)]
    out: list[tuple[int, int]] = []
    comma = False
    for k, (a, b) in enumerate(toks):
        w = text[a:b]
        if w == ",":
            if comma or not out:
                break
            comma = True
            continue
        # after a first name of the lists, a surname need not pass the compound test ("Katharina Blumauer"); after
        # a comma the first name of "Surname, Firstname" must pass it ("Ebru Demirci, Studienkoordinatorin")
        after = bool(out) and not comma and fold(text[out[0][0]:out[0][1]]) in _de_names()
        ok = _de_word_ok(w, strict=(strict and not after) or comma, after_name=after)
        if not ok and caps_surname and not comma and _surname_before_first_name(text, toks, k):
            ok = True
        if not ok and after and len(out) == 1 and _SLOT_END.match(text, b) and w[:1].isupper() and len(w) > 2:
            ok = True  # a surname that is a noun where the name's field or line ends: "Assistenz: Jana Wunder"
        if not ok:
            break
        out.append((a, b))
    if not out:
        return None
    return out[0][0], out[-1][1]


def _surname_before_first_name(text: str, toks: list[tuple[int, int]], k: int) -> bool:
    """Whether word ``k`` of ``toks`` is the surname of a "Surname, Firstname" pair: a comma and a first name (of the
    lists, or a word that may be a name) follow, and it is in capitals or no organ, specialty or allowed term
    ("CHRIST, Charlotte"; a town's name as a surname)."""
    if k + 2 >= len(toks) or text[toks[k + 1][0]] != ",":
        return False
    w, nxt = text[toks[k][0]:toks[k][1]], text[toks[k + 2][0]:toks[k + 2][1]]
    if len(w) < 3 or not (fold(nxt) in _de_first_names() or _de_word_ok(nxt, strict=True)):
        return False
    if w.isupper():
        return True
    if w.casefold() in ANATOMY_DE or SPECIALTY.match(w):
        return False
    # a surname that is also a word ("Vogel, Hildegard", "Roth, Anneliese") before a first name of the lists
    return fold(nxt) in _de_first_names() or not (allowlist_for("de").is_allowed(w) or w.casefold() in _common("de"))


def _de_trailing_name(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The trailing run of name words of ``text[start:end]`` (strict :func:`_de_word_ok`; one comma between
    them, "Surname, Firstname", a surname in capitals included): the words right before a birth marker."""
    toks = [(m.start(), m.end()) for m in _DE_WORD_RX.finditer(text, start, end)]
    out: list[tuple[int, int]] = []
    comma = False
    for k in range(len(toks) - 1, -1, -1):
        a, b = toks[k]
        w = text[a:b]
        if w == ",":
            if comma or not out:
                if out:
                    break
                continue  # "X Y, geb.": the comma before the marker
            comma = True
            continue
        first_before = k > 0 and fold(text[toks[k - 1][0]:toks[k - 1][1]]) in _de_names()
        if not (_de_word_ok(w, strict=not first_before, after_name=first_before)
                or (comma and _surname_before_first_name(text, toks, k))):
            break
        out.append((a, b))
    if not out or len(out) > 4:
        return None
    return out[-1][0], out[0][1]


def _de_institution_name(text: str, end: int, head: str) -> int | None:
    """Where the name after an institution's head (ending at ``end``) ends, or None when no name follows: words
    that may be names (:func:`_de_word_ok`, or a town of the gazetteer) after an optional joiner
    (:data:`_DE_INST_JOIN`); after a saint, a house or a place preposition, or after the head of a care home or a
    service, a capitalised common word too when the name ends there ("Kita Regenbogen in X",
    "Praxis am Rathaus,")."""
    j = _DE_INST_JOIN.match(text, end)
    if j is None:
        return None
    words = []
    pos = j.end()
    for _ in range(3):
        m = _DE_NW_RX.match(text, pos)
        if m is None or m.group().casefold() in _DE_INST_NOT_NAME:
            break
        h = _DE_INST.match(text, pos)
        if h is not None and h.end() == m.end():
            break  # another head ("Transplantationszentrum Universitätsklinikum X"): its own name follows it
        words.append(m)
        g = _DE_INST_GAP.match(text, m.end())
        if g is None:
            break
        pos = g.end()
    if not words:
        return None
    # the first word may be a compound ("Klinik Ostheide", "Rehabilitationszentrum Friedehorst"), not a common word
    strict = [_de_word_ok(m.group(), strict=k > 0) or fold(m.group()) in _de_towns() for k, m in enumerate(words)]
    if j.group("spec") is not None:  # "Zentrum für Psychiatrie X": the name after the specialty must be one
        return words[0].end() if strict[0] else None
    if j.group("doc") is not None:  # "Labor Dr. X": the title vouches for the surname; perhaps "& Kollegen"
        if not re.search(r"(?i)(?:praxis|labor)$", head):
            return None  # "in der Ambulanz Dr. X": the doctor who saw the patient there
        tail = _DE_INST_TAIL.match(text, words[0].end())
        return tail.end() if tail else words[0].end()
    n = 0
    while n < len(words) and strict[n]:
        n += 1
    if n:
        return words[n - 1].end()
    lenient = (j.group("saint") is not None or j.group("prep") is not None
               or _DE_INST_NOT_HOSPITAL.match(head.rsplit("-", 1)[-1]) is not None
               or re.search(r"(?i)(?:heim|stift|hospiz|kita|kindergarten|kinderkrippe|pflegedienst)$", head))
    if lenient and _DE_INST_END.match(text, words[0].end()):
        return words[0].end()
    return None


def _de_head_ends(text: str) -> list[tuple[int, int]]:
    """Where a head noun of :data:`_DE_INST_HEADS` ends a word: (start of the head, end), in text order; found with
    ``str.find`` (a few literals, two cases), much faster than a regex alternation tried at every position."""
    out: dict[int, int] = {}  # end -> start of the longest head ending there ("Hospital", not its "spital")
    n = len(text)
    for h in _DE_INST_HEADS:
        for form in (h, h[:1].upper() + h[1:]):
            i = text.find(form)
            while i != -1:
                e = i + len(form)
                if (e >= n or not (text[e].isalnum() or text[e] in "_-")) and i < out.get(e, n):
                    out[e] = i
                i = text.find(form, i + 1)
    return sorted((s, e) for e, s in out.items())


def _de_institutions(text: str, src: str) -> list[Span]:
    """Hospitals, care homes, practices, services and day care named by a head noun and a name (see
    :data:`_DE_INST`): ``LOCATION.HOSPITAL`` or ``LOCATION.ORGANIZATION`` 0.7."""
    out: list[Span] = []
    for s, e in _de_head_ends(text):
        i = s  # back to the start of the word that the head noun ends
        while i > 0 and s - i < 60 and (text[i - 1].isalnum() or text[i - 1] in ".-"):
            i -= 1
        m = _DE_INST.match(text, i)
        if m is None or m.end() != e:
            continue
        head = m.group("head")
        end = _de_institution_name(text, m.end(), head)
        if end is None:
            continue
        start = m.start()
        pre = _DE_INST_PRE.search(text, max(0, start - 40), start)
        if pre is not None:
            w = pre.group("pre")
            if (_DE_INST_ACRONYM.fullmatch(w) or w.startswith("Allgemein")
                    or _DE_INST_ADJECTIVE.search(w) or _de_word_ok(w, strict=True)):
                start = pre.start("pre")
        hospital = (_DE_INST_HOSPITAL.match(head) is not None
                    and _DE_INST_NOT_HOSPITAL.match(head.rsplit("-", 1)[-1]) is None)
        out.append(Span(start, end, "LOCATION.HOSPITAL" if hospital else "LOCATION.ORGANIZATION",
                        f"{src}:institution", 0.7))
    return out


#: "als X" with X shaped like an occupation (:data:`_DE_OCCUPATION_END`) in a sentence that speaks of work
#: (:data:`_DE_WORK_SENTENCE`: "arbeitet seit über 30 Jahren als Dachdecker", "Arbeitsunfähigkeit als
#: Verkäuferin", "wo er als Schichtleiter in der Fertigung arbeitet", "fährt beruflich als Reisebusfahrer"), and an
#: occupation right after an age ("Der 59-jährige Hotelfachmann")
_DE_ALS_OCCUPATION = re.compile(rf"(?<![\w])als[ \t]{{1,2}}(?P<prof>(?:[{_UP}][{_LO}]{{2,25}}(?:-[{_LO}]{{2,25}})?"
                                rf"(?:e|er|es)[ \t]{{1,2}})?[{_UP}][{_LO}]{{2,30}}(?:-[{_UP}]?[{_LO}]{{2,30}})?)"
                                r"(?![\w\-])")
_DE_WORK_SENTENCE = re.compile(r"(?i:arbeit|tätig|beschäftigt|beruf|angestellt|jobb|schicht|dienst\b|stelle\b"
                               r"|ausbildung|lehre\b|selbstständig|selbständig)")
_DE_AGED_OCCUPATION = re.compile(rf"(?<![\w])\d{{1,3}}-?[Jj]ährige[rn]?[ \t]{{1,2}}(?P<prof>[{_UP}][{_LO}]{{2,30}}"
                                 rf"(?:-[{_UP}]?[{_LO}]{{2,30}})?)(?![\w\-])")


def _sentence_of(text: str, start: int, end: int, reach: int = 200) -> str:
    """The sentence (or line) around ``text[start:end]``, at most ``reach`` characters on either side."""
    lo, hi = max(0, start - reach), min(len(text), end + reach)
    a = max(lo, max(text.rfind(c, lo, start) for c in ".!?;\n") + 1)
    b = min((i for i in (text.find(c, end, hi) for c in ".!?;\n") if i >= 0), default=hi)
    return text[a:b]


def _occupation_word(w: str) -> bool:
    f = w.casefold()
    return (f not in _DE_NOT_OCCUPATION and f not in _DE_NOT_PROFESSION and f not in _DE_INST_NOT_NAME
            and _DE_OCCUPATION_END.search(f) is not None)


def _de_professions(text: str, src: str) -> list[Span]:
    """The patient's occupation after a cue of work (:data:`_DE_PROFESSION`): ``PROFESSION`` 0.7."""
    out: list[Span] = []
    if "als" in text:
        for m in _DE_ALS_OCCUPATION.finditer(text):
            last = m.group("prof").split()[-1]
            if _occupation_word(last) and _DE_WORK_SENTENCE.search(_sentence_of(text, m.start(), m.end())):
                out.append(Span(*m.span("prof"), "PROFESSION", f"{src}:profession", 0.65))
    for m in _DE_AGED_OCCUPATION.finditer(text):
        if _occupation_word(m.group("prof")) and not m.group("prof").casefold().startswith("patient"):
            out.append(Span(*m.span("prof"), "PROFESSION", f"{src}:profession", 0.6))
    for m in _DE_PROFESSION.finditer(text):
        key = "prof" if m.group("prof") is not None else "prof2"
        a, b = m.span(key)
        last = text[a:b].split()[-1]
        if last.casefold() in _DE_NOT_PROFESSION or last.casefold() in _DE_INST_NOT_NAME:
            continue
        out.append(Span(a, b, "PROFESSION", f"{src}:profession", 0.7))
    for m in _DE_PROFESSION_WEAK.finditer(text):
        key = next(k for k in ("prof3", "prof4", "prof5") if m.group(k) is not None)
        w = m.group(key).casefold()
        if w in _DE_NOT_OCCUPATION or w in _DE_NOT_PROFESSION or w in _DE_INST_NOT_NAME:
            continue
        if key == "prof3" and m.group("rente") is None and not _DE_OCCUPATION_END.search(w):
            continue
        out.append(Span(*m.span(key), "PROFESSION", f"{src}:profession", 0.65))
    return out


#: the patient's insurer or payer after its field label ("Kostenträger: AOK Sachsen-Anhalt, IK ...", "Kasse: X",
#: "Versichert bei der X"), and the insurers that their acronym names anywhere ("AOK Plus", "BKK X", "IKK X")
_DE_PAYER = re.compile(
    rf"(?<![\w])(?:(?:Kostenträger|Krankenkasse|Pflegekasse|Kasse|Krankenversicherung|Versicherung|KV"
    rf"|Unfallversicherungsträger)[ \t]{{0,2}}:|[Vv]ersichert[ \t]{{1,2}}bei(?:[ \t]{{1,2}}de[rm])?)[ \t]{{1,3}}"
    rf"(?P<org>[{_UP}][\w&.+]{{0,25}}(?:-[{_UP}][\w]{{0,25}})?"
    rf"(?:[ \t]{{1,2}}(?:der|für|und|&|–|-)?[ \t]{{0,2}}[{_UP}][\w&.+]{{0,25}}(?:-[{_UP}][\w]{{0,25}})?){{0,4}})"
    rf"|(?<![\w\-])(?P<acr>(?:AOK|BKK|IKK)(?:[ \t]|-)[{_UP}][\w]{{1,25}}(?:-[{_UP}][\w]{{1,25}})?"
    rf"(?:[ \t][{_UP}][\w]{{1,25}}(?:-[{_UP}][\w]{{1,25}})?)?)(?![\w\-])")
#: first words of a payer field's value that name a kind of insurance, not an insurer
_DE_PAYER_GENERIC = frozenset(("gesetzliche", "gesetzlich", "private", "privat", "gkv", "pkv", "beihilfe",
                               "selbstzahler", "keine", "kein", "unbekannt", "siehe", "sozialamt", "krankenkasse",
                               "pflegekasse", "krankenversicherung", "versicherung", "kostenträger", "ik", "ik-nr",
                               "nr", "versichertennummer"))
#: the label of the next field, after a payer's name on its line ("Vers.-Nr.", "IK", "Tel.")
_DE_PAYER_LABEL = re.compile(r"(?:Vers\.|Versicherte|Nr\.|IK(?![\w])|Tel\.|Fax|Kassen-?Nr)")


#: compass words and "Land" after a branch's region ("Bayern Süd", "Nürnberger Land"): part of the region
_DE_REGION_WORDS = frozenset(("Süd", "Nord", "West", "Ost", "Mitte", "Land"))
#: nationwide insurers, accident and pension insurance carriers, welfare and self-help organisations named
#: anywhere, with the region or town of their branch after them ("Deutsche Rentenversicherung Bayern Süd", "BG BAU",
#: "Caritas Landshut", "Johanniter-Unfall-Hilfe"): which of them a patient deals with is personal
_DE_NAMED_ORG = re.compile(
    rf"(?<![\w\-])(?P<org>(?:(?:Deutschen?[ \t]{{1,2}})?Rentenversicherung(?=[ \t]{{1,2}}(?:Bund|Knappschaft|[{_UP}]))"
    r"|Techniker[ \t]{1,2}Krankenkasse|BARMER|Barmer(?:[ \t]{1,2}GEK)?|DAK(?:-Gesundheit)?|Knappschaft|KKH|HEK"
    r"|BG[ \t]{1,2}(?:BAU|Bau|ETEM|RCI|Verkehr|Holz[ \t]und[ \t]Metall|Nahrungsmittel[ \t]und[ \t]Gastgewerbe)"
    r"|BGHM|BGHW|BGN|BGW|SVLFG|Caritas(?:verband)?|Diakonie|Diakonisches[ \t]Werk|AWO|Arbeiterwohlfahrt|DRK"
    r"|Johanniter(?:-Unfall-Hilfe)?|Malteser(?:[ \t]Hilfsdienst)?|Arbeiter-Samariter-Bund|ASB|Kreuzbund"
    r"|Blaues[ \t]Kreuz|Volkssolidarität|Lebenshilfe|Pro[ \t]Familia))"
    rf"(?P<branch>(?:[ \t]{{1,2}}(?:Bund|Region|Regionalverband|Kreisverband|Ortsverband|Landesverband)?[ \t]?"
    rf"[{_UP}][{_LO}][\w]{{1,25}}(?:-[{_UP}][\w]{{1,25}})?(?:[ \t](?:{'|'.join(sorted(_DE_REGION_WORDS))}))?)?)"
    r"(?![\w\-])")


def _de_named_orgs(text: str, src: str) -> list[Span]:
    """:data:`_DE_NAMED_ORG`: ``LOCATION.ORGANIZATION`` 0.7, with the branch after it unless the branch's words are
    all common words ("die Caritas Beratung"; a compass word counts as part of a region: "Bayern Süd")."""
    out: list[Span] = []
    common = _common("de")
    for m in _DE_NAMED_ORG.finditer(text):
        branch = m.group("branch").split()
        named = any(w.casefold() not in common or w in _DE_REGION_WORDS for w in branch)
        out.append(Span(m.start("org"), m.end("branch") if named else m.end("org"), "LOCATION.ORGANIZATION",
                        f"{src}:named_org", 0.7))
    return out



def _de_payers(text: str, src: str) -> list[Span]:
    """The patient's insurer (:data:`_DE_PAYER`): ``LOCATION.ORGANIZATION`` 0.7; a generic kind of insurance
    ("Gesetzliche Krankenversicherung", "privat") is none."""
    out: list[Span] = []
    for m in _DE_PAYER.finditer(text):
        key = "org" if m.group("org") is not None else "acr"
        words = [(w.start(), w.end()) for w in _NON_SPACE.finditer(text, *m.span(key))]
        while words and _DE_PAYER_LABEL.match(text, words[-1][0]):
            words.pop()  # "Kasse: AOK Plus   Vers.-Nr.": the next field's label
        if not words or text[slice(*words[0])].strip(".").casefold() in _DE_PAYER_GENERIC:
            continue
        out.append(Span(words[0][0], words[-1][1], "LOCATION.ORGANIZATION", f"{src}:payer", 0.7))
    return out


_DE_STRONG_TITLE = re.compile(r"Dr|Prof|Doz|Prim")
_DE_PERSON_BEFORE = re.compile(rf"(?:{_DE_PERSON_CUE})[ \t]{{0,2}}:?[ \t]{{1,3}}\Z")


#: the first line of a letter: capitalised words and connectors only ("X Y", "X der Z St. W am V")
_DE_HEAD_LINE = re.compile(rf"[ \t]{{0,8}}(?P<org>{_DE_NW}(?:[ \t]{{1,2}}(?:{_DE_NW}|St\.|[{_LO}]{{2,20}})){{0,8}})"
                           r"[ \t]{0,4}")
#: what the line after a letter's sender line starts with: a department or the salutation
_DE_AFTER_HEAD = re.compile(rf"[ \t]{{0,8}}(?:{_DE_DEPT}|Abteilung|Sehr[ \t]geehrte|Werte[ \t]|Liebe[ \t])")


def _de_first_line(text: str, src: str) -> list[Span]:
    """The sender of a letter on its first line, when the next line starts with a department ("Klinik für
    Chirurgie") or the salutation ("Sehr geehrte"): ``LOCATION.HOSPITAL`` 0.65; one of its words must be no
    common word nor compound noun, or a town of the gazetteer."""
    m = re.match(r"\s*", text)
    a = m.end() if m else 0
    b = text.find("\n", a)
    if b == -1 or b - a > 90:
        return []
    head = _DE_HEAD_LINE.fullmatch(text, a, b)
    if head is None:
        return []
    nxt = re.compile(r"\s*").match(text, b).end()
    if _DE_AFTER_HEAD.match(text, nxt) is None:
        return []
    words = [w for w in _DE_WORD_RX.findall(text, *head.span("org")) if w != ","]
    if not any(_de_word_ok(w, strict=True) or fold(w) in _de_towns() for w in words):
        return []
    return [Span(*head.span("org"), "LOCATION.HOSPITAL", f"{src}:first_line", 0.65)]


class GermanLetterCueRecognizer:
    """Names and places of German and Austrian letters that no list holds, found by the letter's own cues:

    * the patient after a person cue ("Patientin", "den Patienten", "Herrn", "Frau", "Pat."), in the order
      "Surname, Firstname" too ("Frau MÜLLER, Anna, Fall-Nr."): ``NAME.PATIENT`` 0.75;
    * an initial after "Herr"/"Frau" ("Herrn W."), or one that starts a line before a verb ("M. wird
      vorgestellt"): ``NAME.PATIENT`` 0.7;
    * the name after academic and staff titles ("PD Dr. X", "Prim. DDr. X Y", "Dr.in X", "DGKS X Y"; a single
      word after a title when it is no common word of the lexicon: "Dr. Med." is no name): ``NAME.DOCTOR`` 0.8;
    * the name after "Geschrieben von", "Untersuchung durch:", "Assistenz:" and similar: ``NAME.DOCTOR`` 0.75;
    * a maiden name after "geb." ("geb. Schmidt"): ``NAME.PATIENT`` 0.7;
    * the name right before a birth marker on its line ("X Y * 13.08.1948", "Y, X, geb. am"): ``NAME.PATIENT``
      0.7 (its words must be no common word nor compound noun);
    * a practice ("Praxis Dr. X", "Hausarztpraxis X Y"): ``LOCATION.HOSPITAL`` 0.75;
    * a hospital head: the words before ", Abt. für ..." / ", X-Einheit" at a line start: ``LOCATION.HOSPITAL``
      0.7;
    * a Swiss town with its canton ("Trüllikon (ZH)"), and the town (and postcode) or street after "wohnhaft"
      ("wohnhaft in 9020 X", "wohnhaft X-Gasse 3,"): ``LOCATION.CITY`` / ``ZIP`` / ``STREET`` 0.75.

    Each regex starts with a literal cue, a line start or a capital class and has bounded repetitions."""

    name = "letters_de_cues"

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        rx = _DE_RX
        src = self.name
        for m in rx["person"].finditer(text):
            # strict: "Herr Oberarzt X", "Pat. Cholezystektomie" (names after "Herr" alone: names:honorific)
            ext = _de_name_words(text, *m.span("name"), strict=True, caps_surname=True)
            if ext:
                out.append(Span(*ext, "NAME.PATIENT", f"{src}:person", 0.75))
        for key in ("initial", "initial_subject"):
            for m in rx[key].finditer(text):
                out.append(Span(*m.span("init"), "NAME.PATIENT", f"{src}:initial", 0.7))
        for m in rx["titled"].finditer(text):
            # a doctor title proper vouches for the name; a staff abbreviation alone ("PD", "CA", "OA") less so
            strict = _DE_STRONG_TITLE.search(m.group("titles")) is None
            ext = _de_name_words(text, *m.span("name"), strict=strict)
            if ext:
                out.append(Span(*ext, "NAME.DOCTOR", f"{src}:title", 0.8))
        if "(" in text:
            out.extend(_de_town_before_country(text, src))
        if "rüße" in text or "ochachtungsvoll" in text:
            out.extend(_de_signature_columns(text, src))
        for m in rx["staff"].finditer(text):
            ext = _de_name_words(text, *m.span("name"), strict=True)
            if ext:
                out.append(Span(*ext, "NAME.DOCTOR", f"{src}:staff", 0.75))
        for m in rx["maiden"].finditer(text):
            if _de_word_ok(m.group("name"), strict=True):
                out.append(Span(*m.span("name"), "NAME.PATIENT", f"{src}:maiden", 0.7))
        for m in rx["birth"].finditer(text):
            lo = max(0, m.start() - 90)
            line = text.rfind("\n", lo, m.start()) + 1 or lo
            seg = text[line:m.start()]
            b = rx["before_birth"].search(seg)
            if b is None:
                continue
            ext = _de_trailing_name(text, line + b.start("name"), line + b.end("name"))
            if ext is None:
                continue
            if " " not in text[ext[0]:ext[1]] and _DE_PERSON_BEFORE.search(text[max(0, ext[0] - 14):ext[0]]) is None:
                continue  # one word alone before "geb." is too weak
            out.append(Span(*ext, "NAME.PATIENT", f"{src}:before_birth", 0.7))
        for m in rx["practice"].finditer(text):
            ext = _de_name_words(text, *m.span("name"), strict=False)
            if ext:
                out.append(Span(m.start("org"), ext[1], "LOCATION.HOSPITAL", f"{src}:practice", 0.75))
        for m in rx["head"].finditer(text):
            a, b = m.span("org")
            words = [w for w in _DE_WORD_RX.findall(text, a, b) if w != ","]
            if any(_de_word_ok(w, strict=True) for w in words):
                out.append(Span(a, b, "LOCATION.HOSPITAL", f"{src}:head", 0.7))
        out += _de_first_line(text, src)
        out += _de_institutions(text, src)
        out += _de_professions(text, src)
        out += _de_payers(text, src)
        out += _de_named_orgs(text, src)
        for m in rx["canton"].finditer(text):
            a = m.start("city")
            first = _DE_WORD_RX.match(text, a)
            if first and not _de_word_ok(first.group(), strict=False):
                second = _DE_WORD_RX.search(text, first.end(), m.end("city"))
                if second is None or second.group() == "," or not _de_word_ok(second.group(), strict=False):
                    continue
                a = second.start()
            out.append(Span(a, m.end("city"), "LOCATION.CITY", f"{src}:canton", 0.75))
        for m in rx["resident"].finditer(text):
            if m.group("pc") is not None:
                ext = _de_name_words(text, *m.span("city"), strict=False)
                if ext:
                    out.append(Span(*m.span("pc"), "LOCATION.ZIP", f"{src}:resident", 0.75))
                    out.append(Span(*ext, "LOCATION.CITY", f"{src}:resident", 0.75))
            elif m.group("street") is not None:
                first = _DE_WORD_RX.match(text, m.start("street"))
                if first and _de_word_ok(first.group(), strict=False):
                    out.append(Span(*m.span("street"), "LOCATION.STREET", f"{src}:resident", 0.75))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


#: a name line of an address block: optional form of address and titles, then two to four name words
_DE_NAME_LINE = re.compile(rf"[ \t]{{0,8}}(?:(?:Herrn|Herr|Frau)[ \t]{{1,2}})?(?:{_DE_TITLES})?"
                           rf"(?P<name>{_DE_NW}(?:[ \t]{{1,2}}(?:[{_UP}]\.[ \t]{{1,2}})?{_DE_NW}){{1,3}})"
                           r"[ \t]{0,3},?[ \t]{0,3}")


def _de_name_line(text: str, a: int, b: int, name: str) -> list[Span]:
    """The person's name on the line ``text[a:b]`` above the street line of an address block."""
    if b - a > 70:
        return []
    m = _DE_NAME_LINE.fullmatch(text, a, b)
    if m is None:
        return []
    ext = _de_name_words(text, *m.span("name"), strict=True)
    if ext is None or ext[1] != m.end("name") or " " not in text[ext[0]:ext[1]]:
        return []
    return [Span(*ext, "NAME.PATIENT", f"{name}:address_name", 0.7)]


@memo
def _build(lang: str) -> tuple[LetterLayoutRecognizer | GermanLetterCueRecognizer, ...]:
    if lang == "de":
        return (LetterLayoutRecognizer(lang), GermanLetterCueRecognizer())
    return (LetterLayoutRecognizer(lang),) if lang in LANGS else ()


def recognizers(lang: str) -> list[LetterLayoutRecognizer | GermanLetterCueRecognizer]:
    """The letter-layout recognizer of ``lang`` (none for languages outside :data:`LANGS`; built once), and for
    German the letter-cue recognizer (:class:`GermanLetterCueRecognizer`)."""
    return list(_build(lang))
