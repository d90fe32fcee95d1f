"""Keys, keyed randomness and scopes of the surrogate operator."""

from __future__ import annotations

import base64
import os
import pickle
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinanon.document import Document
from clinanon.errors import ConfigError
from clinanon.transform.surrogate import (
    KEY_ENV,
    KeyedRandom,
    MissingKeyError,
    SurrogateKey,
    generate_key,
    load_key,
    parse_key,
    resolve_scope,
    write_key_file,
)
from clinanon.transform.surrogate.cli_support import keygen
from clinanon.transform.surrogate.keys import HmacRandom, read_key_file

HEX = "0f" * 32


def test_parse_hex_and_base64_give_the_same_key() -> None:
    raw = bytes(range(32))
    assert parse_key(raw.hex()) == parse_key(base64.b64encode(raw).decode())
    assert parse_key(raw.hex()) == parse_key(base64.urlsafe_b64encode(raw).decode().rstrip("="))


def test_short_or_garbage_keys_are_refused_without_echoing_them() -> None:
    with pytest.raises(ConfigError, match="at least 16"):
        parse_key("abcd")
    with pytest.raises(ConfigError) as e:
        parse_key("not a key at all!!")
    assert "not a key" not in str(e.value)


def test_repr_never_shows_the_key() -> None:
    k = parse_key(HEX)
    assert HEX not in repr(k) and HEX[:8] not in repr(k)
    assert len(k.fingerprint()) == 12
    assert k.fingerprint() == parse_key(HEX).fingerprint() != parse_key("1e" * 32).fingerprint()
    assert pickle.loads(pickle.dumps(k)) == k


def test_load_key_order_and_missing_key(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.raises(MissingKeyError, match="CLINANON_SURROGATE_KEY"):
        load_key()
    monkeypatch.setenv(KEY_ENV, HEX)
    assert load_key() == parse_key(HEX)
    f = write_key_file(tmp_path / "k")
    assert load_key(f) == read_key_file(f) != parse_key(HEX)  # the file wins over the environment


def test_insecure_random_key_is_shared_through_the_environment(monkeypatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.warns(UserWarning, match="random key"):
        k1 = load_key(insecure_random=True)
    assert os.environ[KEY_ENV]  # a worker process started now reads the same key
    assert load_key(insecure_random=True) == k1


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_key_file_mode_0600_and_open_files_refused(tmp_path) -> None:
    p = write_key_file(tmp_path / "sub" / "clinanon.key")
    assert stat.S_IMODE(p.stat().st_mode) == 0o600
    with pytest.raises(ConfigError, match="already exists"):
        write_key_file(p)
    os.chmod(p, 0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        read_key_file(p)


def test_keygen_message_has_fingerprint_not_key(tmp_path) -> None:
    p = tmp_path / "k.key"
    msg = keygen(p)
    key_text = p.read_text().strip()
    assert key_text not in msg and read_key_file(p).fingerprint() in msg
    assert len(key_text) == 64 and len(generate_key()) == 64


def test_hmac_random_is_a_pure_function_of_the_seed() -> None:
    a, b = HmacRandom(b"seed"), HmacRandom(b"seed")
    assert [a.randrange(1000) for _ in range(50)] == [b.randrange(1000) for _ in range(50)]
    assert HmacRandom(b"seed").random() != HmacRandom(b"other").random()
    x = HmacRandom(b"s")
    xs = list(range(20))
    x.shuffle(xs)
    y = HmacRandom(b"s")
    ys = list(range(20))
    y.shuffle(ys)
    assert xs == ys and sorted(xs) == list(range(20))


def test_known_answer_keeps_outputs_stable_across_versions() -> None:
    # a fixed key, scope and parts must always give the same digest (machines, workers, releases)
    r = KeyedRandom(SurrogateKey(bytes(range(32))), "patient:42")
    assert r.digest("surname", "garcia").hex()[:16] == KeyedRandom(SurrogateKey(bytes(range(32))),
                                                                    "patient:42").digest("surname", "garcia").hex()[:16]
    import hashlib
    import hmac

    expected = hmac.new(bytes(range(32)), b"\x00\x00\x00\x0apatient:42" + b"\x00\x00\x00\x07surname"
                        + b"\x00\x00\x00\x06garcia", hashlib.sha256).digest()
    assert r.digest("surname", "garcia") == expected


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=20), st.integers(1, 5), st.integers(0, 5))
def test_signed_offset_never_zero_and_in_range(part: str, lo: int, extra: int) -> None:
    r = KeyedRandom(parse_key(HEX), "corpus")
    v = r.signed_offset(lo, lo + extra, part)
    assert v != 0 and lo <= abs(v) <= lo + extra
    assert v == KeyedRandom(parse_key(HEX), "corpus").signed_offset(lo, lo + extra, part)


def test_scopes() -> None:
    d = Document("d1", "x", meta={"patient_id": "P7"})
    assert resolve_scope(d, "patient").label == "patient:P7"
    assert resolve_scope(d, "document").label == "document:d1"
    assert resolve_scope(d, "corpus").label == "corpus"
    nopid = Document("d2", "x")
    fb = resolve_scope(nopid, "patient")
    assert fb.fallback and fb.label == "document:d2"
    with pytest.raises(ConfigError, match="d2"):
        resolve_scope(nopid, "patient", missing_patient="error")
    assert "P7" not in repr(resolve_scope(d, "patient"))
