"""End to end in a real browser: the phone page on a 375-px screen, served by uvicorn on loopback,
reading a real photo with the shipped models, then a correction, the winning tile, the score.

Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright; skipped only when Chromium
is missing. Takes a screenshot of the page; it goes into the tree (docs/img/phone-page.png, the
README's picture) only when asked: `make screenshot`, or TSUMO_SCREENSHOT=<path> for another file.
A test run never rewrites a tracked file.
"""
from __future__ import annotations

import os
import shutil
import socket
from collections import Counter
import threading
import time
from pathlib import Path

import pytest

from api.app import create_app
from api.settings import ApiSettings
from scoring import score_json
from scoring.tiles import parse_tiles

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[2]
README_SCREENSHOT = REPO / "docs" / "img" / "phone-page.png"
PHOTO = "lietxia_70008812.jpg"
# The photo's labelled hand (shared/data/real-dev/labels.jsonl): 456s 55p 44z 555z, the red 5p
# set apart, and an added kan of 9m whose sideways tile is leftmost (called from the left).
TRUE_CLOSED = ["4s", "5s", "6s", "5p", "5p", "4z", "4z", "5z", "5z", "5z"]
TRUE_WIN = "0p"
TRUE_MELDS = [{"kind": "kakan", "tiles": "9999m", "called": "9m", "from": "left"}]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which(CHROMIUM) is None and not Path(CHROMIUM).exists(),
                       reason=f"Chromium not installed at {CHROMIUM} (the Makefile's test-deps installs it)"),
]


class ServerThread:
    """uvicorn serving an app on 127.0.0.1 in a background thread."""

    def __init__(self, app):
        import uvicorn

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "ServerThread":
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = create_app(ApiSettings(keep_dir=tmp_path_factory.mktemp("kept")))
    with ServerThread(app) as srv:
        import urllib.request

        deadline = time.monotonic() + 120
        while True:  # the real models load in the background
            try:
                with urllib.request.urlopen(f"{srv.url}/healthz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "models did not load"
            time.sleep(0.2)
        yield srv


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield b
        b.close()


def hand_on_page(page) -> tuple[list[str], str | None]:
    closed = page.eval_on_selector_all('#hand .tile[data-where="closed"]', "els => els.map(e => e.dataset.tile)")
    win = page.eval_on_selector_all('#hand .tile[data-where="win"]', "els => els.map(e => e.dataset.tile)")
    return closed, (win[0] if win else None)


def screenshot_path(tmp_path: Path) -> Path:
    """Where the screenshot goes: TSUMO_SCREENSHOT when set (`make screenshot` points it at the README's
    picture), else the test's own temporary folder."""
    asked = os.environ.get("TSUMO_SCREENSHOT")
    return Path(asked) if asked else tmp_path / README_SCREENSHOT.name


def test_phone_page_photo_correct_a_tile_mark_win_and_score(server, browser, shared_dir, tmp_path):
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 375, "height": 812}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="en-US")
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    page.wait_for_selector("#rules option", state="attached")
    # No sideways scrolling on a 375-px screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 375

    # Context: South seat, tsumo.
    page.click('.seg[data-key="seat_wind"] button[data-value="S"]')
    page.click('.seg[data-key="win"] button[data-value="tsumo"]')

    # 1. Upload the real photo; the reading comes back with the score.
    with page.expect_response(lambda r: "/v1/photos/score" in r.url) as resp:
        page.set_input_files("#photo-input", str(shared_dir / "data" / "real-dev" / PHOTO))
    body = resp.value.json()
    assert resp.value.status == 200, body
    n_tiles = len(body["reading"]["tiles"])
    page.wait_for_function("n => document.querySelectorAll('#photo-boxes rect').length === n", arg=n_tiles)
    assert f"{n_tiles} tiles read" in page.locator("#status").inner_text()
    assert body["reading"]["sure"] is True and "had to guess" not in page.locator("#status").inner_text()
    read_closed, read_win = hand_on_page(page)
    read = Counter(read_closed + ([read_win] if read_win else []))
    truth = Counter(TRUE_CLOSED + [TRUE_WIN])
    read_melds = page.evaluate("() => document.querySelectorAll('#hand .meld').length")
    nearly_right = sum((read - truth).values()) <= 1 and sum((truth - read).values()) <= 1 and read_melds == 1

    if not nearly_right:
        # 2a. The reader missed more than one tile: the user clears the hand, types the closed
        #     tiles (the last one typed is the winning tile) and adds the kan with "+ meld".
        page.click("#clear-hand")
        page.click("#type-hand")
        page.fill("#text-hand", "456s55p44z555z0p")
        page.click("#text-form button[type=submit]")
        page.click("#add-meld")
        page.wait_for_selector("#picker[open]")
        page.click('#meld-kind button[data-value="kakan"]')
        page.click('#meld-from button[data-value="left"]')
        with page.expect_response(lambda r: "/v1/hands/score" in r.url):
            page.click('#picker-grid .tile[data-tile="9m"]')
        read, read_win = truth, TRUE_WIN

    # 2. Correct one tile with the picker: the misread tile if there is one; if the hand is
    #    right, the user says the red 5p is a plain 5p (a red five is easy to get wrong by eye).
    if read != truth:
        (bad,) = (read - truth).elements()
        (good,) = (truth - read).elements()
        where = "win" if read_win == bad else "closed"
        page.locator(f'#hand .tile[data-where="{where}"][data-tile="{bad}"]').first.click()
        expected = truth
    else:
        page.locator('#hand .tile[data-where="win"]').click()
        bad, good = "0p", "5p"
        expected = truth - Counter(["0p"]) + Counter(["5p"])
    page.wait_for_selector("#picker[open]")
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.locator(f'#picker-grid .tile[data-tile="{good}"]').click()

    # 3. Mark the winning tile: tsumo on the third White (5z); the old winning tile joins the hand.
    page.locator('#hand .tile[data-where="closed"][data-tile="5z"]').first.click()
    page.wait_for_selector("#picker[open]")
    with page.expect_request(lambda r: "/v1/hands/score" in r.url) as req:
        page.click('#picker-actions [data-action="set-win"]')
    sent = req.value.post_data_json
    closed, win = hand_on_page(page)
    assert win == "5z"
    assert Counter(closed + [win]) == expected
    assert Counter(_expand(sent["concealed"])) == expected
    assert sent["win_tile"] == "5z" and sent["melds"] == TRUE_MELDS
    assert (sent["win"], sent["seat_wind"], sent["rules"]) == ("tsumo", "S", "tenhou")

    # 4. The result card shows the engine's score for exactly that hand.
    page.wait_for_selector("#result .points")
    hand = {"rules": "tenhou", "concealed": "".join(sorted(expected.elements())),  # "4s5s6s…" is MPSZ too
            "win_tile": "5z", "melds": TRUE_MELDS, "win": "tsumo", "seat_wind": "S"}
    result = score_json(hand)
    assert result["error"] is None, result
    shown = page.locator("#result .points").inner_text()
    assert shown.split()[0].replace(",", "") == str(result["points"])
    card = page.locator("#result").inner_text()
    assert all(y["name"] in card for y in result["yaku"])
    assert str(result["han"]) in page.locator("#result .hanfu").inner_text()

    # 5. Japanese labels, then back.
    page.click("#lang")
    assert "自風" in page.locator("#context").inner_text()
    assert result["yaku"][0]["name_ja"] in page.locator("#result").inner_text()
    page.click("#lang")

    shot = screenshot_path(tmp_path)
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(shot), full_page=True)
    from PIL import Image  # a palette PNG is a third of the size, for the README

    Image.open(shot).convert("RGB").quantize(256).save(shot, optimize=True)
    with Image.open(shot) as im:  # the whole 375-px-wide page, not an empty frame
        assert im.width >= 375 and im.height > im.width, im.size
    assert not errors, errors
    context.close()


def test_phone_page_says_when_the_reading_was_unsure(server, browser, shared_dir):
    """A hand the reader had to bend into shape (`reading.sure` false) is read with a warning to
    check it: the server's real answer for the photo, with `sure` turned false."""
    import httpx

    context = browser.new_context(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True,
                                  locale="en-US")
    page = context.new_page()
    photo = shared_dir / "data" / "real-dev" / PHOTO
    # (the server's own answer, asked outside the page: Chromium does not hand an upload's bytes to
    # a route that would pass the request on)
    real = httpx.post(server.url + "/v1/photos/score", files={"photo": (PHOTO, photo.read_bytes(), "image/jpeg")},
                      timeout=60)
    assert real.status_code == 200, real.text
    body = real.json()
    body["reading"]["sure"] = False
    page.route("**/v1/photos/score", lambda route: route.fulfill(json=body))
    page.goto(server.url + "/")
    page.wait_for_selector("#rules option", state="attached")
    with page.expect_response(lambda r: "/v1/photos/score" in r.url):
        page.set_input_files("#photo-input", str(photo))
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('tiles read')")
    assert "had to guess to make this a hand" in page.locator("#status").inner_text()
    context.close()


@pytest.fixture(scope="module")
def hands_server(tmp_path_factory):
    with ServerThread(create_app(ApiSettings(load_models=False))) as srv:
        yield srv


def test_phone_page_typed_hand_with_dora_riichi_ron_and_japanese(hands_server, browser):
    """No photo: type a hand, pick a dora indicator from the picker, riichi, ron from the left."""
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True,
                                  locale="en-US")
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(hands_server.url + "/")
    page.wait_for_selector("#rules option", state="attached")
    page.click("#type-hand")
    page.fill("#text-hand", "234m567p22s345678s")  # the last tile (8s) is the winning tile
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.click("#text-form button[type=submit]")
    page.click('[data-add="dora_indicators"]')
    page.wait_for_selector("#picker[open]")
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.click('#picker-grid .tile[data-tile="1s"]')  # indicator 1s → dora 2s (the pair: 2 dora)
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.check('[data-flag="riichi"]')
    with page.expect_request(lambda r: "/v1/hands/score" in r.url) as req:
        page.click('.seg[data-key="discarder"] button[data-value="left"]')
    sent = req.value.post_data_json
    assert sent["concealed"] == "234m567p22345678s" and sent["win_tile"] == "8s"
    assert sent["dora_indicators"] == ["1s"] and sent["riichi"] is True and sent["discarder"] == "left"
    page.wait_for_timeout(300)
    expected = score_json({k: v for k, v in sent.items()})
    assert expected["error"] is None
    page.wait_for_function(
        "p => document.querySelector('#result .points')?.textContent.startsWith(p)",
        arg=f"{expected['points']:,}")
    card = page.locator("#result").inner_text()
    assert "Left (kamicha)" in card and "Riichi" in card
    page.click("#lang")
    card_ja = page.locator("#result").inner_text()
    assert "上家" in card_ja and "立直" in card_ja and page.locator("html").get_attribute("lang") == "ja"
    # An impossible hand says why, instead of a score.
    page.click("#lang")
    page.locator('#hand .tile[data-where="closed"]').first.click()
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.click('#picker-actions [data-action="remove"]')
    page.wait_for_selector("#result.error")
    assert "13" in page.locator("#result .err").inner_text() or "tiles" in page.locator("#result .err").inner_text()
    assert not errors, errors
    context.close()


def _expand(text: str) -> list[str]:
    """MPSZ text as tile names ("055m" -> 0m 5m 5m), by the scoring engine's parser."""
    return [str(t) for t in parse_tiles(text)]
