"use strict";
const tbody = document.getElementById("matches");

async function load() {
  const data = await TR.api("GET", "/api/matches");
  if (!data.matches.length) { tbody.innerHTML = '<tr><td colspan="6" class="muted">No matches yet.</td></tr>'; return; }
  tbody.innerHTML = data.matches.map((m) => `<tr data-id="${m.id}">
    <td>${TR.esc(m.title)}${m.id === data.current ? ' <b class="muted">(on the table)</b>' : ""}</td>
    <td>${TR.esc(m.game)}</td><td>${TR.esc(m.board)}</td><td>${new Date(m.created * 1000).toLocaleString()}</td><td>${m.rows}</td>
    <td><button class="resume">Resume</button> <a href="/api/matches/${m.id}/export.zip"><button>Export</button></a>
      <button class="danger delete">Delete</button></td></tr>`).join("");
}

tbody.addEventListener("click", async (ev) => {
  const row = ev.target.closest("tr[data-id]");
  if (!row) return;
  const id = row.dataset.id;
  if (ev.target.classList.contains("resume")) {
    await TR.api("POST", `/api/matches/${id}/resume`).catch(() => null);
    location.href = "/";
  } else if (ev.target.classList.contains("delete")) {
    if (row.dataset.armed !== "1") { row.dataset.armed = "1"; ev.target.textContent = "Really delete?"; return; }
    await TR.api("DELETE", `/api/matches/${id}`).catch(() => null);
    load();
  }
});
load();
