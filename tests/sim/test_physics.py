"""sim/physics.py against closed forms: contact times, impulses, slide distances, settling, chains,
out of bounds, carrying and airborne pieces."""

from __future__ import annotations

import math

import pytest
from shapely import box

from sim.config import load_sim_config
from sim.physics import (Carry, Contact, Flick, Launch, PhysicsError, causal_tree, chain_to, first_touch, simulate,
                         touched)
from sim.scenarios.common import slide_distance, stop_speed
from sim.scene import PieceState, Scene

CFG = load_sim_config().physics
A_FRICTION = CFG.table_mu * CFG.gravity_mm_s2
MAT = box(0, 0, 914, 610)


def disc(pid, x, y, r=19.0, h=9.0, kind="disc-medium", **attrs):
    return PieceState(pid, kind, x, y, r, h, attributes=attrs)


def scene(*pieces):
    return Scene("dino-dunk", "dino-dunk/crater-court", list(pieces))


def analytic_contact_time(v0, gap):
    """Continuous Coulomb slide: v0 t - a t^2 / 2 = gap."""
    return (v0 - math.sqrt(v0 * v0 - 2 * A_FRICTION * gap)) / A_FRICTION


@pytest.mark.parametrize("v0, gap, r_a, r_b, direction", [
    (1500.0, 162.0, 19.0, 19.0, 0.0),      # medium at medium along +x
    (900.0, 80.0, 25.5, 14.5, 90.0),       # large at small along +y
    (2000.0, 300.0, 9.5, 19.0, 200.0),     # the ball at a disc, oblique direction
    (600.0, 20.0, 19.0, 25.5, -45.0),      # slow, short gap
])
def test_head_on_contact_time_matches_analytic(v0, gap, r_a, r_b, direction):
    a = math.radians(direction)
    ax, ay = 300.0, 300.0
    d = r_a + r_b + gap
    s = scene(disc("A", ax, ay, r_a), disc("B", ax + d * math.cos(a), ay + d * math.sin(a), r_b))
    run = simulate(s, [Flick("A", v0 * math.cos(a), v0 * math.sin(a))], CFG, None)
    assert [(c.a, c.b) for c in run.contacts][:1] == [("A", "B")]
    t_expected = analytic_contact_time(v0, gap)
    # the discrete integration leads the continuous slide by a*dt*t/2 mm: well under one step
    assert run.contacts[0].t == pytest.approx(t_expected, abs=0.5 * CFG.dt_s)
    c = run.contacts[0]
    # the contact point lies on the segment between the centres, r_a from A's start-to-contact path
    x_a = ax + (v0 * t_expected - A_FRICTION * t_expected ** 2 / 2) * math.cos(a)
    y_a = ay + (v0 * t_expected - A_FRICTION * t_expected ** 2 / 2) * math.sin(a)
    assert math.hypot(c.x - (x_a + r_a * math.cos(a)), c.y - (y_a + r_a * math.sin(a))) < 1.0
    assert (c.nx, c.ny) == pytest.approx((math.cos(a), math.sin(a)), abs=1e-6)


def test_impulse_of_a_head_on_collision():
    # J = m1 m2 / (m1 + m2) (1 + e) v_rel for a central collision (frictionless along the normal)
    s = scene(disc("A", 100, 300), disc("B", 200, 300))
    run = simulate(s, [Flick("A", 1000.0, 0.0)], CFG, None)
    m = CFG.density_g_mm3 * math.pi * 19.0 ** 2 * 9.0
    gap = 100 - 38
    v_rel = math.sqrt(1000.0 ** 2 - 2 * A_FRICTION * gap)
    expected = m * m / (2 * m) * (1 + CFG.restitution) * v_rel
    assert run.contacts[0].impulse == pytest.approx(expected, rel=0.05)


def test_chain_a_pushes_b_into_c_is_logged_in_order():
    s = scene(disc("A", 100, 300), disc("B", 250, 300), disc("C", 320, 300), disc("D", 700, 100))
    run = simulate(s, [Flick("A", 1800.0, 0.0)], CFG, MAT)
    pairs = [(c.a, c.b) for c in run.contacts]
    assert pairs[:2] == [("A", "B"), ("B", "C")]
    assert run.contacts[0].t < run.contacts[1].t
    tree = causal_tree(run.contacts, "A")
    assert chain_to(tree, "C") == ["A", "B", "C"]
    assert "D" not in tree
    assert touched(run.contacts, "A") == ["B"]
    assert first_touch(run.contacts, "B") == "A"


@pytest.mark.parametrize("contacts, origin, static, expected", [
    # A hits B, B hits C: a chain
    ([("A", "B", 0.1), ("B", "C", 0.2)], "A", set(), {"A": None, "B": "A", "C": "B"}),
    # C touched D before anyone reached C: not caused by A
    ([("C", "D", 0.05), ("A", "B", 0.1), ("B", "C", 0.2)], "A", set(), {"A": None, "B": "A", "C": "B"}),
    # a static backboard passes nothing on
    ([("A", "W", 0.1), ("W", "C", 0.2)], "A", {"W"}, {"A": None}),
    # the first parent wins
    ([("A", "B", 0.1), ("A", "C", 0.15), ("B", "C", 0.2)], "A", set(), {"A": None, "B": "A", "C": "A"}),
])
def test_causal_tree_table(contacts, origin, static, expected):
    log = [Contact(t, a, b, 1.0, 0.0, 0.0) for a, b, t in contacts]
    tree = causal_tree(log, origin, static)
    assert {k: v[0] for k, v in tree.items()} == expected


@pytest.mark.parametrize("v0", [300.0, 800.0, 1500.0, 2400.0])
def test_free_slide_distance_and_settle_time(v0):
    s = scene(disc("A", 100, 300))
    run = simulate(s, [Flick("A", v0, 0.0)], CFG, None)
    travelled = run.final.by_id()["A"].x - 100
    assert travelled == pytest.approx(slide_distance(v0, CFG.table_mu, CFG.gravity_mm_s2, CFG.dt_s), abs=0.01)
    assert travelled == pytest.approx(v0 * v0 / (2 * A_FRICTION), rel=0.01)  # continuous closed form
    assert run.settle_time == pytest.approx(v0 / A_FRICTION, abs=2 * CFG.dt_s)
    assert not any(p.moving for p in run.final.pieces)
    assert [f.t for f in run.frames] == sorted(f.t for f in run.frames)


def test_stop_speed_inverts_the_slide():
    for d in (1.0, 55.5, 240.0, 700.0):
        v = stop_speed(d, CFG.table_mu, CFG.gravity_mm_s2, CFG.dt_s)
        run = simulate(scene(disc("A", 50, 300)), [Flick("A", v, 0.0)], CFG, None)
        assert run.final.by_id()["A"].x - 50 == pytest.approx(d, abs=0.01)


@pytest.mark.parametrize("start, velocity, out", [
    ((100.0, 30.0), (0.0, -1500.0), True),     # off the north sideline
    ((850.0, 300.0), (2500.0, 0.0), True),     # off the baseline
    ((100.0, 40.0), (0.0, -250.0), False),     # stops partly over the edge: still in
    ((450.0, 300.0), (500.0, 0.0), False),     # stays in the middle
])
def test_out_of_bounds_when_completely_outside(start, velocity, out):
    run = simulate(scene(disc("A", *start)), [Flick("A", *velocity)], CFG, MAT)
    a = run.final.by_id()["A"]
    assert ("A" in run.out_of_bounds()) == out
    if out:
        from shapely.geometry import Point

        assert MAT.distance(Point(a.x, a.y)) > a.radius
        assert a.attributes.get("out_of_bounds") is True
        ev = run.out_of_bounds()["A"]
        assert (ev.x, ev.y) == pytest.approx((a.x, a.y))


def test_same_input_same_run():
    s = scene(disc("A", 100, 300), disc("B", 250, 310), disc("C", 320, 290))
    acts = [Flick("A", 1800.0, 40.0, spin=3.0)]
    r1, r2 = simulate(s, acts, CFG, MAT), simulate(s, acts, CFG, MAT)
    assert [f.to_dict() for f in r1.frames] == [f.to_dict() for f in r2.frames]
    assert r1.contacts == r2.contacts


def test_carried_ball_stays_on_a_smooth_slide_and_falls_on_impact():
    ball = PieceState("ball", "ball", 119.0 - 9.5, 300.0, 9.5, 9.0, z=9.0)
    free = simulate(scene(disc("C", 100, 300), ball), [Carry("ball", "C", 9.5, 0.0), Flick("C", 900.0, 0.0)], CFG, MAT)
    b, c = free.final.by_id()["ball"], free.final.by_id()["C"]
    assert b.attributes.get("carried_by") == "C" and b.z == pytest.approx(9.0)
    assert (b.x - c.x, b.y - c.y) == pytest.approx((9.5, 0.0), abs=1e-6)
    assert not [e for e in free.events if e.kind == "ball-fell"]
    # the same dunk into a disc in the way: the jolt throws the ball off, it lands ahead
    hit = simulate(scene(disc("C", 100, 300), ball, disc("X", 200, 300)),
                   [Carry("ball", "C", 9.5, 0.0), Flick("C", 1200.0, 0.0)], CFG, MAT)
    fell = [e for e in hit.events if e.kind == "ball-fell"]
    assert fell and fell[0].t == pytest.approx(hit.contacts[0].t, abs=2 * CFG.dt_s)
    b = hit.final.by_id()["ball"]
    assert "carried_by" not in b.attributes and b.z == 0.0
    landed = [e for e in hit.events if e.kind == "landed" and e.piece == "ball"]
    assert landed and landed[0].t - fell[0].t == pytest.approx(math.sqrt(2 * 9.0 / CFG.gravity_mm_s2), abs=2 * CFG.dt_s)
    # a flick faster than the launch limit leaves the ball behind at once
    fast = simulate(scene(disc("C", 100, 300), ball), [Carry("ball", "C", 9.5, 0.0, max_launch_mm_s=1000.0),
                                                        Flick("C", 1200.0, 0.0)], CFG, MAT)
    assert [e.t for e in fast.events if e.kind == "ball-fell"] == [0.0]


def test_airborne_token_flies_over_low_pieces_and_hits_tall_ones():
    racer = PieceState("R", "racer", 300.0, 300.0, 12.5, 45.0)
    low = disc("L", 200.0, 300.0)
    # thrown from 30 mm up at 1000 mm/s: flight time sqrt(2*30/g) ~ 78 ms, lands ~78 mm on
    tok = PieceState("T", "banana", 100.0, 300.0, 13.0, 4.0)
    run = simulate(scene(tok), [Launch("T", 100.0, 300.0, 30.0, 1000.0, 0.0)], CFG, MAT)
    landed = [e for e in run.events if e.kind == "landed"]
    t_fall = math.sqrt(2 * 30.0 / CFG.gravity_mm_s2)
    assert landed[0].t == pytest.approx(t_fall, abs=2 * CFG.dt_s)
    assert landed[0].x == pytest.approx(100.0 + 1000.0 * t_fall, abs=3.0)
    # at z = 7 mm it would hit the 9 mm disc; from 40 mm up at 2.5 m/s it is 36 mm up when it
    # passes the disc and 16 mm up (below the 45 mm racer's top) when it reaches the racer
    run2 = simulate(scene(racer, low, tok), [Launch("T", 120.0, 300.0, 40.0, 2500.0, 0.0)], CFG, MAT)
    assert "L" not in touched(run2.contacts, "T")[:1]
    assert "R" in touched(run2.contacts, "T")


def test_a_token_coming_down_onto_a_racer_it_came_over_hits_it():
    # released over the racer's edge 1 mm above its top, moving toward its centre: 14 ms later the
    # token is below the top with the footprints still overlapping, and strikes the racer (the pair's
    # collision, refused while the token was higher, must not stay refused until they part)
    racer = PieceState("R", "racer", 300.0, 300.0, 12.5, 45.0)
    tok = PieceState("T", "meteorite", 280.0, 300.0, 11.0, 4.0)
    run = simulate(scene(racer, tok), [Launch("T", 280.0, 300.0, 46.0, 300.0, 0.0)], CFG, MAT)
    hit = [c for c in run.contacts if {c.a, c.b} == {"T", "R"}]
    assert hit and hit[0].t == pytest.approx(math.sqrt(2 * 1.0 / CFG.gravity_mm_s2), abs=3 * CFG.dt_s)
    # released 2 mm higher it leaves the footprint before it is below the top: it passes over
    over = simulate(scene(racer, tok), [Launch("T", 280.0, 300.0, 48.0, -300.0, 0.0)], CFG, MAT)
    assert not [c for c in over.contacts if {c.a, c.b} == {"T", "R"}]


def test_landing_on_a_piece_is_a_landing_contact():
    racer = PieceState("R", "racer", 300.0, 300.0, 12.5, 45.0)
    tok = PieceState("T", "meteorite", 300.0, 300.0, 11.0, 4.0)
    run = simulate(scene(racer, tok), [Launch("T", 305.0, 300.0, 300.0)], CFG, MAT)
    assert [(c.a, c.b, c.kind) for c in run.contacts][:1] == [("T", "R", "landing")]


@pytest.mark.parametrize("actions, message", [
    ([Flick("nope", 1.0, 0.0)], "not in the scene"),
    ([Carry("A", "nope")], "carrier"),
])
def test_errors_say_what_is_wrong(actions, message):
    with pytest.raises(PhysicsError, match=message):
        simulate(scene(disc("A", 100, 100)), actions, CFG, MAT)


def test_duplicate_ids_are_refused():
    with pytest.raises(PhysicsError, match="share the id"):
        simulate(scene(disc("A", 100, 100), disc("A", 200, 100)), [], CFG, MAT)


# --- the configuration -----------------------------------------------------------------------------

from sim.config import SimConfigError, load_sim_config as _load  # noqa: E402


@pytest.mark.parametrize("yaml_text, message", [
    ("physics: {table_mu: 0.5}\n", None),                              # a partial override is fine
    ("physics: {tabel_mu: 0.5}\n", "unknown key"),                     # a typo names the key
    ("physics: {table_mu: -1}\n", "non-negative"),                      # negative friction
    ("physics: {dt_s: 0.5}\n", "dt_s"),                                 # a step far too long
    ("morris: {p_broken: 2}\n", "probability"),
    ("dino-dunk: {flick_speed_mm_s: [900, 100]}\n", "low <= high"),
    ("schema: other/9\n", "schema"),
    ("[1, 2]\n", "mapping"),
])
def test_sim_config_overrides_and_errors(tmp_path, yaml_text, message):
    path = tmp_path / "my.yaml"
    path.write_text(yaml_text)
    if message is None:
        cfg = _load(path)
        assert cfg.physics.table_mu == 0.5 and cfg.physics.dt_s == CFG.dt_s  # only the given key changed
        return
    with pytest.raises(SimConfigError, match=message):
        _load(path)


def test_missing_sim_config_file(tmp_path):
    with pytest.raises(SimConfigError, match="no such"):
        _load(tmp_path / "nope.yaml")


def test_friction_from_the_config_sets_the_slide():
    import dataclasses

    slippery = dataclasses.replace(CFG, table_mu=0.15)
    run = simulate(scene(disc("A", 100, 300)), [Flick("A", 800.0, 0.0)], slippery, None)
    assert run.final.by_id()["A"].x - 100 == pytest.approx(800.0 ** 2 / (2 * 0.15 * CFG.gravity_mm_s2), rel=0.01)


# --- properties on random tables ---------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 6), speed=st.floats(300.0, 2500.0), angle=st.floats(-math.pi, math.pi))
def test_random_tables_lose_energy_settle_and_never_overlap(seed, n, speed, angle):
    import numpy as np

    rng = np.random.default_rng(seed)
    pieces = []
    while len(pieces) < n:
        r = float(rng.choice([9.5, 14.5, 19.0, 25.5]))
        x, y = float(rng.uniform(60, 850)), float(rng.uniform(60, 550))
        if all(math.hypot(x - p.x, y - p.y) > r + p.radius + 1.0 for p in pieces):
            pieces.append(disc(f"p{len(pieces)}", x, y, r))
    run = simulate(scene(*pieces), [Flick("p0", speed * math.cos(angle), speed * math.sin(angle), spin=2.0)], CFG, MAT)
    masses = {p.id: CFG.density_g_mm3 * math.pi * p.radius ** 2 * p.height for p in pieces}

    def energy(frame):
        return sum(masses[p.id] * (p.vx ** 2 + p.vy ** 2) for p in frame.pieces if not p.attributes.get("out_of_bounds"))

    e = [energy(f) for f in run.frames]
    assert all(b <= a * (1 + 1e-6) + 1e-6 for a, b in zip(e, e[1:]))  # friction and restitution < 1 only take
    assert run.settle_time is not None
    assert [c.t for c in run.contacts] == sorted(c.t for c in run.contacts)
    final = [p for p in run.final.pieces if not p.attributes.get("out_of_bounds")]
    for i, a in enumerate(final):
        for b in final[i + 1:]:
            assert math.hypot(a.x - b.x, a.y - b.y) >= a.radius + b.radius - 0.5
    for c in run.contacts:  # every touch involves a piece set moving by the flick
        assert c.a in causal_tree(run.contacts, "p0") and c.b in causal_tree(run.contacts, "p0")


def test_a_flick_is_an_impulse_that_adds_to_the_motion():
    # two flicks at t = 0 and t = 0.1 s along x: the second adds its velocity to what is left
    run = simulate(scene(disc("A", 100, 300)), [Flick("A", 800.0, 0.0), Flick("A", 400.0, 0.0, t=0.1)], CFG, None)
    v_at = 800.0 - A_FRICTION * 0.1 + 400.0
    expected = 800.0 * 0.1 - A_FRICTION * 0.1 ** 2 / 2 + v_at ** 2 / (2 * A_FRICTION)
    assert run.final.by_id()["A"].x - 100 == pytest.approx(expected, abs=1.5)
