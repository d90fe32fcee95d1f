"""The language ground floor: the supported languages and what every room above shares about them.

* :data:`LANGUAGES` -- the one list of supported note languages. Adding a language means adding its code here
  plus its data (``clinanon/data/gazetteers/<lang>/``, ``clinanon/data/lexicons/``, the per-language tables of
  the rules and surrogates).
* :func:`check_language` -- the one language check (``"ES"``, ``"es-ES"``, ``"es_ES"`` -> ``"es"``).

Submodules (import them by name; this package imports none of them):

* :mod:`clinanon.lang.fold` -- case and accent folding (the look-up key of every word list);
* :mod:`clinanon.lang.wordlists` -- the shipped gazetteer files and user lists, read as rows;
* :mod:`clinanon.lang.phrases` -- :class:`~clinanon.lang.phrases.PhraseIndex`, multi-word look-up over tokens;
* :mod:`clinanon.lang.lexicon` -- common words, trigger words and the other per-language word lists;
* :mod:`clinanon.lang.checksums` -- check digits of identifiers (IBAN, DNI/NIE, BSN, personnummer ...);
* :mod:`clinanon.lang.holidays` -- public holidays per language, read by the date rules and the date surrogates.

Layering: ``clinanon.lang`` imports only :mod:`clinanon.errors`, :mod:`clinanon.document`,
:mod:`clinanon.caches` and :mod:`clinanon.text` (tokens; ``text`` imports only this ``__init__``), so detectors,
post-detection steps and operators all build on it without importing one another (``[tool.importlinter]`` in
``pyproject.toml``).
"""

from __future__ import annotations

from typing import Literal

from clinanon.errors import ConfigError

__all__ = ["LANGUAGES", "Language", "check_language"]

#: the supported note languages (ISO 639-1 codes), in the order they are listed to users
LANGUAGES: tuple[str, ...] = ("en", "es", "nl", "sv", "de")
#: the type of a configuration field that holds one of :data:`LANGUAGES` (pydantic validates it)
Language = Literal[LANGUAGES]  # type: ignore[valid-type]


def check_language(lang: str, *, exact: bool = False) -> str:
    """The supported language code for ``lang`` (``"ES"``, ``"es-ES"``, ``"es_ES"`` -> ``"es"``).

    Raises :class:`~clinanon.errors.ConfigError` naming the supported languages otherwise. ``exact=True``
    accepts only the codes of :data:`LANGUAGES` themselves (no case or region variants; the error then says
    "expected one of"), as the rule recognizers, the gazetteer and the allow-list always have.
    """
    if exact:
        if lang not in LANGUAGES:
            raise ConfigError(f"unsupported language {lang!r}; expected one of: {', '.join(LANGUAGES)}")
        return lang
    if isinstance(lang, str):
        if lang in LANGUAGES:
            return lang
        code = lang.replace("_", "-").split("-", 1)[0].strip().lower()
        if code in LANGUAGES:
            return code
    raise ConfigError(f"unsupported language {lang!r}; supported: {', '.join(LANGUAGES)}")
