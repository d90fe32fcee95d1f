"""Reading an address span into its parts, so that each part gets a surrogate of its own kind.

A detector may label ``"Oudegracht 12, 3512 PK Utrecht"`` as one street, ``"28013 Madrid"`` as one city or
``"3512 PK Utrecht"`` as one postcode. Replaced as a whole by one generator, the city of such a span would become a
surname (a street word), the postcode's letters would be kept, or the whole would get invented letters.
:func:`split_address` cuts such a span at its commas, and each piece that holds a postcode before or after a place
name (``"3512 PK Utrecht"``, ``"IL 62704"``, ``"Wien 1010"``) into the postcode and the place; the street is the
leading pieces up to the first piece that is a postcode or a known place (the gazetteer's cities and regions, the
countries, the states of :mod:`.states`). The generators then replace the street part with a street, the postcode
with a postcode of its format and the places with places (:func:`clinanon.transform.surrogate.places.surrogate_city`).
"""

from __future__ import annotations

import re

from clinanon.caches import memo
from clinanon.transform.surrogate._data import places
from clinanon.transform.surrogate._text import normalize
from clinanon.transform.surrogate.countries import _country_index
from clinanon.transform.surrogate.postcodes import POSTCODE, postcode_format
from clinanon.transform.surrogate.states import is_state

__all__ = ["Part", "is_known_place", "split_address"]

#: ``(kind, text)``: kind ``street``, ``zip``, ``place`` or ``lit`` (separators, kept)
Part = tuple[str, str]

_COMMA = re.compile(r"\s*[,;]\s*")
_DIGIT_OR_COMMA = re.compile(r"[\d,;]")
_SEPARATOR = re.compile(r"([,;])")
#: a longer span is no address (and the piece patterns, linear on address-sized texts, need not be on longer ones)
_MAX_ADDRESS = 300


def _split_commas(text: str) -> list[str]:
    """``text`` cut at its commas and semicolons: pieces and separators alternating (a separator holds the comma
    and the whitespace around it), as ``re.split`` with ``(\\s*[,;]\\s*)`` would give, in linear time (that
    pattern is quadratic on a long run of spaces)."""
    out = _SEPARATOR.split(text)
    for j in range(1, len(out), 2):  # move the whitespace around each comma from the pieces into the separator
        before, after = out[j - 1], out[j + 1]
        core = before.rstrip()
        rest = after.lstrip()
        out[j] = before[len(core):] + out[j] + after[:len(after) - len(rest)]
        out[j - 1], out[j + 1] = core, rest
    return out


#: a piece made of a postcode and a place name, in either order (the postcode by :data:`POSTCODE`'s formats)
_ZIP_FIRST = re.compile(r"(?P<zip>" + POSTCODE.pattern + r")(?P<sep>\s+)(?P<place>[^\W\d_][^\d]*)")
_ZIP_LAST = re.compile(r"(?P<place>[^\W\d_][^\d]*?)(?P<sep>\s+)(?P<zip>" + POSTCODE.pattern + r")")
#: a US town, state and ZIP code without commas (``"New York NY 10001"``)
_TOWN_STATE_ZIP = re.compile(r"(?P<place>[^\W\d_][^\d]*?)(?P<sep>\s+)(?P<state>[A-Z]{2})(?P<sep2>\s+)"
                             r"(?P<zip>\d{5}(?:-\d{4})?)")
#: a street piece ending in a house number and a town (``"Hauptstraße 5 Berlin"``)
_NUMBER_TOWN = re.compile(r"(?<!\d)\d+[A-Za-z]?(?P<sep>\s+)(?P<place>[^\W\d_][^\d]*)$")
#: a postcode of a format nothing else has (Dutch, ZIP+4, with a country prefix) inside a street piece
_DISTINCT = re.compile(r"(?<![\w-])(?P<zip>(?:[A-Z]{1,3}-\s?)?[1-9]\d{3}\s?[A-Z]{2}|\d{5}-\d{4}|[A-Z]{1,3}-\s?\d{4,5})"
                       r"(?![\w-])")


def is_known_place(text: str, lang: str) -> bool:
    """Whether ``text`` is a city or region of ``lang``'s gazetteer, a country or a state (:mod:`.states`)."""
    key = normalize(text)
    return bool(key) and (key in places(lang).by_name or key in _country_index(lang) or is_state(text, lang))


def _zip(text: str, lang: str) -> bool:
    return postcode_format(text, lang) is not None


def _place_piece(piece: str, lang: str) -> list[Part] | None:
    """The parts of one comma-separated piece that is a postcode, a known place, or a postcode with a place name
    before or after it; ``None`` for anything else."""
    digits = sum(map(str.isdigit, piece))
    if not digits:
        return [("place", piece)] if is_known_place(piece, lang) else None
    if digits < 4:  # a house number, a floor ("3º B"): no postcode has fewer than 4 digits
        return None
    if _zip(piece, lang):
        return [("zip", piece)]
    m = _ZIP_FIRST.fullmatch(piece)
    if m is not None and _zip(m.group("zip"), lang):
        return [("zip", m.group("zip")), ("lit", m.group("sep")), ("place", m.group("place"))]
    m = _TOWN_STATE_ZIP.fullmatch(piece)
    if m is not None and is_state(m.group("state"), lang):
        return [("place", m.group("place")), ("lit", m.group("sep")), ("place", m.group("state")),
                ("lit", m.group("sep2")), ("zip", m.group("zip"))]
    m = _ZIP_LAST.fullmatch(piece)
    if m is not None and _zip(m.group("zip"), lang):
        return [("place", m.group("place")), ("lit", m.group("sep")), ("zip", m.group("zip"))]
    return None


def _state_piece(town: str, piece: str, lang: str) -> bool:
    """Whether ``piece`` is a state with or without its ZIP code (``"TX"``, ``"TX 75201"``), which makes the
    piece of letters ``town`` before it a town (English notes: US addresses)."""
    if any(map(str.isdigit, town)) or not any(map(str.isalpha, town)):
        return False
    if is_state(piece, lang):
        return True
    parts = _place_piece(piece, lang)
    return parts is not None and parts[0][0] == "place" and is_state(parts[0][1], lang)


def _zip_then_place(piece: str, m: re.Match[str]) -> list[Part]:
    """The parts of a street piece holding a distinct postcode at ``m`` (after the street): the postcode and, after
    it, the place (known or not)."""
    rest = piece[m.end():]
    parts: list[Part] = [("zip", m.group("zip"))]
    core = rest.strip()
    if core:
        lead = rest[:len(rest) - len(rest.lstrip())]
        parts += [("lit", lead), ("place", core), ("lit", rest[len(rest.rstrip()):])]
    return parts


@memo(maxsize=4096, kind="text")
def split_address(text: str, lang: str, street: bool) -> tuple[Part, ...] | None:
    """The parts of an address span (see the module docstring), or ``None`` when ``text`` is not one that holds a
    postcode or a place next to another part. ``street``: the span is a street (its first piece, and the pieces
    up to the first postcode or known place, stay one street part; pieces after a postcode are places even when
    unknown); otherwise every piece must be a postcode, a known place, or a postcode with a place name. Pure:
    cached."""
    if len(text) > _MAX_ADDRESS or _DIGIT_OR_COMMA.search(text) is None:
        return None
    if not street:  # every piece must be a place or a postcode: the first one is looked at before any splitting
        m = _SEPARATOR.search(text)
        first = text[:m.start()].rstrip() if m is not None else text
        if first.strip() and _place_piece(first, lang) is None and (lang != "en" or m is None):
            return None
    pieces = _split_commas(text)
    out: list[Part] = []
    head: list[str] = []  # the street: its pieces and the separators between them
    in_street = street
    seen_zip = False
    for i, piece in enumerate(pieces):
        if i % 2:  # a separator
            if in_street:
                head.append(piece)
            else:
                out.append(("lit", piece))
            continue
        if in_street and i == 0:
            m = _DISTINCT.search(piece)  # "Oudegracht 12 3512 PK Utrecht": a distinct postcode in the first piece
            if m is not None and piece[:m.start()].strip() and _zip(m.group("zip"), lang):
                head.append(piece[:m.start()])
                out.extend(_zip_then_place(piece, m))
                in_street, seen_zip = False, True
                continue
            m = _NUMBER_TOWN.search(piece)  # "Hauptstraße 5 Berlin": the town after the house number
            if m is not None and is_known_place(m.group("place"), lang):
                head.append(piece[:m.start("sep")])
                out.extend([("lit", m.group("sep")), ("place", m.group("place"))])
                in_street = False
            else:
                head.append(piece)
            continue
        parts = _place_piece(piece, lang) if piece.strip() else [("lit", piece)]
        if parts is None:
            if in_street:
                head.append(piece)
                continue
            if not (street and seen_zip) and not (lang == "en" and i + 2 < len(pieces)
                                                  and _state_piece(piece, pieces[i + 2], lang)):
                return None
            # after the postcode of a street, or before a US state ("Dallas, TX 75201"): the town, even one the
            # lists lack
            parts = [("place", piece)]
        in_street = False
        seen_zip = seen_zip or any(k == "zip" for k, _ in parts)
        out.extend(parts)
    kinds = [k for k, _ in out if k != "lit"]
    if not kinds or kinds.count("zip") > 1:
        return None
    zips = [t for k, t in out if k == "zip"]
    if zips and "place" not in kinds and postcode_format(zips[0].strip(), lang) in ("4", "at", "ch"):
        return None  # a bare 4-digit number after a comma: a house or flat number as likely as a postcode
    if street:
        while head and _COMMA.fullmatch(head[-1]):  # the separator after the street stays a separator
            out.insert(0, ("lit", head.pop()))
        if not "".join(head).strip():
            return None
        out.insert(0, ("street", "".join(head)))
    elif len(kinds) < 2:
        return None
    return tuple(p for p in out if p[1])
