#!/usr/bin/env python3
"""The owner's page in a real browser: headless Chromium (Debian's chromium and chromium-driver) driven
by Selenium against the real `snapstation run --simulate`, with the AI service stood in for by
Tests/Fakes/fake_services.py.

    python3 Tests/Web/browser_test.py --binary .build/debug/snapstation [--screenshots docs/screens]

What it does, in order, each step checked against what the station shows (the caption file its
headless display writes beside each frame, latest.txt) or stores:
  no session: every route answers with the pairing page, a POST is refused;
  pairing: the pairing gesture at the station, the QR code read back from the frame with zbarimg, the
    code from the station's log typed into the page;
  review: the result on the station's screen saved edited from the page, the station's totals follow;
  edit: a saved meal's kcal changed, the station's next frame shows the new total;
  delete: a meal deleted with its confirmation, the station's totals follow;
  shopping: ingredients of a meal gathered, a line ticked, ticked lines cleared, the text export;
  settings: the filter set to mono, the preview shows it, the next capture is grey;
  CSRF: a POST from the paired browser without the form's token is refused and changes nothing;
  a failed edit: the browser's own check stops an empty field, and past it the station's page comes back
    with what was typed, the field marked and focused, the summary linking to it;
  every page state reached, for every phone and eye (Tests/Web/accessibility.py): axe-core in light and
    dark, reflow at 320 px and with text at 200 %, no focused field under the header, field boundaries at
    3:1; the GET states again in German.
Then a second station, signed in to the Supabase stand-in (fake_services.py --postgres, on the cluster of
Tests/Group/postgres.sh: skipped, saying so, when SNAPSTATION_PG_SOCKET is not set) and in no group yet:
  account: the station's own account made on the Keys page (a sign-up on the stand-in's Auth), the station
    restarted into it;
  group: a group made on the page, its invite code as text and as a QR code read back with zbarimg, a
    member who joins with that code through the API listed after the station, the mode button reaching
    the group at the station, the group left from the page and the station back in meal mode.
Then a third station, new, with no key and the system's time zone, its first phone walked through:
  welcome: the phone's time zone (Asia/Tokyo, through Chrome's timezone override) chosen for the station,
    the goals, an AI service that answers 401 (its words shown) and then a local server that works, with
    the key entered; the end restarts the station, which comes back with the zone and the service and
    analyses a meal with that key.
Then a household's phone photo (run_household), and a restore: the station's own backup sent back from the
phone, confirmed by the hold at the station, the page following the station across its restart by itself.
"""
import argparse
import csv
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from PIL import Image
from selenium.common.exceptions import WebDriverException
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from accessibility import Audit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Benchmarks"))
import common  # noqa: E402  (Tests/Benchmarks/common.py: the station's log reader the benchmarks use too)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
import supabase_members  # noqa: E402  (Tests/Support/supabase_members.py: users and groups through the API)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FAKE = os.path.join(REPO, "Tests/Fakes/fake_services.py")
ROUTES = ["/", "/history", "/day/2026-01-01", "/meal/x", "/meal/x/delete", "/review", "/shopping",
          "/shopping.txt", "/settings", "/settings/preview.jpg", "/group", "/status", "/photo/x.jpg"]


class Failure(Exception):
    pass


CATALOGS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "Sources", "SnapText", "Catalogs")


def catalog(language):
    """Every text of `language`, the display's and the page's, by key (the binary embeds these files)."""
    texts = {}
    for name in (f"{language}.json", f"{language}-page.json"):
        with open(os.path.join(CATALOGS, name), encoding="utf-8") as f:
            texts.update(json.load(f)["texts"])
    return texts


def check(condition, message):
    if not condition:
        raise Failure(message)
    print(f"  ok: {message}")


def wait_for(what, predicate, timeout=20.0, every=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise Failure(f"timed out after {timeout:.0f} s waiting for {what}")


class Station(common.Station):
    """The real binary on simulated devices in meal mode, against the AI stand-in on `ai_port`; its log
    read by the benchmarks' `Station`, its screens by the captions its headless display writes.
    `group`: {"url", "email", "password", "anon_key"} of a user on a Supabase project, for a station
    named Kitchen that shares there and is in no group yet; None: the config's default backend (a folder)."""

    def __init__(self, binary, folder, ai_port, group=None, time_zone="UTC", installer_key=True, port=0):
        self.folder = folder
        self.frames = os.path.join(folder, "state", "frames")
        config = os.path.join(folder, "snapstation.toml")
        environment = {"SNAPSTATION_BROWSER_TEST_KEY": "test-key"} if installer_key else {}
        name = group_section = ""
        if group:
            name = 'name = "Kitchen"\n'
            group_section = f"""[group]
name = []
backend = "supabase"
url = "{group['url']}"
email = "{group['email']}"
key_source = "env:SNAPSTATION_BROWSER_TEST_GROUP_PASSWORD"
anon_key = "{group['anon_key']}"
"""
            if group.get("password"):
                environment["SNAPSTATION_BROWSER_TEST_GROUP_PASSWORD"] = group["password"]
        with open(config, "w") as f:
            f.write(f"""[station]
{name}time_zone = "{time_zone}"
default_mode = "meal"
[camera]
preview_width = 320
preview_height = 240
still_width = 640
still_height = 480
[display]
preview_png_fps = 0.5
idle_seconds = 0
[countdown]
seconds = 1
[ai]
base_url = "http://127.0.0.1:{ai_port}/v1"
key_source = "env:SNAPSTATION_BROWSER_TEST_KEY"
auto_save_seconds = 4
{group_section}[web]
address = "127.0.0.1"
port = {port}
""")
        super().__init__(binary, config, os.path.join(folder, "state"), environment=environment,
                         arguments=("--simulate", "--log-level", "debug"))
        self.url = wait_for("the page's address in the log", lambda: self.latest(r"owner's page at (\S+)/pair"))

    def button(self, word):
        self.type(word)

    def words(self):
        """The texts drawn on the newest frame with words (the headless display's .words files)."""
        files = sorted(f for f in os.listdir(self.frames) if f.endswith(".words"))
        if not files:
            return ""
        with open(os.path.join(self.frames, files[-1]), encoding="utf-8") as f:
            return f.read()

    def caption(self):
        try:
            with open(os.path.join(self.frames, "latest.txt")) as f:
                return f.read().strip()
        except FileNotFoundError:
            return ""

    def wait_caption(self, what, pattern, timeout=20.0):
        found = wait_for(f"the station to show {what} (last: {self.caption()!r})",
                         lambda: re.search(pattern, self.caption()), timeout)
        print(f"  ok: the station shows {what}: {self.caption()}")
        return found


def browser(width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={width},{height}", "--hide-scrollbars"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                              options=options)
    driver.set_page_load_timeout(20)
    return driver


def heading(driver):
    try:
        return driver.find_element(By.TAG_NAME, "h1").text
    except Exception:  # the page is being replaced
        return ""


def follow(driver, element):
    """Clicks a link or a form's button and waits until the next page has replaced this one, so that
    nothing after it reads the old page (whose "Saved." would otherwise pass a check too early).

    The old page is marked on its window object, which a new document does not have. (Asking the old
    page's <html> element whether it went stale raced the navigation: chromium may answer "Node with
    given id does not belong to the document" instead of a stale element, which failed a CI run.)"""
    driver.execute_script("window.snapstationOldPage = true")
    element.click()

    def replaced():
        try:
            return driver.execute_script(
                "return window.snapstationOldPage === undefined && document.readyState === 'complete'")
        except WebDriverException:  # asked in the middle of the navigation: ask again
            return False
    wait_for("the next page", replaced)


def shows(driver, text, timeout=10.0):
    """Whether the page shows `text` within `timeout` (a click's page may still be loading)."""
    try:
        wait_for(repr(text), lambda: text in driver.page_source, timeout)
        return True
    except Failure:
        return False


def kcal_of(caption):
    match = re.search(r"(\d+) kcal", caption)
    return int(match.group(1)) if match else None


def fetch_status(driver, path, body=None):
    """A request from the page itself (same origin, the browser's cookie), as a script on it would."""
    script = """
        const done = arguments[arguments.length - 1];
        const init = arguments[1] === null ? {} : {method: "POST", body: arguments[1],
            headers: {"Content-Type": "application/x-www-form-urlencoded"}};
        fetch(arguments[0], init).then(r => r.text().then(t => done([r.status, t]))).catch(e => done([0, String(e)]));
    """
    return driver.execute_async_script(script, path, body)


def grey_fraction(driver, path):
    """How much of a photo the page serves is grey, measured in the browser on a canvas."""
    script = """
        const done = arguments[arguments.length - 1];
        const image = new Image();
        image.onload = () => {
            const canvas = document.createElement("canvas");
            canvas.width = image.naturalWidth; canvas.height = image.naturalHeight;
            const context = canvas.getContext("2d");
            context.drawImage(image, 0, 0);
            const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
            let grey = 0, all = 0;
            for (let i = 0; i < data.length; i += 4 * 97) {
                const spread = Math.max(data[i], data[i+1], data[i+2]) - Math.min(data[i], data[i+1], data[i+2]);
                if (spread <= 12) grey++;
                all++;
            }
            done(grey / all);
        };
        image.onerror = () => done(-1);
        image.src = arguments[0];
    """
    return driver.execute_async_script(script, path)


def start_fake(*arguments, python=sys.executable):
    """The stand-ins (Tests/Fakes/fake_services.py) and their port; they stop when their stdin closes."""
    fake = subprocess.Popen([python, FAKE, *arguments], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = fake.stdout.readline()
    if not line.startswith("PORT "):
        fake.stdin.close()
        fake.wait(timeout=10)
        raise Failure(f"the fake services did not start (exit {fake.returncode}; their error is above)")
    return fake, int(line.split()[1])


def stop_fake(fake):
    if fake:
        fake.stdin.close()
        fake.wait(timeout=10)


def postgres_python():
    """A Python with psycopg for the stand-in's --postgres: this one, or else python3 on the PATH, for
    which Tests/Group/postgres.sh start installs it (this test's virtual environment has Selenium only)."""
    if importlib.util.find_spec("psycopg"):
        return sys.executable
    return shutil.which("python3") or "python3"


def scan(path):
    """What zbarimg reads in the image at `path` (empty when it reads nothing)."""
    return subprocess.run(["zbarimg", "--quiet", "--raw", path], capture_output=True, text=True).stdout.strip()


def pair(station, driver, name, skip=True):
    """Pairs `driver` with `station` as the first part does (the pairing gesture, the code from the
    station's log typed into the page), without its checks of the QR code and of a wrong code; `skip`
    skips the walk-through the first phone lands on (run_welcome walks it)."""
    mark = station.mark()
    station.button("pair")
    code = wait_for("the pairing code in the log", lambda: station.latest(r"pairing code (\d{8})", mark))
    station.wait_caption("the pairing screen with the page's address", r"^pairing · http")
    driver.get(station.url + "/pair")
    driver.find_element(By.NAME, "code").send_keys(code)
    driver.find_element(By.NAME, "name").send_keys(name)
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form.pair button"))
    if not skip:
        return
    skip_walk_through(driver)
    check(shows(driver, "<h1>Today</h1>"), "the code from the log pairs the browser: Today")
    station.wait_caption("that the browser paired", rf"paired {name}")


def skip_walk_through(driver):
    """The first phone of a new station lands on the walk-through (run_welcome walks it): skipped here."""
    check(heading(driver) == "Welcome: language and time zone", f"the first phone is welcomed: {heading(driver)!r}")
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/welcome/done'] button"))


def close(args, folder, driver, station, *fakes):
    """Ends a part: the browser, the station, the stand-ins, and the state folder unless --keep."""
    if driver:
        driver.quit()
    if station:
        station.stop()
    for fake in fakes:
        stop_fake(fake)
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


def report_failure(failure, driver, station):
    """Prints what failed, the page the browser shows and the end of the station's log."""
    print(f"browser test FAILED: {failure}")
    try:
        print(f"the page ({driver.current_url}): {driver.find_element(By.TAG_NAME, 'main').text[:600]}")
    except Exception:
        pass
    if station:
        lines = station.stop()
        print("last lines of the station's log:")
        for line in lines[-40:]:
            print("  " + line[:300])


def run(args):
    folder = tempfile.mkdtemp(prefix="snapstation-browser-")
    fake, ai_port = start_fake()
    station = Station(args.binary, folder, ai_port)
    driver = browser(390, 844)
    driver.set_script_timeout(20)
    started = time.monotonic()
    try:
        base = station.url
        print(f"station at {base}, state in {folder}")

        print("without a session")
        for route in ROUTES:
            driver.get(base + route)
            check(heading(driver) == "Pair this browser", f"GET {route} shows the pairing page")
        request = urllib.request.Request(base + "/settings", data=b"reset=1", method="POST")
        try:
            urllib.request.urlopen(request)
            raise Failure("a POST without a session was accepted")
        except urllib.error.HTTPError as error:
            check(error.code == 401, f"POST /settings without a session: {error.code}")

        print("pairing at the station")
        mark = station.mark()
        station.button("pair")
        code = wait_for("the pairing code in the log", lambda: station.latest(r"pairing code (\d{8})", mark))
        station.wait_caption("the pairing screen with the page's address", r"^pairing · http")
        frame = sorted(f for f in os.listdir(station.frames) if f.endswith("-pairing.png"))[-1]
        scanned = subprocess.run(["zbarimg", "--quiet", "--raw", os.path.join(station.frames, frame)],
                                 capture_output=True, text=True)
        check(scanned.stdout.strip() == base + "/pair", f"the QR code on the frame reads {scanned.stdout.strip()}")
        driver.get(scanned.stdout.strip())
        audit = Audit(driver)
        audit.check("pairing")
        wrong = "00000000" if code != "00000000" else "11111111"
        driver.find_element(By.NAME, "code").send_keys(wrong)
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.pair button"))
        check(shows(driver, "not the code"), "a wrong code is refused")
        audit.check("pairing, a wrong code", again=False)
        driver.find_element(By.NAME, "code").send_keys(code[:4] + " " + code[4:])
        driver.find_element(By.NAME, "name").send_keys("Selenium")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.pair button"))
        skip_walk_through(driver)
        check(shows(driver, "<h1>Today</h1>"), "the right code pairs the browser, and skips the walk-through: Today")
        station.wait_caption("that the browser paired", r"paired Selenium")
        cookie = driver.get_cookie("snapstation_session")
        check(cookie and cookie["httpOnly"] and cookie.get("sameSite") == "Strict", "the cookie is HttpOnly, SameSite=Strict")

        print("reviewing the result on the station's screen")
        station.wait_caption("the ready screen", r"^ready")
        station.button("press")
        station.wait_caption("the meal result", r"^meal-result .* 650 kcal")
        driver.get(base + "/")
        check(shows(driver, "The station shows"), "the page says the station shows a result")
        follow(driver, driver.find_element(By.CSS_SELECTOR, ".banner a"))
        check(shows(driver, "<h1>Review"), "the page shows the station's result")
        audit.check("review", again=False)
        field = driver.find_element(By.NAME, "item0_kcal")
        field.clear()
        field.send_keys("300")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "button[value=save]"))
        check(shows(driver, "Saved."), "saved from the page")
        station.wait_caption("the reviewed total", r"^ready .* 630 kcal")

        print("editing a saved meal")
        station.button("press")
        station.wait_caption("the second result", r"^meal-result")
        station.wait_caption("the result saved by itself", r"^ready .* 1280 kcal .* 2 meal", timeout=15)
        driver.get(base + "/")
        meals = driver.find_elements(By.CSS_SELECTOR, ".meals li a")
        check(len(meals) == 2, "Today lists two meals")
        check("1280 kcal" in driver.find_element(By.CSS_SELECTOR, ".totals").text, "Today's totals: 1280 kcal")
        follow(driver, meals[0])
        audit.check("a meal")
        driver.find_element(By.CSS_SELECTOR, "details.edit summary").click()
        audit.check("a meal, its edit open", again=False)
        field = driver.find_element(By.NAME, "item2_kcal")
        field.clear()
        field.send_keys("20")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.meal-form button[type=submit]"))
        check(shows(driver, "Saved.") and "550 kcal" in driver.page_source, "the edit is saved: 550 kcal")
        station.wait_caption("the edited total on its next frame", r"^ready .* 1180 kcal", timeout=3)
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-meal-phone.png"))

        print("a failed edit keeps what was typed")
        driver.find_element(By.CSS_SELECTOR, "details.edit summary").click()
        driver.find_element(By.NAME, "item1_kcal").clear()
        driver.find_element(By.NAME, "item1_kcal").send_keys("123")
        grams = driver.find_element(By.NAME, "item0_grams")
        grams.clear()
        submit = driver.find_element(By.CSS_SELECTOR, "form.meal-form button[type=submit]")
        submit.click()
        check(driver.execute_script("return arguments[0].validity.valueMissing", grams),
              "the browser itself stops an empty grams field")
        # Past the browser's own check, as an old browser would send it: the station's check.
        driver.execute_script("document.querySelector('form.meal-form').noValidate = true")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.meal-form button[type=submit]"))
        check(driver.find_element(By.CSS_SELECTOR, "details.edit").get_attribute("open") is not None,
              "the edit panel is open again")
        check(driver.find_element(By.NAME, "item1_kcal").get_attribute("value") == "123", "the typed kcal is kept")
        grams = driver.find_element(By.NAME, "item0_grams")
        check(grams.get_attribute("aria-invalid") == "true", "the empty field is marked")
        described = driver.find_element(By.ID, grams.get_attribute("aria-describedby")).text
        check("grams" in described and "empty" in described, f"its message beside it: {described!r}")
        check(driver.execute_script("return document.activeElement.name") == "item0_grams", "the focus is on it")
        summary = driver.find_element(By.CSS_SELECTOR, "div.problem[role=alert] a")
        check(summary.get_attribute("href").endswith("#f-item0_grams"), "the summary links to it")
        audit.check("a meal, a failed edit", again=False)
        if args.screenshots:
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", grams)
            driver.save_screenshot(os.path.join(args.screenshots, "page-failed-edit-phone.png"))
        check("550 kcal" in driver.page_source, "nothing was saved: still 550 kcal")

        print("deleting a meal")
        follow(driver, driver.find_element(By.LINK_TEXT, "Delete this meal…"))
        check(shows(driver, "cannot be undone"), "deleting asks first")
        audit.check("deleting a meal")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "button.danger"))
        check(shows(driver, "The meal is deleted."), "deleted")
        station.wait_caption("one meal left", r"^ready .* 630 kcal .* 1 meal", timeout=3)

        print("the shopping list")
        driver.get(base + "/shopping")
        driver.find_element(By.CSS_SELECTOR, ".choices input[type=checkbox]").click()
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.from-meals button"))
        check(shows(driver, "Saved."), "the meal's ingredients are added")
        names = [e.get_attribute("value") for e in driver.find_elements(By.CSS_SELECTOR, ".lines input.name")]
        check("Tomatoes" in names and "Olive oil" in names and "Spaghetti" in names, f"gathered: {names}")
        audit.check("shopping")
        line = next(e for e in driver.find_elements(By.CSS_SELECTOR, ".lines li")
                    if e.find_element(By.CSS_SELECTOR, "input.name").get_attribute("value") == "Tomatoes")
        line.find_element(By.CSS_SELECTOR, "input[type=checkbox]").click()
        check("ticked" in line.get_attribute("class"), "a ticked line looks ticked at once")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.shopping button[type=submit]"))
        check(shows(driver, "Saved."), "the list is saved")
        status, text = fetch_status(driver, "/shopping.txt", None)
        check(status == 200 and "[x] 120 g Tomatoes" in text, "the text export has the ticked line")
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-shopping-phone.png"))
        follow(driver, driver.find_element(By.XPATH, "//button[text()='Clear ticked lines']"))
        check(shows(driver, "Saved."), "cleared")
        names = [e.get_attribute("value") for e in driver.find_elements(By.CSS_SELECTOR, ".lines input.name")]
        check("Tomatoes" not in names and "Olive oil" in names, f"ticked lines cleared: {names}")

        print("settings: the filter")
        photo_before = station.latest(r"stored (\S+)")
        check(grey_fraction(driver, f"/photo/{photo_before}.jpg") < 0.9, "a photo before the change has colour")
        driver.get(base + "/settings")
        Select(driver.find_element(By.ID, "filter")).select_by_value("mono")
        driver.execute_script("const r = document.getElementById('intensity'); r.value = '1';"
                              "r.dispatchEvent(new Event('input'));")
        wait_for("the preview to follow the form",
                 lambda: "intensity=1" in driver.find_element(By.ID, "after").get_attribute("src"))
        after = driver.find_element(By.ID, "after").get_attribute("src")
        check(grey_fraction(driver, after) > 0.97, "the preview shows the last photo in mono")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))
        check(shows(driver, "Saved. The station uses it"), "settings saved")
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-settings-phone.png"))
        mark = station.mark()
        station.button("press")
        photo = wait_for("the next photo to be stored", lambda: station.latest(r"stored (\S+)", mark))
        check(grey_fraction(driver, f"/photo/{photo}.jpg") > 0.97, "the next capture is grey")

        print("CSRF")
        status, _ = fetch_status(driver, "/settings", "reset=1")
        check(status == 403, f"a POST without the form's token is refused ({status})")
        driver.get(base + "/settings")
        check(Select(driver.find_element(By.ID, "filter")).first_selected_option.get_attribute("value") == "mono",
              "the settings are unchanged")

        driver.get(base + "/status")
        check("simulated" in driver.page_source and "Selenium" in driver.page_source, "the status page")
        audit.check("status")
        driver.get(base + "/update")
        audit.check("system update")

        print("the page and the station in German")
        german = catalog("de")
        driver.get(base + "/settings")
        Select(driver.find_element(By.ID, "language")).select_by_value("de")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))
        check(driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "de", "the page says it is German")
        nav = [link.text for link in driver.find_elements(By.CSS_SELECTOR, "nav a")]
        wanted = [german[f"page.nav.{name}"] for name in ("today", "log", "history", "shopping", "group", "settings", "status")]
        check(nav == wanted, f"the sections are named in German: {nav}")
        check(heading(driver) == german["page.settings.title"], f"the heading is German: {heading(driver)}")
        wait_for("the station's display to speak German",
                 lambda: german["ready.hint.meal"] in station.words(), timeout=10)
        print(f"  ok: the display says {german['ready.hint.meal']!r}")
        driver.get(base + "/")
        check(heading(driver) == german["page.today.title"], f"Today in German: {heading(driver)}")
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-today-phone-de.png"))
        driver.get(base + "/settings")
        Select(driver.find_element(By.ID, "language")).select_by_value("en")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))
        check(driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en", "back in English")

        print("settings: quiet hours around now")
        now = time.gmtime()
        start, end = (now.tm_hour + 23) % 24, (now.tm_hour + 1) % 24
        driver.get(base + "/settings")
        driver.execute_script(f"document.getElementById('quiet_from').value = '{start:02d}:00';"
                              f"document.getElementById('quiet_until').value = '{end:02d}:59';")
        mark = station.mark()
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))
        check(shows(driver, f"quiet {start:02d}:00-{end:02d}:59"), "the page says the quiet hours are kept")
        check(station.latest(r"owner's settings: .*quiet hours (\S+)", mark) == f"{start:02d}:00-{end:02d}:59",
              "the station's log: the quiet hours")
        station.wait_caption("the ready screen without the flash", r"^ready · .*flash off")
        driver.get(base + "/settings")
        if args.screenshots:
            fieldset = driver.find_element(By.ID, "quiet_from").find_element(By.XPATH, "./ancestor::fieldset")
            driver.execute_script("arguments[0].scrollIntoView()", fieldset)
            fieldset.screenshot(os.path.join(args.screenshots, "page-settings-capture-phone.png"))
        driver.execute_script("document.getElementById('quiet_from').value = '';"
                              "document.getElementById('quiet_until').value = '';")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))
        check(shows(driver, "Saved. The station uses it"), "no quiet hours again")
        wait_for("the flash back on the ready screen", lambda: "flash off" not in station.caption(), timeout=10)

        print("a failed settings form keeps what was typed")
        driver.get(base + "/settings")
        driver.find_element(By.ID, "goal_kcal").clear()
        driver.find_element(By.ID, "goal_kcal").send_keys("1900")
        driver.execute_script("document.getElementById('goal_protein').value = '-5';"
                              "document.getElementById('quiet_from').value = '22:00';"
                              "document.querySelector('form.settings').noValidate = true")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))
        marked = [field.get_attribute("id") for field in driver.find_elements(By.CSS_SELECTOR, "[aria-invalid=true]")]
        check(marked == ["quiet_from", "goal_protein"], f"the wrong fields are marked, in the form's order: {marked}")
        check(driver.execute_script("return document.activeElement.id") == "quiet_from", "the focus is on the first")
        links = [a.get_attribute("href").split("#")[1]
                 for a in driver.find_elements(By.CSS_SELECTOR, "div.problem[role=alert] a")]
        check(links == ["quiet_from", "goal_protein"], f"the summary links to each: {links}")
        check(driver.find_element(By.ID, "goal_kcal").get_attribute("value") == "1900", "the typed goal is kept")
        audit.check("settings, a failed save", again=False)
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-settings-failed-phone.png"))

        print("goals, the charts and the export")
        driver.get(base + "/settings")
        for name, value in (("goal_kcal", "2000"), ("goal_protein", "120")):
            field = driver.find_element(By.ID, name)
            field.clear()
            field.send_keys(value)
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))
        check(shows(driver, "Saved. The station uses it"), "the goals are saved")
        wait_for("the station's next frame to show the day against the goal",
                 lambda: " / 2000 kcal" in station.words(), timeout=10)
        print("  ok: the display shows the day against 2000 kcal")
        driver.get(base + "/")
        check(len(driver.find_elements(By.CSS_SELECTOR, ".goals meter")) == 2, "Today shows a meter per goal set")
        driver.get(base + "/history")
        bars = driver.find_elements(By.CSS_SELECTOR, "svg.chart g.day")
        check(len(bars) == 2 and bars[0].get_attribute("data-kcal") == "1280", f"the charts show today's 1280 kcal: {len(bars)}")
        audit.check("history")
        heights = []
        for size in (16, 32):
            audit.text_size(size)
            heights.append(driver.execute_script(
                "return document.querySelector('svg.chart text.axis').getBoundingClientRect().height"))
        audit.text_size(16)
        check(heights[1] > 1.6 * heights[0], f"the charts' axis text grows with the text size: {heights} px")
        print(f"  ok: the axis text is {heights[0]:.1f} px high, {heights[1]:.1f} px with text at 200 %")
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-history-phone.png"))
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": 320, "height": 700, "deviceScaleFactor": 1, "mobile": True})
            driver.find_element(By.CSS_SELECTOR, "details.chart-values summary").click()
            driver.save_screenshot(os.path.join(args.screenshots, "page-history-320.png"))
            driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        status, text = fetch_status(driver, "/export/meals.csv", None)
        rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
        check(status == 200 and rows[0][:3] == ["date", "time", "title"] and len(rows) == 3,
              f"the export has a header and the two meals: {rows}")

        print("eating a meal again")
        driver.get(base + "/")
        follow(driver, driver.find_elements(By.CSS_SELECTOR, ".meals li a")[-1])
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action$='/again'] button"))
        check(shows(driver, "Logged again for today."), "logged again, from the page")
        station.wait_caption("the third sticker in the jar, with no analysis used", r"^ready .* 3 meal.* 7 analyses left .*jar 3")

        print("correcting a meal in a sentence")
        driver.get(base + "/")
        follow(driver, driver.find_elements(By.CSS_SELECTOR, ".meals li a")[0])
        driver.find_element(By.CSS_SELECTOR, "form.correct textarea").send_keys("There was no parmesan")
        button = driver.find_element(By.CSS_SELECTOR, "form.correct button")
        check("uses 1 of the 7 analyses left today" in button.text, f"the button says what it spends: {button.text}")
        follow(driver, button)
        check(shows(driver, "Corrected: the AI", timeout=30), "the page reloads itself until the AI answered")
        items = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table.items tr")]
        check(not any("Parmesan" in row for row in items), f"the parmesan is gone: {items}")
        station.wait_caption("the correction counted at the station", r"^ready .* 6 analyses left")

        print("planning a meal into the shopping list")
        driver.get(base + "/shopping")
        driver.find_element(By.NAME, "plan_name").send_keys("spaghetti bolognese")
        for name, value in (("plan_portions", "4"), ("plan_times", "2")):
            field = driver.find_element(By.NAME, name)
            field.clear()
            field.send_keys(value)
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.plan-form button"))
        check(shows(driver, "Review: Spaghetti bolognese", timeout=30), "the AI's plan comes up for review")
        lines = driver.find_elements(By.CSS_SELECTOR, ".lines li")
        amounts = [line.find_element(By.CSS_SELECTOR, "input.amount").get_attribute("value") for line in lines]
        check(amounts[:3] == ["800", "1000", "1200"], f"a week's amounts, 8 portions of one: {amounts}")
        audit.check("a planned meal's review", again=False)
        lines[-1].find_element(By.CSS_SELECTOR, "input[type=checkbox]").click()
        follow(driver, driver.find_element(By.XPATH, "//button[text()='Put on the shopping list']"))
        check(shows(driver, "Saved."), "the plan is on the list")
        names = [e.get_attribute("value") for e in driver.find_elements(By.CSS_SELECTOR, ".lines input.name")]
        check("Minced beef" in names and "Olive oil" in names, f"the plan's lines, merged: {names}")
        plan = driver.find_element(By.CSS_SELECTOR, ".plans li.plan")
        check("Spaghetti bolognese" in plan.text and "1 more" in plan.text, f"the planned meal: {plan.text}")
        if args.screenshots:
            # The planned meals' heading just under the sticky header.
            driver.execute_script("window.scrollTo(0, arguments[0].getBoundingClientRect().top + window.scrollY"
                                  " - document.querySelector('header').offsetHeight - 8)",
                                  driver.find_element(By.CSS_SELECTOR, ".plans").find_element(
                                      By.XPATH, "preceding-sibling::h2[1]"))
            driver.save_screenshot(os.path.join(args.screenshots, "page-plan-phone.png"))
        station.wait_caption("the plan counted at the station", r"^ready .* 5 analyses left")
        driver.get(base + "/")
        audit.check("today")
        driver.get(base + "/settings")
        audit.check("settings")
        driver.get(base + "/shopping")
        audit.check("shopping with a planned meal")

        print("a backup from the page")
        driver.get(base + "/settings")
        follow(driver, driver.find_element(By.LINK_TEXT, "Backup and restore"))
        audit.check("backup and restore")
        got = driver.execute_async_script(
            "const done = arguments[0];"
            "fetch('/backup/download').then(r => r.arrayBuffer().then(b => {"
            " const u = new Uint8Array(b);"
            " done([r.status, r.headers.get('content-type'), u.length, String.fromCharCode(...u.slice(257, 262)),"
            "       new TextDecoder().decode(u.slice(0, 23))]); }))")
        check(got[0] == 200 and got[1] == "application/x-tar" and got[3] == "ustar",
              f"the backup downloads as a tar: {got[:4]}")
        check(got[4] == "snapstation-backup.json" and got[2] > 100_000, f"its header first, its photos in it: {got}")

        print("keys from the page (this station's AI key is the installer's: the page says so, with no field)")
        driver.get(base + "/settings")
        follow(driver, driver.find_element(By.LINK_TEXT, "Keys and passwords"))
        audit.check("keys and passwords")
        check("Set by the installer" in driver.page_source and not driver.find_elements(By.ID, "ai-key"),
              "the installer's key in force, said, and no field that would not be used")

        print("a factory reset asked on the page, then kept by a press at the station")
        station.wait_caption("the ready screen", r"^ready", timeout=15)
        driver.get(base + "/backup")
        follow(driver, driver.find_element(By.LINK_TEXT, "Erase this station"))
        audit.check("factory reset")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/reset'] button"))
        station.wait_caption("the reset's question", r"^reset-confirm")
        check("Hold its button for 5 seconds" in driver.page_source, "the page says to confirm at the station")
        # (not audited: the page reloads itself every 3 s while the station asks)
        station.button("press")
        station.wait_caption("everything kept", r"^ready")
        driver.get(base + "/")
        check(heading(driver) != "" and "/pair" not in driver.current_url, "still paired: nothing was erased")

        if args.screenshots:
            station.wait_caption("the ready screen", r"^ready", timeout=15)
            driver.get(base + "/")
            driver.save_screenshot(os.path.join(args.screenshots, "page-today-phone.png"))
            driver.set_window_size(1280, 900)
            driver.get(base + "/")
            driver.save_screenshot(os.path.join(args.screenshots, "page-today-desktop.png"))
            driver.get(base + "/status")
            driver.save_screenshot(os.path.join(args.screenshots, "page-status-desktop.png"))
        print("the page's states again in German")
        driver.get(base + "/settings")
        Select(driver.find_element(By.ID, "language")).select_by_value("de")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))
        audit.revisit("de")
        driver.get(base + "/settings")
        Select(driver.find_element(By.ID, "language")).select_by_value("en")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))
        check(audit.report(), "every page state audited for every phone and eye, with no problem listed above")
        print(f"the meals, shopping and settings parts: passed in {time.monotonic() - started:.0f} s")
        return 0
    except Failure as failure:
        report_failure(failure, driver, station)
        return 1
    finally:
        close(args, folder, driver, station, fake)



def run_group(args):
    """The Group section on a Supabase project: a second station, signed in to the stand-in on the test
    cluster and in no group yet, with a browser of its own (a cookie is per host, not per port)."""
    print("the Group section on a Supabase project")
    if not os.environ.get("SNAPSTATION_PG_SOCKET"):
        print("  skipped: no PostgreSQL for the Supabase stand-in (SNAPSTATION_PG_SOCKET is not set); run "
              "Tests/Group/postgres.sh start and eval \"$(Tests/Group/postgres.sh env)\" first, as Tests/run does")
        return 0
    started = time.monotonic()
    folder = tempfile.mkdtemp(prefix="snapstation-browser-group-")
    fake = station = driver = None
    try:
        fake, port = start_fake("--postgres", os.environ["SNAPSTATION_PG_SOCKET"],
                                "--pg-port", os.environ.get("SNAPSTATION_PG_PORT") or "5432",
                                "--pg-user", os.environ.get("SNAPSTATION_PG_USER") or "postgres",
                                python=postgres_python())
        project = f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(project + "/_control/keys", timeout=10) as answer:
            anon_key = json.load(answer)["anon_key"]
        # No account: the owner makes the station's own on the Keys page.
        project_only = {"url": project, "email": "", "password": None, "anon_key": anon_key}
        station = Station(args.binary, folder, port, group=project_only)
        driver = browser(390, 844)
        base = station.url
        print(f"station at {base}, with the Supabase stand-in at {project} and no account, state in {folder}")
        pair(station, driver, "Selenium")
        audit = Audit(driver)

        print("the station's own account, made on the Keys page")
        driver.get(base + "/keys")
        check(shows(driver, "The station has no account yet."), "Keys says: no account yet")
        audit.check("keys, no account yet")
        form = driver.find_element(By.CSS_SELECTOR, "form[action='/keys/group/account']")
        form.find_element(By.NAME, "email").send_keys("kitchen@example.com")
        mark = station.mark()
        follow(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        check(shows(driver, "The account kitchen@example.com is made and works"), "the stand-in's Auth made it")
        audit.check("keys, the account made", again=False)
        wait_for("the station to stop for its restart", lambda: station.process.poll() is not None, timeout=30)
        check(station.latest(r"restarting to use the keys, the time zone or the AI service", mark),
              "the station's log: restarting to use the account")
        station.stop()
        station = Station(args.binary, folder, port, group=project_only)
        base = station.url
        said = wait_for("the owner's settings in the log", lambda: station.latest(r"owner's settings: (.*)"))
        check("group account kitchen@example.com" in said, f"the station started with its account: {said}")
        station.wait_caption("the ready screen in meal mode", r"^ready · meal mode")

        print("making a group")
        driver.get(base + "/group")
        check(shows(driver, "The station is in no group yet."), "Group says: the station is in no group yet")
        check(not driver.find_elements(By.CSS_SELECTOR, "section.group-card"), "no group's card")
        audit.check("group, in none yet")
        form = driver.find_element(By.CSS_SELECTOR, "form[action='/group/create']")
        form.find_element(By.NAME, "group").send_keys("Family/Friends")
        follow(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        named = driver.find_element(By.ID, "make-group")
        check(named.get_attribute("aria-invalid") == "true" and named.get_attribute("value") == "Family/Friends",
              "a name that cannot be a group's is marked, as typed")
        check(driver.execute_script("return document.activeElement.id") == "make-group", "the focus is on it")
        audit.check("group, a failed make", again=False)
        form = driver.find_element(By.CSS_SELECTOR, "form[action='/group/create']")
        form.find_element(By.NAME, "group").clear()
        form.find_element(By.NAME, "group").send_keys("Family")
        member = form.find_element(By.NAME, "member")
        check(member.get_attribute("value") == "Kitchen", "the member's name is the station's name, Kitchen")
        member.clear()
        member.send_keys("Kitchen")
        mark = station.mark()
        follow(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        check(heading(driver) == "Family is made", f"the page says {heading(driver)!r}")
        code = driver.find_element(By.CSS_SELECTOR, "p.invite-code").text.strip()
        check(re.fullmatch(r"[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}", code),
              f"the invite code as text: {code}")
        qr = os.path.join(folder, "invite-qr.png")
        driver.find_element(By.CSS_SELECTOR, "svg.qr").screenshot(qr)
        scanned = scan(qr)
        check(scanned == code, f"the QR code on the page reads {scanned!r}, the code")
        audit.check("a group made, its invite", again=False)
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-invite-phone.png"))
        wait_for("the station to take the group", lambda: station.latest(r"owner's settings: .*groups Family", mark))
        print("  ok: the station's log: " + station.latest(r"(owner's settings: .*)", mark))

        print("another member joins with the code")
        hall = supabase_members.sign_up_member(project, anon_key, None, "Hall")
        joined = supabase_members.post(project, anon_key, "/rest/v1/rpc/join_group",
                                       {"invite_code": code, "member_name": "Hall"}, hall["access_token"])
        check(joined == "Family", f"Hall joins with the code through the API: {joined!r}")
        follow(driver, driver.find_element(By.LINK_TEXT, "Back to the group"))
        cards = driver.find_elements(By.CSS_SELECTOR, "section.group-card")
        check([card.find_element(By.TAG_NAME, "h3").text for card in cards] == ["Family"], "one card: Family")
        members = [item.text for item in cards[0].find_elements(By.CSS_SELECTOR, "ul.members li")]
        check(members == ["Kitchen (this station) · has not shared yet", "Hall · has not shared yet"],
              f"its members in join order: {members}")
        check(not shows(driver, "The station is in no group yet.", timeout=0.5), "no longer \"in no group yet\"")
        audit.check("group, with its members")
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-group-phone.png"))

        print("the mode button at the station")
        station.wait_caption("the ready screen", r"^ready · meal mode")
        mark = station.mark()
        station.button("mode")
        station.wait_caption("group mode for Family", r"^ready · group mode · Family")
        check(station.latest(r"mode switched to group Family", mark),
              "the station's log: mode switched to group Family")

        print("leaving the group")
        follow(driver, driver.find_element(By.LINK_TEXT, "Leave Family"))
        check(heading(driver) == "Leave Family?", "leaving asks first")
        audit.check("leaving a group", again=False)
        mark = station.mark()
        follow(driver, driver.find_element(By.CSS_SELECTOR, "button.danger"))
        check(shows(driver, "Left."), "the page says: Left.")
        check(not driver.find_elements(By.CSS_SELECTOR, "section.group-card"), "Family's card is gone")
        check(shows(driver, "The station is in no group yet."), "the station is in no group yet, again")
        station.wait_caption("meal mode again", r"^ready · meal mode")
        check(station.latest(r"mode switched to meal: the station is in no group now", mark),
              "the station's log: mode switched to meal, in no group now")
        left = supabase_members.post(project, anon_key, "/rest/v1/rpc/group_members", {"group_name": "Family"},
                                     hall["access_token"])
        check([row["member_name"] for row in left] == ["Hall"], f"the server's members of Family: {left}")
        check(audit.report(), "every Group page state audited for every phone and eye, with no problem listed above")
        print(f"the Group part: passed in {time.monotonic() - started:.0f} s")
        return 0
    except (Failure, supabase_members.Refused) as failure:
        report_failure(failure, driver, station)
        return 1
    finally:
        close(args, folder, driver, station, fake)

def run_welcome(args):
    """A new station's first phone walked through: a third station with no key and the system's time zone."""
    print("the first visit's walk-through on a new station")
    started = time.monotonic()
    folder = tempfile.mkdtemp(prefix="snapstation-browser-welcome-")
    fake = refusing = station = driver = None
    try:
        fake, ai_port = start_fake()
        refusing, refusing_port = start_fake()
        # The config names the refusing service: the owner's choice of the working one is then a setting.
        station = Station(args.binary, folder, refusing_port, time_zone="", installer_key=False)
        driver = browser(390, 844)
        # The phone's zone, as the page's script reads it (Intl.DateTimeFormat).
        driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Tokyo"})
        pair(station, driver, "Selenium", skip=False)
        check(heading(driver) == "Welcome: language and time zone", f"the first phone is welcomed: {heading(driver)!r}")
        zone = Select(driver.find_element(By.ID, "time_zone"))
        check(zone.first_selected_option.get_attribute("value") == "Asia/Tokyo",
              "the phone's time zone is chosen for a station that keeps the system's")
        check(shows(driver, "Your phone's time zone: Asia/Tokyo"), "and named beside the field")
        audit = Audit(driver)
        audit.check("welcome, language and time zone")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))
        check(heading(driver) == "Your household", f"step 2: {heading(driver)!r}")
        goal = driver.find_element(By.ID, "goal_kcal")
        goal.clear()
        goal.send_keys("1900")
        audit.check("welcome, the household")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))
        check(heading(driver) == "The AI service", f"step 3: {heading(driver)!r}")

        def try_service(port, key):
            address = driver.find_element(By.ID, "ai_base_url")
            address.clear()
            address.send_keys(f"http://127.0.0.1:{port}/v1")
            driver.find_element(By.ID, "ai_key").send_keys(key)
            follow(driver, driver.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]"))

        try_service(refusing_port, "sk-wrong-key-0000")
        check(shows(driver, "Incorrect API key provided") and shows(driver, "(HTTP 401)"),
              "a service that refuses the key: its own words and its status")
        audit.check("welcome, an AI service that answers 401", again=False)
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-welcome-ai-phone.png"))
        try_service(ai_port, "test-key")
        check(shows(driver, "offers gpt-4o-mini: it works"), "a server on this network that works")
        check(shows(driver, "ends in -key") and not shows(driver, "test-key", timeout=0.5),
              "the key's last four, never the key")
        audit.check("welcome, an AI service that works", again=False)
        follow(driver, driver.find_element(By.LINK_TEXT, "Go on to the group"))
        check(heading(driver) == "The group", f"step 4: {heading(driver)!r}")
        audit.check("welcome, the group")
        check(audit.report(), "every walk-through state audited for every phone and eye, with no problem listed above")

        mark = station.mark()
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/welcome/done'] button"))
        check(shows(driver, "The station restarts to use"), "the end says the station restarts")
        wait_for("the station to stop for its restart", lambda: station.process.poll() is not None, timeout=30)
        check(station.latest(r"restarting to use the keys, the time zone or the AI service", mark),
              "the station's log: restarting to use what the page changed")
        station.stop()
        print("  ok: the station stopped to restart (run by hand, nothing starts it again: the test does)")
        station = Station(args.binary, folder, refusing_port, time_zone="", installer_key=False)
        said = wait_for("the owner's settings in the log", lambda: station.latest(r"owner's settings: (.*)"))
        check("time zone Asia/Tokyo" in said and f"AI service http://127.0.0.1:{ai_port}/v1 (gpt-4o-mini)" in said,
              f"the station started with the zone and the service: {said}")
        check(station.latest(r"(AI service at 127\.0\.0\.1 without a key)") is None, "and with the key entered")
        driver.get(station.url + "/")
        check(shows(driver, "<h1>Today</h1>"), "the phone stays paired, and goes to Today now")
        station.wait_caption("the ready screen", r"^ready")
        station.button("press")
        station.wait_caption("the meal analysed with the key entered", r"^meal-result .* 650 kcal")
        print(f"the walk-through: passed in {time.monotonic() - started:.0f} s")
        return 0
    except Failure as failure:
        report_failure(failure, driver, station)
        return 1
    finally:
        close(args, folder, driver, station, fake, refusing)


def run_household(args):
    """A household of two at one station, and a meal logged for the second from a phone's photo: the file
    picked on the phone page, reviewed and saved; the stored photo read back with Pillow (upright, no EXIF
    and no GPS left), and the AI stand-in asked with the 512 px copy."""
    folder = tempfile.mkdtemp(prefix="snapstation-household-")
    fake, ai_port = start_fake()
    station = Station(args.binary, folder, ai_port)
    driver = browser(390, 844)
    started = time.monotonic()
    try:
        base = station.url
        pair(station, driver, "Household phone")
        audit = Audit(driver)
        print("a second person on the People page")
        driver.get(base + "/people")
        form = driver.find_element(By.CSS_SELECTOR, "form[action='/people']")
        form.find_element(By.NAME, "name").send_keys("Lena")
        follow(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        check(shows(driver, "Lena"), "Lena is one of the household")

        print("a phone's photo picked for Lena: a portrait stored on its side, EXIF orientation 6 and a GPS fix")
        photo = os.path.join(folder, "IMG_0042.jpg")
        stored = Image.new("RGB", (1600, 1200), (200, 150, 90))
        # Orientation 6 shows the stored picture turned a quarter clockwise: its bottom-left corner is the
        # shown top-left, marked red here.
        stored.paste((230, 20, 20), (0, 1200 - 240, 240, 1200))
        exif = Image.Exif()
        exif[0x0112] = 6
        exif[0x8825] = {1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 36.0)}
        stored.save(photo, "JPEG", quality=92, exif=exif.tobytes())
        with Image.open(photo) as sent:
            check(sent.getexif().get(0x0112) == 6 and sent.getexif().get_ifd(0x8825),
                  "the photo sent has its orientation and GPS")
        driver.get(base + "/log")
        follow(driver, driver.find_element(By.PARTIAL_LINK_TEXT, "Lena"))
        audit.check("log a meal")
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-log-phone.png"))
        driver.find_element(By.ID, "phone-photo").send_keys(photo)
        driver.find_element(By.CSS_SELECTOR, "form.upload button.send").click()
        wait_for("the AI's answer to review", lambda: "/log/review" in driver.current_url
                 and driver.find_elements(By.CSS_SELECTOR, "form[action='/log/review']"), timeout=40)
        check("For Lena" in driver.page_source and driver.find_element(By.NAME, "title").get_attribute("value")
              == "Spaghetti with tomato sauce", "the answer, for Lena, to review")
        audit.check("a phone's photo reviewed", again=False)
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-log-review-phone.png"))
        follow(driver, driver.find_element(By.CSS_SELECTOR, "button[name=decision][value=save]"))
        check(shows(driver, "Logged."), "saved, and said so")
        check("Spaghetti with tomato sauce" in driver.page_source, "Lena's Today shows it")

        print("the photo kept, read back with Pillow; the AI's copy")
        kept = [os.path.join(root, name) for root, _, names in os.walk(os.path.join(folder, "state", "photos"))
                for name in names if name.endswith(".jpg") and not name.endswith("-thumb.jpg")]
        check(len(kept) == 1, f"one photo kept: {kept}")
        with Image.open(kept[0]) as image:
            check(image.width < image.height, f"upright: {image.size}")
            check(len(image.getexif()) == 0 and "exif" not in image.info, "no EXIF left, so no GPS")
            red, green, _ = image.convert("RGB").getpixel((5, 5))
            check(red > 180 and green < 80, f"the red corner is top-left: {(red, green)}")
        requests = json.load(urllib.request.urlopen(f"http://127.0.0.1:{ai_port}/_requests"))
        chat = [r for r in requests if r.get("path") == "/v1/chat/completions"]
        check(chat and max(chat[-1].get("image_size") or [0]) == 512, f"the AI saw the 512 px copy: {chat[-1:]}")
        check(audit.report(), "the log pages audited for every phone and eye")
        print(f"the household's phone photo: passed in {time.monotonic() - started:.0f} s")
        return 0
    except Failure as failure:
        report_failure(failure, driver, station)
        return 1
    finally:
        close(args, folder, driver, station, fake)


def free_port():
    """A TCP port nothing listens on now, for a page whose address must outlive the station's restart."""
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_restore(args):
    """A backup restored from the phone and confirmed at the station: the file picked on the backup page,
    the station's question answered by the 5-second hold, the station started again (as systemd would, at
    the same address), and the restore's page, left alone, following it across the restart by itself until
    it says how the restore ended."""
    folder = tempfile.mkdtemp(prefix="snapstation-restore-")
    fake, ai_port = start_fake()
    port = free_port()
    station = Station(args.binary, folder, ai_port, port=port)
    driver = browser(390, 844)
    started = time.monotonic()
    try:
        base = station.url
        pair(station, driver, "Restoring phone")
        audit = Audit(driver)
        print("a meal, then the station's backup downloaded and sent back to restore")
        station.wait_caption("the ready screen", r"^ready")
        station.button("press")
        station.wait_caption("the meal's result", r"^meal-result", timeout=40)
        station.wait_caption("the meal saved", r"^ready", timeout=40)
        cookie = driver.get_cookie("snapstation_session")["value"]
        backup = os.path.join(folder, "kitchen.tar")
        request = urllib.request.Request(base + "/backup/download", headers={"Cookie": f"snapstation_session={cookie}"})
        with urllib.request.urlopen(request) as answer, open(backup, "wb") as file:
            shutil.copyfileobj(answer, file)
        driver.get(base + "/backup")
        driver.find_element(By.ID, "backup-file").send_keys(backup)
        driver.find_element(By.CSS_SELECTOR, "form.upload button.send").click()
        wait_for("the restore's page", lambda: "/backup/restore" in driver.current_url, timeout=60)
        station.wait_caption("the restore's question", r"^restore-confirm")
        check(shows(driver, "The station is asking now"), "the page says to confirm at the station")
        audit.check("a restore, the station asking")
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-restore-asking-phone.png"))
        mark = station.mark()
        station.button("pair")
        wait_for("the station to stop for its restart", lambda: station.process.poll() is not None, timeout=60)
        check(station.latest(r"(restarting into the backup made by)", mark), "the station restarts into it")
        station.stop()
        print("  ok: the station stopped (run by hand, nothing starts it again: the test does, at the same port)")
        station = Station(args.binary, folder, ai_port, port=port)
        wait_for("the page to say, by itself, how the restore ended",
                 lambda: "is restored" in driver.page_source, timeout=60)
        check("before-restore-" in driver.page_source, "the backup kept before it is named")
        check(station.latest(r"(restored the backup made by SnapStation)"), "the start put it in place")
        audit.check("a restore, its outcome", again=False)
        if args.screenshots:
            driver.save_screenshot(os.path.join(args.screenshots, "page-restore-done-phone.png"))
        follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/backup/restore/done'] button"))
        check(heading(driver) == "Backup and restore", f"read, back to the backups: {heading(driver)!r}")
        check(audit.report(), "the restore's pages audited for every phone and eye")
        print(f"a restore confirmed at the station: passed in {time.monotonic() - started:.0f} s")
        return 0
    except Failure as failure:
        report_failure(failure, driver, station)
        return 1
    finally:
        close(args, folder, driver, station, fake)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(REPO, ".build/debug/snapstation"))
    parser.add_argument("--screenshots", help="a folder for screenshots of the page (the README's)")
    parser.add_argument("--keep", action="store_true", help="keep the station's state folder")
    arguments = parser.parse_args()
    began = time.monotonic()
    status = (run(arguments) or run_group(arguments) or run_welcome(arguments) or run_household(arguments)
              or run_restore(arguments))
    if status == 0:
        print(f"browser test: passed in {time.monotonic() - began:.0f} s")
    sys.exit(status)
