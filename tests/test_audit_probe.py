"""The fill-mask probe on a tiny random masked LM built here (skipped without torch and transformers)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from clinanon.audit.lexicon import name_lists
from clinanon.audit.probe import fill_mask_probe, judge, lm_available, read_mask_sentences
from clinanon.errors import ConfigError

WORDS = ["de", "patiënt", "is", "in", "bed", "verzorgd", "vertelt", "dat", "Jan", "Pieter", "Parkinson", "Huis",
         "Zorvanek", "met", "."]
SENTENCES = ["<mask> is in bed verzorgd.", "Pieter vertelt dat <mask> in bed is.", "Geen masker hier."]


def test_judge_reasons() -> None:
    lists = name_lists(("nl",))
    j = judge("Jan", lists, frozenset({"jan"}))
    assert j["capitalised"] and j["in_name_list"] and j["name_like"] and j["original"]
    assert not judge("jan", lists)["name_like"]  # not capitalised
    assert not judge("Parkinson", lists)["name_like"]  # an eponym
    assert not judge("Huis", lists)["name_like"]  # a common word


def test_without_torch_the_probe_says_so(tmp_path: Path) -> None:
    ok, _why = lm_available()
    if ok:
        pytest.skip("torch and transformers are installed")
    with pytest.raises(ConfigError, match="torch"):
        fill_mask_probe(tmp_path, SENTENCES)


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ok, why = lm_available()
    if not ok:
        pytest.skip(why)
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    d = tmp_path_factory.mktemp("tiny-lm")
    vocab = d / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n", encoding="utf-8")
    tok = BertTokenizer(str(vocab), do_lower_case=False)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(tok), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64)
    BertForMaskedLM(cfg).save_pretrained(d)
    tok.save_pretrained(d)
    return d


def test_probe_on_a_tiny_random_lm(tiny_lm: Path, tmp_path: Path) -> None:
    k = len(WORDS)  # every non-special token: the judgement, not the random weights, decides the counts
    res = fill_mask_probe(tiny_lm, SENTENCES, top_k=k, langs=("nl",), originals=["Jan"])
    d = res.to_dict()
    assert d["sentences"] == 3 and d["skipped_sentences"] == 1
    assert d["predictions"] == 2 * k
    # name-like: "Jan" and "Pieter" (capitalised, in the Dutch name lists); not Parkinson, Huis or Zorvanek
    liked = {p.token for p in res.predictions if p.name_like}
    assert liked == {"Jan", "Pieter"}
    assert d["name_like"] == 4 and d["sentences_with_name"] == 2
    assert d["original_names_predicted"] == 2
    assert 1 <= d["best_name_rank_min"] <= k
    review = tmp_path / "review.csv"
    res.write_review(review, SENTENCES)
    rows = list(csv.DictReader(review.open(encoding="utf-8")))
    assert len(rows) == 2 * k and {r["prediction"] for r in rows} == set(WORDS)
    # top-1 only: one prediction per mask
    assert fill_mask_probe(tiny_lm, SENTENCES, top_k=1).to_dict()["predictions"] == 2


def test_published_test_set_reads(shared_data: Path) -> None:
    path = shared_data / "nl-mask-sentences" / "anon_testset_public.csv"
    if not path.is_file():
        pytest.skip("the Dutch mask sentences are not there")
    sents = read_mask_sentences(path)
    assert len(sents) == 100 and all("<mask>" in s for s in sents)


def test_probe_decodes_byte_level_pieces_before_judging(tmp_path: Path) -> None:
    """A byte-level BPE (RoBERTa's) writes " María" as ``ĠMarÃŃa``: judged undecoded, no accented name would
    ever be name-like."""
    ok, why = lm_available()
    if not ok:
        pytest.skip(why)
    import torch
    from transformers import PreTrainedTokenizerFast, RobertaConfig, RobertaForMaskedLM

    from test_audit_model import BPE_WORDS, byte_level_bpe

    d = byte_level_bpe(tmp_path / "lm", BPE_WORDS)
    tok = PreTrainedTokenizerFast(tokenizer_file=str(d / "tokenizer.json"), bos_token="<s>", eos_token="</s>",
                                  unk_token="<unk>", sep_token="</s>", cls_token="<s>", pad_token="<pad>",
                                  mask_token="<mask>")
    tok.save_pretrained(d)
    torch.manual_seed(0)
    cfg = RobertaConfig(vocab_size=len(tok), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=40, pad_token_id=1, bos_token_id=0,
                        eos_token_id=2)
    RobertaForMaskedLM(cfg).save_pretrained(d)
    k = len(tok) - 5  # every entry but the special tokens: the judgement, not the random weights, decides
    res = fill_mask_probe(d, ["Nombre: <mask>.", "Paciente <mask> García, casa."], top_k=k, langs=("es",),
                          originals=["María"])
    tokens = {p.token for p in res.predictions}
    assert "María" in tokens and "ĠMarÃŃa" not in tokens and "MarÃŃa" not in tokens
    liked = {p.token for p in res.predictions if p.name_like}
    assert {"María", "García", "Lucía"} <= liked
    assert "ana" in tokens and "ana" not in liked and "semana" not in liked
    assert res.to_dict()["original_names_predicted"] == 2  # "María", once per sentence
