"""The audit report: the JSON an audit returns, written as JSON and as one self-contained HTML page.

The page embeds its plots as base64 PNG (matplotlib, Agg backend, imported only here): found@1 and found@5 per
version and method, the distributions of a/o-sim and avg-sim, residual PHI per category, and the summary sentence.
Any section whose data is absent (no corpus audit, no model audit, no probe) is left out. The page is built from
the JSON alone, so ``clinanon audit report audit.json`` can redo it later; the JSON holds no note text, and the
page shows only what the JSON holds (a model audit's string lists are not put on the page, only their counts).
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from clinanon.errors import ConfigError

__all__ = ["render_html", "write_report"]


def _plt() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("the HTML report needs matplotlib (pip install 'clinanon[audit]')") from None
    return plt


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    _plt().close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _found_plot(rows: list[Mapping[str, Any]]) -> str | None:
    methods = sorted({m for r in rows for m in r.get("reid", {})})
    if not methods:
        return None
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), sharey=True)
    width = 0.8 / len(methods)
    for ax, k in zip(axes, ("found@1", "found@5"), strict=True):
        for j, m in enumerate(methods):
            ys = [r.get("reid", {}).get(m, {}).get(k) or 0.0 for r in rows]
            ax.bar([i + j * width for i in range(len(rows))], ys, width, label=m)
        ax.set_xticks([i + width * (len(methods) - 1) / 2 for i in range(len(rows))])
        ax.set_xticklabels([r["name"] for r in rows], rotation=20)
        ax.set_ylim(0, 1.05)
        ax.set_title(k)
    axes[0].set_ylabel("share of sanitized notes")
    axes[1].legend(fontsize=8, loc="lower right")
    return _png(fig)


def _similarity_plot(rows: list[Mapping[str, Any]], method: str) -> str | None:
    hists = [(r["name"], r["reid"][method]["histogram"]) for r in rows
             if method in r.get("reid", {}) and r["reid"][method].get("histogram", {}).get("edges")]
    if not hists:
        return None
    plt = _plt()
    fig, axes = plt.subplots(1, len(hists), figsize=(2.6 * len(hists) + 1, 2.8), squeeze=False)
    for ax, (name, h) in zip(axes[0], hists, strict=True):
        edges = h["edges"]
        mids = [(a + b) / 2 for a, b in itertools.pairwise(edges)]
        w = (edges[1] - edges[0]) if len(edges) > 1 else 1.0
        ax.bar(mids, h["avg_sim"], w, alpha=0.6, label="avg-sim (others)")
        ax.bar(mids, h["ao_sim"], w, alpha=0.6, label="a/o-sim (own original)")
        ax.set_title(name, fontsize=9)
        ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel("notes")
    axes[0][-1].legend(fontsize=7)
    fig.suptitle(f"{method}: similarity of each sanitized note to its own original and to the others", fontsize=9,
                 y=1.04)
    return _png(fig)


def _residual_plot(rows: list[Mapping[str, Any]]) -> str | None:
    cats = sorted({c for r in rows for c in r.get("residual", {}).get("by_category", {})})
    if not cats:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(min(14.0, max(7.0, 0.5 * len(cats) + 2)), 3.8))
    width = 0.8 / len(rows)
    for j, r in enumerate(rows):
        by = r.get("residual", {}).get("by_category", {})
        ys = [(by.get(c, {}).get("folded", {}).get("rate") or 0.0) for c in cats]
        ax.bar([i + j * width for i in range(len(cats))], ys, width, label=r["name"])
    ax.set_xticks([i + width * (len(rows) - 1) / 2 for i in range(len(cats))])
    ax.set_xticklabels(cats, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("mentions still readable (folded)")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7)
    return _png(fig)


def _fmt(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.3f}"
    return html.escape(str(x))


def _table(header: list[str], body: list[list[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    rows = "".join("<tr>" + "".join(f"<td>{_fmt(c)}</td>" for c in row) + "</tr>" for row in body)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _corpus_section(corpus: Mapping[str, Any]) -> str:
    rows = list(corpus.get("rows", []))
    out = [f"<h2>Corpus: {int(corpus.get('documents', 0))} notes</h2>",
           f"<p class='summary'>{html.escape(str(corpus.get('summary', '')))}</p>"]
    methods = list(corpus.get("methods", []))
    header = ["version", "residual (exact)", "residual (folded)", "residual (partial)", "entity recall direct",
              "entity recall quasi", "token recall"]
    for m in methods:
        header += [f"{m} found@1", f"{m} MRR", f"{m} a/o-sim", f"{m} avg-sim"]
    body = []
    for r in rows:
        res = r.get("residual", {})
        ov = res.get("overall", {})
        er = res.get("entity_recall", {})
        line = [r["name"], ov.get("exact", {}).get("rate"), ov.get("folded", {}).get("rate"),
                ov.get("partial", {}).get("rate"), er.get("direct", {}).get("folded", {}).get("recall"),
                er.get("quasi", {}).get("folded", {}).get("recall"), res.get("token_recall", {}).get("recall")]
        for m in methods:
            x = r.get("reid", {}).get(m, {})
            line += [x.get("found@1"), x.get("mrr"), x.get("ao_sim"), x.get("avg_sim")]
        body.append(line)
    out.append(_table(header, body))
    for img, caption in ((_found_plot(rows), "found@1 / found@5 per version and method"),
                         (_residual_plot(rows), "residual PHI per category (share of gold mentions readable, "
                                                "case- and accent-folded)")):
        if img:
            out.append(f"<figure><img src='{img}' alt='{html.escape(caption)}'><figcaption>"
                       f"{html.escape(caption)}</figcaption></figure>")
    for m in methods:
        img = _similarity_plot(rows, m)
        if img:
            out.append(f"<figure><img src='{img}' alt='{m} similarity'></figure>")
    return "\n".join(out)


def _model_section(model: Mapping[str, Any]) -> str:
    out = [f"<h2>Model: {html.escape(str(model.get('kind', '')))}</h2>",
           f"<p class='summary'>{html.escape(str(model.get('summary', '')))}</p>"]
    body = [[src, cat, n] for src, cats in sorted(model.get("counts", {}).items()) for cat, n in sorted(cats.items())]
    if body:
        out.append(_table(["where", "category", "strings"], body))
    ref = model.get("reference")
    if ref:
        out.append(_table(["reference names", "held by the model", "share"],
                          [[ref.get("names"), ref.get("held"), ref.get("share")]]))
    return "\n".join(out)


def _probe_section(probe: Mapping[str, Any]) -> str:
    out = ["<h2>Fill-mask probe</h2>", f"<p class='summary'>{html.escape(str(probe.get('summary', '')))}</p>"]
    keys = ["sentences", "top_k", "predictions", "name_like", "name_like_share", "sentences_with_name",
            "best_name_rank_median", "original_names_predicted"]
    out.append(_table(keys, [[probe.get(k) for k in keys]]))
    return "\n".join(out)


_CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:13px;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}
th{background:#f3f3f3}td:first-child{text-align:left}.summary{font-size:1.1em;background:#f6f8fa;padding:.8em;
border-left:4px solid #0a66c2}figure{margin:1em 0}img{max-width:100%}"""


def render_html(report: Mapping[str, Any], title: str = "clinanon privacy audit") -> str:
    """The self-contained HTML page of an audit report (sections ``corpus``, ``model``, ``probe``)."""
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"]
    if report.get("summary"):
        parts.append(f"<p class='summary'><b>{html.escape(str(report['summary']))}</b></p>")
    if report.get("corpus"):
        parts.append(_corpus_section(report["corpus"]))
    if report.get("linkage"):
        lk = report["linkage"]
        parts.append("<h2>Linkage on quasi-identifiers</h2>")
        parts.append(f"<p class='summary'>{html.escape(str(lk.get('summary', '')))}</p>")
    if report.get("model"):
        parts.append(_model_section(report["model"]))
    if report.get("probe"):
        parts.append(_probe_section(report["probe"]))
    parts.append("<p style='color:#777;font-size:12px'>Generated by clinanon audit. No note text is shown.</p>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(report: Mapping[str, Any], json_path: str | Path | None = None,
                 html_path: str | Path | None = None) -> None:
    """Write the report as JSON and/or HTML (folders are created)."""
    if json_path is not None:
        p = Path(json_path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if html_path is not None:
        p = Path(html_path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(render_html(report), encoding="utf-8")
