"""The pages in a real Chromium (Debian's /usr/bin/chromium through Playwright; never a browser
download). Each test starts the app on 127.0.0.1 in a thread with a temporary data dir."""

import os
import pathlib
import threading
import time

import pytest
import yaml

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed (make chromium)")]


@pytest.fixture
def server(tmp_path):
    from werkzeug.serving import make_server

    from webui import create_app

    app = create_app({"DATA_DIR": str(tmp_path / "data"), "SSE_HEARTBEAT_S": 1.0})
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    app.base = f"http://127.0.0.1:{srv.port}"
    app.client = app.test_client()
    yield app
    app.extensions["tableref.frames"].close()
    srv.shutdown()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = ctx.new_page()
    yield pg
    ctx.close()


def dino_dunk_match(app):
    """A Dino Dunk match set up and waiting for home's first activation; returns (id, carrier)."""
    from rules.dino_dunk import DEFAULT_TEAMS
    from rules.dino_dunk.cards import load_catalogue, valid_rosters

    cat = load_catalogue()
    rosters = {s: list(valid_rosters(cat, t)[0]) for s, t in DEFAULT_TEAMS.items()}
    c = app.client
    mid = c.post("/api/matches", json={"game": "dino-dunk", "board": "dino-dunk/tropic-turf",
                                       "setup": {"rosters": rosters, "offense": "home"}}).get_json()["id"]
    carrier = next(a for a in c.get(f"/api/matches/{mid}").get_json()["legal"] if a["type"] == "ChooseCarrier")
    home = {"type": "PlacementDone", "side": "home", "positions": [[carrier["piece"], 300.0, 300.0], ["ball", 340.0, 300.0]]}
    for action in (carrier, home, {"type": "PlacementDone", "side": "away"}):
        assert c.post(f"/api/matches/{mid}/actions", json={"action": action}).status_code == 201
    return mid, carrier["piece"]


def shoot(app, mid, carrier):
    """Activate the carrier to shoot, decline abilities; returns the legal ShotResult that scores."""
    c = app.client
    c.post(f"/api/matches/{mid}/actions", json={"action": {"type": "Activate", "piece": carrier, "action": "shoot"}})
    while True:
        legal = c.get(f"/api/matches/{mid}").get_json()["legal"]
        if any(a["type"] == "Skip" for a in legal):
            c.post(f"/api/matches/{mid}/actions", json={"action": {"type": "Skip"}})
            continue
        return next(a for a in legal if a["type"] == "ShotResult" and a["overlaps_zone"] and not a["shooter_outside_three"])


def too_close(proposed, alternative=None):
    return {"question": "Does the ball overlap scoring-zone-away?", "answer": "too_close", "measured_mm": 9.7,
            "threshold_mm": 9.5, "margin_mm": -0.2, "sigma_mm": 1.5, "proposed_action": proposed,
            "alternative_action": alternative,
            "evidence": {"shapes": [{"type": "circle", "x": 819, "y": 305, "r": 55, "role": "region"}],
                     "ghost": [{"xy": [250.0, 280.0], "radius": 19.0, "id": "home:x"}]}}


def test_live_page_on_the_demo_table_shows_the_score_change_after_a_shot(server, page):
    from webui.demo import DemoTable

    demo = DemoTable(server, seed=7, pace_s=0.15, fps=10, auto_confirm_s=0.5, near_miss_every=0).start()
    try:
        page.goto(server.base + "/", wait_until="domcontentloaded")
        page.wait_for_selector(".score-home", timeout=30000)
        page.wait_for_selector("#mjpeg:not([hidden])", timeout=30000)
        page.wait_for_function(
            "() => [...document.querySelectorAll('.score-home, .score-away')].some(e => !/ 0$/.test(e.textContent))",
            timeout=90000)
        page.wait_for_function("() => document.querySelectorAll('#board g.pieces circle').length > 0", timeout=10000)
    finally:
        demo.stop()


def test_live_page_score_changes_after_a_shot_fact(server, page):
    mid, carrier = dino_dunk_match(server)
    page.goto(server.base + "/", wait_until="domcontentloaded")
    page.wait_for_selector(".score-home")
    assert page.locator(".score-home").text_content().strip() == "home 0"
    made = shoot(server, mid, carrier)
    server.client.post(f"/api/matches/{mid}/actions", json={"action": made, "kind": "fact", "actor": "referee"})
    page.wait_for_function("() => document.querySelector('.score-home').textContent.trim() === 'home 2'", timeout=5000)


def test_confirm_a_pending_call_on_the_live_page(server, page):
    mid, carrier = dino_dunk_match(server)
    made = shoot(server, mid, carrier)
    missed = {**made, "overlaps_zone": False}
    cid = server.client.post("/api/calls", json=too_close(made, missed)).get_json()["id"]
    page.goto(server.base + "/", wait_until="domcontentloaded")
    card = page.locator(f".call[data-call='{cid}']")
    card.wait_for()
    assert "-0.2 mm" in card.locator(".margin").text_content()
    card.locator("input.reason").fill("the ball's edge is on the line")
    card.locator("button.confirm").click()
    page.wait_for_function("() => document.querySelector('.score-home').textContent.trim() === 'home 2'", timeout=5000)
    call = server.client.get(f"/api/calls/{cid}").get_json()
    assert call["status"] == "confirmed" and call["decision"]["reason"] == "the ball's edge is on the line"


def test_resolve_a_too_close_call_on_the_judge_page(server, page):
    mid, carrier = dino_dunk_match(server)
    made = shoot(server, mid, carrier)
    missed = {**made, "overlaps_zone": False}
    cid = server.client.post("/api/calls", json=too_close(missed, made)).get_json()["id"]
    page.goto(server.base + "/judge", wait_until="domcontentloaded")
    item = page.locator(f".judge-item[data-call='{cid}']")
    item.wait_for()
    assert item.locator("svg.judge-board .measure-circle").count() == 1
    assert item.locator("svg.judge-board .ghost").count() == 1
    # the measure tool: the carrier and the ball, 40 mm apart centre to centre
    radii = server.client.get(f"/api/matches/{mid}").get_json()["extras"]["piece_radius_mm"]
    item.locator(f"svg.judge-board circle[data-piece='{carrier}']").click()
    item.locator("svg.judge-board circle[data-piece='ball']").click(force=True)
    gap = item.locator(".measure-out .gap")
    gap.wait_for()
    assert gap.text_content() == f"{40 - radii[carrier] - radii['ball']:.1f} mm"
    assert "short card lengths" in item.locator(".measure-out").text_content()
    item.locator("input[name=who]").fill("Ana (head judge)")
    item.locator("textarea[name=reason]").fill("replay shows overlap")
    item.locator("button[value=override]").click()
    page.wait_for_selector("#audit tr:has-text('Ana (head judge)')", timeout=5000)
    call = server.client.get(f"/api/calls/{cid}").get_json()
    assert call["status"] == "overridden" and call["decision"]["who"] == "Ana (head judge)"
    assert server.client.get(f"/api/matches/{mid}").get_json()["state"]["score"]["home"] == 2


def test_overlay_is_transparent_and_updates(server, page):
    mid, carrier = dino_dunk_match(server)
    page.goto(server.base + "/overlay?game=dino-dunk&theme=dark&panels=score,call,review", wait_until="domcontentloaded")
    page.wait_for_selector("#score:not(.hidden)")
    bg = page.evaluate("() => [getComputedStyle(document.documentElement).backgroundColor, getComputedStyle(document.body).backgroundColor, getComputedStyle(document.getElementById('stage')).backgroundColor]")
    assert bg == ["rgba(0, 0, 0, 0)"] * 3
    assert page.evaluate("() => [document.getElementById('stage').offsetWidth, document.getElementById('stage').offsetHeight]") == [1920, 1080]
    made = shoot(server, mid, carrier)
    server.client.post("/api/calls", json=too_close(made, {**made, "overlaps_zone": False}))
    page.wait_for_selector("#review:not(.hidden)", timeout=3000)
    cid = server.client.get("/api/calls").get_json()["calls"][0]["id"]
    server.client.post(f"/api/calls/{cid}/decision", json={"decision": "confirm", "who": "ref", "reason": "edge on"})
    page.wait_for_function("() => document.getElementById('score').textContent.includes('home2')", timeout=3000)
    assert page.locator("#review").get_attribute("class").count("hidden") == 1


def test_edit_a_region_in_the_board_editor_and_see_it_saved(server, page):
    page.goto(server.base + "/setup/board/dino-dunk/tropic-turf", wait_until="domcontentloaded")
    handle = page.locator("circle[data-handle='region:scoring-zone-home:center']")
    handle.wait_for()
    before = server.client.get("/api/boards/dino-dunk/tropic-turf").get_json()["board"]["regions"]["scoring-zone-home"]["circle"]
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 20, y + 10, steps=5)
    page.mouse.up()
    page.click("#save")
    page.wait_for_selector("#result.saved", timeout=5000)
    saved = pathlib.Path(server.config["DATA_DIR"]) / "boards" / "dino-dunk" / "tropic-turf.yaml"
    circle = yaml.safe_load(saved.read_text())["regions"]["scoring-zone-home"]["circle"]
    assert circle[0] > before[0] + 5 and circle[1] > before[1] + 2 and circle[2] == before[2]
    assert page.locator("#origin").text_content() == "(edited)"


@pytest.mark.parametrize("game, board, words", [
    ("dino-dunk", "dino-dunk/crater-court", "shot clock"),
    ("dodo-dash", "dodo-dash/dodorado-jungle", "traps"),
    ("morris", "morris/waterfall", "shelters"),
    ("dogo-dash", "dogo-dash/table", "super pot"),
])
def test_each_game_panel_renders_and_key_1_plays_the_first_legal_action(server, page, game, board, words):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    mid = server.client.post("/api/matches", json={"game": game, "board": board}).get_json()["id"]
    page.goto(server.base + "/", wait_until="domcontentloaded")
    page.wait_for_selector("#actions button.act")
    assert words in page.locator("#panel").text_content()
    page.wait_for_function("() => document.querySelectorAll('#board .regions > *, #board .tracks > *, #board .stones > *').length > 0")
    first = server.client.get(f"/api/matches/{mid}").get_json()["legal"][0]
    page.keyboard.press("1")
    page.wait_for_function("() => document.querySelector('#events div') !== null", timeout=5000)
    rows = server.client.get(f"/api/matches/{mid}/log").get_json()["rows"]
    assert [r["data"]["action"] for r in rows] == [first]
    assert errors == []


def test_setup_page_registers_the_mat_from_the_latest_frame(server, page):
    from tests.webui.test_webui_pages import _publish_render

    _publish_render(server)
    page.goto(server.base + "/setup", wait_until="domcontentloaded")
    page.wait_for_selector("#regboard option", state="attached")
    page.select_option("#regboard", "dino-dunk/tropic-turf")
    page.click("#regnow")
    page.wait_for_selector("#regout .found", timeout=10000)
    assert page.locator("#regout .found").text_content().startswith("4 of 4 markers")
    _publish_render(server, target=(490.0, 305.0))
    page.click("#regnow")
    page.wait_for_selector("#regout .alarm", timeout=10000)
    assert "mat moved" in page.locator("#regout .alarm").text_content()


def test_start_a_match_from_setup_and_push_a_custom_action(server, page):
    page.goto(server.base + "/setup", wait_until="domcontentloaded")
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", "dino-dunk")
    assert '"rosters"' in page.locator("#setupjson").input_value()
    page.click("#newmatch button[type=submit]")
    page.wait_for_url(server.base + "/", wait_until="domcontentloaded")
    page.wait_for_selector("#actions button.act")
    assert "shot clock" in page.locator("#panel").text_content()
    carrier = server.client.get("/api/current").get_json()["legal"][0]
    page.click("details summary")
    page.fill("#custom", '{"type": "ChooseCarrier", "piece": "%s"}' % carrier["piece"])
    page.click("#push")
    page.wait_for_function("() => document.querySelector('#events div') !== null", timeout=5000)
    rows = server.client.get(f"/api/matches/{server.client.get('/api/current').get_json()['match']['id']}/log").get_json()["rows"]
    assert rows[-1]["data"]["action"] == carrier
    page.fill("#custom", '{"type": "Nope"}')
    page.click("#push")
    page.wait_for_selector(".toast.bad", timeout=5000)
    assert "unknown action type" in page.locator(".toast.bad").text_content()
