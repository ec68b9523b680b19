"""Every page of the web app at a phone's, a tablet's and a desktop's width (390, 768 and
1440 px) in Chromium: nothing makes the page scroll sideways, and no text is cut off — not
clipped by its box, not spilling out of it, not outside the drawing it labels.

Screenshots of every page at every width go to the test's tmp folder; with
ARENA_SCREENSHOTS=DIR the few that docs/web.md shows (`IN_THE_DOCS`) are also saved there.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from browsing import WAIT_MS

WIDTHS = (390, 768, 1440)
IN_THE_DOCS = {"fifth-avenue-end-390", "leaderboard-390", "tournament-768"}

# What is wrong with the page as it is laid out, as sentences (empty: nothing).
PROBLEMS = r"""() => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.getAttribute("class") ? "." + el.getAttribute("class").trim().split(/\s+/).join(".") : "") +
    " «" + (el.textContent || "").trim().slice(0, 40) + "»";
  // The boxes meant to scroll sideways: a wide table's .scroll box, a stderr text.
  const scroller = (el) => el.classList.contains("scroll") || el.tagName === "PRE" || el.classList.contains("console-text");
  const clipper = (el) => { for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) if (getComputedStyle(a).overflowX !== "visible") return a; return null; };
  if (document.documentElement.scrollWidth > width) problems.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " px > " + width + " px");
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden" || el.closest("details:not([open]) > :not(summary)")) continue;
    const box = el.getBoundingClientRect();
    if (!box.width && !box.height) continue;
    const clip = clipper(el);
    if (!clip && box.right > width + 1) problems.push("sticks out of the window by " + Math.round(box.right - width) + " px: " + name(el));
    if (clip && !scroller(clip)) {
      const edge = clip.getBoundingClientRect();
      if (box.right > edge.right + 1 || box.left < edge.left - 1) problems.push("cut off by the edge of " + name(clip).split(" «")[0] + ": " + name(el));
    }
    const ownText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const clips = ["hidden", "clip"].includes(style.overflowX) || style.textOverflow === "ellipsis";
    if (style.display !== "inline" && (clips || ownText) && !scroller(el) && el.scrollWidth > el.clientWidth + 1)
      problems.push((clips ? "text clipped" : "text spills out of its box") + " (" + el.scrollWidth + " > " + el.clientWidth + " px): " + name(el));
  }
  for (const text of document.querySelectorAll("svg text")) {
    const svg = text.ownerSVGElement, a = text.getBoundingClientRect(), b = svg.getBoundingClientRect();
    if (a.width && (a.left < b.left - 1 || a.right > b.right + 1 || a.top < b.top - 1 || a.bottom > b.bottom + 1))
      problems.push("a label outside its drawing: «" + text.textContent + "»");
  }
  return problems;
}"""


def pages(web_db) -> dict[str, str]:
    """Every kind of page, by a name for its screenshot."""
    found = {"games": "/", "leaderboard": "/games/five-towers?versions=all", "tournaments": "/tournaments",
             "tournament": f"/tournaments/{web_db.tournaments['fifth-avenue']}",
             "bot": f"/bots/{web_db.bot_id('five-towers', 'random')}", "not-found": "/matches/99999"}
    for game in ("five-towers", "agent-avenue", "fifth-avenue"):
        found[game] = f"/matches/{web_db.match_ids(game)[0]}"
        found[game + "-end"] = f"/matches/{web_db.match_ids(game)[0]}#end"
    return found


def shoot(page, folder: Path, name: str) -> None:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    keep = os.environ.get("ARENA_SCREENSHOTS")
    if keep and name in IN_THE_DOCS:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / f"narrow-{name}.png")


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways_or_cuts_text_off(browser, server, web_db, tmp_path, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    found = {}
    for name, path in pages(web_db).items():
        page.goto(server + path)
        page.wait_for_load_state("load")
        if path.startswith("/matches/") and "99999" not in path:
            page.wait_for_selector("#v-board[data-frame]")
            page.wait_for_selector('#viewer[data-checked="ok"]')
            if path.endswith("#end"):  # the last frame: the end banners and the final table
                last = page.locator("#v-slider").get_attribute("max")
                page.keyboard.press("End")
                page.wait_for_selector(f'#v-board[data-frame="{last}"]')
        shoot(page, tmp_path, f"{name}-{width}")
        problems = page.evaluate(PROBLEMS)
        if problems:
            found[name] = problems
    context.close()
    assert not found, found


@pytest.fixture(scope="module")
def play_server(web_db, tmp_path_factory):
    """`arena serve` with people playing (a copy of the web database: their matches are stored)."""
    from arena.tournament.humanplay import PlayHost
    from arena.web.app import create_app
    from browsing import serving

    folder = tmp_path_factory.mktemp("playlayout")
    os.chmod(folder, 0o755)
    path = folder / "arena.db"
    for suffix in ("", "-secrets"):  # the database and its key file
        if Path(f"{web_db.path}{suffix}").exists():
            shutil.copy(f"{web_db.path}{suffix}", f"{path}{suffix}")
    shutil.copytree(f"{web_db.path}-bots", f"{path}-bots")  # the stored bot copies
    host = PlayHost(path, think_s=600, bank_s=0)
    with serving(create_app(str(path), play=host)) as url:
        yield url, host
    host.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_play_pages_fit_too(browser, play_server, tmp_path, width):
    server, host = play_server
    match, problem = host.start("five-towers", ["random"], "ada", seat=0, seed=3)
    assert match is not None, problem
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    found = {}
    for name, path in {"play": "/play", "play-seat": f"/play/{match.token}"}.items():
        page.goto(server + path)
        page.wait_for_load_state("load")
        if name == "play-seat":  # the seat's board drawn (its turn, or waiting for the bots)
            page.wait_for_selector('#play[data-state="deciding"], #play[data-state="waiting"]', state="attached")
        shoot(page, tmp_path, f"{name}-{width}")
        problems = page.evaluate(PROBLEMS)
        if problems:
            found[name] = problems
    context.close()
    assert not found, found
