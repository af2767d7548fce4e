"""Pieces sliding on the mat (pymunk 7), frame **mat mm**, units mm, s, g.

``simulate(scene, actions, cfg, play_area)`` takes the pieces at rest (a :class:`sim.scene.Scene`)
and what the players do to them (:class:`Flick`, :class:`Launch`, :class:`Carry`), steps the world
until every piece has settled, and returns a :class:`Run`: the recorded frames (Scenes at ``cfg.fps``),
the contact log in time order, the events (out of bounds, ball fell, landed) and the settle time.

Model
- Coulomb table friction: a sliding piece decelerates by ``table_mu * g`` (through
  ``body.velocity_func``), its spin by ``spin_decel_rad_s2``; restitution and friction between
  pieces in contact. Static kinds (backboard, cards, figures that do not move) are static bodies.
- A flick is an impulse on one piece (given as the velocity it gives, mm/s).
- An airborne piece (``z > 0``, a thrown token, a ball falling off its carrier) flies ballistically
  (plus a lateral ``curve`` acceleration), collides only with pieces taller than its height above
  the mat, and on landing keeps ``bounce`` of its horizontal speed; pieces it lands on are logged as
  ``landing`` contacts.
- A carried ball rides on top of its carrier (``z`` = carrier height) and falls off when the
  carrier's acceleration passes ``max_accel_mm_s2`` (or at once when flicked faster than
  ``max_launch_mm_s``); a jolt throws it over the carrier's edge with the carrier's previous
  velocity, a too-fast flick slides the carrier out from under it and it drops where it was.
- A piece is out of bounds once its footprint is completely outside the play area; it stops there.

The contact log: one :class:`Contact` per touch with an impulse of at least ``min_contact_impulse``;
its time is refined inside the physics step from the penetration depth and the closing speed (so it
is exact to well under one step for straight-line approaches). ``a`` is the striker (the piece
approaching faster along the contact normal).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from sim.config import PhysicsConfig
from sim.scene import PieceState, Scene


BOX_KINDS = ("log", "backboard", "card", "character-card", "exhibition-card", "movement-card")


def is_box(p: PieceState) -> bool:
    """Whether a piece's footprint is its rotated ``size`` rectangle (else the disc of ``radius``)."""
    return bool(p.size) and (p.radius <= 0 or p.kind in BOX_KINDS)


class PhysicsError(ValueError):
    """A simulation was asked for something impossible (unknown piece, overlapping start...)."""


# --- what players do ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Flick:
    """At time ``t`` (s) an impulse on ``piece`` that changes its velocity by (vx, vy) mm/s (mat mm
    frame) and its spin by ``spin`` rad/s: the impulse is mass x (vx, vy) g·mm/s. A piece at rest
    leaves at exactly (vx, vy)."""

    piece: str
    vx: float
    vy: float
    t: float = 0.0
    spin: float = 0.0


@dataclass(frozen=True)
class Launch:
    """At time ``t`` put ``piece`` in the air at base (x, y) mat mm, height ``z`` mm, with velocity
    (vx, vy, vz) mm/s and a constant lateral acceleration (ax, ay) mm/s² while airborne (a curve).
    On landing it keeps ``bounce`` of its horizontal speed."""

    piece: str
    x: float
    y: float
    z: float
    vx: float = 0.0
    vy: float = 0.0
    vz: float = 0.0
    ax: float = 0.0
    ay: float = 0.0
    t: float = 0.0
    bounce: float = 0.35


@dataclass(frozen=True)
class Carry:
    """``piece`` rides on top of ``carrier`` at (dx, dy) mm from its centre (carrier frame at
    angle 0 = mat axes), until the carrier's acceleration passes ``max_accel_mm_s2`` or the carrier is
    flicked faster than ``max_launch_mm_s``."""

    piece: str
    carrier: str
    dx: float = 0.0
    dy: float = 0.0
    max_accel_mm_s2: float = 6000.0
    max_launch_mm_s: float = 1e9
    t: float = 0.0


# --- what happened -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Contact:
    """``a`` (the striker) touched ``b`` at time ``t`` s, at point (x, y) mat mm, normal (nx, ny) from
    a to b, with a total ``impulse`` g·mm/s over the touch. ``kind``: collision | landing."""

    t: float
    a: str
    b: str
    impulse: float
    x: float
    y: float
    nx: float = 0.0
    ny: float = 0.0
    kind: str = "collision"

    def pair(self) -> frozenset:
        return frozenset((self.a, self.b))

    def to_dict(self) -> dict:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class Event:
    """``kind``: out-of-bounds | ball-fell | landed; at time ``t`` s, at (x, y) mat mm."""

    t: float
    kind: str
    piece: str
    x: float
    y: float

    def to_dict(self) -> dict:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}


@dataclass
class Run:
    """A simulated run: ``frames`` Scenes at ``fps`` from t = 0 to the end (the last is the final,
    settled state), ``contacts`` in time order, ``events`` in time order, ``settle_time`` s (None when
    the run hit ``max_time_s`` first)."""

    frames: list
    contacts: list
    events: list
    settle_time: float | None
    fps: float

    @property
    def final(self) -> Scene:
        return self.frames[-1]

    def out_of_bounds(self) -> dict:
        return {e.piece: e for e in self.events if e.kind == "out-of-bounds"}


# --- the world -----------------------------------------------------------------------------------


@dataclass
class _Body:
    piece: PieceState
    body: object = None
    shape: object = None
    static: bool = False
    z: float = 0.0
    vz: float = 0.0
    ax: float = 0.0
    ay: float = 0.0
    bounce: float = 0.35
    out: bool = False
    carry: Carry | None = None
    mu: float = 0.3
    extra: dict = field(default_factory=dict)

    @property
    def airborne(self) -> bool:
        return self.z > 0.0 and self.carry is None


def simulate(scene: Scene, actions: list, cfg: PhysicsConfig, play_area=None, max_time_s: float | None = None) -> Run:
    """Run ``actions`` on ``scene`` (positions in mat mm) until settled. ``play_area`` is a shapely
    geometry in mat mm (None: no out of bounds). Pure: the input scene is not modified."""
    world = _World(scene, cfg, play_area)
    return world.run(sorted(actions, key=lambda a: getattr(a, "t", 0.0)), cfg.max_time_s if max_time_s is None else max_time_s)


class _World:
    def __init__(self, scene: Scene, cfg: PhysicsConfig, play_area):
        import pymunk

        self.pymunk = pymunk
        self.cfg = cfg
        self.scene = scene
        self.play_area = play_area
        self.area_rect = None  # (x0, y0, x1, y1) when the play area is an axis-aligned rectangle
        if play_area is not None:
            x0, y0, x1, y1 = play_area.bounds
            if abs(play_area.area - (x1 - x0) * (y1 - y0)) < 1e-6 * max(play_area.area, 1.0):
                self.area_rect = (x0, y0, x1, y1)
        self.space = pymunk.Space()
        self.space.iterations = cfg.iterations
        self.space.collision_slop = 0.01
        # pieces at rest sleep (no per-step Python callbacks) until something touches them
        self.space.idle_speed_threshold = cfg.settle_speed_mm_s / 4.0
        self.space.sleep_time_threshold = 0.02
        self.t = 0.0
        self.items: dict[str, _Body] = {}
        self.by_shape = {}
        self.contacts: list[Contact] = []
        self.events: list[Event] = []
        self.active: dict = {}  # frozenset pair -> state of an ongoing touch
        self.landing_pairs: dict = {}  # frozenset pair -> index of its landing contact
        for p in scene.pieces:
            if p.id in self.items:
                raise PhysicsError(f"two pieces share the id {p.id!r}; give every piece its own id")
            self._add(p)
        self.space.on_collision(None, None, pre_solve=self._pre_solve, post_solve=self._post_solve, separate=self._separate)

    # construction
    def _add(self, p: PieceState) -> None:
        pm = self.pymunk
        kp = self.cfg.kind(p.kind)
        static = kp.static or bool(p.attributes.get("static", False))
        item = _Body(piece=p, static=static, z=p.z, mu=self.cfg.table_mu if kp.table_mu is None else kp.table_mu)
        if is_box(p):
            length, width = float(p.size[0]), float(p.size[1])
            area = length * width
        else:
            if p.radius <= 0:
                raise PhysicsError(f"piece {p.id!r} ({p.kind}) has neither a radius nor a size")
            length = width = None
            area = math.pi * p.radius ** 2
        mass = kp.mass_g if kp.mass_g is not None else max(self.cfg.density_g_mm3 * area * max(p.height, 1.0), 0.05)
        if static:
            body = pm.Body(body_type=pm.Body.STATIC)
        elif length is None:
            body = pm.Body(mass, pm.moment_for_circle(mass, 0, p.radius))
        else:
            body = pm.Body(mass, pm.moment_for_box(mass, (length, width)))
        body.position = (p.x, p.y)
        body.angle = math.radians(p.angle_deg)
        shape = pm.Circle(body, p.radius) if length is None else pm.Poly.create_box(body, (length, width))
        # pymunk multiplies the two shapes' values: store square roots so a pair gets the configured one
        shape.elasticity = math.sqrt(self.cfg.restitution if kp.restitution is None else kp.restitution)
        shape.friction = math.sqrt(self.cfg.piece_mu)
        if not static:
            body.velocity = (p.vx, p.vy)
            body.velocity_func = self._velocity_func(item)
        self.space.add(body, shape)
        item.body, item.shape = body, shape
        self.items[p.id] = item
        self.by_shape[shape] = item

    def _velocity_func(self, item: _Body):
        g = self.cfg.gravity_mm_s2
        spin_decel = self.cfg.spin_decel_rad_s2

        def update(body, gravity, damping, dt):
            vx, vy = body.velocity
            if item.carry is not None:
                return
            if item.z > 0.0:  # airborne: no table friction, a lateral (curve) acceleration
                body.velocity = (vx + item.ax * dt, vy + item.ay * dt)
                return
            w = body.angular_velocity
            if vx == 0.0 and vy == 0.0 and w == 0.0:
                return  # at rest: setting a velocity would wake a sleeping body
            speed = math.hypot(vx, vy)
            drop = item.mu * g * dt
            if speed <= drop:
                body.velocity = (0.0, 0.0)
            else:
                k = (speed - drop) / speed
                body.velocity = (vx * k, vy * k)
            if w != 0.0:
                body.angular_velocity = 0.0 if abs(w) <= spin_decel * dt else w - math.copysign(spin_decel * dt, w)

        return update

    # collision callbacks
    def _collides(self, a: _Body, b: _Body) -> bool:
        if a.carry is not None or b.carry is not None or a.out or b.out:
            return False
        # an airborne piece passes over pieces lower than its base
        if a.z > 0.0 and a.z >= b.z + b.piece.height:
            return False
        if b.z > 0.0 and b.z >= a.z + a.piece.height:
            return False
        return True

    def _pre_solve(self, arbiter, space, data) -> None:
        sa, sb = arbiter.shapes
        a, b = self.by_shape.get(sa), self.by_shape.get(sb)
        if a is None or b is None or not self._collides(a, b):
            arbiter.process_collision = False
            return
        # the flag stays on the pair's arbiter from step to step: a piece that came over another
        # higher than its top and comes down while they still overlap collides from then on
        arbiter.process_collision = True
        key = frozenset((a.piece.id, b.piece.id))
        if key in self.active:
            return
        cps = arbiter.contact_point_set
        n = cps.normal
        va, vb = a.body.velocity, b.body.velocity
        approach_a = va.x * n.x + va.y * n.y
        approach_b = -(vb.x * n.x + vb.y * n.y)
        closing = approach_a + approach_b
        depth = max((-pt.distance for pt in cps.points), default=0.0)
        delta = min(depth / closing, self.cfg.dt_s) if closing > 1e-9 and depth > 0 else 0.0
        if cps.points:
            px = sum((pt.point_a.x + pt.point_b.x) / 2 for pt in cps.points) / len(cps.points)
            py = sum((pt.point_a.y + pt.point_b.y) / 2 for pt in cps.points) / len(cps.points)
            px -= (va.x + vb.x) / 2 * delta
            py -= (va.y + vb.y) / 2 * delta
        else:
            px, py = (a.body.position.x + b.body.position.x) / 2, (a.body.position.y + b.body.position.y) / 2
        striker_first = approach_a >= approach_b
        self.active[key] = {
            "t": self.t + self.cfg.dt_s - delta, "a": a if striker_first else b, "b": b if striker_first else a,
            "x": px, "y": py, "n": (n.x, n.y) if striker_first else (-n.x, -n.y), "impulse": 0.0,
            "logged": self.landing_pairs.pop(key, None),  # the push-out after a landing adds to it
        }

    def _post_solve(self, arbiter, space, data) -> None:
        sa, sb = arbiter.shapes
        a, b = self.by_shape.get(sa), self.by_shape.get(sb)
        if a is None or b is None:
            return
        st = self.active.get(frozenset((a.piece.id, b.piece.id)))
        if st is None:
            return
        imp = arbiter.total_impulse
        st["impulse"] += math.hypot(imp.x, imp.y)
        if st["logged"] is None and st["impulse"] >= self.cfg.min_contact_impulse:
            fresh = st["t"] >= self.t  # reached the threshold in the step it began
            t = st["t"] if fresh else self.t + self.cfg.dt_s
            st["logged"] = len(self.contacts)
            self.contacts.append(Contact(t, st["a"].piece.id, st["b"].piece.id, 0.0, st["x"], st["y"], st["n"][0], st["n"][1]))
        if st["logged"] is not None:
            c = self.contacts[st["logged"]]
            self.contacts[st["logged"]] = Contact(c.t, c.a, c.b, st["impulse"], c.x, c.y, c.nx, c.ny, c.kind)

    def _separate(self, arbiter, space, data) -> None:
        sa, sb = arbiter.shapes
        a, b = self.by_shape.get(sa), self.by_shape.get(sb)
        if a is not None and b is not None:
            self.active.pop(frozenset((a.piece.id, b.piece.id)), None)

    # actions
    def _apply(self, action) -> None:
        if action.piece not in self.items:
            raise PhysicsError(f"{type(action).__name__} names the piece {action.piece!r}, which is not in the scene")
        item = self.items[action.piece]
        if item.static:
            raise PhysicsError(f"piece {action.piece!r} ({item.piece.kind}) is static and cannot be moved")
        item.body.activate()
        if isinstance(action, Flick):
            m = item.body.mass
            item.body.apply_impulse_at_world_point((m * action.vx, m * action.vy), item.body.position)
            item.body.angular_velocity = item.body.angular_velocity + action.spin
            for other in self.items.values():
                c = other.carry
                if c is not None and c.carrier == action.piece and math.hypot(action.vx, action.vy) > c.max_launch_mm_s:
                    self._fall(other, (0.0, 0.0), over_edge=False)
        elif isinstance(action, Launch):
            item.body.position = (action.x, action.y)
            item.body.velocity = (action.vx, action.vy)
            item.z, item.vz, item.ax, item.ay, item.bounce = action.z, action.vz, action.ax, action.ay, action.bounce
            self.space.reindex_shapes_for_body(item.body)
        elif isinstance(action, Carry):
            if action.carrier not in self.items:
                raise PhysicsError(f"Carry names the carrier {action.carrier!r}, which is not in the scene")
            item.carry = action
            self._place_carried(item)
        else:
            raise PhysicsError(f"unknown action {action!r}")

    def _place_carried(self, item: _Body) -> None:
        carrier = self.items[item.carry.carrier]
        pos = carrier.body.local_to_world((item.carry.dx, item.carry.dy))
        item.body.position = pos
        item.body.velocity = carrier.body.velocity
        item.z = carrier.z + carrier.piece.height

    def _fall(self, item: _Body, velocity, over_edge: bool = True) -> None:
        """The carried ``item`` falls with ``velocity`` (mm/s, mat mm): thrown over its carrier's edge
        by a jolt (``over_edge``), or, when the carrier is flicked out from under it, from where it
        was (it drops behind the carrier as the carrier slides away)."""
        carrier = self.items[item.carry.carrier]
        if over_edge:
            cx, cy = carrier.body.position
            dx, dy = item.carry.dx, item.carry.dy
            ang = carrier.body.angle
            ox, oy = dx * math.cos(ang) - dy * math.sin(ang), dx * math.sin(ang) + dy * math.cos(ang)
            norm = math.hypot(ox, oy) or 1.0
            reach = carrier.piece.radius + item.piece.radius + 0.5
            item.body.position = (cx + ox / norm * reach, cy + oy / norm * reach)
        item.body.velocity = velocity
        item.z = carrier.z + carrier.piece.height
        item.vz, item.ax, item.ay, item.bounce = 0.0, 0.0, 0.0, 0.6
        item.carry = None
        item.body.activate()
        self.space.reindex_shapes_for_body(item.body)
        self.events.append(Event(self.t, "ball-fell", item.piece.id, float(item.body.position.x), float(item.body.position.y)))

    # stepping
    def _snapshot(self) -> Scene:
        pieces = []
        for pid, item in self.items.items():
            p = item.piece
            pos, vel = item.body.position, item.body.velocity
            attrs = dict(p.attributes)
            attrs.pop("carried_by", None)
            if item.out:
                attrs["out_of_bounds"] = True
            if item.carry is not None:
                attrs["carried_by"] = item.carry.carrier
            pieces.append(PieceState(pid, p.kind, float(pos.x), float(pos.y), p.radius, p.height,
                                     math.degrees(item.body.angle), p.size, float(item.z),
                                     0.0 if item.static or item.out else float(vel.x),
                                     0.0 if item.static or item.out else float(vel.y), attrs))
        return Scene(self.scene.game, self.scene.board, pieces, round(self.t, 9))

    def _check_out(self, item: _Body) -> None:
        if self.play_area is None or item.out or item.static or item.z > 0 or item.carry is not None or item.body.is_sleeping:
            return
        pos = item.body.position
        reach = item.piece.radius if not item.piece.size else math.hypot(*item.piece.size) / 2
        if self.area_rect is not None:
            x0, y0, x1, y1 = self.area_rect
            outside = math.hypot(max(x0 - pos.x, 0.0, pos.x - x1), max(y0 - pos.y, 0.0, pos.y - y1))
        else:
            from shapely.geometry import Point

            outside = self.play_area.distance(Point(pos.x, pos.y))
        if outside <= reach:
            return
        if item.piece.size and item.shape is not None:  # a box: exact test on its corners' polygon
            from shapely.geometry import Polygon

            pts = [item.body.local_to_world(v) for v in item.shape.get_vertices()]
            if Polygon([(v.x, v.y) for v in pts]).intersects(self.play_area):
                return
        item.out = True
        item.body.velocity = (0.0, 0.0)
        item.body.angular_velocity = 0.0
        self.space.remove(item.shape)
        self.events.append(Event(self.t, "out-of-bounds", item.piece.id, float(pos.x), float(pos.y)))

    def _land(self, item: _Body) -> None:
        item.z, item.vz, item.ax, item.ay = 0.0, 0.0, 0.0, 0.0
        item.body.activate()
        vx, vy = item.body.velocity
        item.body.velocity = (vx * item.bounce, vy * item.bounce)
        pos = item.body.position
        self.events.append(Event(self.t, "landed", item.piece.id, float(pos.x), float(pos.y)))
        for info in self.space.shape_query(item.shape):
            other = self.by_shape.get(info.shape)
            if other is None or other is item or other.out or other.carry is not None or other.z > 0:
                continue
            pts = info.contact_point_set.points
            px = sum(p.point_a.x for p in pts) / len(pts) if pts else (pos.x + other.body.position.x) / 2
            py = sum(p.point_a.y for p in pts) / len(pts) if pts else (pos.y + other.body.position.y) / 2
            dx, dy = other.body.position.x - pos.x, other.body.position.y - pos.y
            d = math.hypot(dx, dy) or 1.0
            self.landing_pairs[frozenset((item.piece.id, other.piece.id))] = len(self.contacts)
            self.contacts.append(Contact(self.t, item.piece.id, other.piece.id, 0.0, float(px), float(py), dx / d, dy / d, "landing"))

    def _settled(self) -> bool:
        for item in self.items.values():
            if item.static or item.out:
                continue
            if item.z > 0 and item.carry is None:
                return False
            v = item.body.velocity
            if math.hypot(v.x, v.y) >= self.cfg.settle_speed_mm_s or abs(item.body.angular_velocity) >= self.cfg.settle_spin_rad_s:
                return False
        return True

    def run(self, actions: list, max_time: float) -> Run:
        dt = self.cfg.dt_s
        g = self.cfg.gravity_mm_s2
        frame_dt = 1.0 / self.cfg.fps
        pending = list(actions)
        frames = []
        next_frame = 0.0
        settle = None
        steps = int(math.ceil(max_time / dt))
        i = 0
        while True:
            self.t = i * dt
            while pending and pending[0].t <= self.t + 1e-12:
                self._apply(pending.pop(0))
            if self.t + 1e-9 >= next_frame:
                frames.append(self._snapshot())
                next_frame += frame_dt
            if not pending and i > 0 and self._settled():
                settle = self.t
                break
            if i >= steps:
                break
            carriers = {it.carry.carrier for it in self.items.values() if it.carry is not None}
            prev = {pid: tuple(self.items[pid].body.velocity) for pid in carriers}
            self.space.step(dt)
            i += 1
            self.t = i * dt
            for item in self.items.values():
                if item.static or (item.body.is_sleeping and item.carry is None and item.z <= 0.0):
                    continue
                if item.carry is not None:
                    carrier = self.items[item.carry.carrier]
                    v0 = prev[carrier.piece.id]
                    v1 = carrier.body.velocity
                    accel = math.hypot(v1.x - v0[0], v1.y - v0[1]) / dt
                    if accel > item.carry.max_accel_mm_s2:
                        self._fall(item, v0)
                    else:
                        self._place_carried(item)
                elif item.z > 0.0:
                    item.vz -= g * dt
                    item.z += item.vz * dt
                    if item.z <= 0.0:
                        self._land(item)
                self._check_out(item)
        self.t = round(self.t, 9)
        for item in self.items.values():
            if not item.static and not item.out and settle is not None:
                item.body.velocity = (0.0, 0.0)
                item.body.angular_velocity = 0.0
        final = self._snapshot()
        if frames and frames[-1].t == final.t:
            frames[-1] = final
        else:
            frames.append(final)
        contacts = sorted(self.contacts, key=lambda c: c.t)
        return Run(frames, contacts, sorted(self.events, key=lambda e: e.t), settle, self.cfg.fps)


# --- the contact log as answers --------------------------------------------------------------------


def touched(contacts: list, piece: str, kinds: tuple = ("collision", "landing")) -> list:
    """Ids ``piece`` touched (either side of a contact), in order of their first touch."""
    out = []
    for c in sorted(contacts, key=lambda c: c.t):
        if c.kind not in kinds or piece not in (c.a, c.b):
            continue
        other = c.b if c.a == piece else c.a
        if other not in out:
            out.append(other)
    return out


def first_touch(contacts: list, piece: str, among: set | None = None) -> str | None:
    """The first piece ``piece`` touched (restricted to ids in ``among`` when given), or None."""
    for other in touched(contacts, piece):
        if among is None or other in among:
            return other
    return None


def causal_tree(contacts: list, origin: str, static: set | frozenset = frozenset()) -> dict:
    """Who set whom in motion, starting from ``origin`` (the flicked piece): id -> (parent id, t).

    Walks the contact log in time order: a contact between a piece already in motion because of
    ``origin`` and another piece puts the other in the tree with that parent. ``origin`` maps to
    (None, 0.0). Pieces in ``static`` (a backboard) are never set in motion and pass nothing on.
    A chain "A pushes B into C" is the path C -> B -> A (see :func:`chain_to`)."""
    tree = {origin: (None, 0.0)}
    for c in sorted(contacts, key=lambda c: c.t):
        if c.a in static or c.b in static:
            continue
        a_in, b_in = c.a in tree, c.b in tree
        if a_in and not b_in:
            tree[c.b] = (c.a, c.t)
        elif b_in and not a_in:
            tree[c.a] = (c.b, c.t)
    return tree


def chain_to(tree: dict, piece: str) -> list:
    """The chain from the origin to ``piece`` as a list of ids ([origin, ..., piece]); [] if none."""
    if piece not in tree:
        return []
    path = [piece]
    while tree[path[-1]][0] is not None:
        path.append(tree[path[-1]][0])
    return path[::-1]
