"""The embedding-neighbour operator on small matrices built here (text and binary word2vec formats)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from clinanon.document import Document, Span
from clinanon.errors import ConfigError, InputError
from clinanon.transform import Anonymizer
from clinanon.transform.base import get_operator
from clinanon.transform.neighbors import NeighborOperator, load_embeddings

# three clusters: cities, first names, numbers; directions chosen so cosine neighbours are obvious
CLUSTERS = {
    "madrid": (1.0, 0.0, 0.0), "sevilla": (0.95, 0.05, 0.0), "bilbao": (0.9, 0.1, 0.0), "valencia": (0.85, 0.12, 0.0),
    "juan": (0.0, 1.0, 0.0), "pedro": (0.05, 0.95, 0.0), "luis": (0.0, 0.9, 0.1), "carlos": (0.0, 0.85, 0.15),
    "uno": (0.0, 0.0, 1.0), "dos": (0.0, 0.1, 0.95),
}


def write_text(path: Path, header: bool = True) -> Path:
    lines = [f"{len(CLUSTERS)} 3"] if header else []
    lines += [f"{w} " + " ".join(f"{x:.4f}" for x in v) for w, v in CLUSTERS.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_binary(path: Path) -> Path:
    out = bytearray(f"{len(CLUSTERS)} 3\n".encode())
    for w, v in CLUSTERS.items():
        out += w.encode() + b" " + np.asarray(v, dtype="<f4").tobytes() + b"\n"
    path.write_bytes(bytes(out))
    return path


@pytest.fixture()
def vec(tmp_path: Path) -> Path:
    return write_text(tmp_path / "vectors.vec")


def test_formats_agree(tmp_path: Path) -> None:
    a = load_embeddings(write_text(tmp_path / "a.vec"))
    b = load_embeddings(write_text(tmp_path / "b.txt", header=False))
    c = load_embeddings(write_binary(tmp_path / "c.bin"))
    assert a.words == b.words == c.words == list(CLUSTERS)
    assert np.allclose(a.vectors, c.vectors, atol=1e-4) and np.allclose(a.vectors, b.vectors)
    assert np.allclose(np.linalg.norm(a.vectors, axis=1), 1.0)


def test_nearest_neighbours_by_cosine(vec: Path) -> None:
    idx = load_embeddings(vec)
    near = [idx.words[i] for i in idx.neighbors(idx.lookup("madrid"), 3)]
    assert near == ["sevilla", "bilbao", "valencia"]
    assert [idx.words[i] for i in idx.neighbors(idx.lookup("juan"), 2)] == ["pedro", "luis"]


def test_operator_replaces_with_a_neighbour_in_the_same_case(vec: Path) -> None:
    op = NeighborOperator(embeddings=vec, n=2, seed=7)
    doc = Document("d", "Juan vive en MADRID con juan.", (Span(0, 4, "NAME"), Span(13, 19, "LOCATION.CITY"),
                                                           Span(24, 28, "NAME")))
    out = Anonymizer({"*": op}).anonymize(doc).text
    first, city, last = out.split()[0], out.split()[3], out.split()[5].rstrip(".")
    assert first in ("Pedro", "Luis") and city in ("SEVILLA", "BILBAO")
    assert last == first.lower()  # document-level consistency, case kept
    assert out == Anonymizer({"*": NeighborOperator(embeddings=vec, n=2, seed=7)}).anonymize(doc).text


def test_without_seed_still_consistent_in_a_document(vec: Path) -> None:
    op = NeighborOperator(embeddings=vec, n=3)
    doc = Document("d", "madrid madrid madrid", tuple(Span(i * 7, i * 7 + 6, "LOCATION.CITY") for i in range(3)))
    words = Anonymizer({"*": op}).anonymize(doc).text.split()
    assert len(set(words)) == 1 and words[0] in ("sevilla", "bilbao", "valencia")


def test_oov_policies(vec: Path) -> None:
    doc = Document("d", "Zacarías", (Span(0, 8, "NAME"),))
    assert Anonymizer({"*": NeighborOperator(embeddings=vec, oov="keep")}).anonymize(doc).text == "Zacarías"
    assert Anonymizer({"*": NeighborOperator(embeddings=vec, oov="mask")}).anonymize(doc).text == "XXXX"
    rnd = Anonymizer({"*": NeighborOperator(embeddings=vec, seed=1)}).anonymize(doc).text
    assert rnd.lower() in CLUSTERS


def test_registry_and_errors(tmp_path: Path, vec: Path) -> None:
    assert get_operator("neighbors", embeddings=str(vec), n=1).name == "neighbors"
    bad = tmp_path / "bad.vec"
    bad.write_text("2 3\nmadrid 1 0 0\nsevilla 1 x 0\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 3"):
        load_embeddings(bad)
    with pytest.raises(InputError, match="cannot read"):
        load_embeddings(tmp_path / "missing.vec")
    with pytest.raises(ConfigError, match="'n'"):
        NeighborOperator(embeddings=vec, n=0)
