"""A new server pays its one-off costs at start-up (`arena.web.app.warm_up`), not in a
visitor's first request: no template is compiled while a page is served."""

from __future__ import annotations

import jinja2
from starlette.testclient import TestClient

from arena.web.app import create_app


def test_a_new_servers_first_pages_compile_no_template(web_db, monkeypatch):
    app = create_app(str(web_db.path))
    compiled = []
    compile_template = jinja2.Environment.compile

    def recording(self, source, name=None, *args, **kwargs):
        compiled.append(name)
        return compile_template(self, source, name, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", recording)
    match_id = web_db.match_ids("fifth-avenue")[0]
    with TestClient(app) as client:
        for url in (f"/matches/{match_id}", "/", "/tournaments", "/matches/999999"):
            client.get(url)
    # base.html and macros.html (only extended and imported) were compiled here before
    assert compiled == []
