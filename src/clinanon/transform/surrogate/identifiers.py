"""Identifier surrogates: format-preserving, and valid wherever the original's kind has a check digit.

:func:`format_preserving` keeps the length and every separator, replaces digits by digits (a number's first
digit stays non-zero when it was) and letters by ASCII letters of the same case, all keyed, and never returns
the original.

:func:`surrogate_identifier` first recognises identifiers with a checksum (functions of
:mod:`clinanon.lang.checksums`) and builds a surrogate of the same kind and layout that passes the same check:

* Spanish DNI/NIF (7-8 digits + control letter) and NIE (X/Y/Z + 7 digits + letter) — by shape, so a surrogate
  DNI always has the right control letter;
* Spanish NASS (12 digits, ``PP NNNNNNNN CC``) — when valid, or by its 2/8/2 grouping in a Spanish note;
* Swedish personnummer (a real birth date, Luhn) — when valid, or by its shape in a Swedish note;
* Dutch BSN (11-test), German KVNR (letter + 8 digits + check),
  UK NHS number (mod 11), US SSN (structural rules), IBAN (mod 97, same country), card numbers (Luhn) — when
  the original passes its check (German KVNR also by shape in a German note);
* a numeric full date with a 4-digit year (``2013-06-08``, ``20130608``: a date the detector took for an
  identifier): the date shifted like every date of the document (:func:`~.dates.surrogate_date`), so it stays a
  valid date of the same shape;
* everything else: :func:`format_preserving`.
"""

from __future__ import annotations

import datetime as dt
import re
import string

from clinanon.caches import memo
from clinanon.lang import checksums as cs
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.dates import is_full_date, surrogate_date
from clinanon.transform.surrogate.keys import KeyedStream
from clinanon.transform.surrogate.scope import GenContext

__all__ = ["format_preserving", "id_kind", "surrogate_identifier"]

_MAX_ATTEMPTS = 50
_DNI = re.compile(r"\d{7,8}[\s.-]?[A-Za-z]")
_NIE = re.compile(r"[XYZxyz][\s.-]?\d{7}[\s.-]?[A-Za-z]")
_NASS_GROUPS = re.compile(r"\d{2}[\s/.-]?\d{8}[\s/.-]?\d{2}")
_KVNR = re.compile(r"[A-Za-z]\d{9}")
_SSN = re.compile(r"\d{3}-\d{2}-\d{4}")
#: a personnummer by shape (Swedish notes): YYMMDD-NNNN, YYMMDD+NNNN or YYYYMMDD(-)NNNN with a plausible month/day
_PNR_SHAPE = re.compile(r"(?:(?:19|20)\d{2}(?:0[1-9]|1[0-2])\d{2}\s?-?\s?|\d{2}(?:0[1-9]|1[0-2])\d{2}\s?[-+]\s?)\d{4}")


_UPPER = string.ascii_uppercase
_LOWER = string.ascii_lowercase


_RUN_DIGITS = 18  # digits drawn at once (10**18 < 2**60: far below a stream draw's limit)


_FP_TOKEN = re.compile(r"[0-9]+|[^0-9]")  # ASCII digit runs, and every other character on its own
_POW10 = tuple(10 ** k for k in range(_RUN_DIGITS + 1))


def _fp_chars(text: str, stream: KeyedStream) -> str:
    """``text`` with every ASCII digit replaced by a keyed digit (a run's first digit stays non-zero when it was)
    and every letter by a keyed ASCII letter of the same case; digit runs are drawn as whole numbers."""
    below = stream.below
    k = len(text)
    if k <= _RUN_DIGITS and text.isdigit() and text.isascii():  # a single run of digits: the loop's one draw
        return str(_POW10[k - 1] + below(9 * _POW10[k - 1])) if text[0] != "0" else str(below(_POW10[k])).zfill(k)
    out: list[str] = []
    append = out.append
    for tok in _FP_TOKEN.findall(text):
        if len(tok) > 1 or "0" <= tok <= "9":  # a run of ASCII digits, drawn in chunks of _RUN_DIGITS
            j = len(tok)
            if j <= _RUN_DIGITS:  # one chunk (the loop below, once)
                append(str(_POW10[j - 1] + below(9 * _POW10[j - 1])) if tok[0] != "0" else
                       str(below(_POW10[j])).zfill(j))
                continue
            for a in range(0, j, _RUN_DIGITS):
                k = min(_RUN_DIGITS, j - a)
                if a == 0 and tok[0] != "0":
                    append(str(_POW10[k - 1] + below(9 * _POW10[k - 1])))
                else:
                    append(str(below(_POW10[k])).zfill(k))
        elif tok.isalpha():
            append((_UPPER if tok.isupper() else _LOWER)[below(26)])
        else:
            append(tok)
    return "".join(out)


def format_preserving(text: str, ctx: GenContext, purpose: str = "id") -> str:
    """``text`` with each digit/letter replaced by a keyed digit/letter (see the module docstring)."""
    if not any(map(str.isalnum, text)):
        return text
    key = normalize(text)
    out = text
    stream = ctx.rand.stream(purpose, key)
    for _ in range(_MAX_ATTEMPTS):
        out = _fp_chars(text, stream)
        if ctx.fresh(out, key):  # normalize(out) != key and not ctx.leaks(out)
            break
    return out


def _alnum_positions(text: str) -> list[int]:
    return [i for i, c in enumerate(text) if c.isalnum()]


def _place(text: str, compact: str, pos: list[int] | None = None) -> str:
    """Write ``compact`` (one char per alphanumeric position of ``text``: ``pos``) into ``text``'s layout, keeping
    case."""
    chars = list(text)
    if pos is None:
        pos = _alnum_positions(text)
    if len(pos) != len(compact):
        raise ValueError("layout mismatch")
    if compact.isdigit():  # no letter to write in lower case
        for i, c in zip(pos, compact, strict=True):
            chars[i] = c
        return "".join(chars)
    for i, c in zip(pos, compact, strict=True):
        chars[i] = c.lower() if (chars[i].isalpha() and chars[i].islower() and c.isalpha()) else c
    return "".join(chars)


def _digits(rng: KeyedStream, n: int, first_nonzero: bool = True) -> str:
    return rng.decimal(n, first_nonzero)


@memo(maxsize=1 << 14, kind="text")
def id_kind(text: str, lang: str) -> str | None:
    """The checksummed kind of an identifier (``dni``, ``nie``, ``nass``, ``bsn``, ``personnummer``, ``kvnr``,
    ``nhs``, ``ssn``, ``iban``, ``luhn``), or ``None`` (a pure function: cached)."""
    t = text.strip()
    compact = cs.digits_only(t)
    if lang != "sv" and compact.isdigit() and compact.isascii():  # the usual shape: digits and separators only
        return _digits_id_kind(t, compact, lang)
    return _id_kind_checks(t, compact, lang)


def _id_kind_checks(t: str, compact: str, lang: str) -> str | None:
    """:func:`id_kind` of the stripped ``t`` (``compact``: ``cs.digits_only(t)``), every kind checked in order."""
    if lang == "sv" and cs.is_valid_personnummer(t):  # the note's own national id first (1 in 97 also passes NASS)
        return "personnummer"
    if lang == "sv" and _PNR_SHAPE.fullmatch(t) and 1 <= int(compact[-6:-4]) % 60 <= 31:
        return "personnummer"  # written like one but failing Luhn (a typo, made-up data): the surrogate is valid
    if _NIE.fullmatch(t):
        return "nie"
    if _DNI.fullmatch(t):
        return "dni"
    if cs.is_valid_iban(t):
        return "iban"
    if cs.is_valid_nass(t) or (lang == "es" and _NASS_GROUPS.fullmatch(t) and len(compact) == 12):
        return "nass"
    if cs.is_valid_personnummer(t) and (lang == "sv" or "-" in t or "+" in t):
        return "personnummer"
    if cs.is_valid_kvnr(t) or (lang == "de" and _KVNR.fullmatch(compact)):
        return "kvnr"
    if _SSN.fullmatch(t) and cs.is_valid_us_ssn(t):
        return "ssn"
    if len(compact) == 9 and compact.isdigit() and cs.is_valid_bsn(t):
        return "bsn"
    if len(compact) == 10 and compact.isdigit() and cs.is_valid_nhs_number(t) and lang == "en":
        return "nhs"
    if 12 <= len(compact) <= 19 and compact.isdigit() and cs.is_valid_credit_card(t):
        return "luhn"
    return None


def _digits_id_kind(t: str, compact: str, lang: str) -> str | None:
    """:func:`_id_kind_checks` for an identifier of ASCII digits and separators (``compact``: its digits) in a
    note that is not Swedish: only the checks such an identifier can pass, by its number of digits, in the same
    order. (NIE, DNI, IBAN and KVNR need a letter; a NASS has 12 digits, a personnummer 10 or 12, an SSN and a
    BSN 9, an NHS number 10, a card number 12 to 19.)"""
    n = len(compact)
    if n == 9:
        if _SSN.fullmatch(t) and cs.is_valid_us_ssn(t):
            return "ssn"
        return "bsn" if cs.is_valid_bsn(t) else None
    if n == 10 or n == 12:
        if n == 12 and (cs.is_valid_nass(t) or (lang == "es" and _NASS_GROUPS.fullmatch(t))):
            return "nass"
        if cs.is_valid_personnummer(t) and ("-" in t or "+" in t):
            return "personnummer"
        if n == 10:
            return "nhs" if lang == "en" and cs.is_valid_nhs_number(t) else None
    if 12 <= n <= 19 and cs.is_valid_credit_card(t):
        return "luhn"
    return None


def _make(kind: str, text: str, rng: KeyedStream, orig: str | None = None) -> str | None:
    """A compact surrogate (alphanumerics only, same count as ``text``) of ``kind``, or None to re-draw.
    ``orig``: ``text``'s alphanumerics, upper-cased (computed when not given)."""
    if orig is None:
        orig = "".join([text[i] for i in _alnum_positions(text)]).upper()
    n = len(orig)
    if kind == "dni":
        digits = _digits(rng, n - 1)
        return digits + cs.dni_control_letter(int(digits))
    if kind == "nie":
        k = rng.randrange(3)
        digits = _digits(rng, 7, first_nonzero=False)
        return "XYZ"[k] + digits + cs.dni_control_letter(k * 10_000_000 + int(digits))
    if kind == "nass":
        p = rng.randrange(1, 53)
        num = _digits(rng, 8)
        return f"{p:02d}{num}{cs.nass_control(p, int(num)):02d}"
    if kind == "bsn":
        head = _digits(rng, 8)
        last = sum(int(c) * w for c, w in zip(head, range(9, 1, -1), strict=True)) % 11
        return head + str(last) if last <= 9 else None
    if kind == "kvnr":
        letter = rng.choice(string.ascii_uppercase)
        digits = _digits(rng, 8, first_nonzero=False)
        return letter + digits + str(cs.kvnr_check_digit(letter, digits))
    if kind == "nhs":
        head = _digits(rng, 9, first_nonzero=False)
        c = cs.nhs_check_digit(head)
        return head + str(c) if c is not None else None
    if kind == "ssn":
        area = rng.randrange(1, 900)
        if area == 666:
            return None
        return f"{area:03d}{rng.randrange(1, 100):02d}{rng.randrange(1, 10000):04d}"
    if kind == "luhn":
        body = orig[0] + _digits(rng, n - 2, first_nonzero=False)
        return body + cs.luhn_check_digit(body)
    if kind == "iban":
        bban = "".join(str(rng.randrange(10)) if c.isdigit() else rng.choice(string.ascii_uppercase)
                       for c in orig[4:])
        return orig[:2] + cs.iban_check_digits(orig[:2], bban) + bban
    if kind == "personnummer":
        century = n == 12
        coordination = int(orig[-6:-4] if not century else orig[6:8]) > 60
        start = dt.date(1920, 1, 1).toordinal()
        date = dt.date.fromordinal(start + rng.randrange(dt.date(2020, 12, 31).toordinal() - start))
        day = date.day + (60 if coordination else 0)
        body = f"{date.year % 100:02d}{date.month:02d}{day:02d}{rng.randrange(1000):03d}"
        full = body + cs.luhn_check_digit(body)
        return (f"{date.year // 100}" + full) if century else full
    return None


def surrogate_identifier(text: str, ctx: GenContext) -> str:
    """A surrogate identifier (see the module docstring); never equal to the original."""
    kind = id_kind(text, ctx.lang)
    if kind is None:
        if is_full_date(text, ctx.lang):  # a date labelled as an identifier: a valid date, never "1366-08-60"
            return surrogate_date(text, ctx)
        return format_preserving(text, ctx)
    key = normalize(text)
    stream = ctx.rand.stream("id", kind, key)
    pos = _alnum_positions(text)
    orig = "".join([text[i] for i in pos]).upper()
    for _ in range(_MAX_ATTEMPTS):
        compact = _make(kind, text, stream, orig)
        if compact is None:
            continue
        try:
            out = _place(text, compact, pos)
        except ValueError:
            break
        if ctx.fresh(out, key):  # normalize(out) != key and not ctx.leaks(out)
            return out
    return format_preserving(text, ctx)
