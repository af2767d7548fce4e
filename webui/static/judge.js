// Judge review: pending calls with their frames (a scrubber over the recorded evidence), the
// measurement drawn on the board in mat mm, and a decision with a reason, recorded with who and when.
"use strict";

let SHOWN = "";
const $ = (id) => document.getElementById(id);

function item(call, board) {
  const v = call.verdict;
  const frames = v.evidence.frames;
  const scrub = frames.length > 1
    ? `<input type="range" min="0" max="${frames.length - 1}" value="0" class="scrub"> <span class="muted fno">frame 1 of ${frames.length}</span>` : "";
  return `<div class="card judge-item" data-call="${call.id}">
    <div class="frames">${frames.length ? `<img class="frame" src="/api/evidence/${TR.esc(frames[0])}" alt="evidence frame">` : '<p class="muted">no evidence frames</p>'}
      ${scrub}<svg class="board judge-board"></svg></div>
    <div>${TR.callCard(call, { buttons: false })}
      <form class="decide">
        <label>who <input name="who" required placeholder="your name" value="${TR.esc(localStorage.getItem("judge-name") || "")}"></label><br>
        <label>reason <textarea name="reason" rows="2" cols="34" placeholder="${v.answer === "too_close" ? "needed for a too-close call" : "optional"}"></textarea></label><br>
        <button type="submit" name="decision" value="confirm" class="confirm">Confirm ${v.proposed_action ? "(apply proposal)" : ""}</button>
        <button type="submit" name="decision" value="override" class="override">Override ${v.alternative_action ? "(apply alternative)" : ""}</button>
        <button type="submit" name="decision" value="dismiss">Dismiss</button>
      </form></div></div>`;
}

async function render(view) {
  if (!view.current) return;
  const pending = view.pending;
  const key = pending.map((c) => c.id).join(",");
  $("qcount").textContent = `(${pending.length} pending)`;
  if (key !== SHOWN) {
    SHOWN = key;
    const board = (await TR.loadBoard(view.board).catch(() => null));
    $("queue").innerHTML = pending.length ? pending.map((c) => item(c, board)).join("") : '<p class="muted">Nothing to review.</p>';
    if (board) {
      document.querySelectorAll(".judge-item").forEach((el) => {
        const call = pending.find((c) => c.id === el.dataset.call);
        const svg = el.querySelector("svg.judge-board");
        TR.drawBoard(svg, board.board);
        TR.drawPieces(svg, TR.piecesFromState(view));
        TR.drawShapes(svg, call.verdict.evidence.shapes);
      });
    }
  }
  $("audit").innerHTML = view.calls.filter((c) => c.decision).reverse().map((c) =>
    `<tr><td>${new Date(c.decision.t * 1000).toLocaleTimeString()}</td><td>${TR.esc(c.verdict.question)}</td>
     <td>${TR.esc(c.verdict.answer)}</td><td>${TR.fmtMm(c.verdict.margin_mm)}</td><td class="st">${TR.esc(c.status)}</td>
     <td>${TR.esc(c.decision.who)}</td><td>${TR.esc(c.decision.reason)}</td></tr>`).join("");
}

$("queue").addEventListener("input", (ev) => {
  if (!ev.target.classList.contains("scrub")) return;
  const item = ev.target.closest(".judge-item");
  const i = Number(ev.target.value);
  TR.api("GET", `/api/calls/${item.dataset.call}`).then((c) => {
    item.querySelector("img.frame").src = `/api/evidence/${c.verdict.evidence.frames[i]}`;
    item.querySelector(".fno").textContent = `frame ${i + 1} of ${c.verdict.evidence.frames.length}`;
  }).catch(() => {});
});

$("queue").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const form = ev.target;
  const decision = (ev.submitter && ev.submitter.value) || "confirm";
  const who = form.who.value.trim();
  localStorage.setItem("judge-name", who);
  const id = form.closest(".judge-item").dataset.call;
  TR.decide(id, decision, who, form.reason.value.trim()).then((r) => TR.toast(`call ${r.status}`)).catch(() => {});
});

TR.events({ state: render });
