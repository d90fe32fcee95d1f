"""Token/annotation alignment on the first 50 MEDDOCAN train documents (skips when the corpus is absent)."""

from __future__ import annotations

from itertools import islice
from pathlib import Path

from clinanon.bio import alignment_report, decode_bio, encode_bio
from clinanon.document import Document
from clinanon.io import read
from clinanon.text import split_sentences, tokenize


def _first_docs(meddocan_dir: Path, n: int = 50) -> list[Document]:
    return list(islice(read(meddocan_dir / "train" / "brat", format="brat"), n))


def test_misaligned_ratio_on_meddocan_train(meddocan_dir: Path) -> None:
    docs = _first_docs(meddocan_dir)
    rep = alignment_report(docs, "es")
    assert rep.documents == 50 and rep.total > 1000
    assert rep.ratio <= 0.005, rep.by_shape()
    # the whole of train gives 3 of 11 333 (benchmarks/alignment.py); spaCy's default Spanish tokenizer ~8.7 %


def test_bio_round_trip_on_meddocan(meddocan_dir: Path) -> None:
    for doc in _first_docs(meddocan_dir, 20):
        tokens = tokenize(doc.text, "es")
        enc = encode_bio(tokens, doc.spans)
        assert not enc.overlapping
        decoded = {s.key for s in decode_bio(tokens, enc.tags)}
        aligned = {s.key for s in doc.spans if s not in enc.misaligned}
        assert aligned <= decoded and len(decoded) == len(doc.spans)


def test_few_gold_spans_cross_a_sentence_boundary(meddocan_dir: Path) -> None:
    total = crossing = 0
    for doc in _first_docs(meddocan_dir):
        sents = split_sentences(doc.text, "es")
        for s in doc.spans:
            total += 1
            crossing += not any(x.start <= s.start and s.end <= x.end for x in sents)
    # whole train: 8 of 11 333 (addresses such as "C/ X, 24. Residencia Y")
    assert crossing <= 0.005 * total
