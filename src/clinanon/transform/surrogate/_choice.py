"""The keyed choice that the place, street, hospital and organisation surrogates share: an element of a pool that
is not the original and reproduces no original of the document (:func:`pick`), cached per document.
"""

from __future__ import annotations

from collections.abc import Sequence

from clinanon.transform.surrogate._text import _normalize_unicode
from clinanon.transform.surrogate.scope import GenContext

__all__ = ["MAX_ATTEMPTS", "pick"]

#: how many keyed draws a generator tries before it takes the last one
MAX_ATTEMPTS = 40


def pick(ctx: GenContext, pool: Sequence[str], purpose: str, key: str, avoid: frozenset[str] = frozenset()) -> str:
    """A keyed element of ``pool`` whose normalized form is neither ``key`` nor in ``avoid`` and that reproduces no
    original of the document (re-drawn from the item's keyed stream, at most ``MAX_ATTEMPTS`` times)."""
    if not pool:
        return ""
    memo = ctx.memo
    memo_key = ("pick", purpose, key)  # each call site passes the same pool and avoid set for a key
    choice = memo.get(memo_key)
    if choice is not None:
        return choice  # type: ignore[no-any-return]
    below = ctx.rand.stream(purpose, key).below
    n = len(pool)
    forms = (ctx._tables or ctx._doc_tables()).leak_forms
    choice = pool[0]
    for _ in range(MAX_ATTEMPTS):
        choice = pool[below(n)]  # stream.choice(pool)
        ck = " ".join(choice.lower().split()) if choice.isascii() else _normalize_unicode(choice)  # normalize
        # not ctx.leaks(choice): for one word (the usual case), whether it is not an original itself
        if ck != key and ck not in avoid and ((ck not in forms) if ck.isalnum() else not ctx.leaks(choice)):
            break
    memo[memo_key] = choice
    return choice
