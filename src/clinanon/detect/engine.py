"""The one-pass rule engine the pattern families share (dates, ages, fields/sex, ...).

:class:`RuleRecognizer` joins the named :class:`RulePattern` s of a family into **one** alternation, compiled
once and cached by the family modules, so a text is scanned once per family. At each position the first pattern
(in list order) that matches wins, so patterns are listed most specific first. Every pattern is still testable
alone (:meth:`RuleRecognizer.only`). A :class:`Context` gives a pattern words that, among the few words before or
after the match, raise or lower its score; matches below ``min_score`` are dropped.

Speed. Most positions of a text start no match, and the cost of a scan is the cost of rejecting them:

* with ``word_start`` (default) the alternation is entered only where a word starts, and a digit / letter
  dispatch (``RulePattern.first``) skips the patterns that cannot start with that character;
* every pattern gets a **guard**: a look-ahead on the first characters (three for words, two for numbers) that
  any of its matches must start with, derived from the pattern's syntax tree (:func:`prefix_guard`; e.g.
  ``(?i:ene|feb|...)`` before a month-name pattern), and each digit / letter group gets the union of its
  patterns' guards. A guard is a necessary condition (look-arounds and ``\\b`` consume nothing; literals and
  classes keep their case-insensitivity), so it never changes which pattern matches or where: on MEDDOCAN dev
  the word guards let 12 k of the 114 k word starts into the alternations;
* :func:`analyze_many` scans a text once for several recognizers (each recognizer's alternation in a
  look-ahead), with the same spans as one scan per recognizer;
* a pattern that starts with any capitalised word (a name before a degree, a company before "S.L.") is costly
  to reject at every such word: its ``trigger`` (a regex every text it matches in contains, e.g. the degree) is
  searched once per text, and texts without it are scanned without the pattern; the spans are the same. The
  alternation without the triggered patterns is compiled once (and the shared scan of :func:`analyze_many` once
  per tuple of recognizers); in a text that has a trigger, its pattern is searched alone and its matches are
  merged in, first pattern in list order winning at a position as in the alternation. Compiling an alternation
  per set of left-out patterns cost seconds per set (a dozen sets on short English notes) and kept them all.

:func:`finditer_guarded` scans for a pattern whose leading look-behind would make the regex engine try every
position: it searches the rest and tests the look-behind where that matches.

Patterns that are combined into one alternation must not use named groups or backreferences (their numbered
groups are renumbered in the combined regex).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from clinanon.caches import memo
from clinanon.detect.base import Pattern
from clinanon.detect.regex_tree import (
    MAX_CLASS,
    MAX_PREFIXES,
    Atom,
    Unknown,
    case_variants,
    char_variants,
    ignores_case,
    parse,
    prefix_set,
    seq_prefixes,
    widths,
)
from clinanon.document import Document, Span
from clinanon.lang.fold import fold, folded_word_set
from clinanon.text import _MARKS, TokenTable, token_table

__all__ = [
    "Context",
    "CueWords",
    "RulePattern",
    "RuleRecognizer",
    "analyze_many",
    "compile_counts",
    "cue_words",
    "finditer_first_char",
    "finditer_guarded",
    "finditer_word_start",
    "first_char_scan",
    "prefix_guard",
    "word_start_scan",
    "words_after",
    "words_before",
]

_WORD = re.compile(r"\w+")



def _words(items: Iterable[str]) -> frozenset[str]:
    return frozenset(w.casefold() for w in items)


def words_before(text: str, start: int, n: int, reach: int = 60) -> list[str]:
    """The last ``n`` words (case-folded) that end before ``start``, looking back at most ``reach`` chars."""
    return [w.casefold() for w in _WORD.findall(text, max(0, start - reach), start)[-n:]]


def words_after(text: str, end: int, n: int, reach: int = 50, line: bool = False) -> list[str]:
    """The first ``n`` words (case-folded) after ``end``, looking ahead at most ``reach`` chars (with ``line``: not
    past the end of the line)."""
    out: list[str] = []
    stop = min(len(text), end + reach)
    if line:
        nl = text.find("\n", end, stop)
        stop = stop if nl < 0 else nl
    for m in _WORD.finditer(text, end, stop):
        out.append(m.group().casefold())
        if len(out) >= n:
            break
    return out


def finditer_guarded(rx: re.Pattern[str], guard: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The matches ``re.finditer(guard.pattern + rx.pattern, text)`` gives (same spans and groups), for a
    zero-width ``guard`` without groups (e.g. the look-behind ``(?<![\\w])``) and an ``rx`` that never matches the
    empty string.

    ``rx`` is searched alone, so that the regex engine can skip to the characters it starts with (a leading
    look-behind makes it try every position), and ``guard`` is tested only where ``rx`` matches; where it fails,
    the search goes on from the next character, as the combined pattern's scan would.
    """
    pos = 0
    search = rx.search
    holds = guard.match
    while True:
        m = search(text, pos)
        if m is None:
            return
        start = m.start()
        if holds(text, start) is None:
            pos = start + 1
            continue
        yield m
        pos = m.end()


def first_char_scan(regex: str, flags: int = 0) -> re.Pattern[str] | None:
    """A scanner for ``re.compile(regex, flags)`` that the regex engine runs fast, or ``None``.

    A pattern that starts with a look-around or a case-insensitive letter makes the regex engine try it at every
    position. The scanner consumes one character of a case-sensitive class (every character a match can start
    with, case variants included), which lets the engine skip to the next such character, and then matches
    ``regex`` at that character in a look-ahead inside a look-behind, capturing the match in group 1. Use it with
    :func:`finditer_first_char`, which gives the matches of ``regex`` that ``finditer`` gives. ``None`` when the
    first characters are not a small set of literals (or ``regex`` has groups, inline global flags or may be
    empty).
    """
    prefixes = prefix_set(regex, flags, 1)
    try:
        if prefixes is None or re.compile(regex, flags).groups:
            return None
    except re.error:
        return None
    chars: set[str] = set()
    folded = []
    for (kind, value, ic), *_rest in prefixes:
        if kind != "lit":
            return None
        if ic:
            folded.append(value)
        else:
            chars.add(value)
    if folded:
        chars |= case_variants("".join(sorted(set(folded))))
    if not chars or len(chars) > MAX_CLASS:
        return None
    scoped = "".join(f for f, bit in (("i", re.IGNORECASE), ("m", re.MULTILINE), ("s", re.DOTALL),
                                      ("x", re.VERBOSE)) if flags & bit)
    body = f"(?{scoped}:{regex})" if scoped else f"(?:{regex})"
    try:  # (fails for a regex with global inline flags, which cannot be scoped)
        return re.compile(f"[{''.join(map(re.escape, sorted(chars)))}](?<=(?=({body}))[\\s\\S])",
                          flags & ~(re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE))
    except re.error:
        return None


def finditer_first_char(scan: re.Pattern[str], text: str, pos: int = 0) -> Iterator[tuple[int, int]]:
    """The spans of ``re.compile(regex, flags).finditer(text, pos)`` for ``scan = first_char_scan(regex, flags)``:
    each candidate's match is group 1, and candidates inside the previous match are skipped (``finditer``
    resumes at a match's end). ``regex`` never matches the empty string (its first character is known)."""
    end = pos
    for m in scan.finditer(text, pos):
        s, e = m.span(1)
        if s >= end:
            yield s, e
            end = e


#: the leading look-behinds that :func:`word_start_scan` accepts (a match starts after a non-word character)
_WORD_START_HEADS = (r"(?<![\w])", r"(?<!\w)")


def word_start_scan(regex: str, flags: int = 0) -> re.Pattern[str] | None:
    """A scanner of the word starts where ``re.compile(regex, flags)`` may match, or ``None``.

    For a ``regex`` that starts with the look-behind ``(?<![\\w])`` (or ``(?<!\\w)``) and whose matches start with
    a word character: such a match starts at a word start (a word character after a non-word one, or at 0). A
    leading look-behind and case-insensitive letters make the regex engine try the whole pattern at every
    position; the scanner instead consumes one non-word character (a character class, which the engine skips
    to directly) and tests, in a look-ahead, that the next characters pass the regex's prefix guard (three
    characters, see :func:`prefix_guard`), a necessary condition. Use it with :func:`finditer_word_start`.
    ``None`` when a match may start with something else than an ASCII letter or digit (or a case-sensitive
    word character), the prefixes cannot be bounded, or ``flags`` has ``re.ASCII``.
    """
    head = next((h for h in _WORD_START_HEADS if regex.startswith(h)), None)
    if head is None or flags & re.ASCII:  # (the scanner's \W is the Unicode one)
        return None
    prefixes = prefix_set(regex[len(head):], flags, 3)
    if prefixes is None:
        return None
    for p in prefixes:
        kind, char, ic = p[0]
        # the case variants of an ASCII letter or digit are word characters (e.g. KELVIN SIGN for "k")
        if kind != "lit" or not (char.isascii() and char.isalnum() if ic else re.match(r"\w", char)):
            return None
    return re.compile(r"\W(?=" + _trie_source(prefixes) + ")")


def cue_words(regex: str, flags: int = 0, depth: int = 24) -> CueWords | None:
    """The first words of the matches of ``regex``, for a cheap test that a text has none of them.

    For a regex whose matches start at a word start with a word of letters only, ended by a non-word character
    (a residence cue such as ``vive en``): the folded first words (:func:`clinanon.lang.fold.fold`, so
    case- and accent-insensitive: a superset of what a case-insensitive regex equates) of every match. ``None``
    when they cannot be listed: unbounded prefixes, a first word longer than ``depth`` characters, or one that
    holds a digit or a character class. See :meth:`CueWords.absent_from`.
    """
    def first_word(p: tuple[Atom, ...], is_open: bool, d: int) -> str | None:
        """The letters before the first non-word literal; ``None`` when unknown (a class, a digit, cut)."""
        word = []
        for kind, char, _ic in p:
            if kind != "lit":
                return None
            if not char.isalpha():
                return "".join(word) if word and not _WORD.match(char) else None
            word.append(char)
        # the match ends with the word, or goes on unseen (a prefix as long as the depth may go on, open or not)
        return None if is_open or len(p) >= d else "".join(word)

    words: set[str] = set()
    letters: set[str] = set()
    for branch in _top_branches(regex):  # one by one: the words after the first multiply the prefixes
        # as shallow as the branch's first words allow (deeper prefixes multiply with the words that follow)
        try:
            parsed = parse(branch, flags)
        except (re.error, RecursionError):
            return None
        ic = ignores_case(parsed)
        for d in range(2, depth + 1):
            try:
                found = seq_prefixes(parsed, d, ic)
            except (Unknown, re.error, RecursionError, TypeError, ValueError, IndexError):
                return None
            firsts = [first_word(p, is_open, d) for p, is_open in found]
            if None not in firsts:
                break
        else:
            return None
        words.update(fold(w) for w in firsts if w is not None)
        letters.update(c for p, _ in found for kind, c, _ic in p if kind == "lit" and c.isalpha())
    if not words or "" in words:
        return None
    # characters the token test could miss a regex word start or a cue letter by: combining marks (they end a
    # regex word but not a token) and characters the regex engine matches case-insensitively to a cue letter
    # while their fold differs (LONG S for "s", KELVIN SIGN for "k", dotless i for "i")
    odd = {v for c in letters for v in case_variants(c) if fold(v) != fold(c)}
    unsafe = re.compile(f"[{_MARKS}{''.join(map(re.escape, sorted(odd)))}]")
    return CueWords(frozenset(words), unsafe)


def _top_branches(regex: str) -> list[str]:
    """``regex`` split at its top-level ``|`` (outside groups and classes)."""
    out, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if regex[i + 1:i + 2] == "]":  # "[]...]": a literal "]" first
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(regex[start:i])
            start = i + 1
        i += 1
    out.append(regex[start:])
    return out


@dataclass(frozen=True)
class CueWords:
    """Folded cue words and the characters that make a token test unreliable (see :func:`cue_words`)."""

    words: frozenset[str]
    unsafe: re.Pattern[str]

    def absent_from(self, text: str, table: TokenTable | None = None) -> bool:
        """True when no token of ``text`` folds to a cue word, so the cue regex cannot match in ``text``; False
        when one does, or when ``text`` holds a character for which the test is not exact (then the regex must
        run). ``table``: the token table of ``text`` when the caller has it (else it is computed)."""
        if self.unsafe.search(text) is not None:
            return False
        return self.words.isdisjoint(folded_word_set(table if table is not None else token_table(text)))


def finditer_word_start(scan: re.Pattern[str], rx: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The matches of ``rx.finditer(text)`` (same spans and groups) for ``scan = word_start_scan(rx.pattern,
    rx.flags)``: ``rx`` is matched at position 0 and at each position where a match of ``scan`` ends (every
    position where ``rx`` can match is among them) that is not inside the previous match, as ``finditer``
    resumes at a match's end; ``rx`` never matches the empty string (its first character is known)."""
    match = rx.match
    m = match(text, 0) if text else None
    end = 0
    if m is not None:
        end = m.end()
        yield m
    for hit in scan.finditer(text):
        p = hit.end()
        if p < end:
            continue
        m = match(text, p)
        if m is not None:
            end = m.end()
            yield m


@dataclass(frozen=True)
class Context:
    """Words or phrases that change a match's score when they occur next to it.

    A word of ``before`` among the last ``n_before`` words before the span, or a match of ``before_rx`` ending
    right before the span (searched in the 40 characters before it; write it to end with ``$``), raises the
    score by ``boost`` (once); ``after`` / ``after_rx`` (matched right at the span end) likewise. The ``neg_``
    counterparts lower it by ``penalty``; a ``neg_after`` word counts only on the span's own line (a unit or a
    count word at the start of the next line says nothing about a date that ends a line). Words are compared
    case-folded; the regexes are case-insensitive.
    """

    before: frozenset[str] = frozenset()
    after: frozenset[str] = frozenset()
    neg_before: frozenset[str] = frozenset()
    neg_after: frozenset[str] = frozenset()
    n_before: int = 3
    n_after: int = 2
    boost: float = 0.3
    penalty: float = 0.4
    before_rx: re.Pattern[str] | None = None
    after_rx: re.Pattern[str] | None = None
    neg_before_rx: re.Pattern[str] | None = None
    neg_after_rx: re.Pattern[str] | None = None

    @classmethod
    def of(cls, before: Iterable[str] = (), after: Iterable[str] = (), neg_before: Iterable[str] = (),
           neg_after: Iterable[str] = (), *, before_rx: str | None = None, after_rx: str | None = None,
           neg_before_rx: str | None = None, neg_after_rx: str | None = None, n_before: int = 3,
           n_after: int = 2, boost: float = 0.3, penalty: float = 0.4) -> Context:
        """Build a context from plain word lists (case-folded here) and regex sources (compiled here)."""

        def rx(src: str | None) -> re.Pattern[str] | None:
            return re.compile(src, re.IGNORECASE) if src else None

        return cls(_words(before), _words(after), _words(neg_before), _words(neg_after), n_before, n_after, boost,
                   penalty, rx(before_rx), rx(after_rx), rx(neg_before_rx), rx(neg_after_rx))

    def adjust(self, text: str, start: int, end: int) -> float:
        """The score change for the span ``[start, end)`` of ``text``."""
        up = down = False
        if self.before or self.neg_before:
            wb = words_before(text, start, self.n_before)
            up = not self.before.isdisjoint(wb)
            down = not self.neg_before.isdisjoint(wb)
        if self.after or self.neg_after:
            wa = words_after(text, end, self.n_after)
            up_a = not self.after.isdisjoint(wa)
            down_a = not self.neg_after.isdisjoint(wa)
            if down_a and "\n" in text[end:end + 50]:
                down_a = not self.neg_after.isdisjoint(words_after(text, end, self.n_after, line=True))
        else:
            up_a = down_a = False
        lo = max(0, start - 40)
        if not up and self.before_rx is not None:
            up = self.before_rx.search(text, lo, start) is not None
        if not down and self.neg_before_rx is not None:
            down = self.neg_before_rx.search(text, lo, start) is not None
        if not up_a and self.after_rx is not None:
            up_a = self.after_rx.match(text, end, end + 60) is not None
        if not down_a and self.neg_after_rx is not None:
            down_a = self.neg_after_rx.match(text, end, end + 60) is not None
        return self.boost * (up + up_a) - self.penalty * (down + down_a)


@dataclass(frozen=True)
class RulePattern(Pattern):
    """A :class:`Pattern` with an optional :class:`Context` and an optional ``adjust(text, start, end)`` hook
    that returns a further score change (for checks that word lists cannot express, e.g. a neighbouring year).

    Patterns that are combined into one alternation must not use named groups or backreferences.
    """

    context: Context | None = None
    adjust: Callable[[str, int, int], float] | None = None
    #: what every match starts with: ``"digit"``, ``"letter"`` or ``None`` (unknown); when all patterns of a
    #: recognizer declare it, the scan dispatches on the first character instead of trying every pattern
    first: str | None = None
    #: a regex (compiled with the pattern's flags) found in every text in which the pattern matches, e.g. the
    #: degree after a name: a necessary condition, searched once per text; texts without it skip the pattern
    #: (which changes no span, only the speed of patterns that are costly to reject). A tuple of regexes: all
    #: of them are necessary (searched in order, so a cheap coarse one can go first)
    trigger: str | tuple[str, ...] | None = None

    def rescore(self, text: str, start: int, end: int) -> float:
        s = self.score
        if self.context is not None:
            s += self.context.adjust(text, start, end)
        if self.adjust is not None:
            s += self.adjust(text, start, end)
        return min(1.0, max(0.0, s))


# ---------------------------------------------------------------------------------------------------------
# guards: the first characters every match of a pattern starts with
# ---------------------------------------------------------------------------------------------------------

#: how many characters a guard tests, per dispatch key: three for words (``"de "`` fails a ``"des"`` guard: on
#: MEDDOCAN dev three characters let 12 k of 114 k word starts through, two let 45 k), two for numbers
_GUARD_DEPTH = {"letter": 3, "digit": 2, "": 2}
#: how many characters a pattern's own guard tests when its prefixes stay few (at most ``MAX_PREFIXES``): five
#: for words (``"de "`` and ``"con "`` pass a three-character guard for ``"de nombre"`` / ``"con los"`` but
#: not a five-character one; on MEDDOCAN dev about a third of the word starts that pass the three-character
#: union guard are ``"de "``); a guard of a group of patterns is cut back towards ``_GUARD_DEPTH`` until its
#: prefixes are few enough
_DEEP_GUARD_DEPTH = {"letter": 5, "digit": 2, "": 2}
#: the prefixes a shared scan's guard may keep (see :class:`_Union`): it is tested at every word start, and a
#: deeper guard lets fewer of them into the recognizers' look-aheads ("de la" fails where "de " passes); on
#: MEDDOCAN dev 2048 keeps five characters, and the larger trie costs less than the look-aheads it saves
_MAX_UNION_PREFIXES = 2048
def _atom_class(atoms: Iterable[Atom]) -> str:
    """A regex that matches one character matched by one of ``atoms`` (with each atom's case-insensitivity)."""
    parts = []
    for ic in (True, False):
        flag = "(?i:" if ic else "(?-i:"
        body = sorted({v if kind == "set" else re.escape(v) for kind, v, i in atoms if i is ic and kind != "neg"})
        if body:
            parts.append(f"{flag}[{''.join(body)}])")
        parts.extend(f"{flag}[^{v}])" for kind, v, i in sorted(atoms) if i is ic and kind == "neg")
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def _pattern_prefixes(regex: str, flags: int, key: str) -> set[tuple[Atom, ...]] | None:
    """The prefixes of a pattern for the dispatch ``key``: ``_DEEP_GUARD_DEPTH`` characters deep when they are
    few enough, else ``_GUARD_DEPTH`` deep (``None`` when unbounded, see :func:`.regex_tree.prefix_set`)."""
    base = _GUARD_DEPTH.get(key, 2)
    deep = _DEEP_GUARD_DEPTH.get(key, base)
    if deep > base:
        prefixes = prefix_set(regex, flags, deep)
        if prefixes is not None:
            return prefixes
    return prefix_set(regex, flags, base)


def _bounded_guard(prefixes: set[tuple[Atom, ...]] | None, key: str, limit: int = MAX_PREFIXES) -> str | None:
    """The guard of a group of patterns with these (union of) prefixes: each prefix is cut to fewer characters
    (still a necessary condition) until at most ``limit`` remain, but never below ``_GUARD_DEPTH``; ``None``
    when there are too many, none, or they are weak."""
    if not prefixes:
        return None
    depth = max(len(p) for p in prefixes)
    base = _GUARD_DEPTH.get(key, 2)
    while len(prefixes) > limit and depth > base:
        depth -= 1
        prefixes = {p[:depth] for p in prefixes}
    if len(prefixes) > limit or _weak(prefixes):
        return None
    return _guard_source(prefixes)


def _weak(prefixes: set[tuple[Atom, ...]]) -> bool:
    """True when the prefixes are single character classes (a guard would test little more than the
    digit / letter dispatch already does)."""
    return all(len(p) == 1 and p[0][0] != "lit" for p in prefixes)


def _trie_source(prefixes: set[tuple[Atom, ...]]) -> str:
    """A regex (no groups) that matches at the start of a string iff the string starts with one of
    ``prefixes``; empty when one prefix is empty (anything matches).

    A literal atom stands for the characters it matches (its case variants when case-insensitive, see
    :func:`.regex_tree.char_variants`), each a key of the trie, so that ``(?i:d)...|(?-i:d)...`` become one branch; the
    characters that allow the same continuations share one case-sensitive class ``(?-i:[...])``. A branch that
    starts with such a class is rejected by the regex engine without entering it (a case-insensitive one is
    entered), which makes the many failing branches of a guard cheap. Class atoms (``\\s``, ranges) stay as
    they are.
    """
    if any(not p for p in prefixes):
        return ""
    children: dict[str | Atom, set[tuple[Atom, ...]]] = {}
    for p in prefixes:
        kind, value, ic = p[0]
        keys: Iterable[str | Atom] = ((char_variants(value) if ic else (value,)) if kind == "lit" else (p[0],))
        for key in keys:
            children.setdefault(key, set()).add(p[1:])
    groups: dict[str, list[str | Atom]] = {}
    for key, rests in children.items():
        groups.setdefault(_trie_source(rests), []).append(key)
    alts = []
    for rest, keys_ in sorted(groups.items()):
        chars = sorted(k for k in keys_ if isinstance(k, str))
        if chars:  # (case-sensitive also inside a case-insensitive regex)
            alts.append(f"(?-i:[{''.join(map(re.escape, chars))}])" + rest)
        alts.extend(_atom_class([a]) + rest for a in sorted(k for k in keys_ if not isinstance(k, str)))
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


def _guard_source(prefixes: set[tuple[Atom, ...]]) -> str:
    return "(?=" + _trie_source(prefixes) + ")"


def prefix_guard(regex: str, flags: int = 0, k: int = 2) -> str | None:
    """A look-ahead ``(?=...)`` that holds wherever ``re.compile(regex, flags)`` can match, testing only the
    first ``k`` characters; ``None`` when a match may start with any character or be empty (``.``, a
    backreference, ``x?``).

    It is a necessary condition, never a sufficient one: ``(?=guard)`` before the pattern changes no match.
    Zero-width items (``\\b``, look-arounds) are skipped; literals and classes keep their case-insensitivity;
    classes of up to 64 literal characters are expanded, others (``\\d``, ``[^,;]``) are kept whole.
    """
    prefixes = prefix_set(regex, flags, k)
    return None if prefixes is None else _guard_source(prefixes)


# ---------------------------------------------------------------------------------------------------------
# the recognizer
# ---------------------------------------------------------------------------------------------------------


def _scoped(p: Pattern, guard: str | None = None) -> str:
    flag = "i" if p.flags & re.IGNORECASE else "-i"
    return f"((?{flag}:{guard or ''}{p.regex}))"


class RuleRecognizer:
    """A family of named patterns scanned in one pass (see the module docstring).

    ``detect(doc)`` / ``analyze(text)`` return spans labelled ``pattern.label or label`` with
    ``source = "<name>:<pattern name>"`` and the pattern's (context-adjusted) score, sorted by offset, never
    overlapping one another (one alternation, left to right). ``postprocess`` may rewrite the span list (it
    gets the text too) before it is returned. ``word_start`` (default) declares that every pattern's match
    begins at the start of a word (a letter or digit after a non-word character), which lets the scan skip all
    other positions cheaply; set it to ``False`` for patterns that can start elsewhere. ``guards`` (default)
    adds the look-ahead of :func:`prefix_guard` to every pattern (it changes no match, only the speed).
    """

    def __init__(self, name: str, label: str, patterns: Sequence[Pattern], *, min_score: float = 0.5,
                 postprocess: Callable[[str, list[Span]], list[Span]] | None = None,
                 word_start: bool = True, guards: bool = True) -> None:
        if not patterns:
            raise ValueError(f"recognizer {name!r} has no patterns")
        self.name = name
        self.label = label
        self.patterns: tuple[Pattern, ...] = tuple(patterns)
        self.min_score = min_score
        self.postprocess = postprocess
        self.word_start = word_start
        self.guards = guards
        firsts = [getattr(p, "first", None) for p in self.patterns]
        dispatch = word_start and all(f in ("digit", "letter") for f in firsts)
        buckets: dict[str, list[Pattern]] = {"digit": [], "letter": [], "": []}
        for p, f in zip(self.patterns, firsts, strict=True):
            buckets[f if dispatch and f else ""].append(p)
        self._by_group: dict[int, tuple[Pattern, int]] = {}
        #: per dispatch key: the guarded alternation and the prefixes of all its patterns (None = unbounded)
        self._buckets: dict[str, tuple[str, set[tuple[Atom, ...]] | None]] = {}
        #: per dispatch key: (outer group, pattern, group of the PHI) of its patterns, numbered from the key's
        #: first group (1 = the first group of the key's alternation)
        self._bucket_groups: dict[str, list[tuple[int, Pattern, int]]] = {}
        index = 1
        solo_src: dict[str, tuple[str, int]] = {}
        alts: dict[str, str] = {}
        bucket_guard: dict[str, str | None] = {}
        for key, pats in buckets.items():
            parts = []
            union: set[tuple[Atom, ...]] | None = set()
            first_index = index
            for p in pats:
                if p.compiled.groupindex:
                    raise ValueError(f"pattern {p.name!r}: named groups cannot be combined; use numbered groups")
                if not isinstance(p.group, int) or p.group > p.compiled.groups:
                    raise ValueError(f"pattern {p.name!r}: group {p.group!r} does not exist")
                # parsed as it is combined: only the case flag is carried over (see _scoped)
                prefixes = _pattern_prefixes(p.regex, p.flags & re.IGNORECASE, key) if guards else None
                if prefixes is None:
                    union = None
                elif union is not None:
                    union |= prefixes
                guard = None if prefixes is None or len(pats) == 1 or _weak(prefixes) else _guard_source(prefixes)
                parts.append(_scoped(p, guard))
                if getattr(p, "trigger", None):  # tried alone where its trigger holds (see _solos)
                    solo_src[p.name] = (_DISPATCH[key] + _scoped(p, guard), p.group)
                self._by_group[index] = (p, index + p.group)
                self._bucket_groups.setdefault(key, []).append((index - first_index + 1, p,
                                                                index - first_index + 1 + p.group))
                index += 1 + p.compiled.groups
            if parts:
                alts[key] = "|".join(parts)
                bucket_guard[key] = _bounded_guard(union, key)
                self._buckets[key] = (f"{bucket_guard[key] or ''}(?:{alts[key]})", union or None)
        # Every match of these families starts a word: testing that first lets the engine skip the other
        # positions without entering the alternation; dispatching on digit / letter halves the rest, and the
        # guards reject most of the remaining words on their first characters.
        body = []
        if "digit" in alts:
            body.append(rf"(?=\d){bucket_guard['digit'] or ''}(?:{alts['digit']})")
        if "letter" in alts:
            body.append(rf"(?=[^\W\d_]){bucket_guard['letter'] or ''}(?:{alts['letter']})")
        if "" in alts:
            body.append((bucket_guard[""] or "") + f"(?:{alts['']})")
        self._regex = re.compile((r"\b(?=\w)" if word_start else "") + "(?:" + "|".join(body) + ")")
        #: (pattern name, compiled triggers) of the patterns that declare a trigger
        self._triggers: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...] = tuple(
            (p.name, tuple(re.compile(t, p.flags) for t in ((p.trigger,) if isinstance(p.trigger, str)
                                                            else p.trigger)))
            for p in self.patterns if getattr(p, "trigger", None))
        #: the place of each pattern in the list (the first that matches at a position wins)
        self._index = {p.name: i for i, p in enumerate(self.patterns)}
        #: per triggered pattern: its branch of the alternation, as it is tried there, and its PHI group
        self._solo_src = solo_src
        self._split: tuple[RuleRecognizer | None, dict[str, _Solo] | None] | None = None  # built on first use
        #: exact subsets, only for triggered patterns that may match the empty string (none in the shipped
        #: families): at most _MAX_SUBSETS, oldest first out
        self._subsets: dict[frozenset[str], RuleRecognizer | None] = {}
        _COMPILED["recognizers"] += 1

    def __repr__(self) -> str:
        return f"RuleRecognizer(name={self.name!r}, label={self.label!r}, patterns={len(self.patterns)})"

    def pattern(self, name: str) -> Pattern:
        """The pattern called ``name`` (``KeyError`` if there is none)."""
        for p in self.patterns:
            if p.name == name:
                return p
        raise KeyError(f"recognizer {self.name!r} has no pattern {name!r}")

    def only(self, *names: str) -> RuleRecognizer:
        """A recognizer with only the named patterns (same label, threshold and postprocess): test one alone."""
        return RuleRecognizer(self.name, self.label, [self.pattern(n) for n in names], min_score=self.min_score,
                              postprocess=self.postprocess, word_start=self.word_start, guards=self.guards)

    def _dropped(self, text: str) -> frozenset[str]:
        """The patterns whose trigger ``text`` lacks (they cannot match in it)."""
        dropped = None
        for name, rxs in self._triggers:
            for rx in rxs:
                if rx.search(text) is None:
                    if dropped is None:
                        dropped = [name]
                    else:
                        dropped.append(name)
                    break
        return _NONE if dropped is None else frozenset(dropped)

    def _without(self, dropped: frozenset[str]) -> RuleRecognizer | None:
        """This recognizer without the ``dropped`` patterns (``None`` when none is left): same name, label and
        threshold, so it emits the same spans on a text where the dropped patterns cannot match. Built anew for
        each set of patterns (a compile); kept for the last ``_MAX_SUBSETS`` sets only. The scans use
        :meth:`_parts` instead (built once)."""
        if not dropped:
            return self
        sub = self._subsets.pop(dropped, _MISSING)
        if sub is _MISSING:
            keep = [p for p in self.patterns if p.name not in dropped]
            sub = (RuleRecognizer(self.name, self.label, keep, min_score=self.min_score, postprocess=self.postprocess,
                                  word_start=self.word_start, guards=self.guards) if keep else None)
            while len(self._subsets) >= _MAX_SUBSETS:
                del self._subsets[next(iter(self._subsets))]
        self._subsets[dropped] = sub  # (most recent last)
        return sub  # type: ignore[return-value]

    def _parts(self) -> tuple[RuleRecognizer | None, dict[str, _Solo] | None]:
        """The recognizer without its triggered patterns (``None`` when none is left; ``self`` when it has none)
        and each triggered pattern alone (:class:`_Solo`; ``None`` when one of them or the rest may match the
        empty string, which :class:`_Merge` does not handle), built once."""
        if self._split is None:
            if not self._triggers:
                self._split = (self, {})
            else:
                keep = [p for p in self.patterns if not getattr(p, "trigger", None)]
                base = (RuleRecognizer(self.name, self.label, keep, min_score=self.min_score,
                                       postprocess=self.postprocess, word_start=self.word_start, guards=self.guards)
                        if keep else None)
                solos: dict[str, _Solo] | None = {}
                if base is not None and widths(parse(base._regex.pattern, base._regex.flags))[0] <= 0:
                    solos = None  # (the merged scan steps from match end to match end)
                for name, (src, group) in (self._solo_src if solos is not None else {}).items():
                    rx = re.compile((_WORD_START if self.word_start else "") + src)
                    if widths(parse(rx.pattern, rx.flags))[0] <= 0:
                        solos = None
                        break
                    # after position 0, a word start follows a non-word character: the scan consumes that one
                    # character (the regex engine skips to it) and matches the pattern in a look-ahead
                    scan = re.compile(rf"\W(?=\w)(?={src})") if self.word_start else None
                    solos[name] = _Solo(self._index[name], self.pattern(name), rx, scan, 1 + group)
                self._split = (base, solos)
        return self._split

    def _present(self, dropped: frozenset[str]) -> list[_Solo] | None:
        """The triggered patterns not ``dropped``, alone, in list order (``None`` when they cannot be merged)."""
        solos = self._parts()[1]
        if solos is None:
            return None
        return [solos[n] for n, _ in self._triggers if n not in dropped]

    def _scan_without(self, text: str, dropped: frozenset[str]) -> list[Span]:
        """``self._without(dropped)._scan(text)`` (the spans of one scan without the ``dropped`` patterns), with
        no compile per set of patterns: the scan without any triggered pattern, merged with the matches of the
        triggered patterns that are not dropped (:class:`_Merge`)."""
        if not dropped:
            return self._scan(text)
        base, solos = self._parts()
        if solos is None:  # (a triggered pattern may match the empty string)
            sub = self._without(dropped)
            return sub._scan(text) if sub is not None else []
        present = [solos[n] for n, _ in self._triggers if n not in dropped]
        if not present:
            return base._scan(text) if base is not None else []
        out: list[Span] = []
        merge = _Merge(text, present, self._emit_span, out)
        if base is not None:
            search = base._regex.search
            by_group = base._by_group
            index = self._index
            while True:
                m = search(text, merge.resume)
                if m is None:
                    break
                q = m.start()
                merge.flush(q)
                if q >= merge.resume:
                    p, g = by_group[m.lastindex or 0]
                    merge.at(q, index[p.name], p, *m.span(g), m.end())
        merge.flush(len(text) + 1)
        return out

    def _emit(self, text: str, m: re.Match[str], out: list[Span]) -> None:
        """Append the span of one match of the alternation (if it passes the validator and the threshold)."""
        p, g = self._by_group[m.lastindex or 0]
        start, end = m.span(g)
        self._emit_span(text, p, start, end, out)

    def _emit_span(self, text: str, p: Pattern, start: int, end: int, out: list[Span]) -> None:
        if start < 0 or end <= start:
            return
        if p.validator is not None and not p.validator(text[start:end]):
            return
        if isinstance(p, RulePattern):
            score = p.rescore(text, start, end)  # clamped to [0, 1]
            if score >= self.min_score:
                label = p.label or self.label
                make = Span.trusted if label else Span  # offsets checked above, score clamped
                out.append(make(start, end, label, f"{self.name}:{p.name}", round(score, 4)))
        elif p.score >= self.min_score:
            out.append(Span(start, end, p.label or self.label, f"{self.name}:{p.name}", round(p.score, 4)))

    def _scan(self, text: str) -> list[Span]:
        """The spans of one scan of ``text`` (before ``postprocess``)."""
        out: list[Span] = []
        emit = self._emit
        for m in self._regex.finditer(text):
            emit(text, m, out)
        return out

    def analyze(self, text: str) -> list[Span]:
        out = self._scan_without(text, self._dropped(text)) if self._triggers else self._scan(text)
        if self.postprocess is not None:
            out = self.postprocess(text, out)
        return out

    def detect(self, doc: Document) -> list[Span]:
        return self.analyze(doc.text)


# ---------------------------------------------------------------------------------------------------------
# several recognizers in one scan
# ---------------------------------------------------------------------------------------------------------


class _Union:
    r"""One regex that stops at every position where at least one of several word-start recognizers matches.

    Per first character (digit / letter), ``(?=\d)GUARD(?:(?=(?:B1)())|)(?:(?=(?:B2)())|)...`` followed by a
    conditional that fails unless one of the empty marker groups was set: each recognizer's alternation ``Bk``
    for that kind of character is tried in a look-ahead at every word start whose first characters pass the
    union of the recognizers' guards, so the text is scanned once instead of once per recognizer. The groups
    captured in the look-aheads are each recognizer's own match at that position.
    """

    def __init__(self, recognizers: Sequence[RuleRecognizer]) -> None:
        _COMPILED["unions"] += 1
        self.recognizers = tuple(recognizers)
        #: (recognizer index, marker group, [(outer group, pattern, PHI group)]) for each look-ahead
        pieces: list[tuple[int, int, tuple[tuple[int, Pattern, int], ...]]] = []
        group = 0
        branches = []
        for key, dispatch in (("digit", r"(?=\d)"), ("letter", r"(?=[^\W\d_])")):
            parts = []
            union: set[tuple[Atom, ...]] | None = set()
            for k, r in enumerate(self.recognizers):
                if key not in r._buckets:
                    continue
                src, prefixes = r._buckets[key]
                union = None if prefixes is None or union is None else union | prefixes
                groups = tuple((group + o, p, group + g) for o, p, g in r._bucket_groups[key])
                group += re.compile(src).groups + 1
                pieces.append((k, group, groups))
                parts.append(f"(?:(?=(?:{src})())|)")
            if parts:
                guard = _bounded_guard(union, key, _MAX_UNION_PREFIXES) or ""
                branches.append(dispatch + guard + "".join(parts))
        cond = "(?!)"
        for _k, g, _groups in reversed(pieces):
            cond = f"(?({g})|{cond})"
        self.pieces = tuple(pieces)
        body = "(?:" + "|".join(branches) + ")" + cond
        self.regex = re.compile(_WORD_START + body)
        # The same stops after position 0, found faster: a word start after position 0 is a word character after
        # a non-word one, and a pattern that starts by consuming a character class lets the regex engine skip
        # to the next candidate without entering the pattern. Each match is that one character; the word starts
        # where it ends.
        self.scan = re.compile(r"\W(?=\w)" + body)


_WORD_START = r"\b(?=\w)"
#: per dispatch key of a recognizer's alternation: the look-ahead its branch starts with
_DISPATCH = {"digit": r"(?=\d)", "letter": r"(?=[^\W\d_])", "": ""}
_NONE: frozenset[str] = frozenset()
_MISSING = object()
#: the exact subsets a recognizer keeps (see RuleRecognizer._without)
_MAX_SUBSETS = 4
#: what this process has compiled: recognizers (each one alternation) and shared scans (see compile_counts)
_COMPILED = {"recognizers": 0, "unions": 0}


def compile_counts() -> dict[str, int]:
    """How many :class:`RuleRecognizer` s (one alternation each) and shared scans (:func:`analyze_many`) this
    process has compiled so far: both are bounded by the recognizers in use, not by the texts analysed."""
    return dict(_COMPILED)


@dataclass(frozen=True, slots=True)
class _Solo:
    """A triggered pattern alone: ``regex`` is its branch of the recognizer's alternation with the word-start and
    dispatch look-aheads before it, so it matches at a position iff the branch would (the branch's match, group 1);
    ``scan`` (word-start recognizers) finds the same matches after position 0 faster (see :meth:`search`);
    ``index`` is the pattern's place in the recognizer's list, ``group`` its PHI group (in both)."""

    index: int
    pattern: Pattern
    regex: re.Pattern[str]
    scan: re.Pattern[str] | None
    group: int

    def search(self, text: str, pos: int) -> re.Match[str] | None:
        """The branch's first match that starts at or after ``pos`` (its span is group 1), as ``regex.search``."""
        if self.scan is None:
            return self.regex.search(text, pos)
        if pos <= 0:
            m = self.regex.match(text)
            if m is not None:
                return m
            pos = 1
        return self.scan.search(text, pos - 1)  # (the non-word character before a word start at pos or later)


class _Merge:
    """One recognizer's scan, left to right without overlaps (as ``finditer`` on its alternation), from the
    matches of its alternation without the triggered patterns (given position by position, increasing, through
    :meth:`at`) and the matches of the triggered patterns ``solos`` that a text has the triggers of, each searched
    alone (never compiled together).

    At a position, the alternation's match is that of the first pattern in list order that matches there: the
    one of the smaller ``index`` among the match without triggered patterns and the triggered ones that match
    there. ``resume``: where the scan goes on (the end of the last match).
    """

    __slots__ = ("emit", "next", "out", "resume", "solos", "text")

    def __init__(self, text: str, solos: Sequence[_Solo], emit: Callable[[str, Pattern, int, int, list[Span]], None],
                 out: list[Span]) -> None:
        self.text = text
        self.solos = solos
        self.emit = emit
        self.out = out
        self.resume = 0
        #: per solo: its first match at or after ``resume`` (``None``: none left)
        self.next: list[re.Match[str] | None] = [s.search(text, 0) for s in solos]

    def _advance(self) -> None:
        resume = self.resume
        nxt = self.next
        for j, m in enumerate(nxt):
            if m is not None and m.start(1) < resume:
                nxt[j] = self.solos[j].search(self.text, resume)

    def flush(self, limit: int) -> None:
        """Take the triggered patterns' matches that start before ``limit``, where the alternation without them
        has no match (every such position below ``limit`` has been given to :meth:`at`)."""
        while True:
            self._advance()
            best = -1
            start = limit
            for j, m in enumerate(self.next):
                if m is not None and m.start(1) < start:  # (ties: the first in list order, solos are in order)
                    best, start = j, m.start(1)
            if best < 0:
                return
            solo = self.solos[best]
            m = self.next[best]
            assert m is not None
            self.emit(self.text, solo.pattern, *m.span(solo.group), self.out)
            self.resume = m.end(1)

    def at(self, pos: int, index: int, p: Pattern, start: int, end: int, resume: int) -> None:
        """The alternation without triggered patterns matches at ``pos`` with its pattern ``p`` (place ``index``),
        the PHI at ``[start, end)``, the match ending at ``resume``; call :meth:`flush` up to ``pos`` first."""
        if pos < self.resume:
            return
        self._advance()
        for j, m in enumerate(self.next):
            if m is not None and m.start(1) == pos and self.solos[j].index < index:
                solo = self.solos[j]
                self.emit(self.text, solo.pattern, *m.span(solo.group), self.out)
                self.resume = m.end(1)
                return
        self.emit(self.text, p, start, end, self.out)
        self.resume = resume


#: per tuple of recognizers: each one's scan without triggered patterns, the indices of those in the shared scan,
#: the shared scan, and the indices of the recognizers with triggered patterns
_Plan = tuple[tuple["RuleRecognizer | None", ...], tuple[int, ...], "_Union | None", tuple[int, ...]]


def _can_unite(r: RuleRecognizer) -> bool:
    """Word-start alternations that cannot match the empty string (so ``finditer`` never has to step over an
    empty match) and use no flags of their own."""
    rx = r._regex
    if not rx.pattern.startswith(_WORD_START) or rx.flags & ~re.UNICODE or "" in r._buckets:
        return False
    try:
        return widths(parse(rx.pattern, rx.flags))[0] > 0
    except Exception:  # pragma: no cover - the pattern compiled, so it parses
        return False


@memo(maxsize=16)
def _plan(key: tuple[RuleRecognizer, ...]) -> _Plan:
    """The shared scan of ``key``, compiled once (one per tuple of recognizers, i.e. per language and families
    in use; a bounded memo that :func:`clinanon.caches.clear` empties): the recognizers without their triggered
    patterns, whose matches are merged in per text (:class:`_Merge`)."""
    bases = tuple(r._parts()[0] for r in key)
    triggered = tuple(i for i, r in enumerate(key) if r._triggers)
    shared = tuple(i for i, (r, b) in enumerate(zip(key, bases, strict=True))
                   if b is not None and _can_unite(b) and r._parts()[1] is not None)
    union = _Union([bases[i] for i in shared]) if len(shared) > 1 else None  # type: ignore[misc]
    return bases, shared if union is not None else (), union, triggered


def analyze_many(recognizers: Sequence[RuleRecognizer], text: str) -> list[list[Span]]:
    """``[r.analyze(text) for r in recognizers]``, computed with one scan of ``text`` for the recognizers that
    can share it (word-start alternations: see :class:`RuleRecognizer`); the same spans in the same order.

    Each recognizer keeps its own left-to-right, non-overlapping semantics: at a position where the shared scan
    stops, a recognizer whose previous match ended at or before it runs its own alternation there. The shared
    scan leaves out the patterns with a trigger (compiled once, whatever the texts); those whose trigger a text
    has are searched alone in it and their matches merged in (:class:`_Merge`), the others cannot match in it.
    """
    key = tuple(recognizers)
    bases, shared, union, triggered = _plan(key)
    dropped: dict[int, frozenset[str]] = {}
    merging: dict[int, list[_Solo]] = {}  # recognizers of the shared scan with triggered patterns in this text
    for i in triggered:
        r = key[i]
        d = dropped[i] = r._dropped(text)
        if len(d) < len(r._triggers):
            present = r._present(d)
            if present is not None:  # (else the recognizer is scanned alone, see _plan)
                merging[i] = present
    found: dict[int, list[Span]] = {}
    if union is not None:
        resume = [0] * len(shared)  # where each recognizer's own scan would resume (its last match's end)
        outs = [found.setdefault(i, []) for i in shared]
        emits = [r._emit_span for r in union.recognizers]
        pieces = union.pieces
        merges: list[tuple[_Merge, tuple[tuple[int, tuple[tuple[int, Pattern, int], ...]], ...], dict[str, int]]] = []
        if merging and any(i in merging for i in shared):
            for k, i in enumerate(shared):
                if i in merging:
                    own = tuple((marker, groups) for kk, marker, groups in pieces if kk == k)
                    merges.append((_Merge(text, merging[i], emits[k], outs[k]), own, key[i]._index))
            ks = {k for k, i in enumerate(shared) if i in merging}
            plain = [pc for pc in pieces if pc[0] not in ks]
        else:
            plain = list(pieces)
        first = union.regex.match(text)  # a word start at position 0 (zero-width), then the others
        for m in itertools.chain((first,) if first is not None else (), union.scan.finditer(text)):
            pos = m.end()
            for k, marker, groups in plain:
                if m.start(marker) < 0 or pos < resume[k]:
                    continue
                for outer, p, g in groups:  # the pattern that matched: the first whose group is set
                    if m.start(outer) >= 0:
                        resume[k] = m.end(outer)
                        emits[k](text, p, *m.span(g), outs[k])
                        break
            for merge, own, index in merges:
                merge.flush(pos)
                if pos < merge.resume:
                    continue
                for marker, groups in own:
                    if m.start(marker) >= 0:
                        for outer, p, g in groups:
                            if m.start(outer) >= 0:
                                merge.at(pos, index[p.name], p, *m.span(g), m.end(outer))
                                break
                        break
        for merge, _own, _index in merges:
            merge.flush(len(text) + 1)
    result = []
    for i, r in enumerate(key):
        spans = found.get(i)
        if spans is None:
            d = dropped.get(i)
            if d is None:  # (no triggered pattern)
                sub = bases[i]
                spans = sub._scan(text) if sub is not None else []
            else:
                spans = r._scan_without(text, d)
        if r.postprocess is not None:
            spans = r.postprocess(text, spans)
        result.append(spans)
    return result
