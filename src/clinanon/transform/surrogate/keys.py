"""The secret key behind every surrogate choice, and the keyed (HMAC) randomness derived from it.

Key sources, in this order (:func:`load_key`):

1. an explicit key file (``--key-file``; written by :func:`write_key_file` / ``clinanon keygen`` with mode 0600;
   a file that the group or others can read is refused on POSIX systems),
2. the environment variable :data:`KEY_ENV` (``CLINANON_SURROGATE_KEY``), hex or base64,
3. only when asked for (``insecure_random_key``): a fresh random key, put into the process environment so that
   worker processes started later share it (it is lost when the run ends, so nothing can be reproduced).

Without any of them :class:`MissingKeyError` says how to provide one. A key never appears in a ``repr``, a log
line or an error message; :meth:`SurrogateKey.fingerprint` identifies a key without revealing it.

:class:`KeyedRandom` is the randomness every generator uses: a pure function of (key, scope, parts). Each item a
generator replaces costs **one** keyed digest (:meth:`KeyedRandom.stream`): keyed BLAKE2b-256 of the encoded
``(purpose, normalized original, ...)`` under the scope's stream key ``HMAC-SHA256(key, scope, "stream-key")``
(derived once per scope object). Every draw for that item (digits of an identifier, re-draws after a collision,
a shuffle) comes from a :class:`KeyedStream` read out of that digest: a mixed-radix reading of it, extended by
keyed BLAKE2b blocks (the digest as key, a block counter as message) when its bits run out. So every output
stays a pure function of key + scope + parts, is the same on any machine, worker and Python version (the stream
uses integer arithmetic only, never ``random``'s derived methods, whose algorithms may change between Python
versions), and a different key gives unrelated choices. :meth:`KeyedRandom.rng` (a ``random.Random`` fed by
HMAC in counter mode) is kept for callers that need the whole ``random.Random`` API; its derived methods
(``shuffle``, ``choice``...) follow the running Python's algorithms.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import random
import secrets
import stat
import struct
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from clinanon.errors import ConfigError

__all__ = [
    "KEY_ENV",
    "MIN_KEY_BYTES",
    "HmacRandom",
    "KeyedRandom",
    "KeyedStream",
    "MissingKeyError",
    "SurrogateKey",
    "generate_key",
    "load_key",
    "parse_key",
    "read_key_file",
    "write_key_file",
]

#: the environment variable that may hold the key (hex or base64)
KEY_ENV = "CLINANON_SURROGATE_KEY"
#: keys shorter than this are refused
MIN_KEY_BYTES = 16
_T = TypeVar("_T")
_LEN = struct.Struct(">I")
_BLOCK = 64  # SHA-256 block size (HMAC key padding)
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))
_ROOM_256 = 1 << 192  # a 256-bit block's headroom for draws with 64 spare bits (see KeyedStream)
_POW10 = tuple(10 ** i for i in range(40))
_DIGIT_CHARS = "0123456789"


class MissingKeyError(ConfigError):
    """No surrogate key was configured (and no insecure random key was allowed)."""


class SurrogateKey:
    """Secret key material. ``repr``/``str`` never show it; compare keys with :meth:`fingerprint`."""

    __slots__ = ("_bytes", "_states", "source")

    def __init__(self, material: bytes, source: str = "memory") -> None:
        if not isinstance(material, bytes | bytearray) or len(material) < MIN_KEY_BYTES:
            raise ConfigError(f"a surrogate key needs at least {MIN_KEY_BYTES} bytes of key material")
        self._bytes = bytes(material)
        self._states: tuple[Any, Any] | None = None
        #: where the key came from ("file", "env", "random", "memory"), for messages
        self.source = source

    def __repr__(self) -> str:
        return f"SurrogateKey(source={self.source!r}, fingerprint={self.fingerprint()!r})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SurrogateKey) and hmac.compare_digest(self._bytes, other._bytes)

    def __hash__(self) -> int:
        return hash(self.fingerprint())

    def __reduce__(self) -> tuple[object, ...]:  # picklable for worker processes (never written to disk by us)
        return (SurrogateKey, (self._bytes, self.source))

    @property
    def material(self) -> bytes:
        """The raw key bytes (for HMAC only; never print or log them)."""
        return self._bytes

    def hmac_states(self) -> tuple[Any, Any]:
        """The inner and outer SHA-256 states of HMAC-SHA256 with this key (computed once; copy before use)."""
        if self._states is None:
            self._states = _key_states(self._bytes)
        return self._states

    def fingerprint(self) -> str:
        """12 hex characters of an HMAC of a constant: identifies a key, reveals nothing about it."""
        return hmac.new(self._bytes, b"clinanon-key-fingerprint", hashlib.sha256).hexdigest()[:12]


def generate_key(nbytes: int = 32) -> str:
    """A new random key, as hex text (``2 * nbytes`` characters)."""
    if nbytes < MIN_KEY_BYTES:
        raise ConfigError(f"a surrogate key needs at least {MIN_KEY_BYTES} bytes")
    return secrets.token_hex(nbytes)


def parse_key(text: str, *, source: str = "memory") -> SurrogateKey:
    """A key from its text form: hex (even length, ``0-9a-f``) or standard / URL-safe base64.

    Raises :class:`ConfigError` (naming ``source``, never the text) when it is neither or too short.
    """
    s = "".join(text.split())
    raw: bytes | None = None
    if s and len(s) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in s):
        raw = bytes.fromhex(s)
    else:
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                raw = decode(s + "=" * (-len(s) % 4))
                break
            except (binascii.Error, ValueError):
                continue
    if raw is None:
        raise ConfigError(f"surrogate key from {source}: expected hex or base64 text")
    if len(raw) < MIN_KEY_BYTES:
        raise ConfigError(f"surrogate key from {source}: {len(raw)} bytes, at least {MIN_KEY_BYTES} needed "
                          "(make one with 'clinanon keygen')")
    return SurrogateKey(raw, source)


def write_key_file(path: str | Path, *, overwrite: bool = False, nbytes: int = 32) -> Path:
    """Create ``path`` holding a new random key (hex + newline), readable by its owner only (mode 0600).

    Refuses to replace an existing file unless ``overwrite``. Returns the path; the key itself is not returned.
    """
    p = Path(path)
    if p.exists() and not overwrite:
        raise ConfigError(f"{p}: key file already exists; pass overwrite=True to replace it")
    if p.exists():
        p.unlink()
    p.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, (generate_key(nbytes) + "\n").encode("ascii"))
    finally:
        os.close(fd)
    if os.name == "posix":
        os.chmod(p, 0o600)
    return p


def read_key_file(path: str | Path) -> SurrogateKey:
    """The key in ``path``. On POSIX, a key file that the group or others may read is refused."""
    p = Path(path)
    try:
        st = p.stat()
    except OSError as e:
        raise ConfigError(f"{p}: cannot read key file ({e.strerror or type(e).__name__})") from None
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"{p}: key file is not a regular file")
    if os.name == "posix" and st.st_mode & 0o077:
        raise ConfigError(f"{p}: key file is readable by group or others (mode {stat.S_IMODE(st.st_mode):04o}); "
                          f"run 'chmod 600 {p}'")
    try:
        text = p.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        raise ConfigError(f"{p}: cannot read key file (expected hex or base64 text)") from None
    return parse_key(text.strip(), source=f"key file {p}")


def load_key(
    key_file: str | Path | None = None,
    *,
    env_var: str = KEY_ENV,
    insecure_random: bool = False,
) -> SurrogateKey:
    """The surrogate key: from ``key_file``, else the environment variable ``env_var``, else (only when
    ``insecure_random``) a new random key that is also stored in ``os.environ[env_var]`` so worker processes
    started afterwards use the same one.

    Raises :class:`MissingKeyError` when there is no key, :class:`ConfigError` when a key is malformed.
    """
    if key_file is not None:
        return read_key_file(key_file)
    value = os.environ.get(env_var)
    if value:
        key = parse_key(value, source=f"environment variable {env_var}")
        return SurrogateKey(key.material, "env")
    if insecure_random:
        text = generate_key()
        os.environ[env_var] = text
        warnings.warn(
            "surrogates use a random key that is not saved: the mapping cannot be reproduced in a later run",
            stacklevel=2,
        )
        return SurrogateKey(bytes.fromhex(text), "random")
    raise MissingKeyError(
        f"the surrogate operator needs a secret key: set the environment variable {env_var} (hex or base64), "
        "or pass a key file made with 'clinanon keygen' (--key-file / key_file), or allow a throw-away key with "
        "--insecure-random-key (insecure_random_key = true)"
    )


# --- keyed randomness ------------------------------------------------------------------------------------------

def _encode(parts: Sequence[str | int | bytes]) -> bytes:
    """Unambiguous encoding: each part length-prefixed (so ("ab", "c") != ("a", "bc"))."""
    out: list[bytes] = []
    for p in parts:
        b = p.encode("utf-8") if type(p) is str else (p if isinstance(p, bytes) else str(p).encode("utf-8"))
        out.append(_LEN.pack(len(b)))
        out.append(b)
    return b"".join(out)


def _encode_stream(parts: Sequence[str | int | bytes]) -> bytes:
    """Unambiguous, fast encoding of stream parts: ``b"s"`` + the parts joined with NUL when no str/int part
    holds a NUL (the usual case), else ``b"l"`` + :func:`_encode` (length-prefixed)."""
    if bytes not in map(type, parts):
        joined = "\0".join(map(str, parts))
        if joined.count("\0") == len(parts) - 1:
            return b"s" + joined.encode("utf-8")
    return b"l" + _encode(parts)


class HmacRandom(random.Random):
    """A ``random.Random`` whose bits come from HMAC-SHA256(seed, counter): deterministic everywhere.

    ``randrange``/``choice``/``shuffle`` go through :meth:`getrandbits` (CPython uses it when a subclass
    defines it), so they too depend only on the seed.
    """

    def __init__(self, seed: bytes) -> None:
        self._seed_bytes = bytes(seed)
        self._mac = hmac.new(self._seed_bytes, digestmod=hashlib.sha256)
        self._counter = 0
        self._buf = b""
        super().__init__(0)

    def seed(self, a: object = None, version: int = 2) -> None:
        self._counter = 0
        self._buf = b""

    def _take(self, n: int) -> bytes:
        while len(self._buf) < n:
            mac = self._mac.copy()
            mac.update(self._counter.to_bytes(8, "big"))
            self._buf += mac.digest()
            self._counter += 1
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k == 0:
            return 0
        n = (k + 7) // 8
        return int.from_bytes(self._take(n), "big") >> (n * 8 - k)

    def random(self) -> float:
        return self.getrandbits(53) / 9007199254740992.0

    def getstate(self) -> tuple[object, ...]:
        return (self._seed_bytes, self._counter, self._buf)

    def setstate(self, state: tuple[object, ...]) -> None:  # type: ignore[override]
        self._seed_bytes, self._counter, self._buf = state  # type: ignore[assignment]
        self._mac = hmac.new(self._seed_bytes, digestmod=hashlib.sha256)


class KeyedStream:
    """Draws for one item, read from a keyed 256-bit seed (a digest of :meth:`KeyedRandom.stream`).

    The seed is read as one big integer in mixed radix: ``below(n)`` takes ``value % n`` and keeps
    ``value // n``; when fewer than ``64`` bits of headroom are left for the next draw, the next block
    (keyed BLAKE2b-256 of the block counter under the seed) replaces it (each draw's bias stays below ``2**-64``).
    The headroom is kept as ``room = (2**bits >> 64) // (product of the radices read from the block)``: the block
    has room for a draw below ``n`` exactly when ``room >= n`` (the same test as ``2**bits // product >= n << 64``,
    one integer division per draw instead of two). Integer arithmetic only,
    so the draws are the same on every machine and Python version. Not for secrets: for keyed, reproducible
    choices (the seed is secret because the key is).
    """

    __slots__ = ("_block", "_room", "_seed", "_value")

    def __init__(self, seed: bytes) -> None:
        n = len(seed)
        if not 16 <= n <= 64:
            raise ValueError("a stream seed needs 16 to 64 bytes")
        self._seed = seed if type(seed) is bytes else bytes(seed)
        self._block = 0
        self._value = int.from_bytes(seed, "big")
        self._room = _ROOM_256 if n == 32 else 1 << (8 * n - 64)

    def __repr__(self) -> str:
        return f"KeyedStream(block={self._block})"

    def _refill(self) -> None:
        self._block += 1
        block = hashlib.blake2b(self._block.to_bytes(8, "big"), key=self._seed, digest_size=32).digest()
        self._value = int.from_bytes(block, "big")
        self._room = _ROOM_256

    def below(self, n: int) -> int:
        """A keyed integer in ``range(n)`` (``1 <= n < 2**128``)."""
        if not 0 < n < 1 << 128:
            raise ValueError("below needs 0 < n < 2**128")
        room = self._room
        if room < n:  # fewer than 64 spare bits for this draw: next block
            self._refill()
            room = _ROOM_256
        self._room = room // n
        self._value, r = divmod(self._value, n)
        return r

    def randrange(self, start: int, stop: int | None = None) -> int:
        """A keyed integer in ``range(start, stop)`` (or ``range(start)``), like ``random.randrange`` (step 1)."""
        if stop is None:
            start, stop = 0, start
        return start + self.below(stop - start)

    def decimal(self, n: int, first_nonzero: bool = False) -> str:
        """``n`` keyed decimal digits: exactly the digits (and the stream state) of ``str(1 + below(9))`` (when
        ``first_nonzero``) or ``str(below(10))`` for the first digit, then ``str(below(10))`` for each next one.

        When the current block has room for all the draws, they are read in one division: ``x = value % (9 or
        10) * 10**(n-1)`` holds the first digit in ``x % (9 or 10)`` and the next ones, first drawn lowest, in
        ``x // (9 or 10)``."""
        if n <= 0:
            return ""
        lead = 9 if first_nonzero else 10
        total = lead * _POW10[n - 1] if n <= len(_POW10) else lead * 10 ** (n - 1)
        room = self._room
        if room >= total:  # no refill between the draws: one reading of the mixed-radix number
            self._room = room // total
            self._value, x = divmod(self._value, total)
            head = _DIGIT_CHARS[x % lead + (lead == 9)]
            return head + str(x // lead).zfill(n - 1)[::-1] if n > 1 else head
        below = self.below
        head = _DIGIT_CHARS[1 + below(9)] if first_nonzero else _DIGIT_CHARS[below(10)]
        return head + "".join([_DIGIT_CHARS[below(10)] for _ in range(n - 1)])

    def choice(self, seq: Sequence[_T]) -> _T:
        """A keyed element of a non-empty sequence."""
        return seq[self.below(len(seq))]

    def unit(self) -> float:
        """A number in ``[0, 1)`` (53 bits)."""
        return self.below(1 << 53) / 9007199254740992.0

    def shuffle(self, items: list[Any]) -> None:
        """Shuffle ``items`` in place (Fisher-Yates with keyed draws)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def sample(self, items: Sequence[_T], k: int) -> list[_T]:
        """The first ``k`` elements of a keyed random permutation of ``items`` (partial Fisher-Yates: ``k``
        draws); ``sample(items, len(items))`` is a whole keyed permutation."""
        pool = list(items)
        n = len(pool)
        k = min(k, n)
        for i in range(k):
            j = i + self.below(n - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]


_new_stream = object.__new__


def _key_states(material: bytes) -> tuple[Any, Any]:
    """The inner and outer SHA-256 states of HMAC-SHA256 keyed with ``material`` (callers copy them)."""
    key = hashlib.sha256(material).digest() if len(material) > _BLOCK else material
    key = key.ljust(_BLOCK, b"\0")
    return hashlib.sha256(key.translate(_IPAD)), hashlib.sha256(key.translate(_OPAD))


class KeyedRandom:
    """Keyed choices for one consistency scope: every method is a pure function of (key, scope, parts).

    ``scope`` is a string such as ``"patient:123"``, ``"document:d1"`` or ``"corpus"``. :meth:`digest` is
    ``HMAC-SHA256(key, enc(scope) + enc(parts))`` (``enc``: each part length-prefixed); the HMAC's inner and outer
    hash states are prepared once per instance, so a digest costs two SHA-256 blocks. Generators take **one**
    digest per item (:meth:`stream`) and draw everything else for it from that stream.
    """

    __slots__ = ("_inner", "_key", "_outer", "_stream_hasher", "scope")

    def __init__(self, key: SurrogateKey, scope: str) -> None:
        self._key = key
        self.scope = scope
        inner, outer = key.hmac_states()
        self._outer = outer
        self._inner = inner.copy()
        self._inner.update(_encode((scope,)))
        self._stream_hasher: Any = None  # keyed BLAKE2b states for stream() (raw, b"s"-prefixed), made on first use

    def __repr__(self) -> str:
        return f"KeyedRandom(scope=<{len(self.scope)} chars>, key={self._key.fingerprint()})"

    def digest(self, *parts: str | int | bytes) -> bytes:
        """HMAC-SHA256(key, scope, parts)."""
        inner = self._inner.copy()
        inner.update(_encode(parts))
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()  # type: ignore[no-any-return]

    def integer(self, *parts: str | int | bytes) -> int:
        """A 256-bit integer derived from the parts."""
        return int.from_bytes(self.digest(*parts), "big")

    def index(self, n: int, *parts: str | int | bytes) -> int:
        """An index in ``range(n)`` (bias below 2**-200)."""
        if n <= 0:
            raise ValueError("index needs n > 0")
        return int.from_bytes(self.digest(*parts), "big") % n  # self.integer(*parts) % n

    def choice(self, seq: Sequence[_T], *parts: str | int | bytes) -> _T:
        """A keyed element of a non-empty sequence."""
        return seq[self.index(len(seq), *parts)]

    def unit(self, *parts: str | int | bytes) -> float:
        """A number in ``[0, 1)``."""
        return (int.from_bytes(self.digest(*parts), "big") >> 203) / float(1 << 53)

    def stream(self, *parts: str | int | bytes) -> KeyedStream:
        """All the draws for one item: a :class:`KeyedStream` seeded with BLAKE2b-256 of the encoded parts, keyed
        with the scope's stream key ``digest("stream-key")``."""
        hashers = self._stream_hasher
        if hashers is None:
            hasher = hashlib.blake2b(key=self.digest("stream-key"), digest_size=32)
            short = hasher.copy()
            short.update(b"s")
            hashers = self._stream_hasher = (hasher, short)
        # the keyed states, prepared once per scope (no key block per item); the encoding of _encode_stream,
        # inlined for the common case (str parts, no NUL in them: the state that already holds the b"s" prefix)
        try:
            joined = "\0".join(parts)  # type: ignore[arg-type]
        except TypeError:  # an int or bytes part
            h = hashers[0].copy()
            h.update(_encode_stream(parts))
        else:
            if joined.count("\0") == len(parts) - 1:
                h = hashers[1].copy()
                h.update(joined.encode("utf-8"))
            else:
                h = hashers[0].copy()
                h.update(b"l" + _encode(parts))
        seed = h.digest()
        st = _new_stream(KeyedStream)  # KeyedStream(seed) without its argument checks (one per generated item)
        st._seed = seed
        st._block = 0
        st._value = int.from_bytes(seed, "big")
        st._room = _ROOM_256
        return st

    def rng(self, *parts: str | int | bytes) -> HmacRandom:
        """A ``random.Random`` seeded with the keyed digest of the parts (slower than :meth:`stream`)."""
        return HmacRandom(self.digest("rng", *parts))

    def signed_offset(self, lo: int, hi: int, *parts: str | int | bytes) -> int:
        """A non-zero integer with ``lo <= |x| <= hi`` (``1 <= lo <= hi``), sign and size keyed."""
        if lo < 1 or hi < lo:
            raise ValueError("offset range needs 1 <= lo <= hi")
        v = self.integer("offset", *parts)
        size = lo + v % (hi - lo + 1)
        return size if (v >> 128) & 1 else -size
