"""Keyed, locale-aware surrogates: the ``surrogate`` operator and its generators.

>>> import os; os.environ["CLINANON_SURROGATE_KEY"] = "00" * 32            # doctest: +SKIP
>>> from clinanon.transform.surrogate import SurrogateOperator
>>> from clinanon.transform import Anonymizer
>>> anon = Anonymizer({"*": SurrogateOperator(scope="patient")}, lang="es")  # doctest: +SKIP

Modules: :mod:`.keys` (secret key, keyed randomness), :mod:`.scope` (document / patient / corpus),
:mod:`.names`, :mod:`.dates` (date shifts; :mod:`.date_formats` reads and writes the original format),
:mod:`.ages` (with :mod:`.numbers`, number words), :mod:`.places` (the ``LOCATION.*`` dispatch over
:mod:`.cities`, :mod:`.states`, :mod:`.countries`, :mod:`.postcodes`, :mod:`.streets`, :mod:`.addresses`,
:mod:`.hospitals`, :mod:`.organizations`),
:mod:`.identifiers`, :mod:`.contacts`, :mod:`.operator` (the registered operator), :mod:`.cli_support` (functions
behind ``clinanon keygen``, ``clinanon ledger lookup`` and the ``--scope/--key-file/--insecure-random-key``
options).
"""

from clinanon.transform.surrogate.keys import (
    KEY_ENV,
    KeyedRandom,
    MissingKeyError,
    SurrogateKey,
    generate_key,
    load_key,
    parse_key,
    write_key_file,
)
from clinanon.transform.surrogate.operator import SurrogateOperator, generate
from clinanon.transform.surrogate.scope import GenContext, ResolvedScope, Settings, resolve_scope

__all__ = [
    "KEY_ENV",
    "GenContext",
    "KeyedRandom",
    "MissingKeyError",
    "ResolvedScope",
    "Settings",
    "SurrogateKey",
    "SurrogateOperator",
    "generate",
    "generate_key",
    "load_key",
    "parse_key",
    "resolve_scope",
    "write_key_file",
]
