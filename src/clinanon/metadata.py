"""What a de-identified output keeps of a note's metadata: nothing that is not asked for.

The readers put every CSV column other than the id, text and spans, and every JSONL ``meta`` field (and other
top-level key), into :attr:`Document.meta <clinanon.document.Document.meta>`. De-identification rewrites the
text; a ``mrn``, ``patient_name`` or ``dob`` column copied as it is would undo it. So the output of
``clinanon deidentify`` (:mod:`clinanon.runner`) keeps, by default, only:

* the **document id, replaced** (``[metadata] ids``): ``auto`` (default) is ``pseudonym`` when a surrogate key is
  configured and ``sequence`` otherwise. ``pseudonym``: a keyed HMAC-SHA256 of the input id (20 hex characters,
  :func:`pseudonym`), the same in every run with the same key, so outputs of several runs join, and nothing
  leads back to the input id without the key. ``sequence``: ``record-<n>``, ``n`` the record's number in the
  input (from 1, counting bad records too) — the number the errors report gives as ``record``, next to the file
  and line. ``keep``: the input id, for ids that are not PHI.
* ``lang`` (the note's language: given, or identified by the pipeline) and ``replacements`` (the replacement log
  the batch runner adds).

Other fields pass only when the configuration lists them:

* ``keep_fields`` — copied as they are;
* ``deidentify_fields`` — free text run through the same pipeline as the note, as a document with the note's id
  and metadata: with a surrogate key it gets the note's surrogates and date shift;
* ``pseudonymize_fields`` — patient and encounter ids: the keyed pseudonym of the value (the function of the
  document ids, so a value gets the same pseudonym in whichever field or file it is: tables still join);
* ``date_fields`` — structured dates such as a date of birth, by ``date_method``: ``shift`` moves the date, in
  its own format, by the surrogate date offset of the note's scope (:func:`~clinanon.transform.surrogate.dates
  .scope_offsets`: in patient scope, the offset every note of that patient gets, so the intervals between the
  field and the notes' dates are kept; in document scope a note whose own dates would collide may take another
  offset, the field keeps the scope's); ``year`` keeps the year only; ``auto`` shifts when the configuration's
  ``DATE`` operator is ``surrogate`` in patient or corpus scope, else keeps the year.

Everything else is dropped. A value a listed operator cannot handle (a date that does not parse, a value to
de-identify that is not text, an id that is neither text nor an integer) makes its document an error record
(naming the field, never the value): it is never passed through.

``clinanon detect`` is not affected: its output is the original text with the predicted spans (PHI as a whole),
with ids and metadata as they are, so that :func:`clinanon.evaluate.evaluate` pairs it with gold by id.

Layering: beside :mod:`clinanon.batch` (it reads the configuration and the surrogate keys and dates of
:mod:`clinanon.transform`); :mod:`clinanon.runner` wires it into batch runs.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clinanon.config import Config, OperatorConfig
from clinanon.document import Document, SanitizedDocument
from clinanon.errors import ConfigError, InputError
from clinanon.transform.surrogate.date_formats import DATE_LOCALES, parse_date, render_date
from clinanon.transform.surrogate.dates import scope_offsets, shift_parsed
from clinanon.transform.surrogate.keys import (
    KEY_ENV,
    KeyedRandom,
    SurrogateKey,
    load_key,
    parse_key,
    read_key_file,
)
from clinanon.transform.surrogate.scope import GenContext, Settings, resolve_scope

__all__ = ["ALWAYS_KEPT", "DateShift", "MetadataPolicy", "configured_key", "pseudonym"]

#: metadata the output always keeps (the pipeline reads the language from it)
ALWAYS_KEPT = ("lang",)
#: hex characters of a pseudonym: 80 bits, collisions unlikely below 10^9 distinct ids
PSEUDONYM_CHARS = 20


def pseudonym(rand: KeyedRandom, value: str) -> str:
    """The pseudonym of ``value``: hex of ``HMAC-SHA256(key, "pseudonym", "id", value)`` (:class:`KeyedRandom`
    with scope ``"pseudonym"``), cut to :data:`PSEUDONYM_CHARS` characters."""
    return rand.digest("id", value).hex()[:PSEUDONYM_CHARS]


def configured_key(config: Config) -> SurrogateKey | None:
    """The key of the pseudonyms: ``[metadata] key_file``, else the key of the first ``surrogate`` operator
    (its ``key``, ``key_file`` or ``key_env`` — an ``insecure_random_key`` is found there once the pipeline has
    been built), else ``$CLINANON_SURROGATE_KEY``, else ``None``."""
    md = config.metadata
    if md.key_file is not None:
        return read_key_file(config.resolve_path(md.key_file))
    for op in config.operators.values():
        if op.operator != "surrogate":
            continue
        params = op.params
        if params.get("key"):
            return parse_key(str(params["key"]), source="parameter 'key'")
        if params.get("key_file"):
            return read_key_file(params["key_file"])
        env = str(params.get("key_env") or KEY_ENV)
        if os.environ.get(env):
            return load_key(None, env_var=env)
    if os.environ.get(KEY_ENV):
        return load_key(None)
    return None


@dataclass(frozen=True)
class DateShift:
    """How ``shift`` moves a date field: the surrogate operator's scope, patient field and shift ranges."""

    scope: str = "patient"
    patient_field: str = "patient_id"
    date_shift: tuple[int, int] = (7, 14)
    month_shift: tuple[int, int] = (1, 2)
    year_shift: tuple[int, int] = (1, 2)


def _date_operator(config: Config) -> OperatorConfig | None:
    return config.operators.get("DATE") or config.operators.get("*")


def _date_shift(config: Config) -> DateShift | None:
    """The surrogate operator's date settings when the ``DATE`` category goes to one (validated by building it,
    without its ledger), else ``None``."""
    op = _date_operator(config)
    if op is None or op.operator != "surrogate":
        return None
    import clinanon.transform.surrogate  # noqa: F401 - registers "surrogate"
    from clinanon.transform.base import get_operator

    params = {k: v for k, v in op.params.items() if k not in ("ledger", "ledger_table")}
    built: Any = get_operator("surrogate", **params)
    return DateShift(built.scope, built.patient_field, tuple(built.date_shift), tuple(built.month_shift),
                     tuple(built.year_shift))


class MetadataPolicy:
    """The metadata policy of a configuration (see the module docstring); build it with :meth:`from_config`."""

    def __init__(self, *, ids: str = "sequence", keep_fields: Sequence[str] = (),
                 deidentify_fields: Sequence[str] = (), pseudonymize_fields: Sequence[str] = (),
                 date_fields: Sequence[str] = (), date_method: str = "year", key: SurrogateKey | None = None,
                 shift: DateShift | None = None, lang: str = "es") -> None:
        if ids not in ("pseudonym", "sequence", "keep"):
            raise ConfigError(f"metadata.ids: {ids!r} is not one of pseudonym, sequence, keep")
        if date_method not in ("shift", "year"):
            raise ConfigError(f"metadata.date_method: {date_method!r} is not one of shift, year")
        needs_key = [w for w, on in (("ids = 'pseudonym'", ids == "pseudonym"),
                                     ("pseudonymize_fields", bool(pseudonymize_fields)),
                                     ("date_method = 'shift'", date_method == "shift" and bool(date_fields))) if on]
        if needs_key and key is None:
            raise ConfigError(f"metadata: {', '.join(needs_key)} need a secret key: pass --key-file (a key made "
                              f"with `clinanon keygen`), set {KEY_ENV}, or set metadata.key_file")
        self.ids = ids
        self.keep_fields = frozenset(keep_fields)
        self.deidentify_fields = tuple(dict.fromkeys(deidentify_fields))
        self.pseudonymize_fields = frozenset(pseudonymize_fields)
        self.date_fields = frozenset(date_fields)
        self.date_method = date_method
        self.shift = shift or DateShift()
        self.lang = lang
        self._key = key
        self._ids = KeyedRandom(key, "pseudonym") if key is not None else None

    def __repr__(self) -> str:
        return (f"MetadataPolicy(ids={self.ids!r}, keep={len(self.keep_fields)}, "
                f"deidentify={len(self.deidentify_fields)}, pseudonymize={len(self.pseudonymize_fields)}, "
                f"dates={len(self.date_fields)} ({self.date_method}))")

    @classmethod
    def from_config(cls, config: Config) -> MetadataPolicy:
        """The policy of ``config.metadata``: ``auto`` resolved (ids: is there a key; dates: is ``DATE`` a
        surrogate in patient or corpus scope), the key found (:func:`configured_key`). Raises
        :class:`ConfigError` when a setting needs a key and there is none."""
        md = config.metadata
        key = configured_key(config)
        ids = md.ids if md.ids != "auto" else ("pseudonym" if key is not None else "sequence")
        shift = _date_shift(config) if md.date_fields else None
        method = md.date_method
        if method == "auto":
            method = ("shift" if shift is not None and shift.scope in ("patient", "corpus") and key is not None
                      else "year")
        if shift is None:
            shift = DateShift("patient", md.patient_field)
        return cls(ids=ids, keep_fields=md.keep_fields, deidentify_fields=md.deidentify_fields,
                   pseudonymize_fields=md.pseudonymize_fields, date_fields=md.date_fields, date_method=method,
                   key=key, shift=shift, lang=config.default_language)

    # --- ids ---------------------------------------------------------------------------------------------------
    @property
    def hides_ids(self) -> bool:
        return self.ids != "keep"

    def pseudonym(self, value: str) -> str:
        """The keyed pseudonym of ``value`` (:func:`pseudonym`); needs a key."""
        if self._ids is None:
            raise ConfigError("pseudonyms need a secret key")
        return pseudonym(self._ids, value)

    def output_id(self, n: int, doc_id: str) -> str:
        """The output id of record ``n`` (from 1) whose input id is ``doc_id``."""
        if self.ids == "pseudonym":
            return self.pseudonym(doc_id)
        if self.ids == "sequence":
            return f"record-{n:06d}"
        return doc_id

    # --- fields ------------------------------------------------------------------------------------------------
    def apply(self, docs: Sequence[Document], outputs: Sequence[SanitizedDocument],
              deidentify: Callable[[list[Document]], Sequence[SanitizedDocument]]) -> list[SanitizedDocument]:
        """``outputs`` (the de-identified ``docs``, in order) with the metadata the policy keeps; the
        ``deidentify_fields`` of all the documents go through ``deidentify`` in one batch. A value that cannot be
        handled raises :class:`InputError` (the caller retries one document at a time, so only that one fails)."""
        jobs: list[tuple[int, str]] = []
        field_docs: list[Document] = []
        for i, (doc, done_note) in enumerate(zip(docs, outputs, strict=True)):
            # the note's metadata and language (given, or identified from the note: a short field may not tell it)
            lang = done_note.meta.get("lang")
            field_meta = {**doc.meta, "lang": lang} if lang else doc.meta
            for name in self.deidentify_fields:
                value = doc.meta.get(name)
                if value is None or value == "":
                    continue
                if not isinstance(value, str):
                    raise InputError(f"metadata field {name!r} is listed in deidentify_fields but is not text "
                                     f"({type(value).__name__})", doc_id=doc.id)
                jobs.append((i, name))
                field_docs.append(Document(doc.id, value, (), field_meta))
        texts: list[dict[str, str]] = [{} for _ in docs]
        if field_docs:
            done = list(deidentify(field_docs))
            for (i, name), result in zip(jobs, done, strict=True):
                texts[i][name] = result.text
        return [dataclasses.replace(out, meta=self.output_meta(doc, texts[i], out.meta.get("lang")))
                for i, (doc, out) in enumerate(zip(docs, outputs, strict=True))]

    def output_meta(self, doc: Document, deidentified: Mapping[str, str], lang: str | None = None) -> dict[str, Any]:
        """The metadata of ``doc``'s output, in the input's key order: ``lang`` (``lang``, the language the pipeline
        gave the output, else the input's), the kept, de-identified (``deidentified``: field -> de-identified
        text), pseudonymized and date fields; nothing else."""
        out: dict[str, Any] = {}
        if lang:
            out["lang"] = lang
        for name, value in doc.meta.items():
            if name in ALWAYS_KEPT and lang:
                continue
            if name in ALWAYS_KEPT or name in self.keep_fields:
                out[name] = value
            elif name in deidentified:
                out[name] = deidentified[name]
            elif name in self.pseudonymize_fields:
                out[name] = self._pseudonymize(name, value, doc)
            elif name in self.date_fields:
                out[name] = self._date(name, value, doc, lang)
            elif name in self.deidentify_fields and (value is None or value == ""):
                out[name] = value
        return out

    def _pseudonymize(self, name: str, value: Any, doc: Document) -> Any:
        if value is None or value == "":
            return value
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise InputError(f"metadata field {name!r} is listed in pseudonymize_fields but is neither text nor an "
                             f"integer ({type(value).__name__})", doc_id=doc.id)
        return self.pseudonym(str(value).strip())

    def _date(self, name: str, value: Any, doc: Document, note_lang: str | None = None) -> Any:
        if value is None or value == "":
            return value
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise InputError(f"metadata field {name!r} is listed in date_fields but is not a date "
                             f"({type(value).__name__})", doc_id=doc.id)
        # the note's language reads the field's numeric order (day first, or month first in English)
        lang = str(note_lang or doc.meta.get("lang") or (self.lang if self.lang in DATE_LOCALES else "en"))
        parsed = parse_date(str(value).strip(), lang)
        if parsed is None:
            raise InputError(f"metadata field {name!r} (date_fields) does not hold a date clinanon can read "
                             "(e.g. 1956-03-12, 12/03/1956, 12 March 1956)", doc_id=doc.id)
        if self.date_method == "year":
            if parsed.year is None:
                raise InputError(f"metadata field {name!r} (date_fields) holds a date without a year",
                                 doc_id=doc.id)
            return str(parsed.year)
        assert self._key is not None
        s = self.shift
        scope = resolve_scope(doc, s.scope, patient_field=s.patient_field, missing_patient="document")
        ctx = GenContext(KeyedRandom(self._key, scope.label), lang,
                         Settings(date_shift=s.date_shift, month_shift=s.month_shift, year_shift=s.year_shift))
        return render_date(parsed, *shift_parsed(parsed, scope_offsets(ctx)))
