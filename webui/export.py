"""A match as a zip: ``match.json`` (the match and every log row), ``events.jsonl`` (one row a line)
and ``evidence/<id>.<ext>`` (every evidence image of the match). Names inside the zip come from ids
in the record, never from a request."""

from __future__ import annotations

import io
import json
import zipfile

from webui.store import Store


def export_zip(store: Store, match_id: str) -> bytes:
    match = store.match(match_id)
    rows = store.rows(match_id)
    evidence = store.evidence_of(match_id)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("match.json", json.dumps({"schema": "tableref-match/1", "match": match, "log": rows,
                                             "evidence": evidence}, indent=1))
        z.writestr("events.jsonl", "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
        for e in evidence:
            path = store.evidence_path(e["id"], e["mime"])
            if path.exists():
                z.write(path, f"evidence/{path.name}", compress_type=zipfile.ZIP_STORED)
    return buf.getvalue()
