"""Setup → assigning identities: which disc is which dinosaur (or racer), stored as ``identity``
rows of the match log, shown in the state, and handed to a live session's ``assign``."""

import pytest

from session.core import SessionError


@pytest.fixture
def dino(client):
    from webui.api import _example_setup

    r = client.post("/api/matches", json={"game": "dino-dunk", "board": "dino-dunk/tropic-turf",
                                          "setup": _example_setup("dino-dunk")})
    return r.get_json()["id"]


def test_names_offered_are_the_match_pieces(client, dino):
    r = client.get(f"/api/matches/{dino}/identities").get_json()
    assert "home:triceratops" in r["names"] and "ball" in r["names"] and r["identities"] == {}


def test_assign_by_track_and_position_newest_wins(client, dino):
    r = client.post(f"/api/matches/{dino}/identities", json={"name": "home:triceratops", "track": 4, "xy": [300, 200], "who": "Ana"})
    assert r.status_code == 201, r.get_json()
    ids = client.get(f"/api/matches/{dino}").get_json()["identities"]
    assert ids["home:triceratops"]["track"] == 4 and ids["home:triceratops"]["xy"] == [300.0, 200.0]
    assert ids["home:triceratops"]["who"] == "Ana"
    # the same track given another name: the old name lets go of it
    client.post(f"/api/matches/{dino}/identities", json={"name": "home:stegosaurus", "track": 4})
    ids = client.get(f"/api/matches/{dino}").get_json()["identities"]
    assert list(ids) == ["home:stegosaurus"]
    # by position only (no session running)
    client.post(f"/api/matches/{dino}/identities", json={"name": "ball", "xy": [457, 305]})
    assert client.get(f"/api/current").get_json()["identities"]["ball"]["track"] is None
    # clear
    assert client.post(f"/api/matches/{dino}/identities", json={"name": "ball", "clear": True}).status_code == 201
    assert "ball" not in client.get(f"/api/current").get_json()["identities"]
    kinds = [row["kind"] for row in client.get(f"/api/matches/{dino}/log").get_json()["rows"]]
    assert kinds == ["identity"] * 4  # append-only, the game itself untouched


@pytest.mark.parametrize("body, status, words", [
    ({"name": "home:unicorn", "track": 1}, 400, "not a piece of this match"),  # not in the roster
    ({"name": "", "track": 1}, 400, "name"),                                   # empty
    ({"name": "ball"}, 400, "track id or its position"),                        # which disc?
    ({"name": "ball", "track": "seven"}, 400, "track"),                         # not a number
    ({"name": "ball", "track": True}, 400, "track"),                            # a bool is not an id
    ({"name": "ball", "xy": [1, "a"]}, 400, "xy"),                              # bad position
    ({"name": "ball", "xy": [1e300, 0]}, 400, "xy"),                            # absurd position
    ({"name": "ball", "clear": True}, 409, "no identity"),                      # nothing to clear
    ({"name": ["ball"], "track": 1}, 400, "name"),                              # wrong type
])
def test_bad_identities_are_4xx(client, dino, body, status, words):
    r = client.post(f"/api/matches/{dino}/identities", json=body)
    assert r.status_code == status and words in r.get_json()["error"], r.get_json()


def test_unknown_match_is_404(client):
    assert client.post("/api/matches/0123456789abcdef/identities", json={"name": "x", "track": 1}).status_code == 404


class FakeSession:
    def __init__(self):
        self.assigned = []

    def assign(self, track_id, name):
        if track_id == 99:
            raise SessionError("no track 99; tracks now: [1, 2]")
        self.assigned.append((track_id, name))


def test_a_live_session_is_told(app, client, dino):
    session = FakeSession()
    app.extensions["tableref.session"] = session
    assert client.post(f"/api/matches/{dino}/identities", json={"name": "away:spinosaurus", "track": 2}).status_code == 201
    assert session.assigned == [(2, "away:spinosaurus")]
    r = client.post(f"/api/matches/{dino}/identities", json={"name": "away:spinosaurus", "track": 99})
    assert r.status_code == 400 and "no track 99" in r.get_json()["error"]
    assert len(client.get(f"/api/matches/{dino}/log").get_json()["rows"]) == 1  # refused: nothing appended


def test_session_follows_identity_rows_through_the_link(app, client, dino):
    from webui.link import TableLink

    client.post(f"/api/matches/{dino}/identities", json={"name": "home:triceratops", "track": 3})
    link = TableLink(app)
    try:
        rows = link.rows_since(0)
        assert rows[-1]["kind"] == "identity" and rows[-1]["data"]["name"] == "home:triceratops"
        assert link.identities()["home:triceratops"]["track"] == 3
    finally:
        link.close()


def test_free_names_for_games_without_a_roster(client, started):
    r = client.post(f"/api/matches/{started}/identities", json={"name": "Pat's dog", "xy": [10, 10]})
    assert r.status_code == 201 and "Pat's dog" in r.get_json()["identities"]


class GuessingSession:
    """A table session's view of its names: where each was last seen."""

    def positions(self):
        return {"home:triceratops": (300.0, 200.0), "home:stegosaurus": (330.0, 200.0)}


def test_names_a_session_gave_in_doubt_are_shown_until_a_person_names_the_disc(app, client, dino):
    from webui.demo_session import post_doubtful_names
    from webui.link import TableLink

    events = [{"kind": "identify", "name": "home:triceratops", "track": 7, "unsure": True,
               "why": "2 pieces of kind disc-medium home were lost at once; please check"},
              {"kind": "identify", "name": "home:stegosaurus", "track": 8},  # a sure one: the session's own
              {"kind": "identify", "name": "home:unicorn", "track": 9, "unsure": True, "why": "?"},  # not in the match
              {"kind": "flick", "state": "settled"}]
    link = TableLink(app)
    try:
        assert post_doubtful_names(link, GuessingSession(), events, dino) == 1
    finally:
        link.close()
    ids = client.get(f"/api/matches/{dino}").get_json()["identities"]
    assert list(ids) == ["home:triceratops"]
    assert ids["home:triceratops"]["unsure"] and "lost at once" in ids["home:triceratops"]["why"]
    assert ids["home:triceratops"]["track"] == 7 and ids["home:triceratops"]["xy"] == [300.0, 200.0]
    # a person names the disc: the newest row wins, no longer in doubt
    client.post(f"/api/matches/{dino}/identities", json={"name": "home:triceratops", "track": 7, "who": "Ana"})
    ids = client.get(f"/api/matches/{dino}").get_json()["identities"]
    assert not ids["home:triceratops"]["unsure"] and ids["home:triceratops"]["who"] == "Ana"
