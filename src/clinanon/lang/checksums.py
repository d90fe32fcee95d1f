"""Check digits of national, health and account identifiers: validators and generators of valid numbers.

Every function is pure. Validators take the identifier as written (spaces, dashes, dots and, where the format
has one, a leading country letter are tolerated), return ``bool`` and never raise on malformed input.
Generators take a :class:`random.Random` and return a valid identifier in its canonical written form, so tests
and surrogate generators can make numbers that pass the same validators.

Algorithms:

* Luhn (ISO/IEC 7812-1): credit cards, Swedish personnummer.
* Spanish DNI/NIF and NIE: control letter ``"TRWAGMYFPDXBNJZSQVHLCKE"[number % 23]``; a NIE's leading
  X/Y/Z stands for 0/1/2.
* Spanish NASS / NSS (número de afiliación a la Seguridad Social, 12 digits ``PP NNNNNNNN CC``): control
  ``CC = D mod 97`` where ``D = N + P * 10**7`` if ``N < 10**7`` else ``D`` = the digits ``P`` then ``N``.
* Dutch BSN: the "11-test" ``9*d1 + 8*d2 + ... + 2*d8 - 1*d9 ≡ 0 (mod 11)``.
* Swedish personnummer / samordningsnummer: ``YYMMDD-NNNC`` (``+`` after 100 years, optional century),
  a real calendar date (day + 60 for a samordningsnummer) and a Luhn check over the ten digits.
* US SSN: area 001-899 except 666, group 01-99, serial 0001-9999 (the SSA's structural rules; there is no
  check digit).
* German Krankenversichertennummer (KVNR, §290 SGB V): a letter A-Z (→ 01-26) + 8 digits + check digit;
  weights 1,2,1,2,... over the ten digits, products above 9 replaced by their digit sum, sum mod 10.
* UK NHS number: 10 digits, weights 10..2, check ``11 - sum mod 11`` (11 → 0, 10 is never issued).
* IBAN (ISO 13616): per-country length, ``mod 97 == 1`` over BBAN + country + check digits.
"""

from __future__ import annotations

import datetime as _dt
import random
import re

__all__ = [
    "IBAN_LENGTHS",
    "digits_only",
    "dni_control_letter",
    "generate_bsn",
    "generate_credit_card",
    "generate_dni",
    "generate_iban",
    "generate_kvnr",
    "generate_nass",
    "generate_nhs_number",
    "generate_nie",
    "generate_personnummer",
    "generate_us_ssn",
    "iban_check_digits",
    "is_luhn_valid",
    "is_personnummer_shaped",
    "is_valid_bsn",
    "is_valid_credit_card",
    "is_valid_dni",
    "is_valid_iban",
    "is_valid_kvnr",
    "is_valid_nass",
    "is_valid_nhs_number",
    "is_valid_nie",
    "is_valid_personnummer",
    "is_valid_us_ssn",
    "kvnr_check_digit",
    "luhn_check_digit",
    "luhn_checksum",
    "nass_control",
    "nhs_check_digit",
]

_SEPARATORS = re.compile(r"[\s.\-/]")


def digits_only(s: str) -> str:
    """``s`` without spaces, dots, dashes and slashes (other characters are kept)."""
    return _SEPARATORS.sub("", s)


# --- Luhn ---------------------------------------------------------------------------------------------------

def luhn_checksum(number: str) -> int:
    """The Luhn sum of a full number (check digit included) modulo 10; 0 means valid.

    Raises ``ValueError`` if ``number`` contains anything but digits.
    """
    if not number.isdigit() or not number.isascii():
        raise ValueError("Luhn needs ASCII digits only")
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10


def luhn_check_digit(payload: str) -> str:
    """The digit to append to ``payload`` so that the result passes the Luhn check."""
    return str((10 - luhn_checksum(payload + "0")) % 10)


def is_luhn_valid(number: str) -> bool:
    """True for a digit string (separators allowed) of at least 2 digits that passes the Luhn check."""
    d = digits_only(number)
    if len(d) < 2 or not d.isdigit() or not d.isascii():
        return False
    return luhn_checksum(d) == 0


def is_valid_credit_card(number: str) -> bool:
    """A payment card number: 12-19 digits, Luhn-valid, not all one digit, not starting with 0."""
    d = digits_only(number)
    if not (12 <= len(d) <= 19) or not d.isdigit() or not d.isascii() or d[0] == "0" or len(set(d)) == 1:
        return False
    return luhn_checksum(d) == 0


def generate_credit_card(rng: random.Random, length: int = 16, prefix: str = "4") -> str:
    """A Luhn-valid card number of ``length`` digits starting with ``prefix`` (default: a Visa-like 4)."""
    if not 12 <= length <= 19 or len(prefix) >= length:
        raise ValueError("length must be 12-19 and longer than the prefix")
    body = prefix + "".join(str(rng.randrange(10)) for _ in range(length - len(prefix) - 1))
    return body + luhn_check_digit(body)


# --- Spain: DNI / NIE / NASS ----------------------------------------------------------------------------------

_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_DNI_RE = re.compile(r"(\d{7,8})([A-Z])")
_NIE_RE = re.compile(r"([XYZ])(\d{7})([A-Z])")


def dni_control_letter(number: int | str) -> str:
    """The control letter of a DNI number (``12345678`` → ``"Z"``)."""
    n = int(number)
    if n < 0 or n > 99_999_999:
        raise ValueError("a DNI number has at most 8 digits")
    return _DNI_LETTERS[n % 23]


def is_valid_dni(s: str) -> bool:
    """A Spanish DNI/NIF of a person: 7-8 digits and the right control letter (case and separators ignored)."""
    m = _DNI_RE.fullmatch(digits_only(s).upper())
    return bool(m) and dni_control_letter(m.group(1)) == m.group(2)


def is_valid_nie(s: str) -> bool:
    """A Spanish NIE: X/Y/Z, 7 digits, control letter computed with X/Y/Z = 0/1/2."""
    m = _NIE_RE.fullmatch(digits_only(s).upper())
    if not m:
        return False
    return dni_control_letter("XYZ".index(m.group(1)) * 10_000_000 + int(m.group(2))) == m.group(3)


def generate_dni(rng: random.Random) -> str:
    """A valid DNI, 8 digits + letter (``"12345678Z"`` form)."""
    n = rng.randrange(1_000_000, 100_000_000)
    return f"{n:08d}{dni_control_letter(n)}"


def generate_nie(rng: random.Random) -> str:
    """A valid NIE (``"X1234567L"`` form)."""
    k = rng.randrange(3)
    n = rng.randrange(10_000_000)
    return f"{'XYZ'[k]}{n:07d}{dni_control_letter(k * 10_000_000 + n)}"


def nass_control(province: int, number: int) -> int:
    """The two control digits (as an int 0-96) of a Spanish NASS with ``province`` (0-99) and ``number``."""
    if not 0 <= province <= 99 or not 0 <= number <= 99_999_999:
        raise ValueError("NASS: province has 2 digits, number at most 8")
    d = number + province * 10_000_000 if number < 10_000_000 else int(f"{province}{number}")
    return d % 97


def is_valid_nass(s: str) -> bool:
    """A Spanish Social Security affiliation number: 12 digits ``PP NNNNNNNN CC`` with ``CC`` = mod-97 control."""
    d = digits_only(s)
    if len(d) != 12 or not d.isdigit() or not d.isascii():
        return False
    return nass_control(int(d[:2]), int(d[2:10])) == int(d[10:])


def generate_nass(rng: random.Random) -> str:
    """A valid NASS written ``"PP NNNNNNNN CC"`` (province 01-52)."""
    p = rng.randrange(1, 53)
    n = rng.randrange(10_000_000, 100_000_000)
    return f"{p:02d} {n:08d} {nass_control(p, n):02d}"


# --- Netherlands: BSN ---------------------------------------------------------------------------------------

def _bsn_sum(d: str) -> int:
    return sum(int(c) * w for c, w in zip(d[:8], range(9, 1, -1), strict=True)) - int(d[8])


def is_valid_bsn(s: str) -> bool:
    """A Dutch burgerservicenummer: 9 digits (8 accepted with a leading zero added) passing the 11-test."""
    d = digits_only(s)
    if len(d) == 8:
        d = "0" + d
    if len(d) != 9 or not d.isdigit() or not d.isascii() or int(d) == 0:
        return False
    return _bsn_sum(d) % 11 == 0


def generate_bsn(rng: random.Random) -> str:
    """A valid 9-digit BSN (first digit 1-9)."""
    while True:
        head = str(rng.randrange(1, 10)) + "".join(str(rng.randrange(10)) for _ in range(7))
        s = sum(int(c) * w for c, w in zip(head, range(9, 1, -1), strict=True))
        last = s % 11
        if last <= 9:
            return head + str(last)


# --- Sweden: personnummer / samordningsnummer -------------------------------------------------------------

_PNR_RE = re.compile(r"(\d{2})?(\d{2})(\d{2})(\d{2})([-+]?)(\d{3})(\d)")


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _valid_day(year: int | None, month: int, day: int) -> bool:
    if not 1 <= month <= 12 or day < 1:
        return False
    if month == 2:
        # without a century, accept 29 February when the two-digit year is a multiple of 4
        leap = _is_leap(year) if year is not None and year >= 100 else (year or 0) % 4 == 0
        return day <= (29 if leap else 28)
    return day <= (30 if month in (4, 6, 9, 11) else 31)


def _personnummer_digits(s: str, allow_coordination: bool) -> str | None:
    """The ten digits ``YYMMDDNNNC`` of a personnummer-shaped ``s`` with a real date, else ``None``."""
    m = _PNR_RE.fullmatch(re.sub(r"\s", "", s))
    if not m:
        return None
    century, yy, mm, dd, _sep, serial, check = m.groups()
    if century is not None and century not in ("18", "19", "20"):
        return None
    day = int(dd)
    if allow_coordination and day > 60:
        day -= 60
    year = int(century + yy) if century else int(yy)
    if not _valid_day(year, int(mm), day):
        return None
    return yy + mm + dd + serial + check


def is_personnummer_shaped(s: str, *, allow_coordination: bool = True) -> bool:
    """``s`` has the form of a Swedish personnummer (or samordningsnummer, day + 60) with a real date, whatever
    its check digit (a mistyped identifier still identifies). Forms as :func:`is_valid_personnummer`."""
    return _personnummer_digits(s, allow_coordination) is not None


def is_valid_personnummer(s: str, *, allow_coordination: bool = True) -> bool:
    """A Swedish personnummer (or samordningsnummer, day + 60) with a real date and a valid Luhn digit.

    Accepted forms: ``YYMMDD-NNNC``, ``YYMMDD+NNNC``, ``YYMMDDNNNC``, ``YYYYMMDD-NNNC``, ``YYYYMMDDNNNC``
    (spaces around the separator tolerated).
    """
    digits = _personnummer_digits(s, allow_coordination)
    return digits is not None and luhn_checksum(digits) == 0


def generate_personnummer(rng: random.Random, *, coordination: bool = False, century: bool = False) -> str:
    """A valid personnummer ``YYMMDD-NNNC`` (``YYYYMMDD-NNNC`` with ``century``); day + 60 if ``coordination``."""
    start = _dt.date(1920, 1, 1).toordinal()
    date = _dt.date.fromordinal(rng.randrange(start, _dt.date(2020, 12, 31).toordinal()))
    day = date.day + (60 if coordination else 0)
    body = f"{date.year % 100:02d}{date.month:02d}{day:02d}{rng.randrange(1000):03d}"
    c = luhn_check_digit(body)
    head = f"{date.year // 100}" if century else ""
    return f"{head}{body[:6]}-{body[6:]}{c}"


# --- USA: SSN -------------------------------------------------------------------------------------------------

_SSN_RE = re.compile(r"(\d{3})[- ]?(\d{2})[- ]?(\d{4})")
_SSN_NEVER_VALID = frozenset({"078051120", "219099999", "123456789"})


def is_valid_us_ssn(s: str) -> bool:
    """A structurally valid US SSN: area 001-899 but not 666, group 01-99, serial 0001-9999.

    Also rejects numbers the SSA voided after public misuse (078-05-1120, 219-09-9999) and 123-45-6789.
    """
    m = _SSN_RE.fullmatch(s.strip())
    if not m:
        return False
    area, group, serial = m.groups()
    if area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000":
        return False
    return area + group + serial not in _SSN_NEVER_VALID


def generate_us_ssn(rng: random.Random) -> str:
    """A structurally valid SSN ``AAA-GG-SSSS``."""
    while True:
        area = rng.randrange(1, 900)
        if area != 666:
            break
    s = f"{area:03d}-{rng.randrange(1, 100):02d}-{rng.randrange(1, 10000):04d}"
    return s if is_valid_us_ssn(s) else generate_us_ssn(rng)


# --- Germany: Krankenversichertennummer (KVNR) -------------------------------------------------------------

_KVNR_RE = re.compile(r"([A-Z])(\d{8})(\d)")


def kvnr_check_digit(letter: str, digits8: str) -> int:
    """The check digit of a KVNR with ``letter`` (A-Z) and 8 digits (§290 SGB V, modified Luhn)."""
    letter = letter.upper()
    if len(letter) != 1 or not "A" <= letter <= "Z" or len(digits8) != 8 or not digits8.isdigit():
        raise ValueError("KVNR: one letter A-Z and 8 digits expected")
    seq = f"{ord(letter) - 64:02d}" + digits8
    total = 0
    for i, ch in enumerate(seq):
        p = int(ch) * (1 if i % 2 == 0 else 2)
        total += p // 10 + p % 10
    return total % 10


def is_valid_kvnr(s: str) -> bool:
    """A German health-insurance number (unveränderbarer Teil): letter + 8 digits + check digit."""
    m = _KVNR_RE.fullmatch(digits_only(s).upper())
    return bool(m) and kvnr_check_digit(m.group(1), m.group(2)) == int(m.group(3))


def generate_kvnr(rng: random.Random) -> str:
    """A valid KVNR (``"A123456780"`` form)."""
    letter = chr(65 + rng.randrange(26))
    digits = "".join(str(rng.randrange(10)) for _ in range(8))
    return f"{letter}{digits}{kvnr_check_digit(letter, digits)}"


# --- UK: NHS number -------------------------------------------------------------------------------------------

def nhs_check_digit(digits9: str) -> int | None:
    """The check digit of 9 NHS-number digits, or None when it would be 10 (such numbers are never issued)."""
    if len(digits9) != 9 or not digits9.isdigit():
        raise ValueError("NHS number: 9 digits expected")
    c = 11 - sum(int(ch) * w for ch, w in zip(digits9, range(10, 1, -1), strict=True)) % 11
    if c == 11:
        return 0
    return None if c == 10 else c


def is_valid_nhs_number(s: str) -> bool:
    """A UK NHS number: 10 digits (``3 3 4`` grouping tolerated) with a valid mod-11 check digit."""
    d = digits_only(s)
    if len(d) != 10 or not d.isdigit() or not d.isascii() or len(set(d)) == 1:
        return False
    return nhs_check_digit(d[:9]) == int(d[9])


def generate_nhs_number(rng: random.Random) -> str:
    """A valid NHS number written ``"943 476 5919"``."""
    while True:
        head = "".join(str(rng.randrange(10)) for _ in range(9))
        c = nhs_check_digit(head)
        if c is not None and len(set(head + str(c))) > 1:
            d = head + str(c)
            return f"{d[:3]} {d[3:6]} {d[6:]}"


# --- IBAN -----------------------------------------------------------------------------------------------------

#: Total IBAN length per country (SWIFT IBAN registry).
IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
    "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
    "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
    "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
    "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
    "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29,
    "RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
    "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}


def _iban_mod97(s: str) -> int:
    return int("".join(str(int(ch, 36)) for ch in s)) % 97


def iban_check_digits(country: str, bban: str) -> str:
    """The two check digits of an IBAN with ``country`` (2 letters) and ``bban`` (alphanumeric)."""
    country, bban = country.upper(), bban.upper()
    if not re.fullmatch(r"[A-Z]{2}", country) or not re.fullmatch(r"[A-Z0-9]{1,30}", bban):
        raise ValueError("IBAN: 2-letter country and an alphanumeric BBAN expected")
    return f"{98 - _iban_mod97(bban + country + '00'):02d}"


def is_valid_iban(s: str) -> bool:
    """An IBAN of a known country with its registered length and ``mod 97 == 1`` (case, spaces ignored)."""
    d = re.sub(r"[\s\-]", "", s).upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{8,30}", d):
        return False
    if IBAN_LENGTHS.get(d[:2]) != len(d):
        return False
    return _iban_mod97(d[4:] + d[:4]) == 1


def generate_iban(rng: random.Random, country: str = "ES") -> str:
    """A valid IBAN of ``country`` (digits-only BBAN), written in groups of four."""
    country = country.upper()
    n = IBAN_LENGTHS.get(country)
    if n is None:
        raise ValueError("IBAN: unknown country code")
    bban = "".join(str(rng.randrange(10)) for _ in range(n - 4))
    raw = country + iban_check_digits(country, bban) + bban
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))
