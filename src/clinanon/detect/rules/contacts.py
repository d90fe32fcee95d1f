"""Contact details: phone and fax numbers, e-mail addresses, URLs and IP addresses.

* :class:`PhoneRecognizer` finds candidates with one cheap regex (digit groups with single separators, an
  optional ``+``/``00`` country prefix, an optional extension) and validates them with ``phonenumbers`` for
  the language's regions (es→ES, nl→NL, sv→SE, de→DE/AT/CH, en→US/GB) or as an international number. A
  number that no region accepts is kept only when a phone/fax word introduces it. The nearest label word
  decides: a fax word (``Fax:``, ``telefax``) makes it ``CONTACT.FAX``; an identifier label (``NHC:``, ``BSN``)
  drops the candidate, because field values are the identifier recognizers' business. English: a number in the
  written North American shape ("(617) 555-1234", "617.555.1234") is a phone number even where its area code is
  unassigned, and a relative or proxy word ("dtr", "wife", "son", "family") introduces a number as a phone word does
  ("dtr Ann Lee- 555-1234"), unless it is a range of round numbers ("200-1000").
* :class:`PagerRecognizer`: pager, beeper and extension numbers after their word ("Pager #12345", "beeper
  555-1234", "ext. 2234", "call x4567", "Pager #x4567", "dtr Ann Lee x4567").
* :class:`EmailRecognizer` scans outwards from each ``@`` (no regex backtracking on long runs).
* :class:`UrlRecognizer`: URLs with a scheme or ``www.``, and bare domains found from their ``.tld`` (not two
  sentences typed without a space: "follows commands.at times", "needed.Pt also").
* :class:`IpRecognizer`: IPv4 dotted quads and IPv6 addresses (validated by :mod:`ipaddress`).

Speed: every regex starts with a literal or a small character class (so the regex engine skips ahead) and
word-boundary checks are done in Python on the few candidates. ``recognizers(lang)`` returns the detectors
for one language, built once per language and cached.
"""

from __future__ import annotations

import ipaddress
import re
from bisect import bisect_right
from collections.abc import Sequence
from functools import lru_cache

import phonenumbers

from clinanon.caches import memo
from clinanon.detect.base import Detector
from clinanon.detect.rules.identifiers import id_label_regex
from clinanon.document import Document, Span
from clinanon.lang import check_language
from clinanon.lang.lexicon import common_words, is_common

__all__ = [
    "PHONE_REGIONS",
    "EmailRecognizer",
    "IpRecognizer",
    "PagerRecognizer",
    "PhoneRecognizer",
    "UrlRecognizer",
    "recognizers",
]

#: Regions whose numbering plans validate phone numbers written in a language's notes.
PHONE_REGIONS: dict[str, tuple[str, ...]] = {
    "es": ("ES",),
    "nl": ("NL",),
    "sv": ("SE",),
    "de": ("DE", "AT", "CH"),
    "en": ("US", "GB"),
}


def _glued(text: str, start: int, forbidden: str = "") -> bool:
    """True when ``text[start]`` continues a word (or one of ``forbidden`` precedes it)."""
    if start == 0:
        return False
    c = text[start - 1]
    return c.isalnum() or c == "_" or c in forbidden


# --- phone / fax ---------------------------------------------------------------------------------------------

#: English kinship and proxy words: a number right after a relative's name is the number to call ("dtr Ann Lee-
#: 555-1234", "wife (Mary, 555-1234)")
_EN_KIN = ("wife", "husband", "spouse", "son", "sons", "daughter", "daughters", "dtr", "mother", "mom", "father", "dad",
           "sister", "brother", "sis", "bro", "niece", "nephew", "aunt", "uncle", "cousin", "grandson",
           "granddaughter", "grandmother", "grandfather", "girlfriend", "boyfriend", "fiance", "fiancee", "partner",
           "friend", "neighbor", "family", "hcp", "proxy", "guardian", "sibling", "siblings", "children")
_PHONE_WORDS: dict[str, tuple[str, ...]] = {
    "es": ("tel", "telf", "telfs", "tlf", "tlfs", "tlfno", "tfno", "tfo", "teléfono", "telefono", "teléfonos",
           "telefonos", "móvil", "movil", "celular", "llamar", "llame", "contacto", "centralita", "busca",
           "extensión", "citas"),
    "en": ("phone", "telephone", "tel", "ph", "mobile", "cell", "cellphone", "call", "pager", "beeper", "desk",
           "office", "home", "work", "contact", "reach", "dial", "text", "messages", "answering", "cellular",
           "landline", "reached", "called", "calling", "phoned", "contacted", "hm", "wk", "pg",
           "pgr", "bpr", "bleep", *_EN_KIN),
    "nl": ("telefoon", "telefoonnummer", "tel", "telnr", "mobiel", "mobiele", "gsm", "bellen", "bel", "gebeld",
           "telefonisch", "sein", "pieper", "toestel"),
    "sv": ("telefon", "tel", "tfn", "telefonnummer", "mobil", "mobilnummer", "mobiltelefon", "ring", "ringa",
           "nås", "sökare", "växel", "direkt", "hem", "arbete"),
    "de": ("telefon", "tel", "telefonnummer", "rufnummer", "handy", "mobil", "mobilnummer", "durchwahl", "anruf",
           "anrufen", "erreichbar", "piepser", "funk", "zentrale"),
}
_FAX_WORDS = ("fax", "telefax", "faxnummer", "faxnr", "faks", "telefaxnummer")
# words whose number is not a phone number (payment cards, bank accounts); like identifier labels they win
# when they are the nearest label before a candidate
_NOT_PHONE_WORDS = ("card", "cc", "visa", "mastercard", "amex", "tarjeta", "crédito", "kaart", "creditcard", "kort",
                    "kreditkort", "karte", "kreditkarte", "iban", "cuenta", "account", "rekening", "konto")
#: a word of three or more letters: an identifier label followed by such words before a number is not that number's
#: label ("case mgr Boyd, 508-555-0128": the manager's phone, not a case number)
_GAP_WORD = re.compile(r"[^\W\d_]{3,}")
_LABEL_FILLERS = frozenset(("number", "num", "nummer", "numero", "número", "nr", "nro", "no", "for", "des", "der",
                            "van", "del", "de"))


def _words_between(gap: str) -> bool:
    """Whether ``gap`` (between an identifier label and a number) holds a word other than a label filler."""
    return any(w.casefold() not in _LABEL_FILLERS for w in _GAP_WORD.findall(gap))


_EXT_WORDS = r"ext\.?|ext:|x|extensión|anexo|toestel|anknytning|durchwahl|dw\.?"

# Digit groups separated by at most one separator (or "- "); possessive digit runs make the loop unambiguous, so the
# regex is linear on any input. The first element is a "+", "(" or a digit, consumed by one character class (so
# that the regex engine skips to the next such character instead of trying every position), then a branch on
# which one it was, each followed by a look-ahead that rejects short numbers without building a match.
_PHONE_CANDIDATE = re.compile(
    r"(?P<num>[+(\d](?:(?<=\+)(?=[\d ().\-\u00a0]{6})[ \u00a0]?(?:\(\d{1,4}\)[ \u00a0]?)?\(?\d++"
    r"|(?<=\()(?=[\d ().\-+\u00a0]{6})(?:\+?\d{1,4}\)[ \u00a0]?\(?)?\d++|(?<=\d)(?=[\d ().\-\u00a0]{6})\d*+)"
    r"\)?(?:(?:[ \u00a0.]|-[ \u00a0]?)?\(?\d++\)?){0,8})"
    rf"(?P<ext>[ \u00a0]?(?:{_EXT_WORDS})[ \u00a0]?\d{{1,6}}(?!\d))?"
    r"(?![\w/@]|:\d)"
)
#: a Dutch area code, a spaced hyphen and the subscriber number ("030 - 5555555", "020 - 566 9112")
_NL_SPACED = re.compile(r"(?<![\w+\-/.])0\d{1,3}[ \t]{1,2}[-–][ \t]{1,2}\d{2,7}(?:[ \t]\d{2,4}){0,3}(?![\w\-/]|[.,]\d)")
#: a German area code set off by a slash (DIN 5008's old form: "0681 / 3 98 27 41", "0511/58 23 44")
_DE_SLASHED = re.compile(r"(?<![\w+\-/.])0[1-9]\d{1,4}[ \t]{0,2}/[ \t]{0,2}\d{1,8}(?:[ \t\-]\d{1,5}){0,4}"
                         r"(?![\w\-/]|[.,]\d)")
_DMY = re.compile(r"(\d{1,2})([./\-])(\d{1,2})\2(\d{4}|\d{2})")
_YMD = re.compile(r"((?:19|20)\d{2})([./\-])(\d{1,2})\2(\d{1,2})")
_TIME = re.compile(r"\d{1,2}[:.h]\d{2}")
_NON_DIGIT = re.compile(r"\D")
_DIGIT_GROUP = re.compile(r"\d+")
_WORD_RE = re.compile(r"\w+")
_LAST_WORD = re.compile(r"[^\W\d_]+\Z")
#: a North American number in its written shape (area code and exchange start with 2-9): "(617) 555-1234",
#: "617.555.1234", "617-555-1234"; a clinician reads it as a phone number even where the area code is unassigned
_NANP = re.compile(r"\([2-9]\d\d\)[ \u00a0]?[2-9]\d\d[-.]\d{4}|[2-9]\d\d([-.])[2-9]\d\d\1\d{4}")
#: a range of round numbers written like a local number ("200-1000", "500-1500"): a measure, not a phone number
_ROUND_RANGE = re.compile(r"\d{2}0-\d{3}0")
#: a one-digit decimal ("7.35") inside a run of hyphenated numbers: laboratory values, not a phone number
#: two 24-hour clock times joined by a dash ("1400-1600"): a time span
_CLOCK_RANGE = re.compile(r"(?:[01]\d|2[0-3])[0-5]\d[ \t]?[-–][ \t]?(?:[01]\d|2[0-4])[0-5]\d")
_DECIMAL_RUN = re.compile(r"(?:^|[-\s])\d\.\d{1,3}(?:-|$)|-\d\.\d")
_AFTER_WORD = re.compile(r"[ \t\-,]{0,3}(\w+)(?![ \t]*[:.]?[ \t]*[+(\d])")
#: an ascending range at a number's start ("800-1000 15 minutes later", "400-450 12"): settings or vitals
_EN_RANGE_HEAD = re.compile(r"(\d{2,4})-(\d{2,4})(?![\d\-.])")
#: the digit-group lengths of a North American number as it is written ("555-1234", "617 555 1234", "1 800 ...")
_EN_PHONE_GROUPS = frozenset(((3, 4), (3, 3, 4), (1, 3, 3, 4), (10,), (7,), (11,)))
#: vital signs, ventilator settings and outputs right before a number: a value or a range, not a phone number
#: ("VT 800-1000", "UO 600-800 15", "PIP 30-35")
_EN_MEASURE_WORDS = frozenset((
    "vt", "tv", "vte", "vti", "tidal", "volume", "volumes", "rr", "hr", "bp", "sbp", "dbp", "map", "peep", "ps", "pip",
    "plateau", "pressure", "pressures", "uo", "output", "outputs", "urine", "ivf", "fluids", "cvp", "pap", "sats",
    "spo2", "fio2", "rate", "rates", "glucose", "fs", "fsbs", "bs", "wbc", "plt", "plts", "ck", "cpk", "ldh", "bnp",
    "ml", "cc", "cc's", "ccs", "mcg", "mg", "units"))
_PREV_TOKEN = re.compile(r"(\S+)[ \t]{1,3}\Z")
#: the one-letter line markers of a US contact list: "(h) 555-0139", "(c): 555 0177", "555-0150 (w)"
_EN_LINE_MARK_BEFORE = re.compile(r"\((?i:h|c|w|m|hm|wk)\)[ \t]{0,2}:?[ \t]{0,2}\Z")
_EN_LINE_MARK_AFTER = re.compile(r"[ \t]{0,2}\((?i:h|c|w|m|hm|wk)\)")


def _is_date_like(num: str) -> bool:
    """A date (d/m/y or y-m-d with plausible day and month), a time, or a date followed by more digits."""
    head = num.split()[0] if num.split() else num
    for s in {num, head}:
        m = _DMY.fullmatch(s)
        if m and int(m.group(1)) <= 31 and int(m.group(3)) <= 31 and min(int(m.group(1)), int(m.group(3))) <= 12:
            return True
        m = _YMD.fullmatch(s)
        if m and 1 <= int(m.group(3)) <= 12 and 1 <= int(m.group(4)) <= 31:
            return True
    return bool(_TIME.fullmatch(num))


def _nanp_shaped(num: str) -> bool:
    """``num`` (brackets around the whole number allowed: "(617.555.1234)") has a North American shape."""
    if num.count("(") == 1 and num.startswith("(") and num.endswith(")"):
        num = num[1:-1]
    return _NANP.fullmatch(num) is not None


def _balanced(text: str, start: int, num_end: int, end: int) -> tuple[int, int, str]:
    """A phone candidate ``text[start:end]`` without a closing bracket that closes nothing inside it
    (``"503-555-0144)"`` of ``"(phone 503-555-0144), who"``; a number never ends in a bracket of its own) and without
    an opening bracket that nothing inside it closes (``"(503-555-0144"`` of ``"(503-555-0144 cell)"``);
    ``"(503) 555-0144"`` stays. ``num_end``: the end of the number (``end`` is later when an extension follows
    it). Returns the new start and end and the number's text."""
    if end == num_end and text[end - 1] == ")" and text.count("(", start, end) < text.count(")", start, end):
        end = num_end = end - 1
    # "(503-555-0144)": a pair of brackets around the whole number stays with it (as annotators mark it)
    if text[start] == "(" and text.find(")", start, end) < 0:
        start += 1
    return start, end, text[start:num_end]


#: a German day.month. inside a phone candidate ("13.6.2023", "05.11-18.11.2024"): a date or a range of dates
_DE_DATE_IN_NUMBER = re.compile(r"(?<!\d)(?:0?[1-9]|[12]\d|3[01])\.(?:0?[1-9]|1[0-2])(?:\.|-|$)")


class PhoneRecognizer:
    """Phone and fax numbers of one language's regions (see the module docstring for the decision rules).

    Scores: 0.6 for a number valid in a region (or internationally), +0.3 when a phone/fax word is near;
    0.5 for an otherwise unvalidated 7-15 digit number that a phone/fax word introduces.
    ``strip_prefix`` leaves a leading ``+``, ``00`` or ``(`` out of the span (MEDDOCAN's convention).
    """

    def __init__(
        self,
        lang: str,
        *,
        regions: Sequence[str] | None = None,
        phone_words: Sequence[str] | None = None,
        fax_words: Sequence[str] = _FAX_WORDS,
        id_label_regex: re.Pattern[str] | None = None,
        strip_prefix: bool = False,
        context_chars: int = 40,
        min_digits: int = 7,
        max_digits: int = 15,
    ) -> None:
        self.lang = check_language(lang, exact=True)
        self.name = f"phone_{lang}"
        self.regions = tuple(regions if regions is not None else PHONE_REGIONS[lang])
        words = phone_words if phone_words is not None else _PHONE_WORDS[lang] + _PHONE_WORDS["en"][:5]
        self.phone_words = frozenset(w.casefold() for w in words)
        self.fax_words = frozenset(w.casefold() for w in fax_words)
        self.not_phone_words = frozenset(_NOT_PHONE_WORDS)
        self.id_label_regex = id_label_regex
        self.strip_prefix = strip_prefix
        self.context_chars = context_chars
        self.min_digits = min_digits
        self.max_digits = max_digits
        self._valid_cached = lru_cache(maxsize=4096)(self._is_valid)

    def is_valid(self, num: str) -> bool:
        """True if ``num`` is a valid number of one of the regions, or a valid international number."""
        return self._valid_cached(num)

    def _is_valid(self, num: str) -> bool:
        digits = _NON_DIGIT.sub("", num)
        intl = num.startswith("+") or (num.startswith("00") and len(digits) > 10)
        try:
            if intl:
                cand = "+" + digits[2:] if num.startswith("00") else num
                return phonenumbers.is_valid_number(phonenumbers.parse(cand, None))
            for region in self.regions:
                if phonenumbers.is_valid_number(phonenumbers.parse(num, region)):
                    return True
            if len(digits) >= 10:  # a country code written without "+"
                return phonenumbers.is_valid_number(phonenumbers.parse("+" + digits, None))
        except phonenumbers.NumberParseException:
            return False
        return False

    def _label_before(self, text: str, start: int, floor: int) -> tuple[str | None, bool]:
        """The kind of the nearest label before ``start`` ("phone", "fax", "id" or None) and whether a phone
        word occurs in the window (which starts after the previous candidate)."""
        lo = max(floor, start - self.context_chars)
        window = text[lo:start]
        kind, pos = None, -1
        has_phone = False
        for m in _WORD_RE.finditer(window):
            w = m.group().casefold()
            if w in self.fax_words:
                kind, pos = "fax", m.end()
            elif w in self.phone_words:
                kind, pos, has_phone = "phone", m.end(), True
            elif w in self.not_phone_words:
                kind, pos = "id", m.end()
        if self.id_label_regex is not None:
            for m in self.id_label_regex.finditer(window):
                gap = window[m.end():]
                if m.end() >= pos and not (self.lang == "en" and "\n" in gap) and not _words_between(gap):
                    kind, pos = "id", m.end()  # English: a label of the line above is another field's
        return kind, has_phone

    def _phone_word_before(self, text: str, end: int) -> bool:
        """Whether the word that ends at ``end`` is a phone word ("HOME-410 671-9309", "CELL-555 0199")."""
        m = _LAST_WORD.search(text, max(0, end - 16), end)
        return m is not None and m.group().casefold() in self.phone_words | {"cellular", "home", "work"}

    def _label_after(self, text: str, end: int) -> tuple[str | None, int]:
        """A trailing label ("555-1234 fax"), not the label of a following number ("... Fax: 555-9876"),
        and where it ends."""
        m = _AFTER_WORD.match(text, end, end + 24)
        if not m:
            return None, end
        w = m.group(1).casefold()
        if w in self.fax_words:
            return "fax", m.end()
        return ("phone", m.end()) if w in self.phone_words else (None, end)

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        prev_end = 0
        for m in _PHONE_CANDIDATE.finditer(text):
            start, end = m.span()
            num = m.group("num")
            if text[start] == "(" or text[end - 1] == ")":
                start, end, num = _balanced(text, start, start + len(num), end)
            if end - start < self.min_digits:
                continue
            if _glued(text, start, "+/\\@") or (start >= 2 and text[start - 1] == "-" and text[start - 2].isalpha()
                                                   and not self._phone_word_before(text, start - 1)):
                continue
            if _DECIMAL_RUN.search(num):
                continue  # "7.35-39-142-22": blood gas values, not a number to call
            groups = _DIGIT_GROUP.findall(num)
            ndig = sum(len(g) for g in groups)
            if not self.min_digits <= ndig <= self.max_digits or _is_date_like(num):
                continue
            if self.lang == "de" and _DE_DATE_IN_NUMBER.search(num) and not self._phone_word_before(text, start):
                continue  # "(13.6.2023)", "05.11-18.11.2024", "06-07.11.2024": dates, not a number to call
            if sum(1 for g in groups if len(g) == 1) > 2:
                continue  # "1-2-3-4-5-6-7" is not written as a phone number
            kind, has_phone = self._label_before(text, start, prev_end)
            after, prev_end = self._label_after(text, end)
            if self.lang == "en" and kind is None and after is None and (
                    _EN_LINE_MARK_BEFORE.search(text, max(0, start - 8), start)
                    or _EN_LINE_MARK_AFTER.match(text, end, end + 12)):
                kind = "phone"  # "(h) 555-0139", "555-0177 (c)": a home, cell or work line
            verdict = self._context(kind, has_phone, after)
            if verdict is None:
                continue
            context, is_fax = verdict
            if (self.lang == "en" and _CLOCK_RANGE.fullmatch(num.strip()) and after is None
                    and not self._phone_word_before(text, start - 1) and text[max(0, start - 2):start].strip()
                    not in ("#", ":")):
                continue  # "visited 1400-1600", "Mom in 2100-2300": two clock times, not a number to call
            if self.lang == "en" and not context and self._en_measure_range(text, start, num.strip(), groups):
                continue  # "VT 800-1000 15 minutes later": a range of settings, not a number to call
            if self.lang == "nl" and not context and num.strip()[:1] not in ("0", "+", "("):
                continue  # a Dutch number to call starts with its trunk 0 or +31: "633021001" is an article number
            if self.is_valid(num.strip()):
                score, pname = 0.6 + (0.3 if context else 0.0), "valid"
            elif self.lang == "en" and _nanp_shaped(num.strip()):
                score, pname = 0.6 + (0.3 if context else 0.0), "nanp"
            elif context and _ROUND_RANGE.fullmatch(num.strip()):
                continue  # "son ... UO 200-1000": a range of round numbers
            elif context:
                score, pname = 0.5, "context"
            else:
                continue
            if self.strip_prefix:
                while start < end and not text[start].isdigit():
                    start += 1
            label = "CONTACT.FAX" if is_fax else "CONTACT.PHONE"
            out.append(Span(start, end, label, f"{self.name}:{pname}", round(min(score, 1.0), 4)))
        if self.lang == "nl" and "-" in text:
            out = self._nl_spaced(text, out)
        if self.lang == "de" and "/" in text:
            out = self._de_slashed(text, out)
        return out

    @staticmethod
    def _en_measure_range(text: str, start: int, num: str, groups: list[str]) -> bool:
        """An English candidate without a phone word that is a value or a range: a vital sign, setting or output
        word right before it ("VT 800-1000", "UO 600-800"), or an ascending range at its start ("800-1000 15")
        where the digit groups are not written as a North American number."""
        if _nanp_shaped(num):
            return False
        m = _PREV_TOKEN.search(text, max(0, start - 20), start)
        prev = m.group(1).casefold().strip(":=,") if m is not None else ""
        if prev in _EN_MEASURE_WORDS:
            return True
        head = _EN_RANGE_HEAD.match(num)
        return (head is not None and int(head.group(1)) < int(head.group(2))
                and tuple(len(g) for g in groups) not in _EN_PHONE_GROUPS)

    @staticmethod
    def _context(kind: str | None, has_phone: bool, after: str | None) -> tuple[bool, bool] | None:
        """What the words around a number say: ``(a phone or fax word is there, it is a fax)``, or ``None`` where
        an identifier's label stands before it and no phone word after it (an ID, not a number to call)."""
        if kind == "id" and after is None:
            return None
        return kind in ("phone", "fax") or after is not None, (kind == "fax" and not has_phone) or after == "fax"

    def _de_slashed(self, text: str, out: list[Span]) -> list[Span]:
        """German numbers with the area code set off by a slash ("0681 / 3 98 27 41"): six to thirteen digits
        after a phone or fax word, or nine or more valid in the German numbering plan; they replace the shorter
        spans found inside them."""
        found: list[tuple[int, int, bool, float]] = []
        for m in _DE_SLASHED.finditer(text):
            digits = _NON_DIGIT.sub("", m.group())
            if not 6 <= len(digits) <= 13:
                continue
            start, end = m.span()
            verdict = self._context(*self._label_before(text, start, 0), self._label_after(text, end)[0])
            if verdict is None:
                continue
            context, is_fax = verdict
            if not (context or (len(digits) >= 9 and self.is_valid(digits))):
                continue
            found.append((start, end, is_fax, 0.9 if context else 0.6))
        if not found:
            return out
        # one sweep (the matches do not overlap): the spans inside a slashed number give it their label and go
        starts = [a for a, _, _, _ in found]
        inside: dict[int, str] = {}
        kept = []
        for s in out:
            k = bisect_right(starts, s.end - 1) - 1
            if k >= 0 and s.start < found[k][1]:
                inside.setdefault(k, s.label)
            else:
                kept.append(s)
        for k, (start, end, is_fax, score) in enumerate(found):
            label = inside.get(k, "CONTACT.FAX" if is_fax else "CONTACT.PHONE")
            kept.append(Span(start, end, label, f"{self.name}:slashed", score))
        return sorted(kept, key=lambda s: (s.start, s.end))

    def _nl_spaced(self, text: str, out: list[Span]) -> list[Span]:
        """Dutch numbers with the area code set off by a spaced hyphen ("030 - 5555555", "020 - 566 9112"): ten
        digits, valid in the Dutch numbering plan; they replace the shorter spans found inside them."""
        for m in _NL_SPACED.finditer(text):
            digits = _NON_DIGIT.sub("", m.group())
            if len(digits) != 10 or not self.is_valid(digits):
                continue
            start, end = m.span()
            verdict = self._context(*self._label_before(text, start, 0), self._label_after(text, end)[0])
            if verdict is None:
                continue
            context, is_fax = verdict
            inside = [s for s in out if s.start < end and start < s.end]
            out = [s for s in out if not (s.start < end and start < s.end)]
            label = inside[0].label if inside else ("CONTACT.FAX" if is_fax else "CONTACT.PHONE")
            out.append(Span(start, end, label, f"{self.name}:spaced", 0.9 if context else 0.6))
        return sorted(out, key=lambda s: (s.start, s.end))

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


# --- pagers and extensions -------------------------------------------------------------------------------------

#: words that introduce a pager or an internal extension number, per language
_PAGER_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("pager", "beeper", "pgr", "pg", "bpr", "beep", "bleep", "page", "paged", "ext", "extension", "x"),
    "es": ("busca", "buscapersonas", "ext", "extensión", "extension", "anexo"),
    "nl": ("pieper", "sein", "toestel", "tst", "ext"),
    "sv": ("sökare", "personsökare", "anknytning", "ankn", "ext"),
    "de": ("piepser", "pieper", "funk", "durchwahl", "dw", "nebenstelle", "app", "ext"),
}
#: a phone number right before an "x1234" extension ("555-0199 x4567")
_PHONE_TAIL = re.compile(r"\d{3}[-. ]\d{4}[ \t]?\Z")
#: a US number written with a slash after the area code ("410/555-1234"): area code, exchange, line
_SLASH_PHONE = re.compile(r"(?<![\w/.\-])\(?[2-9]\d{2}\)?[ \t]?/[ \t]?[2-9]\d{2}(?:[-. ]|[ \t]?/[ \t]?)?\d{4}"
                          r"(?![\w/\-]|[.,]\d)")
#: words before numbers written with two slashes that make them measures, not a phone number ("ratio 300/200/1000")
_SLASH_NOT_PHONE = frozenset(("ratio", "ratios", "abg", "vbg", "gas", "gases", "vent", "settings", "bp", "pressure",
                              "pressures", "cvp", "pap", "pa", "ps", "peep", "ie", "labs", "lab", "chem", "chems",
                              "cbc", "lytes", "values", "dilution", "titer", "titre"))
#: words before a bare "x1234" that make it an extension ("call x4567", "reach him at x4567")
_CALL_WORDS = frozenset(("call", "called", "calls", "phone", "phoned", "reach", "reached", "contact", "contacted",
                         "page", "paged", "at", "tel", "ph", "number", "no", "extension", "office", "desk", "pager",
                         "pgr", "pg", "beeper", "bpr", "cell", "home", "work", "hm", "wk", *_EN_KIN,
                         "charge", "desk", "station"))  # the charge nurse's, the desk's phone ("charge x3388")


#: "#" and a pager's four or five digits, and the words of paging that make it one within the sentence before
_HASH_NUMBER = re.compile(r"(?<![\w#])#[ \t]?(\d{4,5})(?![\w/]|[.,:-]\d)")
_PAGE_WORDS = frozenset(("page", "paged", "pager", "pgr", "beeper", "beep", "bpr"))
#: credentials that end a signature, after which a bare "x1234" is the signer's extension ("..., LICSW x6620")
_EN_CREDENTIAL_WORDS = frozenset(("rn", "md", "np", "pa-c", "msw", "lcsw", "licsw", "lmhc", "lsw", "cnm",
                                  "crna", "pharmd", "slp", "rrt", "lpn", "aprn", "fnp", "dnp",
                                  "phd", "psyd", "mph", "cm", "ccm"))


class PagerRecognizer:
    """Pager, beeper and extension numbers: a pager word and a 3 to 7 digit number ("Pager #12345", "beeper
    555-1234", "PG 23456", "ext. 2234"), and "x" + 3 to 5 digits after a word of calling ("call x4567").
    Score 0.85 (0.75 for the bare "x" form). Numbers that the phone recognizer finds (7 digits and more with a
    valid shape) are found there too; the resolver keeps one."""

    def __init__(self, lang: str) -> None:
        self.lang = check_language(lang, exact=True)
        self.name = f"pager_{self.lang}"
        words = sorted({w for w in _PAGER_WORDS[self.lang] if w != "x"}, key=len, reverse=True)
        alt = "|".join(re.escape(w) for w in words)
        # the word, then at most a few characters of ":", "#", ".", "no" or "number", then the number
        # (an internal number may be written with a dash after its first one or two digits: "pager #4-2217")
        self._rx = re.compile(rf"(?i)(?<![\w])(?:{alt})\.?(?:[ \t]{{0,2}}(?:no\.?|nr\.?|number|num|#|:|at)){{0,2}}"
                              rf"[ \t]{{0,2}}#?[ \t]?(\d{{1,3}}-\d{{4}}|\d{{3,7}})(?![\w/.,:]\d|[\w/]|-\d)")
        self._x = (re.compile(r"(?i)(?<![\w])x(\d-\d{4}|\d{2,5})(?![\w/\-]|[.,:]\d)") if "x" in _PAGER_WORDS[self.lang]
                   else None)
        self._slash = _SLASH_PHONE if self.lang == "en" else None

    def __repr__(self) -> str:
        return f"PagerRecognizer(lang={self.lang!r})"

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        for m in self._rx.finditer(text):
            out.append(Span(m.start(1), m.end(1), "CONTACT.PHONE", f"{self.name}:pager", 0.85))
        if self.lang == "en" and "#" in text:  # "pls page Anneliese (SW) at #52788": the page word further back
            for m in _HASH_NUMBER.finditer(text):
                window = text[max(0, m.start() - 45):m.start()]
                window = window[max(window.rfind("."), window.rfind("\n")) + 1:]
                if _PAGE_WORDS & {w.casefold() for w in _WORD_RE.findall(window)}:
                    out.append(Span(m.start(1), m.end(1), "CONTACT.PHONE", f"{self.name}:pager", 0.75))
        if self._slash is not None and "/" in text:
            for m in self._slash.finditer(text):
                if m.group().count("/") > 1:  # "201/324/1423"; not "ratio 300/200/1000", "ABG 7.35/410/555/1234"
                    groups = _DIGIT_GROUP.findall(m.group())
                    before = {w.casefold() for w in _WORD_RE.findall(text, max(0, m.start() - 20), m.start())}
                    if before & _SLASH_NOT_PHONE or groups[0].endswith("00") or groups[1].endswith("00"):
                        continue
                out.append(Span(m.start(), m.end(), "CONTACT.PHONE", f"{self.name}:slash", 0.7))
        if self._x is not None and ("x" in text or "X" in text):
            for m in self._x.finditer(text):
                before = [w.casefold() for w in _WORD_RE.findall(text, max(0, m.start() - 30), m.start())[-3:]]
                tail = _PHONE_TAIL.search(text, max(0, m.start() - 20), m.start()) is not None
                if m.end(1) - m.start(1) < 3 and not tail:
                    continue  # "x45" only right after a phone number ("410 392 0780 x45")
                if (_CALL_WORDS & set(before) or tail or text[max(0, m.start() - 2):m.start()].strip() == "#"
                        or (before and before[-1] in _EN_CREDENTIAL_WORDS)  # "Jane Roe, LICSW   x6620"
                        or "-" in m.group(1)):  # "x4-4172": an internal extension's own shape
                    out.append(Span(m.start(), m.end(), "CONTACT.PHONE", f"{self.name}:extension", 0.75))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


# --- e-mail -----------------------------------------------------------------------------------------------------

_LOCAL_EXTRA = frozenset("._%+-'")
_DOMAIN_RUN = re.compile(r"[A-Za-z0-9.\-]{1,255}")
_MAIL_PREFIX = re.compile(r"(?i)(?:e-?mail|correo|mail)[\-:.]")


def _valid_host(host: str) -> bool:
    labels = host.split(".")
    return (len(labels) >= 2 and all(labels) and labels[-1].isalpha() and 2 <= len(labels[-1]) <= 24
            and not host.startswith("-") and all(len(lb) <= 63 for lb in labels))


class EmailRecognizer:
    """E-mail addresses, found by scanning outwards from each ``@`` (linear time on any input).

    A glued label (``E-mail-jdoe@x.org``) is left out of the span.
    """

    def __init__(self, *, name: str = "email", score: float = 0.95, max_local: int = 64) -> None:
        self.name = name
        self.score = score
        self.max_local = max_local

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        i = text.find("@")
        last_end = 0
        while i != -1:
            j = i
            floor = max(last_end, i - self.max_local)
            while j > floor and (text[j - 1].isalnum() or text[j - 1] in _LOCAL_EXTRA):
                j -= 1
            while j < i and text[j] in ".-'":
                j += 1
            pm = _MAIL_PREFIX.match(text, j, i)
            if pm:
                j = pm.end()
            h = i + 2 if text[i + 1:i + 2] == " " else i + 1  # "name@ host.org" (a typing slip)
            dm = _DOMAIN_RUN.match(text, h)
            if j < i and dm:
                host = dm.group().rstrip(".-")
                end = h + len(host)
                if _valid_host(host):
                    out.append(Span(j, end, "CONTACT.EMAIL", f"{self.name}:address", self.score))
                    last_end = end
                elif h == i + 1 and host.isalnum() and host[0].isalpha() and len(host) >= 3 and i - j >= 3:
                    # "name@host" without a top-level domain (intranet, or truncated): still an address
                    out.append(Span(j, end, "CONTACT.EMAIL", f"{self.name}:no_tld", 0.6))
                    last_end = end
            i = text.find("@", i + 1)
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


# --- URL / domain ----------------------------------------------------------------------------------------------

_TLDS = frozenset((
    "com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "io", "eu", "health", "online", "site",
    "app", "es", "cat", "gal", "eus", "nl", "se", "de", "at", "ch", "uk", "fr", "it", "pt", "be", "dk", "no",
    "fi", "ie", "lu", "pl", "cz", "ca", "us", "mx", "ar", "cl", "br", "co", "pe", "uy", "ve", "cu", "au", "nz",
))
#: top-level domains that end almost nothing but a host name
_GENERIC_TLDS = frozenset(("com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "io", "health", "online"))
#: the country-code domains of the places where a language's notes are written (a host there is not doubted)
_HOME_TLDS: dict[str, tuple[str, ...]] = {"en": ("uk", "us", "ca", "au", "nz", "ie"), "es": ("es", "cat", "gal", "eus"),
                                          "nl": ("nl", "be"), "sv": ("se", "fi"), "de": ("de", "at", "ch")}
_SCHEME = re.compile(r"(?:https?://|ftp://|www\.|HTTPS?://|WWW\.|Https?://|Www\.)")
_TLD_HIT = re.compile(r"\.(?:" + "|".join(sorted(_TLDS, key=len, reverse=True)) + r")(?![A-Za-z0-9])",
                      re.IGNORECASE)
_URL_BODY = re.compile(r"[^\s<>\"'()\[\]{}|\\^`]{1,2000}")
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")
_TRAILING = ".,;:!?"
_URL_CONTEXT = frozenset(("web", "website", "url", "site", "página", "pagina", "webpagina", "webbplats",
                          "webseite", "homepage", "internet", "link", "enlace", "sitio", "hemsida"))


class UrlRecognizer:
    """URLs with a scheme or ``www.`` (score 0.9) and bare domains with a known TLD (0.5, 0.8 after a web word).

    Host names that are part of an e-mail address are not URLs.
    """

    def __init__(self, lang: str | None = None, *, name: str = "url") -> None:
        self.name = name
        self.lang = lang

    def analyze(self, text: str) -> list[Span]:
        if "." not in text:
            return []
        out: list[Span] = []
        last_end = 0
        # every scheme match contains "://", "ww." or "WW." (a substring test is much faster than the scan)
        schemes = _SCHEME.finditer(text) if "://" in text or "ww." in text or "WW." in text else ()
        for m in schemes:
            start = m.start()
            if start < last_end or _glued(text, start):
                continue
            b = _URL_BODY.match(text, start)
            end = b.end() if b else m.end()
            while end > start and text[end - 1] in _TRAILING:
                end -= 1
            if end - start > len(m.group()) and "." in text[m.end():end]:
                out.append(Span(start, end, "CONTACT.URL", f"{self.name}:scheme", 0.9))
                last_end = end
        covered = [(s.start, s.end) for s in out]
        for m in _TLD_HIT.finditer(text):
            dot = m.start()
            if dot < last_end:
                continue
            j = dot
            while j > 0 and text[j - 1] in _HOST_CHARS and dot - j < 253:
                j -= 1
            while j < dot and text[j] in ".-":
                j += 1
            if j == dot or (j > 0 and (text[j - 1] in "@/" or text[j - 1].isalnum() or text[j - 1] == "_")):
                continue
            k = m.end()
            while k < len(text) and text[k] in _HOST_CHARS and k - j < 253:
                k += 1
            if k < len(text) and text[k] == "@":
                last_end = k
                continue  # an e-mail address
            while k > m.end() and text[k - 1] in ".-":
                k -= 1
            host = text[j:k]
            if not _valid_host(host) or host.rsplit(".", 1)[-1].lower() not in _TLDS:
                last_end = k
                continue
            if host[0].isdigit() and host.replace(".", "").isdigit():
                continue
            end = k
            if k < len(text) and text[k] == "/":
                b = _URL_BODY.match(text, k)
                end = b.end() if b else k + 1
                while end > k and text[end - 1] in _TRAILING:
                    end -= 1
            last_end = end
            if any(a < end and j < z for a, z in covered):
                continue
            before = {w.casefold() for w in _WORD_RE.findall(text[max(0, j - 40):j])}
            web = bool(before & _URL_CONTEXT)
            if not web and end - k <= 4 and self._sentence_break(host):  # also "pcwp 11.CO/ci adequate"
                continue
            score = 0.8 if web else 0.5
            out.append(Span(j, end, "CONTACT.URL", f"{self.name}:domain", score))
        return out

    def _sentence_break(self, host: str) -> bool:
        """A bare ``word.tld`` without a web word before it that is two sentences without a space ("follows
        commands.at times", "tol po well.no n/v", "needed.Pt also"): a country-code or word-like top-level domain
        after a common word or a number, or in mixed case."""
        labels = host.split(".")
        if len(labels) == 3 and labels[0].isdigit() and labels[1].isdigit():
            labels = [labels[0] + labels[1], labels[2]]  # "heparin=78.3.no changes": a decimal, then a sentence
        if len(labels) != 2:
            return False
        name, tld = labels
        if tld.lower() in _GENERIC_TLDS or tld.lower() in _HOME_TLDS.get(self.lang or "", ()):
            return False
        if (tld[:1].isupper() and not host.isupper()) or name[:1].isdigit():
            return True  # "needed.Pt also", "12cc.Pt": a capital after the dot starts a sentence
        return self.lang is not None and (name.casefold() in common_words(self.lang)
                                          or is_common(name, self.lang))

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


# --- IP addresses ----------------------------------------------------------------------------------------------

# (the first digit apart, so that the regex engine skips to the digits instead of trying every position)
_IPV4 = re.compile(r"[0-9][0-9]{0,2}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}")
_IPV6_HIT = re.compile(r":[0-9A-Fa-f]{0,4}:")
_IPV6_CHARS = frozenset("0123456789abcdefABCDEF:.")
_IP_CONTEXT = frozenset(("ip", "ipv4", "ipv6", "address", "dirección", "adres", "adresse", "adress", "host",
                         "server", "servidor", "client", "gateway", "router"))


class IpRecognizer:
    """IPv4 (dotted quad, octets 0-255 without leading zeros; 0.6, 0.9 after an IP word) and IPv6 (0.7/0.9)."""

    def __init__(self, *, name: str = "ip") -> None:
        self.name = name

    def _score(self, text: str, start: int, base: float) -> float:
        words = {w.casefold() for w in _WORD_RE.findall(text[max(0, start - 40):start])}
        return round(min(1.0, base + 0.3), 4) if words & _IP_CONTEXT else base

    def analyze(self, text: str) -> list[Span]:
        out: list[Span] = []
        for m in _IPV4.finditer(text):
            s, e = m.span()
            if _glued(text, s, ".") or (e < len(text) and (text[e].isdigit()
                                                          or (text[e] == "." and text[e + 1:e + 2].isdigit()))):
                continue
            parts = m.group().split(".")
            if all(p == "0" or (not p.startswith("0") and int(p) <= 255) for p in parts):
                out.append(Span(s, e, "CONTACT.IPADDR", f"{self.name}:ipv4", self._score(text, s, 0.6)))
        last_end = 0
        for m in _IPV6_HIT.finditer(text):
            if m.start() < last_end:
                continue
            j = m.start()
            while j > last_end and text[j - 1] in _IPV6_CHARS:
                j -= 1
            k = m.end()
            while k < len(text) and text[k] in _IPV6_CHARS:
                k += 1
            last_end = k
            if k - j > 45:
                continue  # a long run of hex digits and colons is not an address (skipped whole: linear time)
            while k > j and text[k - 1] in ".:" and not text[j:k].endswith("::"):
                k -= 1
            cand = text[j:k]
            if _glued(text, j) or (k < len(text) and (text[k].isalnum() or text[k] == "_")):
                continue
            try:
                ipaddress.IPv6Address(cand)
            except ValueError:
                continue
            if sum(1 for g in cand.split(":") if g) >= 3:
                out.append(Span(j, k, "CONTACT.IPADDR", f"{self.name}:ipv6", self._score(text, j, 0.7)))
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


# --- per language --------------------------------------------------------------------------------------------

@memo
def _build(lang: str) -> tuple[Detector, ...]:
    phone = PhoneRecognizer(lang, id_label_regex=id_label_regex(lang), strip_prefix=(lang == "es"))
    return (phone, PagerRecognizer(lang), EmailRecognizer(), UrlRecognizer(lang), IpRecognizer())


def recognizers(lang: str) -> list[Detector]:
    """Phone/fax, e-mail, URL and IP recognizers for ``lang`` (built once per language)."""
    return list(_build(check_language(lang, exact=True)))
