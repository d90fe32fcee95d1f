"""Privacy-preserving representations (issue 22): de-identification on the representation and a fresh adversary.

``nice -n 10 python benchmarks/privrep.py --corpus meddocan [--train-docs K --dev-docs K ...] [--device cpu]``
writes ``benchmarks/results/privrep_<corpus>.json``; ``python benchmarks/privrep.py --merge`` joins the corpus
files into ``benchmarks/results/privrep.json`` and draws ``benchmarks/results/privrep_adversary.png`` (a fresh
adversary's held-out accuracy per epoch, per configuration).

Per corpus (MEDDOCAN train -> dev; the English PhysioNet dev notes split by patient, every fourth patient held
out): fastText vectors (gensim, ``clinanon.detect.neural.embeddings``) on the train + dev texts (no labels), then

* ``plain``: the BiLSTM-CRF on the same vectors and sentences (no privacy); ``pseudonymized``: the same tagger
  trained on N-neighbour pseudonymized notes (N = ``--pseudo-n``), scored on the real dev notes;
* the representation model: phase 1 (de-identification only) once, shared by every configuration; its
  de-identification scores and a fresh adversary on it (``none``); then for each strategy in ``--strategies``
  and N in ``--n``: the privacy training, de-identification token-binary P/R/F1 on dev (scored by
  ``clinanon.evaluate``), and a fresh adversary trained ``--attack-epochs`` epochs on the frozen representation
  (train pairs), its accuracy on dev pairs after every epoch (0.5 = nothing recovered).

Schedule options (issue 22, second pass): ``--deid-loss token``, ``--adv-steps``, ``--rep-steps``, ``--noise-lr``;
third pass: ``--noise-floor`` (a minimum scale of the output noise), ``--adv-reset K`` (fresh adversaries every K
phase-3 epochs) (see ``PrivRepConfig``); fifth pass: ``--pretrain-loss sentence`` (phase 1 and the head epochs on
the per-sentence loss, as the plain tagger); sixth pass: ``--phase3-clip C`` (the gradient-norm clip of phase 3's
representation step; default the model's clip, 5); fourth pass: ``--head-epochs K`` (the head trained on the frozen
representation after phase 3; ``deid`` is then its score, ``deid_phase3`` the score before) and
``--baselines plain --baselines-only`` (e.g. the plain tagger for another ``--seed``; ``--merge`` compares every run
with the plain tagger of its seed, notes and oversampling with the most epochs); seventh pass: ``--phi-oversample
K`` (every training chunk that holds PHI repeated K times, for the plain tagger and the representation model alike;
the English notes, where one chunk in ten holds PHI); ``--variant LABEL`` keeps runs that differ only in those
apart in the merged table and the plot; ``--phase1-cache`` saves / reuses the phase-1 model under ``--work``. The
runs in the README, e.g.::

    nice -n 10 python benchmarks/privrep.py --corpus meddocan --train-docs 120 --dev-docs 50 --pretrain-epochs 6 \
        --adv-warm-epochs 1 --epochs 8 --attack-epochs 30 --skip-baselines --n 100 --strategies three_phase \
        --deid-loss token --adv-steps 3 --noise-lr 0.05 --phase1-cache --variant "token adv3 noise-lr 8ep attack30" \
        --out benchmarks/results/privrep_meddocan_noise8a30.json

Epochs are fixed (no selection on dev). ``reduced`` in the JSON is true when notes or epochs are fewer than the
full configuration (all notes; 8 / 2 / 8 / 8 / 30 epochs: phase 1, phase 2, phase 3, baselines, attack).
Wall and CPU seconds are recorded per step. ``--device cuda`` runs the same on a GPU.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results"
FULL = {"pretrain_epochs": 8, "adv_warm_epochs": 2, "epochs": 8, "baseline_epochs": 8, "attack_epochs": 30}


def phase1_cache_name(corpus: str, train_docs: int, dev_docs: int, vector_dim: int, pretrain_epochs: int, dim: int,
                      seed: int, loss: str, phi_oversample: int = 1) -> str:
    """The folder (under ``--work``) of a cached phase-1 model: keyed by everything phase 1 depends on, its loss,
    and ``tags2`` (the repaired chunk tags of the fifth pass; older caches are not reused); ``_phiK`` when PHI
    sentences are oversampled K times (seventh pass). ``benchmarks/privrep_scales.py`` reads the same name."""
    name = f"phase1_{corpus}_{train_docs}_{dev_docs}_{vector_dim}_{pretrain_epochs}_{dim}_{seed}_{loss}_tags2"
    return name + (f"_phi{phi_oversample}" if phi_oversample > 1 else "")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class Clock:
    def __init__(self) -> None:
        self.steps: dict[str, dict[str, float]] = {}

    def run(self, name: str, fn: Any) -> Any:
        w, c = time.perf_counter(), _cpu()
        out = fn()
        self.steps[name] = {"wall_s": round(time.perf_counter() - w, 1), "cpu_s": round(_cpu() - c, 1)}
        print(f"[{time.strftime('%H:%M:%S')}] {name}: {self.steps[name]}", flush=True)
        return out


def load(corpus: str) -> tuple[list[Any], list[Any], str]:
    from clinanon import io as cio

    if corpus == "meddocan":
        tr = sorted(cio.read(DATA / "meddocan" / "train" / "brat", "brat"), key=lambda d: d.id)
        dv = sorted(cio.read(DATA / "meddocan" / "dev" / "brat", "brat"), key=lambda d: d.id)
        return tr, dv, "es"
    docs = sorted(cio.read(DATA / "physionet-deid-dev" / "brat", "brat"), key=lambda d: d.id)
    patients = sorted({d.id.split("_")[0] for d in docs}, key=lambda p: int(p[1:]) if p[1:].isdigit() else 0)
    held = set(patients[3::4])
    return ([d for d in docs if d.id.split("_")[0] not in held], [d for d in docs if d.id.split("_")[0] in held],
            "en")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=["meddocan", "physionet"], default="meddocan")
    ap.add_argument("--merge", action="store_true", help="join the corpus files into privrep.json + the plot")
    ap.add_argument("--train-docs", type=int, default=None, help="first K training notes (default: all)")
    ap.add_argument("--dev-docs", type=int, default=None, help="first K dev notes (default: all)")
    ap.add_argument("--n", type=int, nargs="+", default=[1, 10, 100, 500])
    ap.add_argument("--strategies", nargs="+", default=["three_phase", "dann"])
    ap.add_argument("--dann-n", type=int, nargs="*", default=None, help="N values for DANN (default: --n)")
    ap.add_argument("--pseudo-n", type=int, default=100)
    ap.add_argument("--pretrain-epochs", type=int, default=FULL["pretrain_epochs"])
    ap.add_argument("--adv-warm-epochs", type=int, default=FULL["adv_warm_epochs"])
    ap.add_argument("--epochs", type=int, default=FULL["epochs"])
    ap.add_argument("--baseline-epochs", type=int, default=FULL["baseline_epochs"])
    ap.add_argument("--attack-epochs", type=int, default=FULL["attack_epochs"])
    ap.add_argument("--lam", default="1",
                    help="weight of the adversarial term; 'tokens': the mean sentence length of the training notes "
                         "(the same balance as a de-identification loss taken per token instead of per sentence)")
    ap.add_argument("--deid-loss", choices=["sentence", "token"], default="sentence",
                    help="de-identification loss averaged per sentence (summed over tokens) or per token")
    ap.add_argument("--pretrain-loss", choices=["sentence", "token"], default=None,
                    help="de-identification loss of phase 1 and the head epochs (default: --deid-loss); 'sentence' "
                         "trains them as the plain tagger is trained (fifth pass)")
    ap.add_argument("--phase3-clip", type=float, default=None,
                    help="phase 3: gradient-norm clip of the representation's step (default: the model's clip, 5); "
                         "0.11 ≈ 5/45 sizes it for the per-token loss (sixth pass)")
    ap.add_argument("--adv-steps", type=int, default=1, help="phase 3: adversary steps per round")
    ap.add_argument("--rep-steps", type=int, default=1, help="phase 3: representation steps per round")
    ap.add_argument("--noise-lr", type=float, default=None, help="learning rate of the noise scales in phase 3")
    ap.add_argument("--noise-floor", type=float, default=0.0,
                    help="minimum scale of the output noise N_out in phase 3 and after (0: none)")
    ap.add_argument("--adv-reset", type=int, default=0,
                    help="phase 3: re-initialise (and warm) the adversaries every K epochs (0: never)")
    ap.add_argument("--head-group", default=None,
                    help="regex on the note ids naming the group held out together when the head is chosen "
                         "(PhysioNet: '^(p\\d+)_', a patient's notes; default: each note alone)")
    ap.add_argument("--head-epochs", type=int, default=0,
                    help="after phase 3: the head trained up to K more epochs on the frozen representation (noise "
                         "drawn once, as at export), early stopping on 10%% of the training notes (0: none)")
    ap.add_argument("--variant", default="", help="a label kept with the runs (runs differing only in options "
                                                  "other than strategy / N / lambda are told apart by it)")
    ap.add_argument("--phase1-cache", action="store_true",
                    help="keep the phase-1 model under --work and reuse it (same notes, epochs, seed, loss)")
    ap.add_argument("--phi-oversample", type=int, default=1,
                    help="repeat every training chunk that holds PHI K times, for the plain tagger, phase 1, phase 3 "
                         "and the head alike (sparse PHI: the English notes; the fresh adversary is trained on the "
                         "chunks as they are) (seventh pass; default 1: none)")
    ap.add_argument("--epoch-f1", action="store_true",
                    help="score the representation's de-identification on the dev notes after every phase-3 / DANN "
                         "epoch (dev_token_f1 in the history: the curve that says how many epochs are enough; "
                         "its time is counted in the strategy's step)")
    ap.add_argument("--dim", type=int, default=50)
    ap.add_argument("--vector-dim", type=int, default=100)
    ap.add_argument("--vector-epochs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu", help="cpu (default), cuda, auto")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    ap.add_argument("--work", type=Path, default=Path("/tmp/clinanon-privrep"), help="vectors cache")
    ap.add_argument("--out", type=Path, default=None,
                    help="default results/privrep_<corpus>.json; privrep_<corpus>_<part>.json files are merged "
                         "into it by --merge (runs of one corpus split over processes)")
    ap.add_argument("--skip-baselines", action="store_true", help="only the representation model's runs")
    ap.add_argument("--baselines", nargs="+", choices=["plain", "pseudonymized"], default=["plain", "pseudonymized"],
                    help="which baselines to train (unless --skip-baselines)")
    ap.add_argument("--baselines-only", action="store_true",
                    help="train the baselines and stop (e.g. the plain tagger with another --seed)")
    args = ap.parse_args()
    if args.merge:
        merge()
        return

    import torch

    from clinanon.detect.neural.embeddings import train_vectors
    from clinanon.privrep.baselines import PlainTagger
    from clinanon.privrep.data import WordSpace, encode_corpus, oversample_phi, phi_sentences
    from clinanon.privrep.model import PrivRepConfig, PrivRepModel, score_tags

    torch.set_num_threads(args.threads)
    clock = Clock()
    w0, c0 = time.perf_counter(), _cpu()
    train_docs, dev_docs, lang = load(args.corpus)
    n_train_all, n_dev_all = len(train_docs), len(dev_docs)
    train_docs = train_docs[:args.train_docs] if args.train_docs else train_docs
    dev_docs = dev_docs[:args.dev_docs] if args.dev_docs else dev_docs
    args.work.mkdir(parents=True, exist_ok=True)
    vec = args.work / f"{args.corpus}_{len(train_docs)}_{len(dev_docs)}_{args.vector_dim}.vec"
    if not vec.exists():
        clock.run("vectors", lambda: train_vectors([d.text for d in train_docs + dev_docs], lang, vec,
                                                   dim=args.vector_dim, epochs=args.vector_epochs, seed=args.seed))
    space = WordSpace.from_file(vec)
    train = encode_corpus(train_docs, space, lang=lang)
    dev = encode_corpus(dev_docs, space, lang=lang, tags=train.tags)
    fit = oversample_phi(train, args.phi_oversample)  # what every model is trained on (the attack: `train`)
    lam = round(train.tokens / len(train.sentences), 1) if args.lam == "tokens" else float(args.lam)
    res: dict[str, Any] = {
        "benchmark": "privrep", "corpus": args.corpus, "lang": lang, "python": sys.version.split()[0],
        "torch": torch.__version__, "machine": platform.machine(), "device": args.device, "threads": args.threads,
        "train_documents": len(train_docs), "dev_documents": len(dev_docs),
        "train_documents_available": n_train_all, "dev_documents_available": n_dev_all,
        "train_sentences": len(train.sentences), "train_tokens": train.tokens,
        "train_phi_sentences": len(phi_sentences(train, space)), "dev_sentences": len(dev.sentences),
        "dev_phi_sentences": len(phi_sentences(dev, space)), "vectors": {"method": "fasttext", "dim": space.dim,
                                                                           "words": len(space) - 2},
        "settings": {k: getattr(args, k) for k in ("n", "strategies", "dann_n", "pseudo_n", "pretrain_epochs",
                                                   "adv_warm_epochs", "epochs", "baseline_epochs", "attack_epochs",
                                                   "dim", "seed", "deid_loss", "adv_steps", "rep_steps",
                                                   "noise_lr", "noise_floor", "adv_reset", "head_epochs",
                                                   "pretrain_loss", "phase3_clip", "phi_oversample", "variant")},
        "lam": lam,
        # fifth pass: chunks that open inside an entity get B- tags (clinanon.privrep.data.repair_chunk_tags)
        "tags_repaired": True,
        "phi_oversample": args.phi_oversample, "fit_sentences": len(fit.sentences),
    }
    res["reduced"] = bool(len(train_docs) < n_train_all or len(dev_docs) < n_dev_all
                          or any(getattr(args, k) < v for k, v in FULL.items()))
    res["full_configuration"] = {"documents": "all train / all dev", **FULL}

    def save() -> None:
        res["timing"] = {"steps": clock.steps, "total_wall_s": round(time.perf_counter() - w0, 1),
                         "total_cpu_s": round(_cpu() - c0, 1)}
        out = args.out or RESULTS / f"privrep_{args.corpus}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")

    current: dict[str, Any] = {}  # the model in phase 3, for --epoch-f1

    def progress(info: dict[str, Any]) -> None:  # per epoch: losses, accuracies, noise scales (no text)
        if args.epoch_f1 and "model" in current and str(info.get("phase", "")).split(":")[0] in (
                "three_phase", "dann") and "l_deid" in info:
            # the dev F1 of the representation after this epoch (predict draws its noise from its own seeded
            # generator and every epoch starts with .train(): the training itself is unchanged)
            info["dev_token_f1"] = score_tags(dev, current["model"].predict(dev), lang=lang)["token_binary"]["f1"]
        print(json.dumps(info), flush=True)

    # baselines
    wanted = [] if args.skip_baselines else args.baselines
    for name, n_pseudo in [(b, None if b == "plain" else args.pseudo_n) for b in wanted]:
        tagger = PlainTagger(space, train.tags, hidden=64, seed=args.seed, device=args.device)
        clock.run(f"baseline_{name}", lambda t=tagger, n=n_pseudo: t.fit(fit, args.baseline_epochs,
                                                                          n_pseudonymize=n, dev=dev, lang=lang,
                                                                          callback=progress))
        res.setdefault("baselines", {})[name] = {
            "n_neighbors": n_pseudo, "deid": tagger.history[-1]["dev"],
            "per_epoch": [{"epoch": h["epoch"], "loss": h["loss"],
                           "token_binary_f1": h["dev"]["token_binary"]["f1"]} for h in tagger.history]}
        save()
    if args.baselines_only:
        save()
        print(json.dumps({k: v["deid"]["token_binary"]["f1"] for k, v in res.get("baselines", {}).items()}))
        return

    # phase 1, shared
    cfg = PrivRepConfig(strategy="none", dim=args.dim, pretrain_epochs=args.pretrain_epochs,
                        adv_warm_epochs=args.adv_warm_epochs, epochs=args.epochs, seed=args.seed,
                        device=args.device, n_neighbors=max(args.n), deid_loss=args.deid_loss,
                        pretrain_loss=args.pretrain_loss)
    # keyed by everything phase 1 depends on: its loss (pretrain_loss, else deid_loss) and "tags2", the training
    # tags with chunks that open inside an entity repaired (fifth pass): caches made before either are not reused
    cache = args.work / phase1_cache_name(args.corpus, len(train_docs), len(dev_docs), args.vector_dim,
                                          args.pretrain_epochs, args.dim, args.seed,
                                          args.pretrain_loss or args.deid_loss, args.phi_oversample)
    if args.phase1_cache and (cache / "meta.json").exists():
        base = PrivRepModel.load(cache, device=args.device)
        base.config = cfg
        res["phase1_cached"] = True
    else:
        base = PrivRepModel(space, train.tags, cfg)
        clock.run("phase1", lambda: base.pretrain(fit))
        if args.phase1_cache:
            base.save(cache)
    runs: list[dict[str, Any]] = []
    res["runs"] = runs
    attack_n = 100 if 100 in args.n else args.n[0]
    res["phase1_deid"] = score_tags(dev, base.predict(dev), lang=lang)  # phase 1 alone, for every run
    none = {"strategy": "none", "n_neighbors": attack_n, "deid": res["phase1_deid"],
            "history": list(base.history)}
    if not args.skip_baselines:
        none["attack"] = clock.run("attack_none", lambda: base.attack(train, dev, epochs=args.attack_epochs,
                                                                      n_neighbors=attack_n))
        runs.append(none)
        save()
    for strategy in args.strategies:
        ns = args.dann_n if strategy == "dann" and args.dann_n is not None else args.n
        for n in ns:
            m = base.copy(strategy=strategy, n_neighbors=n, lam=lam, adv_steps=args.adv_steps,
                          rep_steps=args.rep_steps, noise_lr=args.noise_lr, noise_floor=args.noise_floor,
                          adv_reset=args.adv_reset, head_epochs=args.head_epochs, phase3_clip=args.phase3_clip,
                          head_group=args.head_group)
            m.history = []
            current["model"] = m
            clock.run(f"{strategy}_N{n}", lambda m=m: m.train_private(fit, callback=progress))
            current.clear()
            run = {"strategy": strategy, "n_neighbors": n, "lam": lam, "variant": args.variant, "seed": args.seed,
                   "deid_loss": args.deid_loss, "adv_steps": args.adv_steps, "rep_steps": args.rep_steps,
                   "noise_lr": args.noise_lr, "noise_floor": args.noise_floor, "adv_reset": args.adv_reset,
                   "head_epochs": args.head_epochs, "pretrain_loss": args.pretrain_loss,
                   "phase3_clip": args.phase3_clip, "pretrain_epochs": args.pretrain_epochs,
                   "deid": score_tags(dev, m.predict(dev), lang=lang),
                   "history": m.history}
            if args.head_epochs:  # the head on the frozen representation; `deid` is then the head's score
                rep_id = m.model_id()
                run["deid_phase3"] = run["deid"]
                run["head"] = clock.run(f"head_{strategy}_N{n}", lambda m=m: m.train_head(fit, callback=progress))
                run["head"]["representation_unchanged"] = m.model_id() == rep_id
                run["deid"] = score_tags(dev, m.predict(dev), lang=lang)
            run["attack"] = clock.run(f"attack_{strategy}_N{n}",
                                      lambda m=m: m.attack(train, dev, epochs=args.attack_epochs,
                                                           callback=progress))
            runs.append(run)
            save()
    save()
    print(json.dumps({r["strategy"] + f"_N{r['n_neighbors']}": (r["deid"]["token_binary"]["f1"],
                                                                 r["attack"][-1]["dev_accuracy"]) for r in runs}))


def _timings(parts: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for r in parts.values():
        out.append(r.get("timing") or {})
        out.extend(p.get("timing") or {} for p in r.get("parts", []))
    return out


def _baseline_runs(part: dict[str, Any], file: str) -> list[dict[str, Any]]:
    """The baselines of one result file, with their seed and epochs."""
    settings = part.get("settings", {})
    return [{"name": name, "file": file, "seed": settings.get("seed", 0), "epochs": len(b.get("per_epoch", [])),
             "tags_repaired": bool(part.get("tags_repaired")), "phi_oversample": part.get("phi_oversample", 1),
             **_data_key(part), **b} for name, b in part.get("baselines", {}).items()]


def _data_key(part: dict[str, Any]) -> dict[str, Any]:
    """The notes a result file was trained and scored on (seventh pass: the full and the reduced MEDDOCAN runs
    live side by side, and a run is compared only with a plain tagger on the same notes)."""
    return {"train_documents": part.get("train_documents"), "dev_documents": part.get("dev_documents")}


def _ref_key(run: dict[str, Any]) -> tuple[Any, ...]:
    return run["seed"], run.get("train_documents"), run.get("dev_documents"), run.get("phi_oversample", 1)


def _key(run: dict[str, Any]) -> tuple[Any, ...]:
    return run["strategy"], run["n_neighbors"], run.get("lam", 1.0), run.get("variant", "")


def merge() -> None:
    parts = {}
    for corpus in ("meddocan", "physionet"):
        p = RESULTS / f"privrep_{corpus}.json"
        if not p.exists():
            continue
        parts[corpus] = main_part = json.loads(p.read_text(encoding="utf-8"))
        main_part["baseline_runs"] = _baseline_runs(main_part, p.name)
        for run in main_part.get("runs", []):
            run.setdefault("seed", main_part.get("settings", {}).get("seed", 0))
            run.update({k: run.get(k, v) for k, v in _data_key(main_part).items()})
            run.setdefault("phi_oversample", main_part.get("phi_oversample", 1))
        for extra in sorted(RESULTS.glob(f"privrep_{corpus}_*.json")):  # runs of the same corpus, other processes
            part = json.loads(extra.read_text(encoding="utf-8"))
            done = {_key(r) for r in main_part["runs"]}
            for run in part.get("runs", []):
                run.setdefault("seed", part.get("settings", {}).get("seed", 0))
                run.update({k: run.get(k, v) for k, v in _data_key(part).items()})
                run.setdefault("phi_oversample", part.get("phi_oversample", 1))
            main_part["runs"].extend(r for r in part.get("runs", []) if _key(r) not in done)
            main_part["baseline_runs"].extend(_baseline_runs(part, extra.name))
            main_part.setdefault("parts", []).append({"file": extra.name, "timing": part.get("timing")})
    table = []
    for corpus, r in parts.items():
        # the reference of every run: the plain tagger of the same seed with the most epochs measured (its curve
        # flattest), not the 6-epoch one of the first pass (still climbing); at equal epochs, one trained on the
        # repaired chunk tags of the fifth pass
        # (and, seventh pass, on the same notes: seed, train / dev documents, PHI oversampling)
        plain: dict[tuple[Any, ...], dict[str, Any]] = {}
        for b in r["baseline_runs"]:
            table.append({"corpus": corpus, "model": f"baseline:{b['name']}", "n": b["n_neighbors"],
                          "seed": b["seed"], "epochs": b["epochs"], "file": b["file"],
                          "train_documents": b["train_documents"], "dev_documents": b["dev_documents"],
                          "phi_oversample": b["phi_oversample"],
                          "token_binary": b["deid"]["token_binary"], "adversary_final": None,
                          "adversary_max": None})
            best = plain.get(_ref_key(b), {})
            if b["name"] == "plain" and (b["epochs"], b["tags_repaired"]) >= (best.get("epochs", -1),
                                                                             best.get("tags_repaired", False)):
                plain[_ref_key(b)] = b
        for run in r.get("runs", []):
            acc = [a["dev_accuracy"] for a in run["attack"]]
            f1 = run["deid"]["token_binary"]["f1"]
            ref = plain.get(_ref_key(run))
            ref_f1 = ref["deid"]["token_binary"]["f1"] if ref else None
            table.append({"corpus": corpus, "model": run["strategy"], "n": run["n_neighbors"],
                          "lam": run.get("lam", 1.0), "variant": run.get("variant", ""), "seed": run["seed"],
                          "train_documents": run.get("train_documents"), "dev_documents": run.get("dev_documents"),
                          "phi_oversample": run.get("phi_oversample", 1),
                          "head_epochs": run.get("head_epochs", 0), "token_binary": run["deid"]["token_binary"],
                          "f1_phase3": run.get("deid_phase3", run["deid"])["token_binary"]["f1"],
                          "plain_reference": ({"seed": ref["seed"], "epochs": ref["epochs"], "f1": ref_f1,
                                               "file": ref["file"]}
                                              if ref else None),
                          "f1_minus_plain_points": round(100 * (f1 - ref_f1), 2) if ref_f1 is not None else None,
                          "adversary_final": acc[-1] if acc else None, "adversary_max": max(acc) if acc else None})
    out = {"benchmark": "privrep", "reduced": any(r.get("reduced") for r in parts.values()),
           "command": "nice -n 10 python benchmarks/privrep.py --corpus C [...]; python benchmarks/privrep.py --merge",
           "table": table, "corpora": parts,
           "total_wall_s": round(sum(t.get("total_wall_s", 0) for t in _timings(parts)), 1),
           "total_cpu_s": round(sum(t.get("total_cpu_s", 0) for t in _timings(parts)), 1)}
    (RESULTS / "privrep.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, max(1, len(parts)), figsize=(10 * max(1, len(parts)), 6.5), squeeze=False)
    for ax, (corpus, r) in zip(axes[0], parts.items(), strict=False):
        drawn: set[tuple[float, ...]] = set()
        for run in r.get("runs", []):
            acc = [a["dev_accuracy"] for a in run["attack"]]
            if tuple(acc) in drawn:  # e.g. a --head-epochs rerun: the same frozen representation, the same curve
                continue
            drawn.add(tuple(acc))
            lab = f"{run['strategy']} N={run['n_neighbors']}" + (f" λ={run['lam']}" if run.get("lam", 1) != 1 else "")
            lab += f" [{run['variant']}]" if run.get("variant") else ""
            every = run.get("train_documents") == r.get("train_documents_available") and \
                run.get("dev_documents") == r.get("dev_documents_available")
            lab += f" ({run.get('train_documents')} → {run.get('dev_documents')} notes)" if every else ""
            floor = bool(run.get("noise_floor"))  # third-pass runs solid, earlier ones thin and dashed
            ax.plot(range(1, len(acc) + 1), acc, marker="." if floor else None, label=lab,
                    linestyle="-" if floor else "--",  # seventh pass: runs on all the notes thick
                    linewidth=3.0 if every else 1.6 if floor else 0.8)
        ax.axhline(0.5, color="grey", linestyle=":")
        ax.axhline(0.6, color="red", linestyle=":", linewidth=0.8)
        ax.set_title(f"{corpus}: fresh adversary on the frozen representation"
                     + (" (thick: all the notes; others reduced)" if r.get("reduced") else "")
                     + ("\nruns with --head-epochs: the curve of the same run without it (identical, not redrawn)"
                        if any(run.get("head_epochs") for run in r.get("runs", [])) else ""), fontsize=9)
        ax.set_xlabel("adversary epoch")
        ax.set_ylabel("held-out accuracy")
        ax.set_ylim(0.4, 1.0)
        ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)
    fig.tight_layout()
    fig.savefig(RESULTS / "privrep_adversary.png", dpi=110, bbox_inches="tight")  # the whole legend


if __name__ == "__main__":
    main()
