"""The mapping ledger: SQLite (always) and PostgreSQL (a real server started by scripts/postgres.sh)."""

from __future__ import annotations

import os
import stat
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from clinanon.errors import ConfigError
from clinanon.ledger import Ledger, LedgerEntry, SQLiteLedger, open_ledger, redact_url
from clinanon.transform.surrogate.cli_support import format_entries, ledger_lookup

REPO = Path(__file__).resolve().parents[1]


def entries(doc: str = "d1") -> list[LedgerEntry]:
    return [
        LedgerEntry(doc, 0, 17, "NOMBRE_SUJETO_ASISTENCIA", "NAME.PATIENT", "document:d1", "Juan García López",
                    "Pedro Ruiz Gil", key_fingerprint="abc"),
        LedgerEntry(doc, 30, 40, "FECHAS", "DATE", "document:d1", "12/03/2015", "22/03/2015", key_fingerprint="abc"),
    ]


def check_backend(led: Ledger) -> None:
    assert led.record(entries("d1")) == 2
    led.record(entries("d2"))
    assert [e.original for e in led.lookup(doc_id="d1")] == ["Juan García López", "12/03/2015"]
    assert led.reverse("d1", "Pedro Ruiz Gil") == ["Juan García López"]
    assert {e.doc_id for e in led.lookup(surrogate="22/03/2015")} == {"d1", "d2"}
    assert len(led.lookup(limit=1)) == 1
    # re-running a document replaces its rows (same key: doc, offsets, operator, key fingerprint)
    changed = [LedgerEntry("d1", 0, 17, "X", "NAME.PATIENT", "document:d1", "Juan García López", "Otro Nombre",
                           key_fingerprint="abc")]
    led.record(changed)
    assert led.reverse("d1", "Otro Nombre") == ["Juan García López"] and led.reverse("d1", "Pedro Ruiz Gil") == []
    assert len(led.lookup(doc_id="d1")) == 2


def test_sqlite_backend(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "ledger.sqlite"
    with open_ledger(path) as led:
        assert isinstance(led, SQLiteLedger)
        check_backend(led)
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_sqlite_tightens_an_open_file(tmp_path: Path) -> None:
    path = tmp_path / "l.sqlite"
    path.touch(mode=0o644)
    os.chmod(path, 0o644)
    with pytest.warns(UserWarning, match="0600"), open_ledger(path):
        pass
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_repr_hides_phi_and_passwords(tmp_path: Path) -> None:
    e = entries()[0]
    assert "García" not in repr(e) and "Pedro" not in repr(e)
    assert redact_url("postgresql://u:pw123@h:5/db") == "postgresql://u:***@h:5/db"
    with open_ledger(tmp_path / "x.sqlite") as led:
        assert "x.sqlite" in repr(led)
    with pytest.raises(ConfigError, match="identifier"):
        SQLiteLedger(tmp_path / "y.sqlite", table="bad; drop")


def test_cli_lookup_and_formatting(tmp_path: Path) -> None:
    path = tmp_path / "l.sqlite"
    with open_ledger(path) as led:
        led.record(entries())
    rows = ledger_lookup(path, doc_id="d1", surrogate="Pedro Ruiz Gil")
    assert [r.original for r in rows] == ["Juan García López"]
    table = format_entries(rows)
    assert table.splitlines()[0] == "doc_id\tstart\tend\tcategory\tsurrogate\toriginal"
    assert "Juan García López" in table
    assert '"original": "Juan García López"' in format_entries(rows, as_json=True)
    with pytest.raises(ConfigError, match="no such ledger"):
        ledger_lookup(tmp_path / "missing.sqlite")
    assert not (tmp_path / "missing.sqlite").exists()


# --- PostgreSQL ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL URL from scripts/postgres.sh (installs and starts a server); skips when that cannot work."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'psycopg[binary]')")
    script = REPO / "scripts" / "postgres.sh"
    already = subprocess.run(["bash", str(script), "url"], capture_output=True, text=True, timeout=30)
    try:
        proc = subprocess.run(["bash", str(script), "start"], capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"PostgreSQL test server could not be started: {type(e).__name__}")
    if proc.returncode != 0 or not proc.stdout.strip():
        reason = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"PostgreSQL test server could not be started by scripts/postgres.sh: {reason}")
    yield proc.stdout.strip().splitlines()[-1]
    if already.returncode != 0:  # we started it: stop it
        subprocess.run(["bash", str(script), "stop"], capture_output=True, timeout=60)


def test_postgres_backend(postgres_url: str) -> None:
    table = f"ledger_{uuid.uuid4().hex[:8]}"
    with open_ledger(postgres_url, table=table) as led:
        assert type(led).__name__ == "PostgresLedger"
        check_backend(led)
    rows = ledger_lookup(postgres_url, doc_id="d2", table=table)
    assert len(rows) == 2


def test_postgres_through_the_operator(postgres_url: str) -> None:
    from clinanon.document import Document, Span
    from clinanon.transform import Anonymizer
    from clinanon.transform.surrogate import SurrogateOperator

    table = f"ledger_{uuid.uuid4().hex[:8]}"
    doc = Document("p1", "Paciente Juan García.", (Span(9, 20, "NAME.PATIENT"),))
    op = SurrogateOperator(key="7e" * 32, ledger=postgres_url, ledger_table=table)
    out = Anonymizer({"*": op}).anonymize(doc)
    op.close()
    sur = out.text[out.replacements[0].out_start:out.replacements[0].out_end]
    with open_ledger(postgres_url, table=table) as led:
        assert led.reverse("p1", sur) == ["Juan García"]
