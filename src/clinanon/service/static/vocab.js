// clinanon vocabulary review: keyboard review of the fill-mask probe's tokens. No dependencies, no network but
// this server.
(function () {
  "use strict";
  const root = document.getElementById("vocab");
  if (!root) return;
  let current = null; // id of the selected token
  let filter = "all";
  const LABEL = { name: "name: scrub", keep: "keep" };

  function flash(msg, error) {
    const el = document.getElementById("flash");
    el.textContent = msg;
    el.className = "show" + (error ? " error" : "");
    clearTimeout(flash.t);
    flash.t = setTimeout(() => { el.className = ""; }, 3000);
  }

  async function call(url, body) {
    const resp = await fetch(url, { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
    const data = await resp.json().catch(() => ({}));
    if (!resp.ok) { flash(typeof data.detail === "string" ? data.detail : "error " + resp.status, true); throw new Error(); }
    return data;
  }

  function row(id) { return document.querySelector('#tokens tbody tr[data-id="' + id + '"]'); }
  function visible() { return Array.from(document.querySelectorAll("#tokens tbody tr:not(.hidden)")); }

  function select(id) {
    document.querySelectorAll("#tokens tr.current").forEach((el) => el.classList.remove("current"));
    current = id;
    const r = id === null ? null : row(id);
    if (r) { r.classList.add("current"); r.scrollIntoView({ block: "nearest" }); }
  }

  function move(step) {
    const ids = visible().map((r) => Number(r.dataset.id));
    if (!ids.length) { select(null); return; }
    const i = ids.indexOf(current);
    select(ids[i < 0 ? (step > 0 ? 0 : ids.length - 1) : Math.min(ids.length - 1, Math.max(0, i + step))]);
  }

  function progress(p) {
    document.getElementById("progress").textContent =
      p.decided + " of " + p.tokens + " tokens decided · " + p.names + " names · " + p.kept + " kept";
  }

  function update(t) {
    const r = row(t.id);
    if (!r) return;
    r.dataset.decision = t.decision || "";
    r.classList.remove("dec-name", "dec-keep", "dec-none");
    r.classList.add("dec-" + (t.decision || "none"));
    r.querySelector(".decision").textContent = LABEL[t.decision] || "–";
  }

  function applyFilter(which) {
    filter = which;
    document.querySelectorAll("button.filter").forEach((b) => b.classList.toggle("active", b.dataset.filter === which));
    document.querySelectorAll("#tokens tbody tr").forEach((r) => {
      const show = which === "all" || (which === "name-like" && r.dataset.nameLike === "1")
        || (which === "undecided" && !r.dataset.decision);
      r.classList.toggle("hidden", !show);
    });
    const cur = current === null ? null : row(current);
    if (!cur || cur.classList.contains("hidden")) { current = null; move(1); }
  }

  async function decide(decision) {
    if (current === null) { flash("select a token first (j/k or click)", true); return; }
    const id = current;
    const data = await call("/review/vocab/api/decide", { token: id, decision: decision });
    update(data.token);
    progress(data.progress);
    if (current === id) move(1); // rows stay where they are until the filter is chosen again
  }

  async function undo() {
    const data = await call("/review/vocab/api/undo");
    update(data.token);
    progress(data.progress);
    const r = row(data.token.id);
    if (r) r.classList.remove("hidden");
    select(data.token.id);
    flash("undone: token " + data.token.id);
  }

  async function save() {
    const data = await call("/review/vocab/api/save");
    flash("saved " + data.path + (data.mode === "automatic"
      ? " (no decision yet: scrub-vocab will use the automatic judgement)"
      : " (" + data.names + " to scrub, " + data.undecided + " undecided: kept)"));
  }

  document.addEventListener("click", (ev) => {
    const r = ev.target.closest && ev.target.closest("#tokens tbody tr[data-id]");
    if (r) select(Number(r.dataset.id));
  });
  const on = (id, fn) => document.getElementById(id).addEventListener("click", fn);
  document.querySelectorAll("button.filter").forEach((b) => b.addEventListener("click", () => applyFilter(b.dataset.filter)));
  on("btn-accept", () => decide("name"));
  on("btn-reject", () => decide("keep"));
  on("btn-undo", undo);
  on("btn-save", save);

  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = ev.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") return;
    const keys = {
      j: () => move(1), ArrowDown: () => move(1), k: () => move(-1), ArrowUp: () => move(-1),
      a: () => decide("name"), r: () => decide("keep"), u: undo, s: save,
      1: () => applyFilter("undecided"), 2: () => applyFilter("name-like"), 3: () => applyFilter("all"),
    };
    const fn = keys[ev.key];
    if (fn) { ev.preventDefault(); Promise.resolve(fn()).catch(() => {}); }
  });
})();
