"""Plain functions behind the surrogate-related CLI verbs and options (wired into ``clinanon.cli`` by Typer).

* :func:`keygen` — ``clinanon keygen [PATH] [--force]``: a new key file, mode 0600; prints only its fingerprint.
* :func:`apply_surrogate_options` — ``clinanon deidentify ... --operator surrogate --scope patient
  --key-file K [--insecure-random-key] [--ledger L]``: puts those options into every ``surrogate`` operator of
  a :class:`~clinanon.config.Config` (and builds the operators once, so a missing key fails before any output).
* :func:`ledger_lookup` / :func:`format_entries` — ``clinanon ledger lookup LEDGER [--doc ID] [--surrogate TEXT]
  [--original TEXT] [--limit N] [--json]``: authorised reversal. This prints PHI by design; nothing else does.

None of these print or return the key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from clinanon.config import Config
from clinanon.errors import ConfigError
from clinanon.ledger import LedgerEntry, open_ledger
from clinanon.transform.base import get_operator
from clinanon.transform.surrogate.keys import read_key_file, write_key_file

__all__ = [
    "DEFAULT_KEY_FILE",
    "SCOPES",
    "apply_surrogate_options",
    "format_entries",
    "keygen",
    "ledger_lookup",
    "surrogate_params",
]

DEFAULT_KEY_FILE = Path("clinanon.key")
SCOPES = ("document", "patient", "corpus")


def keygen(path: str | Path = DEFAULT_KEY_FILE, *, overwrite: bool = False) -> str:
    """Write a new random key to ``path`` (mode 0600) and return a message with its fingerprint (not the key).

    Raises :class:`ConfigError` when the file exists and ``overwrite`` is false.
    """
    p = write_key_file(path, overwrite=overwrite)
    fp = read_key_file(p).fingerprint()
    return (f"wrote a new surrogate key to {p} (mode 0600, fingerprint {fp}); keep it secret and out of the output "
            "folders; use it with --key-file or the CLINANON_SURROGATE_KEY environment variable")


def surrogate_params(*, scope: str | None = None, key_file: str | Path | None = None,
                     insecure_random_key: bool = False, ledger: str | None = None,
                     patient_field: str | None = None) -> dict[str, Any]:
    """The operator parameters that the CLI options set (only those given)."""
    params: dict[str, Any] = {}
    if scope is not None:
        if scope not in SCOPES:
            raise ConfigError(f"--scope must be one of {', '.join(SCOPES)}")
        params["scope"] = scope
    if key_file is not None:
        params["key_file"] = str(key_file)
    if insecure_random_key:
        params["insecure_random_key"] = True
    if ledger is not None:
        params["ledger"] = str(ledger)
    if patient_field is not None:
        params["patient_field"] = patient_field
    return params


def apply_surrogate_options(config: Config, *, scope: str | None = None, key_file: str | Path | None = None,
                            insecure_random_key: bool = False, ledger: str | None = None,
                            patient_field: str | None = None, check: bool = True) -> Config:
    """``config`` with the CLI's surrogate options merged into every operator entry named ``surrogate``.

    Options given without any surrogate operator in the configuration raise :class:`ConfigError`. With ``check``
    the surrogate operators are built once, so a missing or unreadable key fails here with a clear message
    (:class:`~clinanon.transform.surrogate.keys.MissingKeyError`) before anything is written. An insecure random
    key generated then is stored in the process environment, so worker processes started later share it.
    """
    params = surrogate_params(scope=scope, key_file=key_file, insecure_random_key=insecure_random_key,
                              ledger=ledger, patient_field=patient_field)
    targets = [k for k, op in config.operators.items() if op.operator == "surrogate"]
    if params and not targets:
        raise ConfigError("--scope/--key-file/--insecure-random-key/--ledger need the surrogate operator "
                          "(--operator surrogate, or operator = \"surrogate\" in the configuration)")
    if params:
        ops = {k: {**op.model_dump(mode="json"), **(params if k in targets else {})}
               for k, op in config.operators.items()}
        config = config.with_overrides(operators=ops, source="command line")
    if check and targets:
        # "surrogate" is registered: this module's package (clinanon.transform.surrogate) imports its operator
        for k in targets:
            get_operator("surrogate", **config.operators[k].params)
    return config


def ledger_lookup(target: str | Path, *, doc_id: str | None = None, surrogate: str | None = None,
                  original: str | None = None, limit: int | None = None,
                  table: str = "clinanon_ledger") -> list[LedgerEntry]:
    """Ledger entries matching every given criterion (an SQLite path or a ``postgresql://`` URL).

    A path that does not exist raises :class:`ConfigError` (a lookup never creates a ledger).
    """
    if not str(target).startswith(("postgresql://", "postgres://")) and not Path(target).is_file():
        raise ConfigError(f"{target}: no such ledger file")
    with open_ledger(target, table=table) as led:
        return led.lookup(doc_id=doc_id, surrogate=surrogate, original=original, limit=limit)


def format_entries(entries: list[LedgerEntry], *, as_json: bool = False) -> str:
    """Entries as JSON lines (``as_json``) or as a tab-separated table with a header."""
    if as_json:
        return "\n".join(json.dumps(_public(e), ensure_ascii=False) for e in entries)
    cols = ("doc_id", "start", "end", "category", "surrogate", "original")
    lines = ["\t".join(cols)]
    for e in entries:
        d = e.to_dict()
        lines.append("\t".join(str(d[c]).replace("\t", " ").replace("\n", " ") for c in cols))
    return "\n".join(lines)


def _public(e: LedgerEntry) -> Mapping[str, Any]:
    d = e.to_dict()
    d.pop("key_fingerprint", None)
    return d
