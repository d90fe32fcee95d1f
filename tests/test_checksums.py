"""Check-digit validators and generators (clinanon.lang.checksums); expectations computed by hand."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.lang import checksums as cs


# --- Luhn ---------------------------------------------------------------------------------------------------
def test_luhn_known_numbers() -> None:
    # 7992739871 + check digit: doubled every second digit from the right of "79927398710" gives
    # 7,18→9,9,4,7,6,9,16→7,7,2 (+0) = 67 -> check digit (10 - 7) % 10 = 3
    assert cs.luhn_check_digit("7992739871") == "3"
    assert cs.is_luhn_valid("79927398713")
    assert not cs.is_luhn_valid("79927398710")
    assert cs.luhn_checksum("79927398713") == 0
    assert cs.is_luhn_valid("4111 1111 1111 1111")  # separators are ignored
    assert not cs.is_luhn_valid("4111 1111 1111 1112")
    assert not cs.is_luhn_valid("")
    assert not cs.is_luhn_valid("12a4")
    with pytest.raises(ValueError):
        cs.luhn_checksum("12a4")


def test_credit_card_rules() -> None:
    assert cs.is_valid_credit_card("4111-1111-1111-1111")
    assert not cs.is_valid_credit_card("0000000000000000")  # all one digit / leading zero
    assert not cs.is_valid_credit_card("41111111111")  # 11 digits: too short
    assert not cs.is_valid_credit_card("4111111111111112")


# --- Spain --------------------------------------------------------------------------------------------------
def test_dni_and_nie() -> None:
    # 12345678 = 23 * 536768 + 14 -> "TRWAGMYFPDXBNJZSQVHLCKE"[14] = "Z"
    assert cs.dni_control_letter(12345678) == "Z"
    assert cs.is_valid_dni("12345678Z")
    assert cs.is_valid_dni("12345678-z")
    assert not cs.is_valid_dni("12345678A")
    assert not cs.is_valid_dni("1234567")  # no letter
    # X1234567: 1234567 = 23 * 53676 + 19 -> "L"; Y -> 11234567 % 23 = 10 -> "X"; Z -> 21234567 % 23 = 1 -> "R"
    assert cs.is_valid_nie("X1234567L")
    assert cs.is_valid_nie("Y-1234567-X")
    assert cs.is_valid_nie("Z1234567R")
    assert not cs.is_valid_nie("X1234567T")
    assert not cs.is_valid_nie("A1234567L")
    with pytest.raises(ValueError):
        cs.dni_control_letter(10**8)


def test_nass() -> None:
    # province 28, number 12345678 (>= 10^7): D = 2812345678 = 97 * 28993254 + 40 -> control 40
    assert cs.nass_control(28, 12345678) == 40
    assert cs.is_valid_nass("28 12345678 40")
    assert cs.is_valid_nass("28/12345678/40")
    assert not cs.is_valid_nass("28 12345678 41")
    # province 08, number 1234567 (< 10^7): D = 1234567 + 8 * 10^7 = 81234567 = 97 * 837469 + 74
    assert cs.is_valid_nass("08 01234567 74")
    assert not cs.is_valid_nass("26 63514095")  # 10 digits


# --- Netherlands ---------------------------------------------------------------------------------------------
def test_bsn_eleven_test() -> None:
    # 1*9+1*8+1*7+2*6+2*5+2*4+3*3+3*2 - 3 = 66 = 6 * 11
    assert cs.is_valid_bsn("111222333")
    # 9+16+21+24+25+24+21+16 - 2 = 154 = 14 * 11
    assert cs.is_valid_bsn("123456782")
    assert cs.is_valid_bsn("1234.56.782")
    # 156 - 9 = 147 = 13 * 11 + 4
    assert not cs.is_valid_bsn("123456789")
    assert not cs.is_valid_bsn("111222334")
    assert not cs.is_valid_bsn("000000000")


# --- Sweden ---------------------------------------------------------------------------------------------------
def test_personnummer() -> None:
    # 8112189876: 8*2=16->7, 1, 1*2=2, 2, 1*2=2, 8, 9*2=18->9, 8, 7*2=14->5, 6 -> 50 ≡ 0 (mod 10)
    assert cs.is_valid_personnummer("811218-9876")
    assert cs.is_valid_personnummer("8112189876")
    assert cs.is_valid_personnummer("19811218-9876")
    assert cs.is_valid_personnummer("198112189876")
    assert cs.is_valid_personnummer("811218+9876")  # "+" after the 100th birthday
    assert not cs.is_valid_personnummer("811218-9877")
    # samordningsnummer: day 63 = 3 + 60; 7,0,2,0,3,3,4,3,9,1 -> 30
    assert cs.is_valid_personnummer("701063-2391")
    assert not cs.is_valid_personnummer("701063-2391", allow_coordination=False)
    # a Luhn-valid number on an impossible date (30 February) is still invalid
    body = "810230987"
    assert cs.luhn_check_digit(body) == "2"
    assert not cs.is_valid_personnummer("810230-9872")
    assert not cs.is_valid_personnummer("811318-9876")  # month 13
    assert not cs.is_valid_personnummer("17811218-9876")  # century 17


# --- USA -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ssn,ok", [
    ("536-22-1234", True), ("536 22 1234", True), ("536221234", True),
    ("000-12-3456", False), ("666-12-3456", False), ("900-12-3456", False), ("123-00-4567", False),
    ("123-45-0000", False), ("078-05-1120", False), ("123-45-6789", False), ("53-622-1234", False),
])
def test_us_ssn(ssn: str, ok: bool) -> None:
    assert cs.is_valid_us_ssn(ssn) is ok


# --- Germany -------------------------------------------------------------------------------------------------
def test_kvnr() -> None:
    # A -> 01; 0,1,1,2,3,4,5,6,7,8 weighted 1,2,1,2...: 0+2+1+4+3+8+5+(12->3)+7+(16->7) = 40 -> check 0
    assert cs.kvnr_check_digit("A", "12345678") == 0
    assert cs.is_valid_kvnr("A123456780")
    assert not cs.is_valid_kvnr("A123456781")
    # B -> 02; 0,2,9,8,7,6,5,4,3,2: 0+4+9+(16->7)+7+(12->3)+5+8+3+4 = 50 -> check 0
    assert cs.is_valid_kvnr("B987654320")
    assert not cs.is_valid_kvnr("1123456780")
    with pytest.raises(ValueError):
        cs.kvnr_check_digit("Ä", "12345678")


# --- UK ------------------------------------------------------------------------------------------------------
def test_nhs_number() -> None:
    # 9*10+4*9+3*8+4*7+7*6+6*5+5*4+9*3+1*2 = 299; 299 % 11 = 2; 11 - 2 = 9
    assert cs.nhs_check_digit("943476591") == 9
    assert cs.is_valid_nhs_number("943 476 5919")
    assert not cs.is_valid_nhs_number("943 476 5918")
    assert not cs.is_valid_nhs_number("1111111111")


# --- IBAN ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("iban", [
    "GB82 WEST 1234 5698 7654 32", "ES91 2100 0418 4502 0005 1332", "NL91ABNA0417164300",
    "DE89 3704 0044 0532 0130 00", "SE45 5000 0000 0583 9825 7466", "gb82west12345698765432",
])
def test_iban_valid(iban: str) -> None:
    assert cs.is_valid_iban(iban)


@pytest.mark.parametrize("iban", [
    "GB82WEST12345698765433",  # check fails
    "GB82WEST1234569876543",  # one character short for GB (22)
    "XX82WEST12345698765432",  # unknown country
    "ES91 2100",
])
def test_iban_invalid(iban: str) -> None:
    assert not cs.is_valid_iban(iban)


def test_iban_check_digits() -> None:
    assert cs.iban_check_digits("GB", "WEST12345698765432") == "82"
    assert cs.iban_check_digits("ES", "21000418450200051332") == "91"


# --- generators: every generated number validates, and single-digit errors are caught -----------------------
_GENERATORS = [
    (cs.generate_dni, cs.is_valid_dni),
    (cs.generate_nie, cs.is_valid_nie),
    (cs.generate_nass, cs.is_valid_nass),
    (cs.generate_bsn, cs.is_valid_bsn),
    (cs.generate_personnummer, cs.is_valid_personnummer),
    (lambda r: cs.generate_personnummer(r, coordination=True, century=True), cs.is_valid_personnummer),
    (cs.generate_us_ssn, cs.is_valid_us_ssn),
    (cs.generate_kvnr, cs.is_valid_kvnr),
    (cs.generate_nhs_number, cs.is_valid_nhs_number),
    (cs.generate_iban, cs.is_valid_iban),
    (lambda r: cs.generate_iban(r, "NL"), cs.is_valid_iban),
    (cs.generate_credit_card, cs.is_valid_credit_card),
    (lambda r: cs.generate_credit_card(r, 15, "37"), cs.is_valid_credit_card),
]


@pytest.mark.parametrize("gen,valid", _GENERATORS)
def test_generators_make_valid_numbers(gen, valid) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(7)
    for _ in range(200):
        assert valid(gen(rng))


def _flip_one_digit(s: str, rng: random.Random) -> str:
    idx = [i for i, c in enumerate(s) if c.isdigit()]
    i = rng.choice(idx)
    return s[:i] + str((int(s[i]) + rng.randrange(1, 10)) % 10) + s[i + 1:]


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_single_digit_errors_are_detected(seed: int) -> None:
    # Luhn, the 11-test, mod 97 and the NHS mod-11 check all catch every single-digit substitution
    rng = random.Random(seed)
    for gen, valid in [(cs.generate_credit_card, cs.is_valid_credit_card), (cs.generate_bsn, cs.is_valid_bsn),
                       (cs.generate_iban, cs.is_valid_iban), (cs.generate_nhs_number, cs.is_valid_nhs_number),
                       (cs.generate_kvnr, cs.is_valid_kvnr)]:
        good = gen(rng)
        assert not valid(_flip_one_digit(good, rng))


@given(st.text(max_size=40))
def test_validators_never_raise(s: str) -> None:
    for v in (cs.is_valid_dni, cs.is_valid_nie, cs.is_valid_nass, cs.is_valid_bsn, cs.is_valid_personnummer,
              cs.is_valid_us_ssn, cs.is_valid_kvnr, cs.is_valid_nhs_number, cs.is_valid_iban, cs.is_luhn_valid,
              cs.is_valid_credit_card):
        assert v(s) in (True, False)
