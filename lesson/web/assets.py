"""Static files under a content-hashed path, cached for a year as immutable.

All of ``static/`` is read once at start-up and hashed together; the hash is the first segment
of every asset URL (``/static/<hash>/js/app.js``). The JavaScript modules import each other with
relative paths, so they inherit the prefix: a repeat view fetches nothing but the page, and any
change to any file gives every asset a new URL. Compression is Flask-Compress's job.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort

IMMUTABLE = "public, max-age=31536000, immutable"
mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("image/svg+xml", ".svg")


class Assets:
    def __init__(self, root: Path, extra: dict[str, str] | None = None) -> None:
        self.files: dict[str, tuple[bytes, str]] = {}
        digest = hashlib.sha256()
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            rel = path.relative_to(root).as_posix()
            data = path.read_bytes()
            digest.update(rel.encode() + b"\0" + data + b"\0")
            self.files[rel] = (data, mimetypes.guess_type(rel)[0] or "application/octet-stream")
        self._files_digest = digest
        self.set_data(extra or {})

    def set_data(self, extra: dict[str, str]) -> None:
        """Serve these generated JSON documents (content reloaded: new data, new build)."""
        digest = self._files_digest.copy()
        data: dict[str, bytes] = {}
        for name, text in sorted(extra.items()):
            digest.update(name.encode() + b"\0" + text.encode() + b"\0")
            data[name] = text.encode()
        self.data, self.build = data, digest.hexdigest()[:12]

    @staticmethod
    def json_text(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"))

    def url(self, rel: str) -> str:
        if rel not in self.files:
            raise KeyError(f"no static file {rel!r}")
        return f"/static/{self.build}/{rel}"

    def data_url(self, name: str) -> str:
        return f"/data/{self.build}/{name}.json"

    def static(self, build: str, filename: str) -> Response:
        item = self.files.get(filename)
        if item is None:
            abort(404)
        if build != self.build:
            # An old page asks for an old build: serve today's file, but do not let it be cached.
            return Response(item[0], mimetype=item[1], headers={"Cache-Control": "no-cache"})
        return Response(item[0], mimetype=item[1], headers={"Cache-Control": IMMUTABLE})

    def init_app(self, app: Flask) -> None:
        """Serve ``/static/<build>/<filename>`` as Flask's own ``static`` endpoint, so
        ``url_for('static', filename=...)`` in any template gives the hashed URL too."""
        app.add_url_rule("/static/<build>/<path:filename>", endpoint="static", view_func=self.static)

        @app.url_defaults
        def _build(endpoint: str, values: dict[str, Any]) -> None:
            if endpoint == "static":
                values.setdefault("build", self.build)

        app.register_blueprint(self.blueprint())

    def blueprint(self) -> Blueprint:
        bp = Blueprint("assets", __name__)

        @bp.get("/data/<build>/<name>.json")
        def data(build: str, name: str) -> Response:
            body = self.data.get(name)
            if body is None:
                abort(404)
            cache = IMMUTABLE if build == self.build else "no-cache"
            return Response(body, mimetype="application/json", headers={"Cache-Control": cache})

        return bp
