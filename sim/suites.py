"""Named, seeded scenario suites: ``make_scenario(suite, index, seed)`` builds scene ``index`` of
``suite``; the same (suite, index, seed) always gives the same scene, whatever else was generated
before it. Any size on demand: :func:`generate` yields ``count`` scenes from ``start``.

Suites (frame: mat mm; see the game modules in :mod:`sim.scenarios` for what each scene holds):

- ``dino-dunk/shots``      Shoot / Pass / Dunk / Move in turn, on both mats
- ``dino-dunk/fouls``      a disc flicked at the ball carrier: direct, chain, close
- ``dino-dunk/near-miss``  ball edge 0-3 mm inside/outside the zone; disc gap within 3 mm of a card
                           length; shooter 0-3 mm over/short of the three-point line; ball placed
                           within 3 mm of the standard-placement gap
- ``dodo-dash/throws``     the six projectiles in turn at 2-5 racers
- ``dodo-dash/near-miss``  an Egg passing a racer with a clearance of -3..3 mm
- ``morris/eggs``          one or two eggs off the toucan, whole or broken
- ``morris/near-miss``     an egg's edge 0-3 mm inside/outside the landing area
- ``dogo-dash/reveals``    2-5 cards revealed together in the seat zones
- ``dogo-dash/near-miss``  a card's corner 0-3 mm inside/outside its seat zone
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterator

from sim.scenarios.common import Scenario, ScenarioError

RETRIES = 20  # a scene whose random layout has no room is redrawn (deterministically) this many times


class SuiteError(LookupError):
    """An unknown suite name; the message lists the known ones."""


@dataclass(frozen=True)
class Suite:
    name: str
    game: str
    boards: tuple
    description: str
    make: Callable  # (rng, board, specs, cfg, index, seed) -> Scenario
    near_miss: bool = False


def _dd(fn_name: str, cycle: tuple | None):
    def make(rng, board, specs, cfg, index, seed):
        from sim.scenarios import dino_dunk

        fn = getattr(dino_dunk, fn_name)
        arg = cycle[index % len(cycle)] if cycle else None
        return fn(rng, board, specs, cfg, arg, seed=seed)

    return make


def _dodo_throw(rng, board, specs, cfg, index, seed):
    from sim.scenarios import dodo_dash

    return dodo_dash.make_throw(rng, board, specs, cfg, dodo_dash.PROJECTILES[index % len(dodo_dash.PROJECTILES)], seed=seed)


def _dodo_near(rng, board, specs, cfg, index, seed):
    from sim.scenarios import dodo_dash

    return dodo_dash.make_near_miss(rng, board, specs, cfg, seed=seed)


def _morris_eggs(rng, board, specs, cfg, index, seed):
    from sim.scenarios import morris

    return morris.make_slide(rng, board, specs, cfg, seed=seed)


def _morris_near(rng, board, specs, cfg, index, seed):
    from sim.scenarios import morris

    return morris.make_near_miss(rng, board, specs, cfg, seed=seed)


def _dogo_reveal(rng, board, specs, cfg, index, seed):
    from sim.scenarios import dogo_dash

    players = sorted(board.seats)
    return dogo_dash.make_reveal(rng, board, specs, cfg, players[index % len(players)], seed=seed)


def _dogo_near(rng, board, specs, cfg, index, seed):
    from sim.scenarios import dogo_dash

    return dogo_dash.make_near_miss(rng, board, specs, cfg, seed=seed)


DD_BOARDS = ("dino-dunk/crater-court", "dino-dunk/tropic-turf")
DODO_BOARDS = ("dodo-dash/dodorado-jungle", "dodo-dash/dodorado-temple")

SUITES = {s.name: s for s in [
    Suite("dino-dunk/shots", "dino-dunk", DD_BOARDS, "Shoot, Pass, Dunk and Move flicks in turn",
          _dd("make_shot", ("shoot", "pass", "dunk", "move"))),
    Suite("dino-dunk/fouls", "dino-dunk", DD_BOARDS, "a disc flicked at the ball carrier: direct, chain, close",
          _dd("make_foul", ("direct", "chain", "close"))),
    Suite("dino-dunk/near-miss", "dino-dunk", DD_BOARDS,
          "ball edge / disc gap / shooter edge / ball placement within 3 mm of the line",
          _dd("make_near_miss", ("zone-edge", "card-gap", "three-point", "placement-gap")), near_miss=True),
    Suite("dodo-dash/throws", "dodo-dash", DODO_BOARDS, "the six projectiles in turn at 2-5 racers", _dodo_throw),
    Suite("dodo-dash/near-miss", "dodo-dash", DODO_BOARDS, "an Egg passing a racer at -3..3 mm clearance", _dodo_near,
          near_miss=True),
    Suite("morris/eggs", "morris", ("morris/waterfall",), "one or two eggs off the toucan, whole or broken", _morris_eggs),
    Suite("morris/near-miss", "morris", ("morris/waterfall",), "an egg's edge within 3 mm of the landing area's edge",
          _morris_near, near_miss=True),
    Suite("dogo-dash/reveals", "dogo-dash", ("dogo-dash/table",), "2-5 cards revealed together in the seat zones",
          _dogo_reveal),
    Suite("dogo-dash/near-miss", "dogo-dash", ("dogo-dash/table",), "a card's corner within 3 mm of its seat zone's edge",
          _dogo_near, near_miss=True),
]}


def list_suites() -> list:
    return list(SUITES.values())


def get_suite(name: str) -> Suite:
    if name not in SUITES:
        raise SuiteError(f"unknown suite {name!r}; known suites: {', '.join(SUITES)} (see `tableref sim list`)")
    return SUITES[name]


def scene_seed(suite: str, index: int, seed: int = 0, attempt: int = 0) -> int:
    """The seed of scene ``index`` of ``suite`` under the suite seed ``seed`` (a 32-bit int)."""
    import numpy as np

    ss = np.random.SeedSequence([int(seed) & 0xFFFFFFFF, zlib.crc32(suite.encode()), int(index), int(attempt)])
    return int(ss.generate_state(1)[0])


@lru_cache(maxsize=16)
def _board(ref: str):
    from calibration.board import load_board

    return load_board(ref)


@lru_cache(maxsize=4)
def _defaults():
    from calibration.specs import load_specs
    from sim.config import load_sim_config

    return load_specs(), load_sim_config()


def make_scenario(suite: str, index: int, seed: int = 0, cfg=None, specs=None, board: str | None = None) -> Scenario:
    """Scene ``index`` of ``suite`` (reproducible from (suite, index, seed)). ``board`` forces one board
    ref; by default the suite's boards are drawn at random."""
    import numpy as np

    s = get_suite(suite)
    if board is not None and _board(board).game != s.game:
        raise SuiteError(f"board {board!r} is a {_board(board).game} board; suite {suite} needs a {s.game} board")
    d_specs, d_cfg = _defaults()
    specs = specs or d_specs
    cfg = cfg or d_cfg
    last = None
    for attempt in range(RETRIES):
        sseed = scene_seed(suite, index, seed, attempt)
        rng = np.random.default_rng(sseed)
        ref = board or s.boards[int(rng.integers(len(s.boards)))]
        try:
            scn = s.make(rng, _board(ref), specs, cfg, index, sseed)
        except ScenarioError as exc:
            last = exc
            continue
        scn.meta.update(suite=suite, index=int(index), suite_seed=int(seed), attempt=attempt)
        return scn
    raise ScenarioError(f"{suite} scene {index} (seed {seed}) could not be set up in {RETRIES} tries: {last}")


def generate(suite: str, count: int, seed: int = 0, start: int = 0, **kwargs) -> Iterator[Scenario]:
    """``count`` scenes of ``suite`` from index ``start``."""
    get_suite(suite)
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    for i in range(start, start + count):
        yield make_scenario(suite, i, seed, **kwargs)


def bench_suites(count: int = 50, seed: int = 0, names: tuple | None = None) -> list:
    """Scenes per second (physics + ground truth, no rendering) for each suite: rows of
    {suite, scenes, seconds, scenes_per_s, mean_settle_s, mean_contacts}."""
    import time

    from sim.truth import scenario_truth

    rows = []
    for name in names or tuple(SUITES):
        make_scenario(name, 0, seed)  # warm the board and config caches
        t0 = time.perf_counter()
        settle, contacts = [], []
        for scn in generate(name, count, seed, start=1):
            scenario_truth(scn, _board(scn.board))
            settle.append(scn.run.settle_time or 0.0)
            contacts.append(len(scn.run.contacts))
        dt = time.perf_counter() - t0
        rows.append({"suite": name, "scenes": count, "seconds": round(dt, 3), "scenes_per_s": round(count / dt, 1),
                     "mean_settle_s": round(sum(settle) / count, 3), "mean_contacts": round(sum(contacts) / count, 2)})
    return rows
