// Streamer overlay: everything from /api/events, redrawn on each state message.
"use strict";

const stage = document.getElementById("stage");
const onlyGame = stage.dataset.game;
const el = (id) => document.getElementById(id);
window.OVERLAY_SEQ = -1;

function show(id, html) {
  const e = el(id);
  if (!e) return;
  if (html === null) { e.classList.add("hidden"); return; }
  e.innerHTML = html;
  e.classList.remove("hidden");
}

function render(view) {
  if (onlyGame && view.game !== onlyGame) { ["score", "lastcall", "review", "summary"].forEach((id) => show(id, null)); return; }
  if (!view.current) return;
  const p = TR.panels[view.game];
  if (p) show("score", p.score(view).map((x) => `<span class="lab">${TR.esc(x.label)}</span><span class="val">${TR.esc(x.value)}</span>`).join(""));
  else show("score", TR.esc(view.summary));
  const review = view.pending.length > 0;
  show("review", review ? "UNDER REVIEW" : null);
  const c = view.last_call;
  if (c) {
    const v = c.verdict;
    const ans = v.answer === "too_close" ? "too close to call" : v.answer;
    show("lastcall", `${TR.esc(v.question)} <span class="ans">${TR.esc(ans)}</span>
      <div class="m">margin ${TR.fmtMm(v.margin_mm)} · ${TR.esc(c.status)}</div>`);
  } else show("lastcall", null);
  show("summary", view.outcome ? `Game over: ${TR.esc(view.outcome.winners.join(", ") || "no winner")}` : TR.esc(view.summary));
  window.OVERLAY_SEQ = view.seq;
  window.OVERLAY_SENT_T = view.sent_t;
}

TR.events({ state: render });
