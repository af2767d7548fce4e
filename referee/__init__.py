"""What happened? Calls on the board in **mat mm** with their margin: ``Verdict`` yes / no / too_close.

One concept per module, each a set of pure, batch-first functions (empty in, empty out):

- ``core``       :class:`~referee.core.Verdict`, evidence shapes, ``decide`` (too_close when
                 |margin| ≤ k σ), σ combination (registration and detection in quadrature)
- ``config``     ``config.yaml`` → frozen :class:`~referee.config.RefereeConfig` (k, readings, defaults)
- ``regions``    signed distance from points to a board region (exact circles, polygons)
- ``overlap``    disc over a region, out of bounds, shortest slide out of a zone / onto the mat
- ``lines``      outside the three-point line (centre / whole disc / any part), behind the foul line
- ``distance``   edge-to-edge gaps, card lengths, standard placement, placement areas
- ``sight``      line of sight past other tokens (any segment, default; or centre to centre)
- ``hexes``      Dodo Dash: hex of each racer, race order, zone-trap hexes, projectile footprints
- ``classify``   egg colour / face, a seat's revealed card: confidence in place of distance
- ``pieces``     naming an Observation's pieces; arrays and σ for the calls
- ``pending``    too_close facts proposed with the rule's default until a person decides
- ``adapters``   verdicts → each rules engine's fact actions
- ``questions``  the ``tableref judge --ask`` syntax
- ``evidence``   PNGs of the shapes on the top-down view and the camera frame
- ``bench``      ``tableref bench referee``

Imports ``calibration`` and the *types* of ``vision`` only; never its detectors.
"""
