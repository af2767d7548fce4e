"""sim/truth.py against independent references: a brute-force rasteriser for overlaps, sampled
boundaries for distances, and hand-worked scenes for the game answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import box
from shapely.geometry import Point, Polygon

from calibration.board import load_board
from calibration.specs import load_specs
from sim.config import load_sim_config
from sim.physics import Carry, Flick, simulate
from sim.scenarios.common import Scenario, play_area, stop_speed
from sim.scene import PieceState, Scene
from sim.truth import (containment_margin, edge_distance, footprint, frame_truth, overlaps, region_margin,
                       scenario_truth)

CFG = load_sim_config()
SPECS = load_specs()
DD = load_board("dino-dunk/crater-court")

REGIONS = {
    "circle": Point(100, 100).buffer(55, quad_segs=64),
    "rect": box(40, 60, 160, 130),
    "poly": Polygon([(50, 50), (170, 70), (150, 160), (60, 140)]),
}


def raster_overlap_area(p: PieceState, region, step=0.1):
    """Brute force: the area (mm²) of grid cells whose centre is in both the disc and the region."""
    x0, y0, x1, y1 = p.x - p.radius, p.y - p.radius, p.x + p.radius, p.y + p.radius
    xs = np.arange(x0 + step / 2, x1, step)
    ys = np.arange(y0 + step / 2, y1, step)
    gx, gy = np.meshgrid(xs, ys)
    in_disc = (gx - p.x) ** 2 + (gy - p.y) ** 2 <= p.radius ** 2
    import shapely

    pts = shapely.points(gx[in_disc], gy[in_disc])
    inside = shapely.contains_xy(region, gx[in_disc], gy[in_disc]) if hasattr(shapely, "contains_xy") else shapely.contains(region, pts)
    return float(np.count_nonzero(inside)) * step * step


@pytest.mark.parametrize("region", list(REGIONS))
@pytest.mark.parametrize("x, y, r", [
    (100, 100, 9.5),     # well inside
    (100, 172, 19.0),    # overlapping the edge
    (200, 200, 19.0),    # far outside
    (30, 100, 25.5),     # straddling the left side
])
def test_region_margin_sign_and_area_against_a_rasteriser(region, x, y, r):
    p = PieceState("p", "disc-medium", x, y, r, 9.0)
    geom = REGIONS[region]
    margin = region_margin(p, geom)
    raster = raster_overlap_area(p, geom)
    exact = footprint(p).intersection(geom).area
    assert (margin > 0) == (raster > 0)
    assert exact == pytest.approx(raster, abs=max(2.0, 0.01 * exact))


@settings(max_examples=60, deadline=None)
@given(x=st.floats(0, 220), y=st.floats(0, 220), r=st.sampled_from([9.5, 14.5, 19.0, 25.5]),
       region=st.sampled_from(list(REGIONS)))
def test_region_margin_is_the_distance_to_change_the_answer(x, y, r, region):
    geom = REGIONS[region]
    p = PieceState("p", "disc-medium", x, y, r, 9.0)
    m = region_margin(p, geom)
    if abs(m) < 0.3:
        return
    # moving the disc by |m| + 0.2 mm towards / away from the region flips / keeps the answer
    raster = raster_overlap_area(p, geom, step=0.25) > 0
    assert raster == (m > 0)
    c = Point(x, y)
    if not geom.contains(c) and m < 0:
        # reference: the nearest region point is exactly |m| + r away from the centre
        assert geom.distance(c) == pytest.approx(r - m, abs=1e-6)


@settings(max_examples=40, deadline=None)
@given(ax=st.floats(0, 300), ay=st.floats(0, 300), bx=st.floats(0, 300), by=st.floats(0, 300),
       ra=st.floats(5, 30), rb=st.floats(5, 30), angle=st.floats(0, 180))
def test_edge_distance_against_sampled_boundaries(ax, ay, bx, by, ra, rb, angle):
    a = PieceState("a", "disc-medium", ax, ay, ra, 9.0)
    card = PieceState("c", "card", bx, by, 0.0, 0.3, angle, (88.0, 63.0))
    d = edge_distance(a, card)
    # reference: the minimum over 2000 sampled points of the disc rim to the card's polygon
    fp = footprint(card)
    t = np.linspace(0, 2 * np.pi, 2000, endpoint=False)
    rim = [Point(ax + ra * np.cos(u), ay + ra * np.sin(u)) for u in t]
    if fp.intersects(Point(ax, ay).buffer(ra)):
        assert d == 0.0
    else:
        ref = min(fp.distance(q) for q in rim)
        assert d == pytest.approx(ref, abs=0.05)
    b = PieceState("b", "disc-small", bx, by, rb, 9.0)
    assert edge_distance(a, b) == pytest.approx(math.hypot(ax - bx, ay - by) - ra - rb)


@pytest.mark.parametrize("shift, expected_sign", [
    ((0, 0), 1),        # centred in a 100 x 130 zone: inside
    ((20, 0), -1),      # an 88 x 63 card turned 90 deg is 63 wide: 18.5 mm of slack each side
    ((18.4, 0), 1),
    ((0, 45), -1),
])
def test_containment_margin_table(shift, expected_sign):
    zone = box(400, 15, 500, 145)
    card = PieceState("c", "card", 450 + shift[0], 80 + shift[1], 0.0, 0.3, 90.0, (88.0, 63.0))
    m = containment_margin(footprint(card), zone)
    assert np.sign(m) == expected_sign
    # reference from the rectangle's own arithmetic (axis-aligned after the 90 deg turn)
    half_w, half_h = 63.0 / 2, 88.0 / 2
    ref = min(450 + shift[0] - half_w - 400, 500 - (450 + shift[0] + half_w), 80 + shift[1] - half_h - 15,
              145 - (80 + shift[1] + half_h))
    if ref >= 0:
        assert m == pytest.approx(ref, abs=1e-6)


def _scenario(pieces, actions, meta, board=DD, game="dino-dunk"):
    initial = Scene(game, board.ref, pieces)
    run = simulate(initial, actions, CFG.physics, play_area(board))
    return Scenario(game, board.ref, "test", 0, initial, actions, run, meta)


def _dd(pid, kind, x, y, **attrs):
    spec = SPECS.piece("dino-dunk", kind)
    return PieceState(pid, kind, x, y, spec.radius, spec.height, attributes=attrs)


def _slide_to(fx, fy, tx, ty):
    ph = CFG.physics
    d = math.hypot(tx - fx, ty - fy)
    v = stop_speed(d, ph.table_mu, ph.gravity_mm_s2, ph.dt_s)
    return v * (tx - fx) / d, v * (ty - fy) / d


@pytest.mark.parametrize("stop_x, shooter_x, result, points", [
    (819 - 55 - 9.5 + 1.0, 500.0, "score", 3),       # ball edge 1 mm into the away zone, shooter far out
    (819 - 55 - 9.5 - 1.0, 500.0, "loose-ball", 0),  # 1 mm short
    (819 - 30.0, 700.0, "score", 2),                  # shooter inside the three-point arc (r 260)
])
def test_shot_answers_hand_worked(stop_x, shooter_x, result, points):
    shooter = _dd("home:2", "disc-medium", shooter_x, 305.0, team="home")
    ball = _dd("ball", "ball", shooter_x + 40.0, 305.0)
    vx, vy = _slide_to(ball.x, ball.y, stop_x, 305.0)
    scn = _scenario([shooter, ball], [Flick("ball", vx, vy)],
                    {"action": "shoot", "actor": "home:2", "offense": "home", "target_zone": "scoring-zone-away",
                     "three_point_region": "three-point-away", "carrier": "home:2"})
    ans = scenario_truth(scn, DD)["answers"]
    assert (ans["result"], ans["points"]) == (result, points)
    assert ans["ball_zone_margin_mm"] == pytest.approx(stop_x - (819 - 55 - 9.5), abs=0.02)


def test_pass_first_struck_and_turnover():
    passer = _dd("home:1", "disc-medium", 300.0, 305.0, team="home")
    ball = _dd("ball", "ball", 340.0, 305.0)
    opp = _dd("away:3", "disc-small", 450.0, 305.0, team="away")
    mate = _dd("home:4", "disc-large", 600.0, 305.0, team="home")
    scn = _scenario([passer, ball, opp, mate], [Flick("ball", 1500.0, 0.0)],
                    {"action": "pass", "actor": "home:1", "offense": "home", "carrier": "home:1"})
    ans = scenario_truth(scn, DD)["answers"]
    assert ans["first_struck_by_ball"] == "away:3" and ans["result"] == "turnover"


@pytest.mark.parametrize("blocker, result", [
    (None, "dunk"),             # a clean slide into the zone with the ball on top
    ((720.0, 305.0), "loose-ball"),  # a disc in the way: the jolt throws the ball off
])
def test_dunk_answers(blocker, result):
    carrier = _dd("home:5", "disc-large", 600.0, 305.0, team="home")
    off = carrier.radius - 9.5
    ball = _dd("ball", "ball", 600.0 + off, 305.0)
    pieces = [carrier, ball] + ([_dd("away:1", "disc-medium", *blocker, team="away")] if blocker else [])
    vx, vy = _slide_to(600.0, 305.0, 800.0, 305.0)
    scn = _scenario(pieces, [Carry("ball", "home:5", off, 0.0, CFG.dino_dunk.carry_max_accel_mm_s2), Flick("home:5", vx, vy)],
                    {"action": "dunk", "actor": "home:5", "offense": "home", "carrier": "home:5",
                     "target_zone": "scoring-zone-away"})
    assert scenario_truth(scn, DD)["answers"]["result"] == result


@pytest.mark.parametrize("mover, via, foul, stunned", [
    ("away:1", None, True, False),       # an opponent strikes the carrier directly
    ("away:1", "away:2", True, False),   # ... through another disc (a chain)
    ("home:3", None, False, True),       # a friendly strike stuns
])
def test_foul_chain_answers(mover, via, foul, stunned):
    carrier = _dd("home:1", "disc-medium", 500.0, 305.0, team="home")
    ball = _dd("ball", "ball", 500.0, 305.0 + 19 + 9.5 + 3.0)
    m = _dd(mover, "disc-medium", 300.0, 305.0, team=mover.split(":")[0])
    pieces = [carrier, ball, m]
    if via:
        pieces.append(_dd(via, "disc-small", 400.0, 305.0, team="away"))
    scn = _scenario(pieces, [Flick(mover, 1800.0, 0.0)], {"action": "move", "actor": mover, "offense": "home",
                                                          "carrier": "home:1"})
    ans = scenario_truth(scn, DD)["answers"]
    assert (ans["foul"], ans["stunned"], ans["carrier_struck"]) == (foul, stunned, True)
    assert ans["carrier_chain"] == ([mover, via, "home:1"] if via else [mover, "home:1"])


def test_feather_hits_only_the_first_racer():
    board = load_board("dodo-dash/dodorado-jungle")
    r1 = PieceState("racer-1", "racer", 300.0, 250.0, 12.5, 45.0)
    r2 = PieceState("racer-2", "racer", 329.0, 250.0, 12.5, 45.0)
    tok = PieceState("feather", "feather", 200.0, 250.0, 12.0, 2.0)
    for name, first_only, expected in [("feather", True, ["racer-1"]), ("banana", False, None)]:
        scn = _scenario([r1, r2, tok], [Flick("feather", 1800.0, 0.0)],
                        {"projectile": name, "projectile_id": "feather", "first_hit_only": first_only}, board, "dodo-dash")
        ans = scenario_truth(scn, board)["answers"]
        assert ans["first_hit"] == "racer-1"
        assert ans["hits"] == (expected or ans["touched_racers"])


def test_overlaps_and_frame_truth_shapes():
    ball = _dd("ball", "ball", 819.0, 305.0)
    scene = Scene("dino-dunk", DD.ref, [ball])
    ov = overlaps(scene, DD)
    assert ov["ball"]["scoring-zone-away"]["overlaps"] and not ov["ball"]["scoring-zone-home"]["overlaps"]
    assert ov["ball"]["scoring-zone-away"]["area_mm2"] == pytest.approx(math.pi * 9.5 ** 2, rel=1e-3)
    ft = frame_truth(scene, {"ball": {"base_px": (10.0, 20.0), "visible": 0.5}})
    assert ft["pieces"][0]["base_px"] == [10.0, 20.0] and ft["pieces"][0]["visible"] == 0.5


def test_racer_hexes_against_the_track_table():
    from sim.truth import racer_hexes

    board = load_board("dodo-dash/dodorado-jungle")
    outer = board.tracks["outer"].centres()
    pieces = [PieceState("r1", "racer", outer[7][0] + 5.0, outer[7][1] - 3.0, 12.5, 45.0),
              PieceState("r2", "racer", outer[0][0], outer[0][1], 12.5, 45.0)]
    got = racer_hexes(Scene("dodo-dash", board.ref, pieces), board)
    assert got["r1"]["track"] == "outer" and got["r1"]["index"] == 7
    assert got["r1"]["off_centre_mm"] == pytest.approx(math.hypot(5.0, 3.0), abs=1e-3)
    assert got["r2"] == {"track": "outer", "index": 0, "off_centre_mm": 0.0}


def test_a_falling_token_is_moving_even_without_horizontal_speed():
    tok = PieceState("m", "meteorite", 100.0, 100.0, 11.0, 4.0, z=120.0)
    carried = PieceState("ball", "ball", 100.0, 100.0, 9.5, 9.0, z=9.0, attributes={"carried_by": "d"})
    rows = {r["id"]: r for r in frame_truth(Scene("dodo-dash", "dodo-dash/dodorado-jungle", [tok, carried]))["pieces"]}
    assert rows["m"]["moving"] and rows["m"]["airborne"]
    assert not rows["ball"]["moving"] and not rows["ball"]["airborne"]


def test_closest_edge_gap_against_dense_sampling():
    """The least gap between a disc and any other over a run, between frames too, against the gaps at
    2000 points along each frame-to-frame step (both pieces moved at a steady pace along it)."""
    import math
    from types import SimpleNamespace

    from sim.scene import PieceState, Scene
    from sim.truth import closest_edge_gap

    rng = np.random.default_rng(5)
    for _ in range(20):
        n = 6
        a = rng.uniform(0, 400, (n, 2))
        b = rng.uniform(0, 400, (n, 2))
        c = np.tile(rng.uniform(0, 400, 2), (n, 1))  # at rest
        frames = [Scene("dino-dunk", "dino-dunk/crater-court", pieces=[PieceState("A", "disc-medium", *a[i], radius=19.0),
                                PieceState("B", "disc-large", *b[i], radius=25.5),
                                PieceState("C", "disc-small", *c[i], radius=14.5),
                                PieceState("ball", "ball", *a[i], radius=10.0)]) for i in range(n)]
        gap, other = closest_edge_gap(SimpleNamespace(frames=frames), "C")
        want, who = math.inf, None
        for i in range(n - 1):
            for pid, P, r in (("A", a, 19.0), ("B", b, 25.5)):
                s = np.linspace(0, 1, 2001)[:, None]
                d = np.linalg.norm(P[i] + s * (P[i + 1] - P[i]) - c[i], axis=1).min() - r - 14.5
                if d < want:
                    want, who = d, pid
        assert other == who and gap == pytest.approx(want, abs=0.05)
    # no other disc: nothing to measure
    lone = [Scene("dino-dunk", "dino-dunk/crater-court", pieces=[PieceState("C", "disc-small", 0.0, 0.0, radius=14.5)])] * 2
    assert closest_edge_gap(SimpleNamespace(frames=lone), "C") == (math.inf, None)
