"""Static files under a content-hashed path, cached for a year as immutable.

All of ``static/`` is read once at start-up and hashed together; the hash is the first segment
of every asset URL (``/static/<hash>/js/app.js``). The JavaScript modules import each other with
relative paths, so they inherit the prefix: a repeat view fetches nothing but the page, and any
change to any file gives every asset a new URL. Generated JSON documents (the steppers' moments, the
scenarios, the scripts' message catalogue per language) are served the same way under ``/data/``.

Compression: pages and answers are compressed per response by Flask-Compress at a cheap level. The
assets never change while the app runs, so they are compressed once, at brotli's highest quality
(about 10% smaller than the per-response level, at a cost paid once per file and process), and kept.
A client that does not accept brotli gets the plain file, which Flask-Compress then gzips.
Flask-Compress's own cache (``COMPRESS_CACHE_BACKEND``) would keep what it made at the per-response
level instead: lesson 1's first view measured 40.8 KB with it rather than 37.7, past a lesson page's 40.

The stylesheet is served without its comments and spare whitespace (rcssmin, once at start-up): its
comments explain the rules to whoever edits them, and were a third of its compressed bytes. The
scripts lose their whole-line ``//`` comments (a quarter of their compressed bytes), each left as an
empty line so the line numbers in a browser's errors stay those of the file; nothing else of them
changes, since the Python JavaScript minifiers tried mangle nested template literals. So a comment goes
on a line of its own, above what it explains: one at the end of a line of code is sent to every reader.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
from functools import lru_cache
from pathlib import Path
from typing import Any

import brotli
import rcssmin
from flask import Blueprint, Flask, Response, abort, request

IMMUTABLE = "public, max-age=31536000, immutable"
COMPRESSIBLE = ("text/", "application/json", "image/svg+xml")
mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("image/svg+xml", ".svg")


# Part of the build hash: a change to what is stripped gives every asset a new URL.
STRIP_VERSION = b"line-comments-2"


def strip_line_comments(source: str) -> str:
    """A script with each line that holds only a ``//`` comment emptied. Lines inside a template
    literal that spans lines (a line with an odd number of unescaped backticks opens or closes one)
    or inside a ``/* */`` comment stay as they are."""
    out = []
    in_template = in_block = False
    for line in source.split("\n"):
        if not in_template and not in_block and line.lstrip().startswith("//"):
            out.append("")
            continue
        out.append(line)
        if in_block:
            in_block = "*/" not in line
        elif not in_template and "/*" in line and "*/" not in line.split("/*")[-1]:
            in_block = True
        elif (line.count("`") - line.count("\\`")) % 2:
            in_template = not in_template
    return "\n".join(out)


@lru_cache(maxsize=512)
def _brotli(data: bytes) -> bytes:
    """An asset at brotli's highest quality, compressed once per process (shared by every app in it)."""
    return brotli.compress(data, quality=11)


def asset_response(data: bytes, mimetype: str, cache: str) -> Response:
    """The asset's bytes, brotli-compressed ahead of time when the client takes brotli; otherwise plain
    (Flask-Compress, seeing no Content-Encoding, gzips it as it does every response)."""
    headers = {"Cache-Control": cache, "Vary": "Accept-Encoding"}
    if mimetype.startswith(COMPRESSIBLE) and len(data) >= 500 and request.accept_encodings["br"] > 0:
        headers["Content-Encoding"] = "br"
        data = _brotli(data)
    return Response(data, mimetype=mimetype, headers=headers)


class Assets:
    def __init__(self, root: Path, extra: dict[str, str] | None = None) -> None:
        self.files: dict[str, tuple[bytes, str]] = {}
        digest = hashlib.sha256(STRIP_VERSION)
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            rel = path.relative_to(root).as_posix()
            data = path.read_bytes()
            digest.update(rel.encode() + b"\0" + data + b"\0")
            if rel.endswith(".css"):
                data = rcssmin.cssmin(data)
            elif rel.endswith(".js"):
                data = strip_line_comments(data.decode()).encode()
            self.files[rel] = (data, mimetypes.guess_type(rel)[0] or "application/octet-stream")
        self._files_digest = digest
        self._fixed: dict[str, str] = {}  # documents that stay when the content is reloaded
        self._extra: dict[str, str] = {}
        self.set_data(extra or {})

    def set_data(self, extra: dict[str, str]) -> None:
        """Serve these generated JSON documents (content reloaded: new data, new build)."""
        self._extra = dict(extra)
        digest = self._files_digest.copy()
        data: dict[str, bytes] = {}
        for name, text in sorted({**self._extra, **self._fixed}.items()):
            digest.update(name.encode() + b"\0" + text.encode() + b"\0")
            data[name] = text.encode()
        self.data, self.build = data, digest.hexdigest()[:12]

    def add_documents(self, documents: dict[str, str]) -> None:
        """Serve these JSON documents for the app's lifetime, beside the content's (which a reload replaces)."""
        self._fixed.update(documents)
        self.set_data(self._extra)

    @staticmethod
    def json_text(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

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
        # An old page asks for an old build: serve today's file, but do not let it be cached.
        return asset_response(item[0], item[1], IMMUTABLE if build == self.build else "no-cache")

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
            return asset_response(body, "application/json", IMMUTABLE if build == self.build else "no-cache")

        return bp
