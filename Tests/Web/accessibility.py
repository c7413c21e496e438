"""What the browser test asks of every page state it reaches, for every phone and every eye (issue 39):

- axe-core (Deque's engine, bundled by selenium-axe-python, pinned in requirements.txt) with WCAG 2.1
  A and AA, in the light and the dark colour scheme (Chromium's emulated `prefers-color-scheme`);
- what axe cannot judge, measured in the page:
  - no sideways scroll at 320 CSS px (SC 1.4.10), with the browser's text size at 100 % and at 200 %
    (SC 1.4.4; Chromium's default font size set to 32 px, as a phone's text setting does), nor at a
    phone's 390 px with text at 200 %: a data table may scroll inside its own box;
  - no field the focus reaches, by Tab and by Shift+Tab, under the sticky header (SC 2.4.11), at the
    phone's size with text at 100 % and 200 %;
  - each text field's and select's boundary at 3:1 or more against what is behind it (SC 1.4.11), in both
    schemes.

Each problem is kept with the state's name, and all are reported together at the end (`problems`), so one
run shows everything that is wrong, not only the first.

axe-selenium-python 2.1.6, the last of its name on PyPI for Debian 12's Python 3.11, bundles axe-core
3.1.1 from 2018; its maintained fork selenium-axe-python bundles axe-core 4.9.1, the engine the audit
used (4.10) bar a minor version, and is what this uses.
"""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium_axe_python import Axe

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

# Elements wider than the page (what makes it scroll sideways), outside any box that scrolls itself.
OVERFLOW = """
const width = document.documentElement.clientWidth;
const wide = [];
const scrollsItself = (element) => {
  for (let e = element.parentElement; e; e = e.parentElement) {
    const overflow = getComputedStyle(e).overflowX;
    if (overflow === "auto" || overflow === "scroll") return true;
  }
  return false;
};
for (const element of document.querySelectorAll("body *")) {
  const box = element.getBoundingClientRect();
  if (box.width === 0 || box.right <= width + 1 || scrollsItself(element)) continue;
  const name = element.tagName.toLowerCase() + (element.id ? "#" + element.id : "") +
    (element.className && typeof element.className === "string" ? "." + element.className.split(" ")[0] : "");
  wide.push(name + " to " + Math.round(box.right) + " px");
}
return [document.documentElement.scrollWidth, width, wide.slice(0, 4)];
"""

# The focused element against the header, when the header stays on screen (sticky).
FOCUS = """
const element = document.activeElement;
if (!element || element === document.body) return null;
const header = document.querySelector("header");
if (header && header.contains(element)) return [element.tagName.toLowerCase(), 0, 0, 0, false];
const sticky = header && getComputedStyle(header).position === "sticky";
const box = element.getBoundingClientRect();
const bottom = sticky ? header.getBoundingClientRect().bottom : 0;
const name = element.tagName.toLowerCase() + (element.name ? "[name=" + element.name + "]" : "") +
  (element.id ? "#" + element.id : "");
return [name, box.top, box.bottom, bottom, box.width > 0 && box.height > 0];
"""

# Each text field's and select's border colour against the first background behind it, with WCAG's ratio.
BOUNDARIES = """
const parse = (c) => { const m = c.match(/[\\d.]+/g); return m ? m.map(Number) : [0, 0, 0, 0]; };
const light = (rgb) => { const l = rgb.slice(0, 3).map((v) => { v /= 255;
  return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]; };
const behind = (element) => {
  for (let e = element.parentElement; e; e = e.parentElement) {
    const c = parse(getComputedStyle(e).backgroundColor);
    if (c.length < 4 || c[3] > 0) return c;
  }
  return [255, 255, 255, 1];
};
const low = [];
for (const field of document.querySelectorAll(
    "input:not([type=checkbox]):not([type=radio]):not([type=range]):not([type=hidden]):not([type=file])" +
    ":not([type=submit]), select, textarea")) {
  if (field.getBoundingClientRect().width === 0) continue;
  const style = getComputedStyle(field);
  if (parseFloat(style.borderTopWidth) === 0) { low.push([field.name || field.id, 0]); continue; }
  const a = light(parse(style.borderTopColor)), b = light(behind(field));
  const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  if (ratio < 3) low.push([field.name || field.id, Math.round(ratio * 100) / 100]);
}
return low;
"""


class Audit:
    def __init__(self, driver, width=390, height=844):
        self.driver = driver
        self.axe = Axe(driver)
        self.size = (width, height)
        self.problems = []
        self.states = []
        self.addresses = []

    def check(self, name, tab=True, again=True):
        """Audits the page the browser shows now, as `name`; leaves it as it found it (light, 100 %). A
        state a GET shows (`again`) is kept, to be audited again in another language (`revisit`)."""
        self.states.append(name)
        if again:
            self.addresses.append((name, self.driver.current_url))
        for scheme in ("light", "dark"):
            self.scheme(scheme)
            self.axe.inject()
            found = self.driver.execute_async_script(
                "const done = arguments[arguments.length - 1];"
                "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']})"
                ".then((r) => done(r.violations.map((v) => [v.id, v.help,"
                " v.nodes.slice(0, 3).map((n) => n.target.join(' '))])))", TAGS)
            for rule, words, where in found:
                self.problems.append(f"{name} ({scheme}): axe {rule}: {words} at {where}")
            low = self.driver.execute_script(BOUNDARIES)
            if low:
                fields = ", ".join(f"{field} {ratio}:1" for field, ratio in low[:4])
                self.problems.append(f"{name} ({scheme}): {len(low)} fields' boundaries under 3:1 ({fields})")
        self.scheme("light")
        self.reflow(name, 320, 16)
        self.reflow(name, self.size[0], 32)
        self.reflow(name, 320, 32)
        if tab:
            for text in (16, 32):
                self.text_size(text)
                self.focus_order(name, text)
            self.text_size(16)

    def revisit(self, language):
        """Audits every kept state again, the page now speaking `language`."""
        for name, address in list(self.addresses):
            self.driver.get(address)
            self.check(f"{name} ({language})", again=False)

    def scheme(self, which):
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                    {"features": [{"name": "prefers-color-scheme", "value": which}]})

    def text_size(self, pixels):
        self.driver.execute_cdp_cmd("Page.setFontSizes", {"fontSizes": {"standard": pixels, "fixed": pixels - 3}})

    def reflow(self, name, width, text):
        self.text_size(text)
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": self.size[1], "deviceScaleFactor": 1,
                                     "mobile": True})
        try:
            scroll, client, wide = self.driver.execute_script(OVERFLOW)
            if scroll > client + 1:
                self.problems.append(f"{name} at {width} px, text {text * 100 // 16} %: {scroll} px wide, "
                                     f"sideways scroll ({', '.join(wide)})")
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            self.text_size(16)

    def focus_order(self, name, text):
        """Tab through the page and back (Shift+Tab), noting every field the focus reaches under the header."""
        driver = self.driver
        driver.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
        hidden = set()
        seen = 0
        for keys in ((Keys.TAB,), (Keys.SHIFT, Keys.TAB)):
            steps = 0
            while steps < 120:
                chain = ActionChains(driver)
                if len(keys) == 2:
                    chain.key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT)
                else:
                    chain.send_keys(Keys.TAB)
                chain.perform()
                steps += 1
                at = driver.execute_script(FOCUS)
                if at is None:
                    break
                element, top, bottom, header, shown = at
                seen += 1
                # Wholly under the header (SC 2.4.11), or partly where the whole would fit below it.
                room = driver.execute_script("return window.innerHeight") - header
                if shown and (bottom <= header + 0.5 or (top < header - 0.5 and bottom - top < room)):
                    hidden.add(f"{element} (top {top:.0f} px, header to {header:.0f})")
        if hidden:
            self.problems.append(f"{name}, text {text * 100 // 16} %: {len(hidden)} focused fields under the "
                                 f"header: {', '.join(sorted(hidden)[:4])}")
        return seen

    def report(self):
        print(f"accessibility: {len(self.states)} page states audited ({', '.join(self.states)})")
        for problem in self.problems:
            print("  " + problem)
        return not self.problems
