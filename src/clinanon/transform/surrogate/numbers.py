"""Number words 1-99 in the five languages: spelling a number (:func:`_spell`) and reading one
(:func:`number_words`), for ages written in words (``"cuarenta y dos años"``, ``"forty-two"``).
"""

from __future__ import annotations

import re

from clinanon.caches import memo
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.date_formats import DATE_LOCALES

__all__ = ["number_words"]

_ES_UNITS = ["cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez", "once",
             "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho", "diecinueve", "veinte",
             "veintiuno", "veintidós", "veintitrés", "veinticuatro", "veinticinco", "veintiséis", "veintisiete",
             "veintiocho", "veintinueve"]
_ES_TENS = {3: "treinta", 4: "cuarenta", 5: "cincuenta", 6: "sesenta", 7: "setenta", 8: "ochenta", 9: "noventa"}
_EN_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
             "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_EN_TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}
_DE_UNITS = ["null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn", "elf",
             "zwölf", "dreizehn", "vierzehn", "fünfzehn", "sechzehn", "siebzehn", "achtzehn", "neunzehn"]
_DE_TENS = {2: "zwanzig", 3: "dreißig", 4: "vierzig", 5: "fünfzig", 6: "sechzig", 7: "siebzig", 8: "achtzig",
            9: "neunzig"}
_NL_UNITS = ["nul", "een", "twee", "drie", "vier", "vijf", "zes", "zeven", "acht", "negen", "tien", "elf",
             "twaalf", "dertien", "veertien", "vijftien", "zestien", "zeventien", "achttien", "negentien"]
_NL_TENS = {2: "twintig", 3: "dertig", 4: "veertig", 5: "vijftig", 6: "zestig", 7: "zeventig", 8: "tachtig",
            9: "negentig"}
_SV_UNITS = ["noll", "ett", "två", "tre", "fyra", "fem", "sex", "sju", "åtta", "nio", "tio", "elva", "tolv",
             "tretton", "fjorton", "femton", "sexton", "sjutton", "arton", "nitton"]
_SV_TENS = {2: "tjugo", 3: "trettio", 4: "fyrtio", 5: "femtio", 6: "sextio", 7: "sjuttio", 8: "åttio", 9: "nittio"}


def _spell(n: int, lang: str) -> str:
    if lang == "es":
        if n < 30:
            return _ES_UNITS[n]
        t, u = divmod(n, 10)
        return _ES_TENS[t] + (f" y {_ES_UNITS[u]}" if u else "")
    units, tens = {"en": (_EN_UNITS, _EN_TENS), "de": (_DE_UNITS, _DE_TENS), "nl": (_NL_UNITS, _NL_TENS),
                   "sv": (_SV_UNITS, _SV_TENS)}[lang]
    if n < 20:
        return units[n]
    t, u = divmod(n, 10)
    if not u:
        return tens[t]
    if lang == "en":
        return f"{tens[t]}-{units[u]}"
    if lang == "sv":
        return tens[t] + units[u]
    unit = "ein" if (lang == "de" and u == 1) else units[u]
    joiner = "und" if lang == "de" else ("ën" if unit.endswith("e") else "en")
    return unit + joiner + tens[t]


@memo(maxsize=8)
def number_words(lang: str) -> dict[str, int]:
    """Folded number words 1-99 of ``lang`` -> value (plus ``un``/``una``/``a``/``ein``... for 1)."""
    lang = lang if lang in DATE_LOCALES else "en"
    out = {normalize(_spell(n, lang)): n for n in range(1, 100)}
    for alias, v in {"es": {"un": 1, "una": 1}, "en": {"an": 1}, "de": {"ein": 1, "eine": 1, "einen": 1},
                     "nl": {"één": 1}, "sv": {"en": 1}}.get(lang, {}).items():
        out[normalize(alias)] = v
    return out


@memo(maxsize=8)
def _number_word_regex(lang: str) -> re.Pattern[str]:
    forms = sorted(number_words(lang), key=len, reverse=True)
    return re.compile(r"(?<![\w])(" + "|".join(re.escape(f) for f in forms) + r")(?![\w])")
