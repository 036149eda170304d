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
        wait_healthy(srv, 120, "models did not load")  # the real models load in the background
        yield srv


def wait_healthy(srv: ServerThread, seconds: float, failure: str) -> None:
    """Until the server's /healthz answers 200 (its reader loaded), at most `seconds`."""
    import urllib.request

    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"{srv.url}/healthz", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        assert time.monotonic() < deadline, failure
        time.sleep(0.05)


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
    import httpx2 as httpx

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


# ---- the page as a player uses it: errors, a busy server, keyboard and screen readers, phone sizes ----
# (session 51 audit; each test fails on the page before it). Photos here are answered by the test
# (page.route) with a reading shaped like the server's, so the server is the one without models:
# hands are still scored by the real engine.

EXAMPLE_PHOTO = REPO / "examples" / "hand.jpg"
TYPED = "234m567p22s345678s"  # pinfu tanyao, won on 8s


def photo_answer(hand: dict | None, labels: list[str], error: str | None = None) -> dict:
    """A /v1/photos/score answer as the server gives it (reading without a score: the page scores)."""
    tiles = [{"index": i, "box": [10.0 + 40 * i, 20.0, 48.0 + 40 * i, 70.0], "label": label, "rotation": 0,
              "sideways": False, "stacked": False, "confidence": 0.99, "candidates": [{"label": label, "p": 0.99}],
              "group": 0, "in_hand": True} for i, label in enumerate(labels)]
    reading = {"tiles": tiles, "groups": [], "hand": hand,
               "win_tile_candidates": [hand["win_tile"]] if hand else [], "win_tile_source": "drawn",
               "changes": [], "uncertain": [], "sure": True, "partial": None, "notes": [],
               "error": error, "error_code": None, "players": 4}
    return {"image": {"format": "jpeg", "width": 800, "height": 100}, "reading": reading, "kept": False,
            "keep_error": None, "timings_ms": {"total": 120.0}, "hand": hand, "result": None, "error": None}


READ_HAND = {"concealed": "123m456p789s11122z", "win_tile": "2z", "melds": []}
READ = photo_answer(READ_HAND, ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "1z", "2z", "2z"])
NOTHING = photo_answer(None, [], error="no tiles were found in the photo")


def open_phone(browser, url: str, *, width: int = 390, height: int = 844, locale: str = "en-US", touch: bool = True):
    """A new phone-sized page on `url`, its rule sets loaded; JS errors collected in page.errors."""
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=touch, has_touch=touch,
                                  locale=locale)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url + "/")
    page.wait_for_selector("#rules option", state="attached")
    return page


def type_hand(page, text: str = TYPED) -> None:
    page.click("#type-hand")
    page.fill("#text-hand", text)
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.click("#text-form button[type=submit]")
    page.wait_for_selector("#result .points")


def test_photo_button_is_reached_by_keyboard_and_named(hands_server, browser):
    """The photo input was `hidden`: no keyboard user could reach it, no screen reader saw it."""
    page = open_phone(browser, hands_server.url, touch=False)
    page.route("**/v1/photos/score", lambda route: route.fulfill(json=READ))
    # Playwright turns file-chooser interception on when the first listener is added, without
    # waiting for the browser to confirm; a chooser opened in that gap is the headless native
    # dialog and never reported (CI once timed out here). Listening from the start closes the gap.
    page.on("filechooser", lambda _chooser: None)
    for _ in range(6):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "photo-input":
            break
    assert page.evaluate("document.activeElement.id") == "photo-input", "the photo control is not in the tab order"
    assert page.get_by_role("button", name="Take or choose a photo").count() == 1
    with page.expect_file_chooser() as chooser:
        page.keyboard.press("Space")
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        chooser.value.set_files(str(EXAMPLE_PHOTO))
    assert hand_on_page(page)[1] == "2z"
    assert not page.errors, page.errors
    page.context.close()


def test_every_control_is_named_and_each_group_says_what_it_sets(hands_server, browser):
    """Round wind and seat wind were two unnamed rows of East/South/West/North; the dora and ura
    '+' buttons had one name. Now every control has a name and each row is a named group."""
    page = open_phone(browser, hands_server.url)
    type_hand(page)
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):  # its rescore is not the one checked below
        page.check('[data-flag="riichi"]')  # shows the ura row
    page.click("details summary")
    nodes = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    roles = {"button", "checkbox", "combobox", "textbox", "spinbutton", "link", "radio"}
    unnamed = [(n["role"]["value"], n.get("backendDOMNodeId")) for n in nodes
               if not n.get("ignored") and n.get("role", {}).get("value") in roles
               and not n.get("name", {}).get("value", "").strip()]
    assert not unnamed, unnamed
    for group, button in [("Win", "Tsumo"), ("Dealt in by", "Across"), ("Round wind", "South"), ("Seat wind", "South")]:
        assert page.get_by_role("group", name=group, exact=True).get_by_role("button", name=button, exact=True).count() == 1
    with page.expect_request(lambda r: "/v1/hands/score" in r.url) as req:
        page.get_by_role("group", name="Seat wind").get_by_role("button", name="West").click()
    assert req.value.post_data_json["seat_wind"] == "W" and req.value.post_data_json["round_wind"] == "E"
    assert page.get_by_role("button", name="Add a dora indicator").count() == 1
    assert page.get_by_role("button", name="Add an ura dora indicator").count() == 1
    page.get_by_role("button", name="日本語").click()  # the language button is named by what it shows
    assert page.get_by_role("group", name="自風").get_by_role("button", name="南").count() == 1
    assert page.get_by_role("button", name="裏ドラ表示牌を追加").count() == 1
    assert page.get_by_role("button", name="English").count() == 1
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("width,height,locale", [(390, 844, "en-US"), (320, 640, "ja-JP"), (844, 390, "en-US")],
                         ids=["portrait", "small-japanese", "landscape"])
def test_tap_targets_and_the_hand_fit_the_phone(hands_server, browser, width, height, locale):
    """Every control but the hand's tiles (14 must fit in a row) is at least 44 × 44 px (chips,
    segments, checkboxes, the language button, counters were 31–40 px tall); nothing scrolls
    sideways."""
    page = open_phone(browser, hands_server.url, width=width, height=height, locale=locale)
    type_hand(page)
    page.check('[data-flag="riichi"]')
    page.click("details summary")
    small = page.evaluate("""() => [...document.querySelectorAll(
        'button:not(.tile), select, input:not([type=checkbox]):not(.visually-hidden), summary, label:has(input[type=checkbox]), label.big-button')]
      .filter((e) => e.getClientRects().length)
      .map((e) => { const r = e.getBoundingClientRect();
                    return [e.id || e.dataset.value || e.dataset.counter || e.textContent.trim().slice(0, 20), r.width, r.height]; })
      .filter(([, w, h]) => w < 44 || h < 44)""")
    assert not small, small
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("width,height", [(844, 390), (390, 844), (320, 568)], ids=["landscape", "portrait", "small"])
def test_the_hand_stays_inside_its_card(hands_server, browser, width, height):
    """Tiles were sized from the screen's width, not the card's (at most 560 px): on a landscape
    phone 14 tiles did not fit and the winning tile stuck out of the card on the right."""
    page = open_phone(browser, hands_server.url, width=width, height=height)
    type_hand(page)
    card = page.locator("#hand-section").bounding_box()
    tiles = [t.bounding_box() for t in page.locator("#hand .tile").all()]
    assert len(tiles) == 14
    for box in tiles:
        assert card["x"] <= box["x"] and box["x"] + box["width"] <= card["x"] + card["width"], (box, card)
    assert len({round(box["y"]) for box in tiles}) == 1  # one row, as on the table
    assert not page.errors, page.errors
    page.context.close()


def test_a_busy_server_is_asked_again_then_try_again_is_offered(hands_server, browser):
    """A 503 with Retry-After (queue full, models loading) was shown as an error and nothing more:
    the user had to choose the photo again (and Chromium fires no change for the same file). Now
    the page waits as asked and sends it again; when the server stays busy it says so and offers
    Try again, which sends the same photo."""
    page = open_phone(browser, hands_server.url)
    calls = []
    busy = {"detail": "all 1 photo workers are busy and 4 photos are waiting; retry shortly"}

    def first_busy(route):
        calls.append(route.request.post_data_buffer is not None)
        if len(calls) == 1:
            route.fulfill(status=503, headers={"Retry-After": "1"}, json=busy)
        else:
            route.fulfill(json=READ)

    page.route("**/v1/photos/score", first_busy)
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('trying again')", timeout=5000)
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('tiles read')", timeout=5000)
    assert len(calls) == 2 and all(calls)
    assert hand_on_page(page)[1] == "2z"
    page.wait_for_selector("#result .points")
    assert page.locator("#retry-photo").is_hidden()
    assert page.eval_on_selector("#photo-input", "e => e.value") == ""  # the same photo can be chosen again

    page.unroute("**/v1/photos/score")
    calls.clear()
    page.route("**/v1/photos/score", lambda route: (calls.append(1),
                                                     route.fulfill(status=503, headers={"Retry-After": "1"}, json=busy)))
    page.click("#clear-hand")
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_selector("#retry-photo:not([hidden])", timeout=10000)
    assert len(calls) == 4  # the first ask and three more
    status = page.locator("#status")
    assert "error" in status.get_attribute("class") and "cannot read photos right now" in status.inner_text()
    assert "workers are busy" in status.inner_text()
    page.unroute("**/v1/photos/score")
    page.route("**/v1/photos/score", lambda route: route.fulfill(json=READ))
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.click("#retry-photo")
    assert hand_on_page(page)[1] == "2z" and page.locator("#retry-photo").is_hidden()
    assert not page.errors, page.errors
    page.context.close()


def test_server_failures_are_named_and_not_called_offline(hands_server, browser):
    """An error page that is not JSON (a proxy's 502, a 500) was reported as 'Could not reach the
    server'. Now the status says the server failed, with the code; a real network failure still
    says it could not reach the server; a refused file says so with the server's reason and no
    Try again; the messages follow the language switch."""
    page = open_phone(browser, hands_server.url)
    status = page.locator("#status")
    # The real server without models: 503 and no Retry-After, so no retry and no Try again.
    with page.expect_response(lambda r: "/v1/photos/score" in r.url) as resp:
        page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    assert resp.value.status == 503 and "retry-after" not in resp.value.headers
    page.wait_for_function("() => document.querySelector('#status').classList.contains('error')")
    assert "cannot read photos right now" in status.inner_text() and "disabled" in status.inner_text()
    assert page.locator("#retry-photo").is_hidden()
    page.route("**/v1/photos/score", lambda route: route.fulfill(
        status=502, content_type="text/html", body="<html><body><h1>502 Bad Gateway</h1></body></html>"))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => document.querySelector('#status').classList.contains('error')")
    assert "502" in status.inner_text() and "Could not reach" not in status.inner_text()
    assert page.locator("#retry-photo").is_visible()
    page.click("#lang")
    assert "サーバーでエラー" in status.inner_text() and "502" in status.inner_text()
    page.click("#lang")

    page.unroute("**/v1/photos/score")
    page.route("**/v1/photos/score", lambda route: route.abort("internetdisconnected"))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('Could not reach')")

    page.unroute("**/v1/photos/score")
    page.route("**/v1/photos/score", lambda route: route.fulfill(
        status=415, json={"detail": "photo: not a supported image (expected JPEG, PNG, WebP or HEIC)"}))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('not a supported image')")
    assert "not a photo the server can read" in status.inner_text() and page.locator("#retry-photo").is_hidden()

    type_hand(page)
    page.route("**/v1/hands/score", lambda route: route.fulfill(status=500, content_type="text/plain",
                                                                body="Internal Server Error"))
    page.click('.seg[data-key="win"] button[data-value="tsumo"]')
    page.wait_for_selector("#result.error")
    err = page.locator("#result .err").inner_text()
    assert "500" in err and "Could not reach" not in err
    assert not page.errors, page.errors
    page.context.close()


def test_a_late_answer_for_an_earlier_photo_is_dropped(hands_server, browser):
    """Two photos in a row (the first one wrong): the first one's answer, arriving last, replaced
    the second one's hand."""
    page = open_phone(browser, hands_server.url)
    held = []

    def hold_first(route):
        if not held:
            held.append(route)
        else:
            route.fulfill(json=READ)

    page.route("**/v1/photos/score", hold_first)
    page.set_input_files("#photo-input", str(REPO / "docs" / "img" / "phone-page.png"))
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('Reading')")
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_selector("#result .points")
    points = page.locator("#result .points").inner_text()
    other = photo_answer({"concealed": "234m567p22345678s", "win_tile": "8s", "melds": []},
                         ["2m", "3m", "4m", "5p", "6p", "7p", "2s", "2s", "3s", "4s", "5s", "6s", "7s", "8s"])
    held[0].fulfill(json=other)
    page.wait_for_timeout(600)
    assert hand_on_page(page)[1] == "2z"
    assert page.locator("#result .points").inner_text() == points
    assert not page.errors, page.errors
    page.context.close()


def test_a_late_score_does_not_land_on_a_changed_hand(hands_server, browser):
    """A score in flight when the winning tile is removed came back and was shown for a hand that
    has no winning tile any more."""
    page = open_phone(browser, hands_server.url)
    type_hand(page)
    held = []
    page.route("**/v1/hands/score", lambda route: held.append(route))
    page.click('.seg[data-key="win"] button[data-value="tsumo"]')
    deadline = time.monotonic() + 5
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert held, "the change was not sent"
    page.locator('#hand .tile[data-where="win"]').click()
    page.click('#picker-actions [data-action="remove"]')
    page.wait_for_selector("#result.error")
    page.unroute("**/v1/hands/score")
    try:
        held[0].continue_()
    except Exception:  # the page already dropped it
        pass
    page.wait_for_timeout(600)
    assert page.locator("#result .points").count() == 0
    assert "winning tile" in page.locator("#result .err").inner_text()
    assert not page.errors, page.errors
    page.context.close()


def test_a_photo_with_no_tiles_keeps_the_hand(hands_server, browser):
    """A photo with nothing on it (the wrong picture, a blurred shot) wiped out the hand the user
    had typed or corrected. Now the hand and its score stay, and the status says so."""
    page = open_phone(browser, hands_server.url)
    type_hand(page)
    points = page.locator("#result .points").inner_text()
    page.route("**/v1/photos/score", lambda route: route.fulfill(json=NOTHING))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('tiles read')")
    assert "no tiles were found" in page.locator("#status").inner_text()
    assert "unchanged" in page.locator("#status").inner_text()
    closed, win = hand_on_page(page)
    assert win == "8s" and len(closed) == 13
    page.wait_for_timeout(300)
    assert page.locator("#result .points").inner_text() == points
    assert not page.errors, page.errors
    page.context.close()


def test_a_photo_the_server_could_not_keep_says_so(hands_server, browser):
    """With "keep this photo" ticked, a server that could not save it (its disk) answered with the reading and
    `keep_error`, and the page showed the reading only: the user believed the photo kept. Now the status says it
    was not, why (the server's words), in the page's language; a kept photo adds nothing."""
    page = open_phone(browser, hands_server.url)
    page.check("#keep")
    sent = []

    def answer(route):
        sent.append(route.request.post_data_buffer)
        route.fulfill(json={**READ, "kept": None, "keep_error": "the photo could not be kept (OSError: disk full)"})

    page.route("**/v1/photos/score", answer)
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('tiles read')")
    status = page.locator("#status").inner_text()
    assert b'name="keep"' in sent[0] and "did not (the photo could not be kept (OSError: disk full))" in status, status
    page.click("#lang")  # (日本語)
    assert "サーバーは保存できませんでした" in page.locator("#status").inner_text()
    page.click("#lang")
    page.unroute("**/v1/photos/score")
    page.route("**/v1/photos/score", lambda route: route.fulfill(json={**READ, "kept": "2026-12-07/a.jpg"}))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => { const s = document.querySelector('#status').innerText;"
                           " return s.includes('tiles read') && !s.includes('did not'); }")
    assert not page.errors, page.errors
    page.context.close()


def test_language_switch_redraws_the_status_and_the_hint(hands_server, browser):
    """The status line and the 'mark the winning tile' hint stayed in the language they were
    written in."""
    page = open_phone(browser, hands_server.url)
    page.route("**/v1/photos/score", lambda route: route.fulfill(json=READ))
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    assert "14 tiles read" in page.locator("#status").inner_text()
    page.locator('#hand .tile[data-where="win"]').click()
    page.click('#picker-actions [data-action="remove"]')
    page.wait_for_selector("#result.error")
    assert "winning tile" in page.locator("#result .err").inner_text()
    page.click("#lang")
    assert "14枚の牌を" in page.locator("#status").inner_text()
    assert "和了牌に指定" in page.locator("#result .err").inner_text()
    assert not page.errors, page.errors
    page.context.close()


def test_keyboard_focus_comes_back_to_the_hand_after_the_picker(hands_server, browser):
    """After picking a tile with the keyboard the focus fell to the top of the page (the tile it
    came from was redrawn): the user had to tab through the whole page again."""
    page = open_phone(browser, hands_server.url, touch=False)
    type_hand(page)
    page.focus('#hand .tile[data-where="closed"][data-index="3"]')
    page.keyboard.press("Enter")
    page.wait_for_selector("#picker[open]")
    page.focus('#picker-grid .tile[data-tile="9m"]')
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.keyboard.press("Enter")
    page.wait_for_selector("#picker:not([open])", state="attached")
    focused = page.evaluate("[document.activeElement.closest('#hand') !== null, document.activeElement.dataset.where]")
    assert focused == [True, "closed"], focused
    page.keyboard.press("Enter")  # and the next change is one key away
    page.wait_for_selector("#picker[open]")
    assert not page.errors, page.errors
    page.context.close()


def test_a_double_tap_on_a_tile_does_not_pick_the_tile_under_the_sheet(hands_server, browser):
    """On a landscape phone the sheet covers the hand: the second tap of a double tap on a tile
    landed on the sheet's tile underneath and silently changed the hand (7p became 4s)."""
    page = open_phone(browser, hands_server.url, width=844, height=390)
    type_hand(page)
    page.evaluate("window.scrollTo(0, document.querySelector('#hand').getBoundingClientRect().top + scrollY - 250)")
    before = hand_on_page(page)
    tile = page.locator('#hand .tile[data-where="closed"]').nth(5)
    box = tile.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.touchscreen.tap(x, y)
    page.wait_for_selector("#picker[open]")
    under = page.evaluate("([x, y]) => document.elementFromPoint(x, y)?.closest('#picker .tile, #picker button')?.outerHTML",
                          [x, y])
    assert under, "the sheet does not cover the tile here: the test shows nothing"
    page.touchscreen.tap(x, y)  # the second tap of the double tap
    page.wait_for_timeout(400)
    assert hand_on_page(page) == before
    assert page.locator("#picker[open]").count() == 1
    page.wait_for_timeout(300)  # a tap after that is a choice
    with page.expect_request(lambda r: "/v1/hands/score" in r.url):
        page.touchscreen.tap(x, y)
    assert hand_on_page(page) != before
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("locale, words", [("en-US", ("greyscale", "blurred", "only 14 px", "is dark")),
                                           ("ja-JP", ("白黒写真", "ぶれて", "14ピクセル", "暗い"))])
def test_phone_page_shows_the_photos_warnings_first(server, browser, shared_dir, locale, words):
    """`reading.warnings` (a greyscale photo, a blurred one, tiny tiles, a dark one) is what the player must see before trusting the
    tiles: shown first in the status, in the page's language, styled as an alert; a photo without
    warnings shows none."""
    import httpx2 as httpx

    photo = shared_dir / "data" / "real-dev" / PHOTO
    real = httpx.post(server.url + "/v1/photos/score", files={"photo": (PHOTO, photo.read_bytes(), "image/jpeg")},
                      timeout=60)
    assert real.status_code == 200 and real.json()["reading"]["warnings"] == []
    body = real.json()
    for answer, expect in ((body, False), ({**body, "reading": {**body["reading"], "warnings": [
            {"code": "greyscale", "message": "the photo is greyscale"},
            {"code": "blurred", "message": "blurry", "sharpness": 0.2},
            {"code": "small_tiles", "message": "tiny", "tile_px": 14},
            {"code": "dark", "message": "dim", "brightness": 0.3}]}}, True)):
        context = browser.new_context(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True,
                                      locale=locale)
        page = context.new_page()
        page.route("**/v1/photos/score", (lambda a: lambda route: route.fulfill(json=a))(answer))
        page.goto(server.url + "/")
        page.wait_for_selector("#rules option", state="attached")
        with page.expect_response(lambda r: "/v1/photos/score" in r.url):
            page.set_input_files("#photo-input", str(photo))
        page.wait_for_function("() => document.querySelector('#status').innerText.length > 0")
        status = page.locator("#status")
        text = status.inner_text()
        # (the tile size with its unit: a bare "14" was also found in "142 ms" of a photo without warnings)
        assert all((w in text) is expect for w in words), text
        assert "blurry" not in text  # (the page's own words, in its language, not the server's English)
        if expect:
            assert text.startswith("⚠") and "error" in (status.get_attribute("class") or "")
        context.close()


# ---- session 52 sweep: the defects a tester found driving the page with the real photos ----
# (each test fails on the page before it)

# lietxia_test.jpg as read: 13 tiles in one row, waiting on 1s 4s 7s (the winning tile is not in the photo)
LABELS_13 = ["0m", "6m", "7m", "8m", "8m", "5p", "6p", "7p", "2s", "3s", "4s", "0s", "6s"]
WAITS_13 = ["1s", "4s", "7s"]


def thirteen_answer() -> dict:
    answer = photo_answer(None, LABELS_13, error="the winning tile is not in the photo: the hand waits on 1s 4s 7s")
    reading = answer["reading"]
    reading.update(partial={"concealed": "06788m567p23406s", "melds": [], "nukidora": 0, "waits": WAITS_13},
                   win_tile_candidates=WAITS_13, error_code="no_winning_tile",
                   groups=[{"kind": "closed", "tiles": list(range(13)), "mpsz": "06788m567p23406s", "called": None,
                            "added": None, "from": None}])
    return answer


@pytest.fixture(scope="module")
def real_answer(server, shared_dir) -> dict:
    """The server's own /v1/photos/score answer for PHOTO, asked once outside the page."""
    import httpx2 as httpx

    photo = shared_dir / "data" / "real-dev" / PHOTO
    real = httpx.post(server.url + "/v1/photos/score", files={"photo": (PHOTO, photo.read_bytes(), "image/jpeg")},
                      timeout=60)
    assert real.status_code == 200, real.text
    return real.json()


def test_a_situation_changed_while_the_photo_is_read_is_scored(hands_server, browser):
    """Tsumo tapped (and the seat changed) while 'Reading the photo…' showed: the card showed the photo's score,
    computed with the situation at upload (ron, East), and the rescore the tap had queued was dropped.
    Now the hand read is scored again with the situation as it is."""
    page = open_phone(browser, hands_server.url)
    held = []
    page.route("**/v1/photos/score", lambda route: held.append(route))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('Reading')")
    deadline = time.monotonic() + 5
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert held, "the photo was not sent"
    asked = json_context(held[0].request)
    assert asked["win"] == "ron" and asked["seat_wind"] == "E"
    page.click('.seg[data-key="win"] button[data-value="tsumo"]')  # while the photo is read
    page.click('.seg[data-key="seat_wind"] button[data-value="S"]')
    as_sent = {"rules": "tenhou", **READ_HAND, "win": "ron", "round_wind": "E", "seat_wind": "E"}
    answer = {**READ, "hand": as_sent, "result": score_json(as_sent)}  # the photo's score, for ron as East
    assert answer["result"]["error"] is None
    with page.expect_request(lambda r: "/v1/hands/score" in r.url, timeout=5000) as req:
        held[0].fulfill(json=answer)
    sent = req.value.post_data_json
    assert (sent["win"], sent["seat_wind"]) == ("tsumo", "S") and sent["win_tile"] == "2z"
    now = score_json({k: v for k, v in sent.items()})
    assert now["error"] is None and now["points"] != answer["result"]["points"]
    page.wait_for_function("p => document.querySelector('#result .points')?.textContent.startsWith(p)",
                           arg=f"{now['points']:,}")
    card = page.locator("#result").inner_text()
    assert all(y["name"] in card for y in now["yaku"]) and "Menzen tsumo" in card, card
    # and a photo read with the situation unchanged shows the photo's own score, with no second request
    calls = []
    page.on("request", lambda r: calls.append(r.url) if "/v1/hands/score" in r.url else None)
    page.unroute("**/v1/photos/score")
    as_now = {"rules": "tenhou", **READ_HAND, "win": "tsumo", "round_wind": "E", "seat_wind": "S"}
    page.route("**/v1/photos/score", lambda route: route.fulfill(json={**READ, "hand": as_now,
                                                                       "result": {**score_json(as_now), "points": 777}}))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => document.querySelector('#result .points')?.textContent.startsWith('777')")
    page.wait_for_timeout(300)
    assert not calls, calls
    assert not page.errors, page.errors
    page.context.close()


def json_context(request) -> dict:
    """The `context` form field of a /v1/photos/score request, as JSON."""
    import json
    import re

    body = request.post_data_buffer.decode("utf-8", "replace")
    m = re.search(r'name="context"\r\n\r\n(.*?)\r\n--', body, re.S)
    assert m, body[:300]
    return json.loads(m.group(1))


def test_a_thirteen_tile_photo_is_won_on_a_wait_already_in_the_hand(hands_server, browser):
    """13 tiles waiting on 1s 4s 7s: choosing 4s (a tile the hand already holds) marked that 4s as the winning
    tile instead of adding a 14th ('expected 14 tiles… got 13'); the status's advice, ★ on a hand tile, did
    the same. Now the winning tile is added; choosing another wait replaces it."""
    page = open_phone(browser, hands_server.url)
    page.route("**/v1/photos/score", lambda route: route.fulfill(json=thirteen_answer()))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_selector("#candidates:not([hidden])")
    assert page.eval_on_selector_all("#candidates .tile", "els => els.map(e => e.dataset.tile)") == WAITS_13
    read = Counter(LABELS_13)
    for wait in ("4s", "7s"):  # 4s is in the hand already; then the other choice replaces it
        with page.expect_request(lambda r: "/v1/hands/score" in r.url) as req:
            page.click(f'#candidates .tile[data-candidate="{wait}"]')
        sent = req.value.post_data_json
        assert sent["win_tile"] == wait and Counter(_expand(sent["concealed"])) == read + Counter([wait]), sent
        closed, win = hand_on_page(page)
        assert win == wait and Counter(closed) == read
        page.wait_for_selector("#result .points")
        assert not page.locator("#result.error").count()

    # The status's advice: a hand tile, then ★: a 4s is added as the winning tile, the hand's 4s stays.
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => document.querySelectorAll('#hand .tile[data-where=\"win\"]').length === 0")
    assert "Which tile completed the hand" in page.locator("#status").inner_text()
    page.locator('#hand .tile[data-where="closed"][data-tile="4s"]').click()
    page.wait_for_selector("#picker[open]")
    with page.expect_request(lambda r: "/v1/hands/score" in r.url) as req:
        page.click('#picker-actions [data-action="set-win"]')
    sent = req.value.post_data_json
    assert sent["win_tile"] == "4s" and Counter(_expand(sent["concealed"])) == read + Counter(["4s"]), sent
    page.wait_for_selector("#result .points")
    assert not page.errors, page.errors
    page.context.close()


def test_uncertain_tiles_are_the_readers_and_marked_one_by_one(server, browser, real_answer):
    """The page took every box under 60 % as uncertain (walls and discards too, boxes with no label) and stored
    faces: on the real photo a 6s in the wall dashed the hand's 6s and the status said '2 tile(s) uncertain',
    the server's `reading.uncertain` being empty. Now it is `reading.uncertain` (hand tiles), tile by tile."""
    tiles = real_answer["reading"]["tiles"]
    hand_faces = set(_expand(real_answer["hand"]["concealed"]))
    assert real_answer["reading"]["uncertain"] == []
    assert any(t["confidence"] < 0.6 and not t["in_hand"] and t["label"] in hand_faces for t in tiles), \
        "no doubtful box outside the hand with a hand tile's face: the test shows nothing"
    page = open_phone(browser, server.url, width=375, height=812)
    page.route("**/v1/photos/score", lambda route: route.fulfill(json=real_answer))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('tiles read')")
    assert page.locator("#hand .tile.unsure").count() == 0
    assert "uncertain" not in page.locator("#status").inner_text()

    # The reader doubts one of the two Norths: that one is dashed, not both.
    norths = [t["index"] for t in tiles if t["in_hand"] and t["label"] == "4z"]
    assert len(norths) == 2
    doubt = {**real_answer, "reading": {**real_answer["reading"], "uncertain": [norths[1]]}}
    page.unroute("**/v1/photos/score")
    page.route("**/v1/photos/score", lambda route: route.fulfill(json=doubt))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('uncertain')")
    dashed = page.locator("#hand .tile.unsure")
    assert dashed.count() == 1 and dashed.get_attribute("data-tile") == "4z"
    assert dashed.get_attribute("data-box") == str(norths[1])
    assert "1 tile(s) uncertain" in page.locator("#status").inner_text()
    dashed.click()  # checked by the user (kept as it is): no longer dashed
    page.wait_for_selector("#picker[open]")
    page.click('#picker-grid .tile[data-tile="4z"]')
    page.wait_for_selector("#picker:not([open])", state="attached")
    assert page.locator("#hand .tile.unsure").count() == 0
    assert not page.errors, page.errors
    page.context.close()


def test_typed_hand_error_shows_by_its_input_and_keeps_the_photo_status(hands_server, browser):
    """On a phone with a photo read, 'Type a hand' with bad text put its error in the photo card's status line,
    off screen; a correct entry then wiped the photo's reading summary and its warnings for good."""
    page = open_phone(browser, hands_server.url, width=375, height=812)
    warned = {**READ, "reading": {**READ["reading"], "warnings": [{"code": "blurred", "message": "blurry"}]}}
    page.route("**/v1/photos/score", lambda route: route.fulfill(json=warned))
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    status = page.locator("#status")
    before = status.inner_text()
    assert "blurred" in before and "14 tiles read" in before
    page.click("#type-hand")
    page.fill("#text-hand", "123x")
    page.press("#text-hand", "Enter")
    error = page.locator("#text-error")
    error.wait_for(state="visible")
    assert "MPSZ" in error.inner_text() and error.get_attribute("role") == "alert"
    box, height = error.bounding_box(), page.evaluate("innerHeight")
    assert 0 <= box["y"] and box["y"] + box["height"] <= height + 1, (box, height)  # seen where the user types
    text = page.locator("#text-hand")
    assert text.get_attribute("aria-invalid") == "true"
    assert "text-error" in text.get_attribute("aria-describedby")
    assert status.inner_text() == before
    page.click("#lang")
    assert "MPSZ表記" in error.inner_text()
    page.click("#lang")
    page.fill("#text-hand", TYPED)
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.press("#text-hand", "Enter")
    assert error.is_hidden() and text.get_attribute("aria-invalid") is None
    assert status.inner_text() == before and "error" in status.get_attribute("class")
    assert not page.errors, page.errors
    page.context.close()


def test_number_fields_show_the_number_used(hands_server, browser):
    """Honba and riichi sticks kept showing -3, 150, 2.7, 1e1 while 0, 99, 2, 10 were sent."""
    page = open_phone(browser, hands_server.url)
    type_hand(page)
    page.click("details summary")
    sent = []
    page.on("request", lambda r: sent.append(r.post_data_json) if "/v1/hands/score" in r.url else None)
    for counter in ("honba", "kyotaku"):
        field = f'[data-counter="{counter}"]'
        for typed, used in (("-3", 0), ("150", 99), ("2.7", 2), ("1e1", 10), ("", 0), ("4", 4)):
            page.fill(field, typed)
            page.press(field, "Tab")
            assert page.input_value(field) == str(used), (counter, typed)
            page.wait_for_timeout(200)
            assert sent and sent[-1][counter] == used, (counter, typed, sent[-1:])
    assert not page.errors, page.errors
    page.context.close()


def test_keyboard_focus_stays_after_a_winning_tile_choice_or_an_indicator_removal(hands_server, browser):
    """Enter on a '★ Winning tile' candidate or on a dora indicator (to remove it) redrew those buttons and the
    focus fell to <body>. Now it goes to the new winning tile, the next indicator, or the '+' button."""
    page = open_phone(browser, hands_server.url, touch=False)
    page.route("**/v1/photos/score", lambda route: route.fulfill(json=thirteen_answer()))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_selector("#candidates:not([hidden])")
    page.focus('#candidates .tile[data-candidate="7s"]')
    with page.expect_request(lambda r: "/v1/hands/score" in r.url):
        page.keyboard.press("Enter")
    focused = page.evaluate("[document.activeElement.closest('#hand') !== null, document.activeElement.dataset.where,"
                            " document.activeElement.dataset.tile]")
    assert focused == [True, "win", "7s"], focused

    for tile in ("1m", "2m"):
        page.click('[data-add="dora_indicators"]')
        page.wait_for_selector("#picker[open]")
        page.click(f'#picker-grid .tile[data-tile="{tile}"]')
        page.wait_for_selector("#picker:not([open])", state="attached")
    page.focus("#dora_indicators .tile")
    with page.expect_request(lambda r: "/v1/hands/score" in r.url):
        page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Remove indicator 2 man"
    with page.expect_request(lambda r: "/v1/hands/score" in r.url) as req:
        page.keyboard.press("Enter")
    assert req.value.post_data_json["dora_indicators"] == []
    assert page.evaluate("document.activeElement.dataset.add") == "dora_indicators"
    assert not page.errors, page.errors
    page.context.close()


def test_a_tap_on_a_tile_outside_the_hand_leaves_the_hand_alone(server, browser, real_answer):
    """A tap on the outline of a wall tile (a White, in_hand false) opened the picker for a White of the hand;
    a tap on a hand tile's outline picked the first tile of that face. Now an outline outside the hand says
    so and changes nothing; a hand tile's outline opens its own tile."""
    tiles = real_answer["reading"]["tiles"]
    hand_faces = Counter(_expand(real_answer["hand"]["concealed"]))
    wall = next(t["index"] for t in tiles if not t["in_hand"] and t["label"] and hand_faces[t["label"]] >= 1)
    face = tiles[wall]["label"]
    mine = [t["index"] for t in tiles if t["in_hand"] and t["label"] == face]
    assert len(mine) >= 2, "the hand holds one tile of that face: the test shows less"
    page = open_phone(browser, server.url, width=375, height=812)
    page.route("**/v1/photos/score", lambda route: route.fulfill(json=real_answer))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("n => document.querySelectorAll('#photo-boxes rect').length === n", arg=len(tiles))
    page.wait_for_selector("#result .points")
    before = hand_on_page(page)
    page.locator(f'#photo-boxes rect[data-index="{wall}"]').click()
    page.wait_for_timeout(300)
    assert page.locator("#picker[open]").count() == 0
    assert "not part of the hand" in page.locator("#box-note").inner_text()
    assert hand_on_page(page) == before

    own = mine[-1]  # a hand White that is not the first one
    page.locator(f'#photo-boxes rect[data-index="{own}"]').click()
    page.wait_for_selector("#picker[open]")
    assert page.locator("#box-note").is_hidden()
    assert page.eval_on_selector_all("#photo-boxes rect.hi", "els => els.map(e => e.dataset.index)") == [str(own)]
    with page.expect_request(lambda r: "/v1/hands/score" in r.url):
        page.click('#picker-grid .tile[data-tile="6z"]')
    changed = page.locator(f'#hand .tile[data-box="{own}"]')
    assert changed.count() == 1 and changed.get_attribute("data-tile") == "6z"
    assert not page.errors, page.errors
    page.context.close()


def test_unticking_riichi_unticks_ippatsu_and_double_riichi(hands_server, browser):
    """Unticking Riichi left Ippatsu ticked: 'ippatsu needs riichi'. Now ippatsu and double riichi go with it
    (ura indicators too), and ticking either ticks riichi."""
    page = open_phone(browser, hands_server.url)
    type_hand(page)
    page.check('[data-flag="riichi"]')
    page.check('[data-flag="ippatsu"]')
    with page.expect_request(lambda r: "/v1/hands/score" in r.url) as req:
        page.uncheck('[data-flag="riichi"]')
    sent = req.value.post_data_json
    assert not page.is_checked('[data-flag="ippatsu"]') and "ippatsu" not in sent and "riichi" not in sent
    page.wait_for_timeout(300)
    page.wait_for_selector("#result .points")
    assert page.locator("#result.error").count() == 0

    page.check('[data-flag="double_riichi"]')  # double riichi is riichi
    assert page.is_checked('[data-flag="riichi"]')
    page.click('[data-add="ura_indicators"]')
    page.wait_for_selector("#picker[open]")
    page.click('#picker-grid .tile[data-tile="1p"]')
    page.check('[data-flag="ippatsu"]')
    with page.expect_request(lambda r: "/v1/hands/score" in r.url) as req:
        page.uncheck('[data-flag="riichi"]')
    sent = req.value.post_data_json
    assert not any(page.is_checked(f'[data-flag="{f}"]') for f in ("riichi", "double_riichi", "ippatsu"))
    assert not {"riichi", "double_riichi", "ippatsu", "ura_indicators"} & set(sent), sent
    assert page.locator("#ura-field").is_hidden()
    page.check('[data-flag="riichi"]')
    assert page.locator("#ura_indicators .tile").count() == 0  # (not brought back)
    assert not page.errors, page.errors
    page.context.close()


# ---- 3-player rule sets, the picker on a landscape phone, waits after a correction (session 54 tester) ----

SANMA_HAND = "123p456p789s11122z"  # no manzu 2-8, no chi: a hand of the 3-player set, won on 2z


def offered(page, key: str) -> list[str]:
    """The choices a situation row offers (visible buttons), by value."""
    return page.eval_on_selector_all(f'.seg[data-key="{key}"] button',
                                     "els => els.filter(e => e.getClientRects().length).map(e => e.dataset.value)")


def test_a_meld_is_never_called_from_the_empty_seat_of_a_three_player_game(hands_server, browser):
    """The "+ meld" sheet offered the empty seat (East's left) as "called from" under sanma, and took it as
    its default for South (across): the server refused the hand. Now only the two players' seats are offered."""
    page = open_phone(browser, hands_server.url)
    type_hand(page, SANMA_HAND)
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.select_option("#rules", "sanma")
    for seat, empty in [("E", "left"), ("S", "across"), ("W", "right")]:
        page.click(f'.seg[data-key="seat_wind"] button[data-value="{seat}"]')
        page.click("#add-meld")
        page.wait_for_selector("#picker[open]")
        shown = page.eval_on_selector_all("#meld-from button", "els => els.filter(e => e.getClientRects().length)"
                                                             ".map(e => e.dataset.value)")
        pressed = page.get_attribute('#meld-from button[aria-pressed="true"]', "data-value")
        assert empty not in shown and len(shown) == 2 and pressed in shown, (seat, shown, pressed)
        page.click("#picker button.close")
        page.wait_for_selector("#picker:not([open])", state="attached")
    page.click('.seg[data-key="seat_wind"] button[data-value="S"]')
    page.click("#add-meld")
    page.wait_for_selector("#picker[open]")
    with page.expect_request(lambda r: "/v1/hands/score" in r.url and "777z" in (r.post_data or "")) as req:
        page.click('#picker-grid .tile[data-tile="7z"]')  # a pon of red, from the default seat
    (meld,) = req.value.post_data_json["melds"]
    assert meld["from"] != "across" and meld["kind"] == "pon"


def test_three_player_rules_offer_no_north_and_no_empty_seat(hands_server, browser):
    """With sanma chosen the page still offered seat and round wind North and, as 'dealt in by', the seat
    where the empty north sits (East's left, South's across, West's right): the server refused each with an
    error card. Now they are not offered (a note says why), a choice of them falls back to one that exists,
    and a 4-player rule set brings them back."""
    page = open_phone(browser, hands_server.url)
    type_hand(page, SANMA_HAND)
    page.click('.seg[data-key="seat_wind"] button[data-value="N"]')
    page.click('.seg[data-key="round_wind"] button[data-value="N"]')
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.click('.seg[data-key="discarder"] button[data-value="left"]')
    assert page.locator("#three-player-note").is_hidden()
    with page.expect_request(lambda r: "/v1/hands/score" in r.url) as req:
        page.select_option("#rules", "sanma")
    sent = req.value.post_data_json
    # North seat → East, whose empty seat is the left: the discarder chosen there is dropped
    assert (sent["rules"], sent["seat_wind"], sent["round_wind"]) == ("sanma", "E", "E") and "discarder" not in sent
    assert offered(page, "seat_wind") == offered(page, "round_wind") == ["E", "S", "W"]
    assert offered(page, "discarder") == ["across", "right"]
    assert page.get_by_role("group", name="Seat wind").get_by_role("button", name="North").count() == 0
    assert "no North seat" in page.locator("#three-player-note").inner_text()
    page.wait_for_timeout(200)
    page.wait_for_selector("#result .points")
    assert page.locator("#result.error").count() == 0
    for seat, empty in [("S", "across"), ("W", "right")]:
        page.click(f'.seg[data-key="seat_wind"] button[data-value="{seat}"]')
        assert empty not in offered(page, "discarder") and len(offered(page, "discarder")) == 2, seat
    # a discarder in the seat that becomes the empty one when the winner's seat changes is dropped
    page.click('.seg[data-key="seat_wind"] button[data-value="S"]')
    page.click('.seg[data-key="discarder"] button[data-value="right"]')
    with page.expect_request(lambda r: "/v1/hands/score" in r.url) as req:
        page.click('.seg[data-key="seat_wind"] button[data-value="W"]')
    sent = req.value.post_data_json
    assert sent["seat_wind"] == "W" and "discarder" not in sent and score_json(sent)["error"] is None
    assert offered(page, "discarder") == ["left", "across"]
    page.wait_for_timeout(200)
    page.wait_for_selector("#result .points")
    assert page.locator("#result.error").count() == 0
    page.click("#lang")
    assert "北家" in page.locator("#three-player-note").inner_text()
    page.click("#lang")
    with page.expect_response(lambda r: "/v1/hands/score" in r.url):
        page.select_option("#rules", "tenhou")
    assert offered(page, "seat_wind") == offered(page, "round_wind") == ["E", "S", "W", "N"]
    assert offered(page, "discarder") == ["left", "across", "right"]
    assert page.locator("#three-player-note").is_hidden()
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("width,height", [(844, 390), (667, 375), (390, 844), (320, 568)],
                         ids=["landscape", "landscape-small", "portrait", "small"])
def test_the_tile_picker_fits_the_screen_with_close_in_view(hands_server, browser, width, height):
    """On a phone on its side (844 × 390) the picker sheet was 438 px of content in 332 px: the honours and
    Close were below the fold. Now the whole sheet, every tile and Close are on screen without scrolling
    (and with a meld's options too, Close stays in view: the tiles scroll inside the sheet if need be)."""
    page = open_phone(browser, hands_server.url, width=width, height=height)
    type_hand(page)
    seen = """([sel, w, h]) => { const r = document.querySelector(sel).getBoundingClientRect();
        const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return r.top >= 0 && r.left >= 0 && r.bottom <= h && r.right <= w && !!at && at.closest(sel) !== null; }"""
    for opener, all_tiles in [('#hand .tile[data-where="closed"]', True), ("#add-meld", False)]:
        page.locator(opener).first.click()
        page.wait_for_selector("#picker[open]")
        sheet = page.locator("#picker").bounding_box()
        assert sheet["y"] >= 0 and sheet["y"] + sheet["height"] <= height + 0.5, sheet
        assert page.evaluate(seen, ["#picker .close", width, height]), (opener, "Close is not in view")
        if all_tiles:
            for tile in ("1m", "0s", "1z", "7z"):
                assert page.evaluate(seen, [f'#picker-grid .tile[data-tile="{tile}"]', width, height]), tile
        box = page.locator("#picker .close").bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # no scrolling first
        page.wait_for_selector("#picker:not([open])", state="attached")
    assert not page.errors, page.errors
    page.context.close()


def test_waits_of_a_thirteen_tile_photo_go_once_its_tiles_are_corrected(hands_server, browser):
    """After a tile of a 13-tile photo was corrected, 'Winning tile?' still offered the photo's waits (1s 4s 7s),
    though none of them completes the corrected hand. The page does not compute waits, so the row goes once
    one of the 13 tiles is changed, removed or added to; choosing or changing the winning tile keeps it."""
    page = open_phone(browser, hands_server.url)
    page.route("**/v1/photos/score", lambda route: route.fulfill(json=thirteen_answer()))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_selector("#candidates:not([hidden])")
    with page.expect_request(lambda r: "/v1/hands/score" in r.url):
        page.click('#candidates .tile[data-candidate="4s"]')
    # the winning tile changed in the picker: the 13 tiles are the same, their waits still offered
    page.locator('#hand .tile[data-where="win"]').click()
    page.wait_for_selector("#picker[open]")
    with page.expect_request(lambda r: "/v1/hands/score" in r.url):
        page.click('#picker-grid .tile[data-tile="7s"]')
    assert page.locator("#candidates").is_visible()
    assert page.eval_on_selector_all("#candidates .tile", "els => els.map(e => e.dataset.tile)") == ["1s", "4s"]
    # one of the 13 corrected: 0m → 9m
    page.locator('#hand .tile[data-where="closed"][data-tile="0m"]').click()
    page.wait_for_selector("#picker[open]")
    with page.expect_request(lambda r: "/v1/hands/score" in r.url) as req:
        page.click('#picker-grid .tile[data-tile="9m"]')
    sent = req.value.post_data_json
    corrected = "67889m567p23406s"
    assert sent["win_tile"] == "7s" and Counter(_expand(sent["concealed"])) == Counter(_expand(corrected + "7s")), sent
    for wait in WAITS_13:  # (the photo's waits are not waits of the corrected hand)
        error = score_json({**sent, "concealed": corrected + wait, "win_tile": wait})["error"] or ""
        assert "not a winning hand" in error, (wait, error)
    assert page.locator("#candidates").is_hidden()
    assert page.locator("#candidates .tile").count() == 0
    assert hand_on_page(page)[1] == "7s"
    assert not page.errors, page.errors
    page.context.close()


# ---- photos over the server's upload limit; the server's refusals in the page's language (session 55) ----
# (each test fails on the page before it)

PHOTO_LIMIT = 3 * 1024 * 1024  # the server's upload limit here (20 MiB by default)


def mb(n: int) -> str:
    """Bytes as the page writes them in English: MiB to one decimal, no ".0"."""
    return f"{n / 2**20:.1f}".removesuffix(".0")


@pytest.fixture(scope="module")
def small_limit_server(tmp_path_factory):
    """A server that takes photos up to PHOTO_LIMIT bytes, reading them with the stand-in reader (which
    records the shape of each image it is given) and keeping them (keep=true) for the test to look at."""
    from tests.api.conftest import FakeReader

    reader = FakeReader()
    keep_dir = tmp_path_factory.mktemp("kept-small")
    app = create_app(ApiSettings(max_photo_bytes=PHOTO_LIMIT, keep_dir=keep_dir), reader_factory=lambda s: reader)
    with ServerThread(app) as srv:
        wait_healthy(srv, 20, "the stand-in reader did not load")
        srv.reader, srv.keep_dir = reader, keep_dir
        yield srv


def big_phone_photo(path: Path) -> Path:
    """A 4800 × 1600 JPEG (quality 95, no chroma subsampling: ~6 MB) stored on its side, with EXIF orientation 6:
    shown upright it is 1600 × 4800, as a phone's portrait photo is stored."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    w, h = 4800, 1600
    y, x = np.mgrid[0:h, 0:w]
    img = np.zeros((h, w, 3), np.float32)
    img[..., 0], img[..., 1], img[..., 2] = 60 + 80 * x / w, 120 + 60 * y / h, 80
    for _ in range(300):  # tiles, of a sort
        x0, y0 = rng.integers(0, w - 200), rng.integers(0, h - 260)
        img[y0:y0 + 260, x0:x0 + 200] = rng.integers(150, 255, 3)
    img += rng.normal(0, 6, img.shape)
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: turn 90° clockwise to show
    Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(path, "JPEG", quality=95, subsampling=0, exif=exif)
    return path


def test_a_photo_over_the_upload_limit_is_sent_reduced(small_limit_server, browser, tmp_path):
    """A phone photo over the server's limit (a 48-MP photo can be over 20 MiB) was uploaded whole, slowly, to
    be refused with a 413. Now the page knows the limit and sends the photo drawn as a JPEG, upright (EXIF
    orientation applied), its long side 4000 px, under the limit, and says it reduced it."""
    from PIL import Image

    photo = big_phone_photo(tmp_path / "IMG_1234.JPG")
    assert photo.stat().st_size > PHOTO_LIMIT, "the photo is not over the limit: the test shows nothing"
    page = open_phone(browser, small_limit_server.url)
    sent = []
    page.on("request", lambda r: sent.append(r) if "/v1/photos/" in r.url else None)
    page.check("#keep")  # the server keeps what it received
    calls_before = len(small_limit_server.reader.calls)
    with page.expect_response(lambda r: "/v1/photos/score" in r.url, timeout=20000) as resp:
        page.set_input_files("#photo-input", str(photo))
    answer = resp.value.json()
    assert resp.value.status == 200, answer
    assert len(sent) == 1
    kept = small_limit_server.keep_dir / answer["kept"]
    data = kept.read_bytes()
    assert data[:3] == b"\xff\xd8\xff" and len(data) < PHOTO_LIMIT, (data[:4], len(data))
    with Image.open(kept) as im:
        assert im.format == "JPEG" and im.size == (1333, 4000), im.size  # upright, long side 4000
        assert im.getexif().get(0x0112, 1) == 1
    (call,) = small_limit_server.reader.calls[calls_before:]
    assert call["shape"][:2] == (4000, 1333)  # what the reader was given
    assert (answer["image"]["width"], answer["image"]["height"]) == (1333, 4000)
    page.wait_for_function("() => document.querySelector('#status').innerText.includes('tiles read')")
    status = page.locator("#status")
    size = mb(photo.stat().st_size)
    assert f"reduced from {size} MB" in status.inner_text() and "up to 3 MB" in status.inner_text()
    assert "error" not in (status.get_attribute("class") or "")
    page.click("#lang")
    assert f"{size} MBから" in status.inner_text() and "縮小しました" in status.inner_text()
    assert not page.errors, page.errors
    page.context.close()


def test_a_photo_over_the_limit_the_browser_cannot_decode_is_not_sent(small_limit_server, browser):
    """A photo over the limit that the page cannot make smaller (HEIC, which Chrome does not decode) was
    uploaded whole to be refused. Now nothing is sent and the page says it is too big, with its size and
    the server's limit."""
    page = open_phone(browser, small_limit_server.url)
    sent = []
    page.on("request", lambda r: sent.append(r.url) if "/v1/photos/" in r.url else None)
    heic = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + os.urandom(PHOTO_LIMIT + 3 * 2**19)  # 4.5 MB
    page.set_input_files("#photo-input", {"name": "IMG_0001.HEIC", "mimeType": "image/heic", "buffer": heic})
    page.wait_for_function("() => document.querySelector('#status').classList.contains('error')", timeout=10000)
    page.wait_for_timeout(500)
    assert sent == []
    status = page.locator("#status")
    text = status.inner_text()
    assert "The photo is too large" in text and f"{mb(len(heic))} MB" in text and "up to 3 MB" in text, text
    assert page.locator("#retry-photo").is_hidden()
    page.click("#lang")
    assert "写真が大きすぎます" in status.inner_text() and "3 MB" in status.inner_text()
    assert not page.errors, page.errors
    page.context.close()


def test_the_servers_refusals_lead_in_the_pages_language(hands_server, browser):
    """In Japanese a hand or a photo the server refused (400, 422) showed only the server's English message.
    Now a lead in the page's language says what could not be done and which field the server named, the
    server's English detail after it; in English the same, in English."""
    page = open_phone(browser, hands_server.url, locale="ja-JP")
    assert page.locator("html").get_attribute("lang") == "ja"
    page.click("#type-hand")
    page.fill("#text-hand", "234m567p22s34567s")  # 13 tiles: refused, naming `concealed`
    with page.expect_response(lambda r: "/v1/hands/score" in r.url) as resp:
        page.click("#text-form button[type=submit]")
    body = resp.value.json()
    assert resp.value.status == 422 and body["detail"][0]["loc"] == ["body", "concealed"], body
    page.wait_for_selector("#result.error")
    card = page.locator("#result")
    assert "この手は採点できません" in card.inner_text() and "手牌（concealed）" in card.inner_text()
    assert "expected 14 tiles" in page.locator("#result .err").inner_text()  # the server's words, after it
    page.click("#lang")
    assert "cannot be scored" in card.inner_text() and "concealed" in card.inner_text()
    assert "expected 14 tiles" in page.locator("#result .err").inner_text() and "採点" not in card.inner_text()
    page.click("#lang")

    # a photo the server refuses as damaged (422 naming `photo`)
    damaged = {"detail": [{"type": "image_corrupt", "loc": ["body", "photo"],
                           "msg": "the image header cannot be read: Truncated File Read", "input": None}]}
    page.route("**/v1/photos/score", lambda route: route.fulfill(status=422, json=damaged))
    page.set_input_files("#photo-input", str(EXAMPLE_PHOTO))
    page.wait_for_function("() => document.querySelector('#status').classList.contains('error')")
    status = page.locator("#status")
    assert "写真を読めませんでした" in status.inner_text() and "写真（photo）" in status.inner_text()
    assert "Truncated File Read" in status.inner_text()
    page.click("#lang")
    assert "The photo could not be read" in status.inner_text() and "Truncated File Read" in status.inner_text()
    assert not page.errors, page.errors
    page.context.close()
