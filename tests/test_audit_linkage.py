"""Linkage on quasi-identifiers: notes whose surviving attributes single out one patient."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinanon import Document
from clinanon.audit.linkage import link_quasi_identifiers, read_qi_table
from clinanon.errors import ConfigError, InputError

TABLE = [
    {"id": "p1", "year_of_birth": "1950", "sex": "F", "town": "Lugo", "admission_month": "2019-04"},
    {"id": "p2", "year_of_birth": "1950", "sex": "M", "town": "Lugo", "admission_month": "2019-05"},
    {"id": "p3", "year_of_birth": "1962", "sex": "F", "town": "Soria", "admission_month": "2019-04"},
    {"id": "p4", "year_of_birth": "1962", "sex": "M", "town": "Soria", "admission_month": "2020-01"},
]


def test_surviving_attributes_narrow_the_crowd() -> None:
    notes = [
        Document("p1", "Mujer nacida en 1950, vive en LUGO. Ingresa el 3 de abril de 2019."),  # all four: k = 1
        Document("p2", "Paciente de [LOCATION], [SEX], ingresa el [DATE]."),  # nothing: k = 4
        Document("p3", "Mujer de [AGE] años que ingresa el 12/04/2019."),  # F + 2019-04: p1 and p3, k = 2
        Document("p4", "Varón de Lugo."),  # M + Lugo: p2 alone -- singled out, but the wrong patient
    ]
    res = link_quasi_identifiers(TABLE, notes, lang="es")
    assert res.k == [1, 4, 2, 1]
    d = res.to_dict()
    assert d["singled_out"] == 2 and d["singled_out_correct"] == 1 and d["singled_out_share"] == 0.5
    assert d["revealed_fields"]["sex"] == 3 and d["revealed_fields"]["town"] == 2
    assert "Lugo" not in str(d) and "Mujer" not in str(d)


def test_table_io_and_errors(tmp_path: Path) -> None:
    p = tmp_path / "qi.csv"
    p.write_text("id,sex,town\np1,F,Lugo\np2,M,Soria\n", encoding="utf-8")
    table = read_qi_table(p)
    assert link_quasi_identifiers(table, [Document("p1", "Mujer de Lugo.")]).k == [1]
    with pytest.raises(InputError):
        read_qi_table(p, id_field="patient")
    with pytest.raises(ConfigError):
        link_quasi_identifiers([{"id": "x", "colour": "red"}], [Document("x", "red")])
