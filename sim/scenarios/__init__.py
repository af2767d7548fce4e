"""Game scenarios for the simulated table: one module per game (``dino_dunk``, ``dodo_dash``,
``morris``, ``dogo_dash``), each building :class:`sim.scenarios.common.Scenario` records in mat mm."""
