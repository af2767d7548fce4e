"""Every endpoint added for setup and disputes answers odd bodies with a 4xx and a message, never a
500 (a table of endpoints times bodies of the wrong shape)."""

import pytest

ODD_BODIES = [
    {},                                                        # nothing
    {"board": 5, "name": 5, "task": 5, "profile": 5},          # numbers where text is expected
    {"board": ["x"], "who": ["x"], "reason": {"a": 1}},        # lists and objects
    {"board": "dino-dunk/../../etc", "piece": "../x"},         # traversal attempts
    {"xy": [None, None], "radius": "big", "track": -1},        # bad numbers
    {"name": "ball", "track": 1.5, "clear": "yes"},            # a fractional track
    {"task": "team", "profile": "p", "folds": True},           # a bool for a number
]


@pytest.mark.parametrize("url", [
    "/api/selftest/measure", "/api/selftest/empty", "/api/camera/views", "/api/camera/solve", "/api/teach/run",
    "/api/teach/examples/team/green", "/api/calls/0123456789abcdef/dispute", "/api/calls/0123456789abcdef/decision",
    "/api/matches/{mid}/identities",
])
@pytest.mark.parametrize("body", ODD_BODIES)
def test_odd_bodies_are_4xx(client, started, url, body):
    r = client.post(url.format(mid=started), json=body)
    assert 400 <= r.status_code < 500, (url, body, r.status_code, r.data[:200])
    assert r.get_json()["error"]


def test_profile_put_odd_bodies(client):
    for body in ({}, {"profile": 3}, {"profile": "../../etc"}, {"profile": ["a"]}):
        r = client.put("/api/profile", json=body)
        assert r.status_code == 400 if body else r.status_code in (200, 400)
