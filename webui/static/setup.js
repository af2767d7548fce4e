"use strict";
const $ = (id) => document.getElementById(id);
let GAMES = [];

async function load() {
  GAMES = (await TR.api("GET", "/api/games")).games;
  $("game").innerHTML = GAMES.map((g) => `<option>${TR.esc(g.game)}</option>`).join("");
  fillBoards();
  const boards = (await TR.api("GET", "/api/boards")).boards;
  $("boards").innerHTML = boards.map((b) => `<tr><td>${TR.esc(b.ref)}</td><td>${TR.esc(b.origin)}</td>
    <td><a href="/setup/board/${TR.esc(b.ref)}">edit</a></td></tr>`).join("");
}

function fillBoards() {
  const g = GAMES.find((x) => x.game === $("game").value);
  $("boardsel").innerHTML = (g ? g.boards : []).map((b) => `<option>${TR.esc(b)}</option>`).join("");
}

$("game").addEventListener("change", fillBoards);
$("newmatch").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = ev.target;
  let setup;
  try { setup = JSON.parse(f.setup.value || "{}"); } catch (e) { TR.toast("setup is not valid JSON: " + e.message, true); return; }
  try {
    await TR.api("POST", "/api/matches", { game: f.game.value, board: f.board.value, title: f.title.value, setup });
    location.href = "/";
  } catch (e) { /* the toast shows the server's message */ }
});
load();
