from __future__ import annotations

import pytest

from clinanon.errors import ConfigError
from clinanon.taxonomy import (
    CANONICAL_CATEGORIES,
    HIPAA_IDENTIFIERS,
    LabelScheme,
    category_matches,
    get_scheme,
    list_schemes,
    register_scheme,
)

MEDDOCAN_IN_DATA = [
    "TERRITORIO", "FECHAS", "EDAD_SUJETO_ASISTENCIA", "NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO",
    "SEXO_SUJETO_ASISTENCIA", "CALLE", "PAIS", "ID_SUJETO_ASISTENCIA", "CORREO_ELECTRONICO",
    "ID_TITULACION_PERSONAL_SANITARIO", "ID_ASEGURAMIENTO", "HOSPITAL", "FAMILIARES_SUJETO_ASISTENCIA", "INSTITUCION",
    "ID_CONTACTO_ASISTENCIAL", "NUMERO_TELEFONO", "PROFESION", "NUMERO_FAX", "OTROS_SUJETO_ASISTENCIA",
    "CENTRO_SALUD", "ID_EMPLEO_PERSONAL_SANITARIO",
]


def test_all_schemes_registered() -> None:
    for name in ["canonical", "i2b2-2014", "meddocan", "hipaa", "nubes-phi", "stockholm-epr", "tab", "ontonotes",
                 "presidio"]:
        assert name in list_schemes()


def test_meddocan_covers_data_and_guideline_labels() -> None:
    m = get_scheme("meddocan")
    for label in [*MEDDOCAN_IN_DATA, "URL_WEB", "DIREC_PROT_INTERNET", "NUMERO_BENEF_PLAN_SALUD"]:
        assert label in m
    assert m.category("NOMBRE_PERSONAL_SANITARIO") == "NAME.DOCTOR"
    assert m.category("SEXO_SUJETO_ASISTENCIA") == "SEX"
    assert m.native("LOCATION.ZIP") == "TERRITORIO"
    assert m.native("NAME.RELATIVE") == "FAMILIARES_SUJETO_ASISTENCIA"


def test_scheme_sizes() -> None:
    assert len(HIPAA_IDENTIFIERS) == 18
    assert len(get_scheme("nubes-phi").labels) == 11
    assert len(get_scheme("stockholm-epr").labels) == 9
    assert set(get_scheme("tab").labels) == {"PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC"}


def test_every_label_maps_to_a_canonical_category() -> None:
    for name in list_schemes():
        for cat in get_scheme(name).labels.values():
            assert cat in CANONICAL_CATEGORIES


def test_category_matching_and_native_fallbacks() -> None:
    assert category_matches("NAME.PATIENT", "NAME")
    assert not category_matches("NAME", "NAME.PATIENT")
    onto = get_scheme("ontonotes")
    assert onto.native("NAME.PATIENT") == "PERSON"
    assert onto.native("LOCATION.CITY") == "GPE"
    assert get_scheme("canonical").category("DATE") == "DATE"


def test_user_scheme_and_errors() -> None:
    s = register_scheme(LabelScheme("test-x", "test", {"PAT": "NAME.PATIENT"}), overwrite=True)
    assert get_scheme("TEST-X") is s
    with pytest.raises(ConfigError, match="unknown canonical category"):
        LabelScheme("bad", "", {"X": "NOPE"})
    with pytest.raises(ConfigError, match="unknown label scheme"):
        get_scheme("no-such-scheme")
    with pytest.raises(KeyError):
        s.category("UNKNOWN")
