"""The replay viewer's details in Chromium: nothing drawn over the street, the end table's
headers apart, the Fifth Avenue map's labels inside their places and its owners told apart
by shape as well as by a colour-blind-safe colour (with a legend), Five Towers' tower names on
one line."""

from __future__ import annotations

import pytest

from browsing import WAIT_MS

# The Okabe–Ito palette: seats 0-4 and Alea (style.css --seat0...).
OKABE_ITO = ["rgb(213, 94, 0)", "rgb(0, 114, 178)", "rgb(0, 158, 115)", "rgb(204, 121, 167)", "rgb(230, 159, 0)"]


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, errors


def open_at_end(page, server, match_id: int) -> None:
    page.goto(f"{server}/matches/{match_id}")
    page.wait_for_selector('#v-board[data-frame="0"]')
    last = page.locator("#v-slider").get_attribute("max")
    page.keyboard.press("End")
    page.wait_for_selector(f'#v-board[data-frame="{last}"]')


def boxes(page, selector: str) -> list[dict]:
    return page.evaluate("(s) => [...document.querySelectorAll(s)].map((e) => { const r = e.getBoundingClientRect();"
                         " return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, text: e.textContent}; })",
                         selector)


def overlap(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def test_agent_avenue_end_banner_covers_no_street_space(page, server, web_db):
    open_at_end(page, server, web_db.match_ids("agent-avenue")[0])
    banner = boxes(page, '[data-testid="street-centre"] text')
    assert any("wins" in line["text"] for line in banner)
    spaces = boxes(page, ".aa-space rect")
    assert len(spaces) == 14
    assert not [(line["text"], i) for line in banner for i, space in enumerate(spaces) if overlap(line, space)]


def test_end_table_headers_stand_apart(page, server, web_db):
    open_at_end(page, server, web_db.match_ids("five-towers")[0])
    # Where each header's text is drawn (a range around its text, not the cell).
    words = page.evaluate("""() => [...document.querySelectorAll('.end-table th')].map((th) => {
        const range = document.createRange(); range.selectNodeContents(th); const r = range.getBoundingClientRect();
        return {text: th.textContent, left: r.left, right: r.right}; })""")
    assert [w["text"] for w in words] == ["seat", "score", "rank", "status"]
    gaps = [b["left"] - a["right"] for a, b in zip(words, words[1:])]
    assert min(gaps) >= 8, gaps


def test_fifth_avenue_labels_fit_their_places_and_owners_differ_by_shape_with_a_legend(page, server, web_db):
    open_at_end(page, server, web_db.match_ids("fifth-avenue")[0])
    park = boxes(page, '[data-place="central_park"] circle.fa-park')[0]
    for line in boxes(page, '[data-place="central_park"] .fa-place-name'):
        assert park["left"] < line["left"] and line["right"] < park["right"], line["text"]
    owners = page.evaluate("""() => [...document.querySelectorAll('.fa-plot .fa-owner')].map((e) => [
        e.closest('.fa-plot').dataset.owner, [...e.classList].find((c) => c.startsWith('shape-')), getComputedStyle(e).fill])""")
    assert len({who for who, _, _ in owners}) >= 2
    shapes = {who: shape for who, shape, _ in owners}
    assert len(set(shapes.values())) == len(shapes)  # one shape per owner
    for who, _, fill in owners:
        assert fill == OKABE_ITO[int(who)] if who != "alea" else fill == "rgb(0, 0, 0)"
    legend = page.locator('[data-testid="legend"]')
    for who, shape in shapes.items():
        item = legend.locator(".fa-legend-item", has=page.locator(f".fa-owner.{shape}"))
        assert ("Alea" if who == "alea" else f"seat {who}") in item.inner_text()
    assert "white commissioner" in legend.inner_text() and "beige commissioner" in legend.inner_text()
    assert page.locator("[data-commissioner=white]").first.evaluate("e => e.tagName") != \
        page.locator("[data-commissioner=beige]").first.evaluate("e => e.tagName")


@pytest.mark.parametrize("width", [390, 768, 1440])
def test_five_towers_tower_names_stay_on_one_line(browser, server, web_db, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    open_at_end(page, server, web_db.match_ids("five-towers")[0])
    # The last frame drawn again with tall towers: two-digit counts are the longest names.
    page.evaluate("""() => {
        const viewer = window.arenaViewer, frame = JSON.parse(JSON.stringify(viewer.current));
        frame.towers.forEach((towers) => { for (const colour of Object.keys(towers)) towers[colour] = Array(12).fill(3); });
        const ctx = {view: "full", seat: null, names: viewer.names, players: viewer.match.players};
        document.getElementById("v-board").replaceChildren(window.Arena.boards["five-towers"](frame, ctx)); }""")
    lines = page.evaluate("""() => [...document.querySelectorAll('.ft-tower-name')].map((e) => {
        const range = document.createRange(); range.selectNodeContents(e);
        return [e.textContent, new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size]; })""")
    context.close()
    assert lines and all(count == 1 for _, count in lines), [name for name, count in lines if count != 1]
