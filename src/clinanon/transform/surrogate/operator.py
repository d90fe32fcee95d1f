"""``surrogate``: replace each PHI span with a realistic, consistent substitute of the same kind.

Every choice is a keyed function of (secret key, scope, normalized original) — one keyed digest per item (keyed
BLAKE2b under an HMAC-SHA256 scope key), every further draw for the item read from it; see
:mod:`~clinanon.transform.surrogate.keys` and :mod:`~clinanon.transform.surrogate.scope` — so the same input and
key give the same output on any machine or worker, with no shared state; ``ctx.state`` is only a cache (per
document: derived tables, and each (category, original) pair's surrogate, computed once).

Generators by canonical category (the note's language, or ``locale``, picks lists and formats):

======================  =========================================================================================
``NAME.*``              :mod:`.names` (gender, shape, part-wise consistency); ``NAME.USERNAME`` format-preserving;
                        relation words annotated as relatives (``"padre"``) are kept, numbers in them shifted
``AGE``                 :func:`.ages.surrogate_age` (shift; > 89 -> "90 or older", or a number from 90 to 99
                        where that phrase would not read: "93-year-old")
``DATE``                :func:`.dates.surrogate_date` (one offset per scope; same format and language)
``LOCATION.*``          :mod:`.places` (city, region, country, postcode, street, hospital, unit, organisation)
``PROFESSION``          another profession
``CONTACT.*``           :mod:`.contacts` (phone/fax national format, e-mail, URL, IP)
``ID.*``                :mod:`.identifiers` (format-preserving; checksums kept valid)
``SEX``, ``OTHER``      kept (``keep_sex``), or tagged with ``unhandled = "tag"``
======================  =========================================================================================

A surrogate never equals its original (case- and accent-insensitively); where a generator cannot replace a
span (a date span without a date, an age without a number, ``OTHER``) the span is kept, or tagged
(``[CATEGORY]``) when ``unhandled = "tag"``. With ``ledger`` set (an SQLite path or a ``postgresql://`` URL),
every replacement is recorded for authorised reversal (:mod:`clinanon.ledger`).

The key comes from ``key_file``, else the environment variable ``key_env`` (``CLINANON_SURROGATE_KEY``), else —
only with ``insecure_random_key = true`` — a throw-away random key; otherwise building the operator fails with
:class:`~clinanon.transform.surrogate.keys.MissingKeyError`. The key never appears in ``repr`` or errors.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, PrivateAttr, SecretStr, field_validator, model_validator

from clinanon import caches
from clinanon.caches import memo
from clinanon.document import Span
from clinanon.lang import Language
from clinanon.taxonomy import parent
from clinanon.transform.base import Edit, OperatorBase, OperatorContext, register_operator
from clinanon.transform.surrogate._text import normalize, same_key
from clinanon.transform.surrogate.ages import surrogate_age
from clinanon.transform.surrogate.contacts import surrogate_email, surrogate_ip, surrogate_phone, surrogate_url
from clinanon.transform.surrogate.countries import surrogate_country
from clinanon.transform.surrogate.date_formats import weekday_before
from clinanon.transform.surrogate.dates import surrogate_date
from clinanon.transform.surrogate.hospitals import surrogate_hospital
from clinanon.transform.surrogate.identifiers import format_preserving, surrogate_identifier
from clinanon.transform.surrogate.keys import KEY_ENV, KeyedRandom, SurrogateKey, load_key, parse_key
from clinanon.transform.surrogate.names import looks_like_name, surrogate_name
from clinanon.transform.surrogate.organizations import (
    surrogate_department,
    surrogate_organization,
    surrogate_profession,
)
from clinanon.transform.surrogate.places import (
    located_place,
    surrogate_address_street,
    surrogate_address_zip,
    surrogate_city,
)
from clinanon.transform.surrogate.scope import GenContext, ResolvedScope, Settings, resolve_scope

__all__ = ["SurrogateOperator", "clear_text_caches", "generate"]

log = logging.getLogger("clinanon.surrogate")

_IP_CHARS = frozenset("0123456789abcdefABCDEF.:")
_UNSET = object()


def _contact(text: str, ctx: GenContext, sub: str) -> str:
    if sub == "EMAIL" or (not sub and "@" in text):
        return surrogate_email(text, ctx)
    if sub == "URL" or (not sub and ("://" in text or text.strip().lower().startswith("www."))):
        return surrogate_url(text, ctx)
    if sub == "IPADDR" or (not sub and set(text.strip()) <= _IP_CHARS and text.count(".") == 3):
        return surrogate_ip(text, ctx)
    return surrogate_phone(text, ctx)


@memo(maxsize=256)
def _type(category: str) -> str:
    return parent(category)


#: ``LOCATION`` subtypes whose generator never looks at the span's position (the others may make a postcode,
#: which follows the nearest city)
_PLACE_POSITION_FREE = frozenset({"COUNTRY", "STREET", "HOSPITAL", "ORGANIZATION", "DEPARTMENT", "ROOM"})
#: categories whose surrogate reads the words around the span, digits or not: a hospital name fits the head word
#: written outside it (``"Riverside"`` + ``" Hospital"`` gets a name without one; :mod:`.hospitals`)
_BY_POSITION = frozenset({"LOCATION.HOSPITAL"})


@memo(maxsize=256)
def _memo_digits(category: str) -> bool:
    """Whether a span of ``category`` holding digits may be memoized by its text within a document (its
    surrogate does not depend on where the span is: a postcode follows the nearest city, a capped age reads the
    words after it)."""
    typ = _type(category)
    if typ == "AGE":
        return False
    return typ != "LOCATION" or category.partition(".")[2] in _PLACE_POSITION_FREE


Generator = Callable[[str, GenContext], "str | None"]


def _name_generator(sub: str) -> Generator:
    relative = sub == "RELATIVE"

    def gen(text: str, ctx: GenContext) -> str | None:
        place = located_place(text, ctx)
        if place is not None:
            return place
        if looks_like_name(text, ctx.lang, relative):
            return surrogate_name(text, ctx)
        if any(map(str.isdigit, text)):
            return surrogate_age(text, ctx)
        return None

    return gen


def _fixed_purpose(purpose: str) -> Generator:
    def gen(text: str, ctx: GenContext) -> str:
        return format_preserving(text, ctx, purpose)

    return gen


def _contact_generator(sub: str) -> Generator:
    def gen(text: str, ctx: GenContext) -> str:
        return _contact(text, ctx, sub)

    return gen


def _none(text: str, ctx: GenContext) -> None:
    return None


_PLACE_GENERATORS: dict[str, Generator] = {
    "COUNTRY": surrogate_country, "ZIP": surrogate_address_zip, "STREET": surrogate_address_street,
    "HOSPITAL": surrogate_hospital,
    "ORGANIZATION": surrogate_organization, "DEPARTMENT": surrogate_department, "ROOM": _fixed_purpose("room"),
}


def _generator_of(category: str) -> Generator:
    """The generator :func:`generate` runs for ``category`` (the dispatch of :func:`generate`, resolved once)."""
    typ = _type(category)
    sub = category.partition(".")[2]
    if typ == "NAME":
        return _fixed_purpose("username") if sub == "USERNAME" else _name_generator(sub)
    if typ == "DATE":
        return surrogate_date
    if typ == "AGE":
        return surrogate_age
    if typ == "LOCATION":  # surrogate_place's dispatch
        return _PLACE_GENERATORS.get(sub, surrogate_city)
    if typ == "PROFESSION":
        return surrogate_profession
    if typ == "CONTACT":
        return _contact_generator(sub)
    if typ == "ID":
        return surrogate_identifier
    return _none


#: category -> (its generator, whether a span holding digits may be memoized by its text, whether no span may be:
#: its surrogate is kept by position): resolved once per category (a data-independent table)
_PLANS: dict[str, tuple[Generator, bool, bool]] = {}


def _plan(category: str) -> tuple[Generator, bool, bool]:
    plan = _PLANS.get(category)
    if plan is None:
        if len(_PLANS) > 1024:  # categories come from a scheme: a handful; never grow without bound
            _PLANS.clear()
        plan = _PLANS[category] = (_generator_of(category), _memo_digits(category), category in _BY_POSITION)
    return plan


def generate(category: str, text: str, ctx: GenContext) -> str | None:
    """The surrogate of ``text`` for a canonical ``category``; ``None`` when the span is not replaceable."""
    return _plan(category)[0](text, ctx)


def clear_text_caches() -> None:
    """Empty the process-wide memos keyed on span texts (outputs never depend on them): every memo registered with
    ``kind="text"`` (:mod:`clinanon.caches`). Word lists, gazetteers and other tables built from the shipped data
    stay loaded. Benchmarks call this before a run to measure a first pass over the documents (as in a fresh
    process) rather than a repeat over strings already seen."""
    caches.clear("text")


_SEX_WORDS = {
    "es": (("H", "M", "V", "F"), ("varón", "mujer", "hombre", "femenino", "masculino")),
    "en": (("M", "F"), ("male", "female", "man", "woman")),
    "nl": (("M", "V"), ("man", "vrouw", "mannelijk", "vrouwelijk")),
    "sv": (("M", "K"), ("man", "kvinna", "manlig", "kvinnlig")),
    "de": (("M", "W"), ("männlich", "weiblich", "Mann", "Frau")),
}


def _sex(text: str, ctx: GenContext) -> str:
    """A keyed sex word of the language with the same shape (a letter for a letter, a word for a word)."""
    letters, words = _SEX_WORDS.get(ctx.lang, _SEX_WORDS["en"])
    stripped = text.strip()
    pool = letters if len(stripped) <= 2 else words
    choice = ctx.rand.choice(pool, "sex", normalize(stripped))
    from clinanon.transform.surrogate._text import apply_case

    return text.replace(stripped, apply_case(stripped, choice), 1) if stripped else text


def _range(v: tuple[int, int], name: str) -> tuple[int, int]:
    lo, hi = v
    if lo < 1 or hi < lo:
        raise ValueError(f"{name} needs 1 <= min <= max (a shift is never 0)")
    return (lo, hi)


class _Hot:
    """What the operator reads for every new document: the resolved key, the generator settings and the
    operator's counters (the same objects as its private attributes), gathered once per operator
    (:attr:`SurrogateOperator._hot`)."""

    __slots__ = ("key", "settings", "stats")

    def __init__(self, key: SurrogateKey, settings: Settings, stats: dict[str, int]) -> None:
        self.key = key
        self.settings = settings
        self.stats = stats

    def __repr__(self) -> str:
        return "_Hot()"  # never the key


class _DocState:
    """What the operator keeps for the document being anonymized (in ``ctx.state[operator name]``)."""

    __slots__ = ("at", "doc", "gctx", "record", "results", "scope", "spans", "stats", "tag")

    def __init__(self, doc: object, spans: object, gctx: GenContext, scope: ResolvedScope, stats: dict[str, int],
                 tag: bool, record: bool) -> None:
        self.doc = doc
        self.spans = spans
        self.gctx = gctx
        self.scope = scope
        self.stats = stats
        #: kept spans become ``[CATEGORY]`` (``unhandled = "tag"``): read by every edit
        self.tag = tag
        #: replacements go to the ledger (``ledger`` is set): read by every edit
        self.record = record
        #: surrogates by (category, original) in this document
        self.results: dict[tuple[str, str], str | None] = {}
        #: surrogates that depend on where their span is (a postcode follows the nearest city), by (start, end,
        #: category): made in a batch's prepare step, read by the edit of that span
        self.at: dict[tuple[int, int, str], str | None] = {}

    def __repr__(self) -> str:
        return f"_DocState(spans={len(self.spans)})"  # type: ignore[arg-type]


@register_operator("surrogate")
class SurrogateOperator(OperatorBase):
    """Keyed, locale-aware surrogates (see the module docstring). Parameters:

    ``scope`` (document | patient | corpus), ``patient_field`` (metadata key of the patient id),
    ``missing_patient`` (document: fall back and count | error), ``key_file`` / ``key_env`` /
    ``insecure_random_key`` / ``key`` (the secret), ``locale`` (override the note's language),
    ``date_shift`` / ``month_shift`` / ``year_shift`` / ``age_shift`` (``[min, max]`` of the absolute shift,
    never 0; days at most 366), ``date_collisions`` (auto | avoid | ignore: whether a document may use other
    keyed offsets — the rest of the range, then wider ranges — when the scope's own would move a date or age onto
    another original of the document; ``auto`` avoids in document scope only, so in patient and corpus scope every
    document keeps the scope's offset and all intervals), ``age_cap`` (ages in years at or above it become
    "<cap> or older"; ``None`` disables), ``keep_sex``, ``unhandled`` (keep | tag), ``ledger`` (SQLite path or
    ``postgresql://`` URL), ``ledger_table``.
    """

    scope: Literal["document", "patient", "corpus"] = "document"
    patient_field: str = "patient_id"
    missing_patient: Literal["document", "error"] = "document"
    key_file: Path | None = None
    key_env: str = KEY_ENV
    insecure_random_key: bool = False
    key: SecretStr | None = Field(default=None, repr=False)
    locale: Language | None = None
    date_shift: tuple[int, int] = (7, 14)
    month_shift: tuple[int, int] = (1, 2)
    year_shift: tuple[int, int] = (1, 2)
    age_shift: tuple[int, int] = (1, 2)
    date_collisions: Literal["auto", "avoid", "ignore"] = "auto"
    age_cap: int | None = Field(default=90, ge=2)
    keep_sex: bool = True
    unhandled: Literal["keep", "tag"] = "keep"
    ledger: str | None = None
    ledger_table: str = "clinanon_ledger"

    _key: SurrogateKey = PrivateAttr()
    _settings: Settings = PrivateAttr()
    _ledger: Any = PrivateAttr(default=None)
    _ledger_pid: int = PrivateAttr(default=-1)
    _stats: dict[str, int] = PrivateAttr(default_factory=dict)

    @field_validator("date_shift")
    @classmethod
    def _date_range(cls, v: tuple[int, int]) -> tuple[int, int]:
        lo, hi = _range(v, "date_shift")
        if hi > 366:
            raise ValueError("date_shift max must be at most 366 days")
        return (lo, hi)

    @field_validator("month_shift", "year_shift", "age_shift")
    @classmethod
    def _small_range(cls, v: tuple[int, int]) -> tuple[int, int]:
        return _range(v, "shift")

    @model_validator(mode="after")
    def _resolve_key(self) -> SurrogateOperator:
        if self.key is not None:
            self._key = parse_key(self.key.get_secret_value(), source="parameter 'key'")
        else:
            self._key = load_key(self.key_file, env_var=self.key_env, insecure_random=self.insecure_random_key)
        avoid = self.date_collisions == "avoid" or (self.date_collisions == "auto" and self.scope == "document")
        self._settings = Settings(self.date_shift, self.month_shift, self.year_shift, self.age_shift,
                                  self.age_cap, self.keep_sex, avoid)
        return self

    @cached_property
    def _hot(self) -> _Hot:
        """The private attributes every new document needs, in one plain object, made on first use (the operator is
        frozen, so they never change). Pydantic reads a private attribute through ``__getattr__`` (several
        microseconds); a cached property is an entry of the instance's ``__dict__`` after the first read, which
        pydantic supports on frozen models (equality, hashing and dumps ignore it)."""
        return _Hot(self._key, self._settings, self._stats)

    def __repr_args__(self) -> Any:
        from clinanon.ledger import redact_url

        return [(k, redact_url(v) if k == "ledger" and isinstance(v, str) else v)
                for k, v in super().__repr_args__() if k != "key"]

    @property
    def key_fingerprint(self) -> str:
        """Identifies the key in use without revealing it."""
        return self._key.fingerprint()

    @property
    def stats(self) -> dict[str, int]:
        """Counters of this process: ``patient_fallbacks`` (documents), ``kept``, ``replaced``."""
        return dict(self._stats)

    # --- per-document context -------------------------------------------------------------------------------
    def _doc_state(self, ctx: OperatorContext) -> _DocState:
        state = ctx.state.get(self.name)
        if type(state) is _DocState and state.doc is ctx.doc and state.spans is ctx.spans:
            return state
        hot = self._hot
        stats = hot.stats
        scope = resolve_scope(ctx.doc, self.scope, patient_field=self.patient_field,
                              missing_patient=self.missing_patient)
        if scope.fallback:
            if not stats.get("patient_fallbacks"):
                log.warning("surrogate scope 'patient': document %r has no %r metadata; using its document "
                            "scope (counted in the operator's stats)", ctx.doc.id, self.patient_field)
            stats["patient_fallbacks"] = stats.get("patient_fallbacks", 0) + 1
        stats.setdefault("kept", 0)
        stats.setdefault("replaced", 0)
        lang = self.locale or ctx.lang
        gctx = GenContext(KeyedRandom(hot.key, scope.label), lang, hot.settings, ctx.doc, ctx.spans, ctx.categories)
        state = ctx.state[self.name] = _DocState(ctx.doc, ctx.spans, gctx, scope, stats, self.unhandled == "tag",
                                                 self.ledger is not None)
        return state

    def _doc_context(self, ctx: OperatorContext) -> tuple[GenContext, ResolvedScope]:
        state = self._doc_state(ctx)
        return state.gctx, state.scope

    def _surrogate(self, span: Span, ctx: OperatorContext, state: _DocState, original: str) -> str | None:
        results = state.results
        memo_key = (ctx.category, original)
        if memo_key in results:
            return results[memo_key]
        return self._generate(span, ctx.category, state, original)

    def _generate(self, span: Span, category: str, state: _DocState, original: str) -> str | None:
        """The surrogate of ``span`` (not looked up in the document's results; stored there when memoizable)."""
        gctx = state.gctx
        gctx.span, gctx.category = span, category  # one context object per document, updated per span
        gen, memo_digits, by_position = _PLANS.get(category) or _plan(category)
        if category == "SEX":
            new = None if self.keep_sex else _sex(original, gctx)
        else:
            new = gen(original, gctx)
            if new is None or new == original:
                new = None
            elif same_key(new, original):  # differs only in case/accents/spacing: not a surrogate
                new = format_preserving(original, gctx, "fallback")
        if not by_position and (memo_digits or not any(map(str.isdigit, original))):
            state.results[(category, original)] = new
        else:
            state.at[(span.start, span.end, category)] = new
        return new

    def surrogate_for(self, span: Span, ctx: OperatorContext) -> str | None:
        """The surrogate text of ``span``, or ``None`` when the span is kept/tagged (see the module docstring).

        Within a document, a repeated (category, original) pair is generated once (generators are pure functions
        of the document and the span text, except postcodes, which follow the nearest city, capped ages and
        hospitals, which read the words around the span)."""
        return self._surrogate(span, ctx, self._doc_state(ctx), ctx.doc.text[span.start:span.end])

    def prepare_many(self, items: Sequence[tuple[Span, OperatorContext]]) -> None:
        """Generate the surrogates of a batch of documents before their edits, category by category (the
        :class:`~clinanon.transform.base.BatchOperator` hook of ``anonymize_many``).

        Every surrogate is a pure function of the key, the scope, the document and (for a postcode, which follows
        the nearest city) the span's place, so the order does not change them; grouped by category, each
        generator's code and tables stay in the CPU caches across the batch (measured on MEDDOCAN dev in batches of
        32, detection in between: about 9 % less anonymization time than note by note)."""
        by_category: dict[str, list[tuple[Span, OperatorContext]]] = {}
        for span, ctx in items:
            group = by_category.get(ctx.category)
            if group is None:
                by_category[ctx.category] = [(span, ctx)]
            else:
                group.append((span, ctx))
        for category in sorted(by_category):
            for span, ctx in by_category[category]:
                state = self._doc_state(ctx)
                original = ctx.doc.text[span.start:span.end]
                if (category, original) not in state.results and (span.start, span.end, category) not in state.at:
                    self._generate(span, category, state, original)

    def edit(self, span: Span, ctx: OperatorContext) -> Edit:
        """An edit of exactly the span: its surrogate, the original (kept) or ``[CATEGORY]`` (tagged)."""
        doc = ctx.doc
        state = ctx.state.get(self.name)  # the checks of _doc_state, inlined (called once per span)
        if type(state) is not _DocState or state.doc is not doc or state.spans is not ctx.spans:
            state = self._doc_state(ctx)
        start, end = span.start, span.end
        original = doc.text[start:end]
        category = ctx.category
        new = state.results.get((category, original), _UNSET)
        if new is _UNSET:
            new = state.at.get((start, end, category), _UNSET)  # prepared for a batch (position-dependent)
            if new is _UNSET:
                new = self._generate(span, category, state, original)
        if new is None:
            state.stats["kept"] += 1
            return Edit(start, end, f"[{category}]" if state.tag else original)
        state.stats["replaced"] += 1
        if state.record:
            self._record(span, ctx, original, new)  # type: ignore[arg-type]
        if category == "DATE" and start > 2 and doc.text[start - 1] in " \t":
            # a weekday written before the date, outside the span ("Monday, " + "March 3, 2014"): the edit also
            # covers it, with the new date's weekday (an edit may cover more than its span)
            weekday = weekday_before(doc.text, start, state.gctx.lang, original, new)  # type: ignore[arg-type]
            if weekday is not None:
                return Edit(weekday[0], end, weekday[1] + new)  # type: ignore[operator]
        return Edit(start, end, new)  # type: ignore[arg-type]

    # --- ledger ---------------------------------------------------------------------------------------------
    def _open_ledger(self) -> Any:
        if self._ledger is None or self._ledger_pid != os.getpid():
            from clinanon.ledger import open_ledger

            self._ledger = open_ledger(self.ledger, table=self.ledger_table)  # type: ignore[arg-type]
            self._ledger_pid = os.getpid()
        return self._ledger

    def _record(self, span: Span, ctx: OperatorContext, original: str, new: str) -> None:
        from clinanon.ledger import LedgerEntry

        _, scope = self._doc_context(ctx)
        self._open_ledger().record([LedgerEntry(ctx.doc.id, span.start, span.end, span.label, ctx.category,
                                                scope.label, original, new, self.name, self.key_fingerprint)])

    def close(self) -> None:
        """Close the ledger connection of this process (if any)."""
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None
