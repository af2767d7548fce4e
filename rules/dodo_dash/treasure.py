"""Treasure Hunt Variant (3-4 players): hunting when you reach or pass a racer, the return to the
nearest Base, immunity, and the end of the hunt."""

from __future__ import annotations


def hunt(g, r: int, origin: int, dest: int, forward: bool) -> bool:
    """Hunting after racer ``r`` moved from progress ``origin`` to ``dest``.

    Forward: every racer r reached (same hex) or passed is hunted by r. Backward: r moved back onto
    or past racers, who thereby reached or passed r (the rulebook's Round example c: Ivan is hit,
    moves back past William and William hunts him); the first of them without r's token hunts r.
    Returns True when r itself was hunted (and so sent to a Base)."""
    st = g.state
    tr = g.track
    rs = st["racers"]
    dist = abs(dest - origin)
    others = [i for i in g.order() if i != r]
    if forward:
        passed = []
        for i in others:
            k = (tr.hex(rs[i]["pos"]) - tr.hex(origin)) % tr.size
            if (k and k <= dist) or (not k and dist >= tr.size):
                passed.append((k or tr.size, i))
        for _, i in sorted(passed):
            if st["phase"] == "over":
                break
            take(g, r, i)
        return False
    cands = []
    for i in others:
        k = (tr.hex(origin) - tr.hex(rs[i]["pos"])) % tr.size
        if k and k <= dist:
            cands.append((k, i))
    for _, h in sorted(cands):
        if rs[r]["id"] in rs[h]["taken"]:
            continue
        return take(g, h, r)
    return False


def take(g, hunter: int, prey: int) -> bool:
    st = g.state
    rs = st["racers"]
    H, P = rs[hunter], rs[prey]
    if P["immune"]:
        g.ev("hunt_immune", hunter=H["id"], prey=P["id"])
        return False
    if P["id"] in H["taken"] or P["tokens"] <= 0:
        return False
    H["taken"].append(P["id"])
    P["tokens"] -= 1
    g.ev("hunt", hunter=H["id"], prey=P["id"])
    tr = g.track
    bases = st["layout"]["treasure_bases"][: len(rs)]
    back = min((tr.hex(P["pos"]) - b) % tr.size for b in bases)  # the nearest Base at or behind
    P["pos"] -= back
    P["immune"] = True
    P["base"] = tr.hex(P["pos"])
    g.ev("move", racer=P["id"], to=P["pos"], by=-back, cause="hunted")
    g.draw(prey, 3)
    if len(H["taken"]) == len(rs) - 1:
        st["result"] = {"winners": [H["id"]], "reason": "treasure_from_everyone"}
        st["phase"] = "over"
        st["queue"] = []
        st["pending"] = None
        g.ev("over", winners=[H["id"]], reason="treasure_from_everyone")
    return True


def end_of_hunt(g) -> None:
    """After the +11 step and one more round: most Treasure tokens, then most cards, else shared."""
    st = g.state
    rs = st["racers"]
    # "most Treasure tokens": the tokens in front of a player, their own left plus those taken
    best = max((R["tokens"] + len(R["taken"]), len(R["hand"])) for R in rs)
    winners = [R["id"] for R in rs if (R["tokens"] + len(R["taken"]), len(R["hand"])) == best]
    st["result"] = {"winners": winners, "reason": "most_treasure"}
    st["phase"] = "over"
    st["queue"] = []
    g.ev("over", winners=winners, reason="most_treasure")
