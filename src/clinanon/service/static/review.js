// clinanon review page: keyboard and mouse review of one document. No dependencies, no network but this server.
(function () {
  "use strict";
  const root = document.getElementById("review");
  if (!root) return;
  const docId = root.dataset.doc;
  let current = null; // id of the selected span

  function flash(msg, error) {
    const el = document.getElementById("flash");
    el.textContent = msg;
    el.className = "show" + (error ? " error" : "");
    clearTimeout(flash.t);
    flash.t = setTimeout(() => { el.className = ""; }, 2500);
  }

  async function call(url, body) {
    const resp = await fetch(url, { method: body === undefined ? "GET" : "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const data = await resp.json().catch(() => ({}));
    if (!resp.ok) { flash(typeof data.detail === "string" ? data.detail : "error " + resp.status, true); throw new Error(); }
    return data;
  }

  function rows() { return Array.from(document.querySelectorAll("#spans tbody tr")); }
  function spanRow(id) { return document.querySelector('#spans tr[data-id="' + id + '"]'); }

  function select(id) {
    document.querySelectorAll(".current").forEach((el) => el.classList.remove("current"));
    current = id;
    if (id === null) return;
    const row = spanRow(id);
    const mark = document.getElementById("span-" + id);
    if (row) row.classList.add("current");
    if (mark) { mark.classList.add("current"); mark.scrollIntoView({ block: "nearest" }); }
    const label = row && row.querySelector(".label").textContent;
    if (label) document.getElementById("label-select").value = label;
  }

  function move(step) {
    const ids = rows().map((r) => Number(r.dataset.id));
    if (!ids.length) return;
    const i = ids.indexOf(current);
    select(ids[i < 0 ? (step > 0 ? 0 : ids.length - 1) : Math.min(ids.length - 1, Math.max(0, i + step))]);
  }

  async function refresh() {
    const resp = await fetch("/review/fragment?id=" + encodeURIComponent(docId), { credentials: "same-origin" });
    document.getElementById("fragment").innerHTML = await resp.text();
    if (current !== null) select(current);
    preview();
  }

  async function act(action, extra) {
    if (current === null && !["add", "reviewed", "reopen"].includes(action)) { flash("select a span first (j/k or click)", true); return; }
    const data = await call("/review/api/action", Object.assign({ doc: docId, action: action, span: current }, extra || {}));
    if (data.span) current = data.span.id;
    if (data.changed !== undefined) flash(data.changed + " mention(s) changed");
    await refresh();
    return data;
  }

  function textOffset(node, offset) {
    const text = document.getElementById("text");
    const range = document.createRange();
    range.setStart(text, 0);
    range.setEnd(node, offset);
    return range.toString().length;
  }

  async function addSelection() {
    const sel = window.getSelection();
    const text = document.getElementById("text");
    if (!sel || sel.isCollapsed || !text.contains(sel.anchorNode) || !text.contains(sel.focusNode)) {
      flash("select the missed text in the note first", true); return;
    }
    const r = sel.getRangeAt(0);
    let start = textOffset(r.startContainer, r.startOffset), end = textOffset(r.endContainer, r.endOffset);
    const raw = text.textContent;
    while (start < end && /\s/.test(raw[start])) start++;
    while (end > start && /\s/.test(raw[end - 1])) end--;
    if (start >= end) return;
    sel.removeAllRanges();
    await act("add", { start: start, end: end, label: document.getElementById("label-select").value, span: null });
  }

  async function nudge(which, delta) {
    const row = current === null ? null : document.getElementById("span-" + current);
    if (!row) { flash("select a kept span first", true); return; }
    let start = Number(row.dataset.start), end = Number(row.dataset.end);
    if (which === "start") start += delta; else end += delta;
    await act("adjust", { start: start, end: end });
  }

  async function preview() {
    const op = document.getElementById("operator-select").value;
    try {
      const data = await call("/review/api/preview?id=" + encodeURIComponent(docId) + "&operator=" + encodeURIComponent(op));
      document.getElementById("preview-text").textContent = data.text;
    } catch (e) { /* flashed */ }
  }

  async function save(format) {
    const data = await call("/review/api/save", { format: format });
    flash("saved " + data.path);
  }

  async function list(which) {
    if (current === null) { flash("select a span first", true); return; }
    const data = await call("/review/api/list", { list: which, doc: docId, span: current });
    flash("added to the " + which + "-list (" + data.changed + " mention(s) changed)");
    await refresh();
  }

  document.addEventListener("click", (ev) => {
    const mark = ev.target.closest && ev.target.closest("mark[data-id]");
    const row = ev.target.closest && ev.target.closest("#spans tr[data-id]");
    if (mark) select(Number(mark.dataset.id));
    else if (row) select(Number(row.dataset.id));
  });
  const on = (id, fn) => document.getElementById(id).addEventListener("click", fn);
  on("btn-add", addSelection);
  on("btn-accept", () => act("accept"));
  on("btn-reject", () => act("reject"));
  on("btn-apply-doc", () => act("apply-document"));
  on("btn-apply-corpus", () => act("apply-corpus"));
  on("btn-reviewed", () => act("reviewed"));
  on("btn-save", () => save("brat"));
  on("btn-save-jsonl", () => save("jsonl"));
  on("btn-export", async () => { const d = await call("/review/api/export", {}); flash("training data: " + d.path); });
  on("btn-allow", () => list("allow"));
  on("btn-deny", () => list("deny"));
  document.getElementById("label-select").addEventListener("change", (ev) => {
    if (current !== null && ev.isTrusted && document.activeElement === ev.target) act("relabel", { label: ev.target.value });
  });
  document.getElementById("operator-select").addEventListener("change", preview);

  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = ev.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") {
      if (ev.key === "Escape") ev.target.blur();
      return;
    }
    const keys = {
      j: () => move(1), ArrowDown: () => move(1), k: () => move(-1), ArrowUp: () => move(-1),
      a: () => act("accept"), x: () => act("reject"), r: () => act("reject"), u: () => act("reset"),
      l: () => document.getElementById("label-select").focus(),
      "[": () => nudge("start", -1), "]": () => nudge("start", 1), "{": () => nudge("end", -1), "}": () => nudge("end", 1),
      n: addSelection, d: () => act("apply-document"), c: () => act("apply-corpus"),
      m: () => act("reviewed"), s: () => save("brat"),
    };
    const fn = keys[ev.key];
    if (fn) { ev.preventDefault(); fn(); }
  });
  preview();
})();
