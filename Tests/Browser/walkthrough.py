#!/usr/bin/env python3
"""A person's walk through the sample app in a real headless Chromium.

Signs in from a protected page, uses the three tools through their forms, submits a markup
payload that an escaper comparing Characters would let through and checks it stays text,
signs out, then visits every page at a phone's width (375 px) in light and dark mode and
checks that nothing scrolls sideways. The app sends a strict Content-Security-Policy: any console message about a
violation fails the run. Screenshots of every page go to browser-artifacts/ at the repo root.

    BASE_URL=http://127.0.0.1:4599 python3 Tests/Browser/walkthrough.py

Exit status: 0 when every step passed, 1 when one failed, 3 when Chromium could not start
(run.sh turns that into a SKIP).

Environment: BASE_URL (required), ARTIFACTS (default: <repo>/browser-artifacts),
CHROMIUM_BINARY (default: /usr/bin/chromium), CHROMEDRIVER (default: chromedriver on PATH).
"""

import base64
import hashlib
import hmac
import os
import shutil
import struct
import sys
import time
import traceback
from urllib.parse import urlsplit, parse_qs

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

EXIT_CANNOT_START = 3

BASE_URL = os.environ.get("BASE_URL", "").rstrip("/")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.environ.get("ARTIFACTS") or os.path.join(REPO, "browser-artifacts")
# run.sh puts the user in a users table (the account pages can change a password there).
USERNAME, PASSWORD = "user", os.environ.get("WALK_PASSWORD", "secret123")
NEW_PASSWORD = PASSWORD + " renewed"
SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
PHONE = {"width": 375, "height": 812, "deviceScaleFactor": 2, "mobile": True}
WAIT = 10  # seconds for any one page to answer

steps_passed = 0
console_log = []  # every browser console entry, with the page it came from


def step(text):
    print(f"STEP  {text}", flush=True)


def ok(text):
    global steps_passed
    steps_passed += 1
    print(f"  ok  {text}", flush=True)


# MARK: Browser

def start_browser():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM_BINARY", "/usr/bin/chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1280,900", "--no-first-run", "--disable-extensions",
                 "--disable-background-networking", "--disable-sync", "--lang=en-US"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver_path = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver")
    # An explicit driver path keeps Selenium Manager from trying to download one.
    service = Service(executable_path=driver_path) if driver_path else Service()
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(WAIT * 3)
    return driver


def url(path):
    return BASE_URL + path


def path_of(driver):
    parts = urlsplit(driver.current_url)
    return parts.path + (("?" + parts.query) if parts.query else "")


def wait_for_path(driver, path, why):
    """Waits until the browser shows `path` (without the query), or fails."""
    try:
        WebDriverWait(driver, WAIT).until(lambda d: urlsplit(d.current_url).path == path)
    except TimeoutException:
        raise AssertionError(f"{why}: expected the browser on {path}, it is on {driver.current_url}")
    wait_loaded(driver)


def wait_loaded(driver):
    WebDriverWait(driver, WAIT, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script("return document.readyState") == "complete")


def submit_with(driver, button):
    """Clicks a submit button and waits for the next page to replace this one."""
    old = driver.find_element(By.TAG_NAME, "html")
    button.click()
    def replaced(_):
        # Chrome may answer a question about the old page's node, mid-navigation, with any
        # WebDriverException ("does not belong to the document"), not only a stale-element one.
        try:
            old.is_enabled()
            return False
        except WebDriverException:
            return True

    try:
        WebDriverWait(driver, WAIT).until(replaced)
    except TimeoutException:
        invalid = driver.execute_script(
            "return [...document.querySelectorAll(':invalid')].filter(e => e.name)"
            ".map(e => e.name + ': ' + e.validationMessage)")
        raise AssertionError(f"pressing {button.text!r} on {path_of(driver)} loaded no page"
                             + (f"; the browser refused the form: {invalid}" if invalid else ""))
    wait_loaded(driver)


def type_into(driver, element_id, text):
    field = driver.find_element(By.ID, element_id)
    field.clear()
    if text:
        field.send_keys(text)
    return field


def choose(driver, element_id, value):
    Select(driver.find_element(By.ID, element_id)).select_by_value(value)


def visible_text(driver, css):
    elements = [e for e in driver.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]
    return [e.text.strip() for e in elements]


def expect_flash(driver, message):
    texts = visible_text(driver, "main .flash")
    assert message in texts, f"expected the visible flash {message!r}, the page shows {texts!r}"


def drain_console(driver, where):
    try:
        entries = driver.get_log("browser")
    except WebDriverException:
        entries = []  # not every driver keeps the log; the check then has nothing to read
    for entry in entries:
        console_log.append((where, entry))
    return entries


def screenshot(driver, name):
    """The whole page (not only the viewport) as PNG."""
    os.makedirs(ARTIFACTS, exist_ok=True)
    target = os.path.join(ARTIFACTS, name + ".png")
    try:
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        with open(target, "wb") as handle:
            handle.write(base64.b64decode(shot["data"]))
    except WebDriverException:
        driver.save_screenshot(target)
    return target


def emulate(driver, phone, dark):
    if phone:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    else:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})


# MARK: The walkthrough

def sign_in(driver, username=USERNAME, password=None):
    type_into(driver, "username", username)
    type_into(driver, "password", password or PASSWORD)
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, 'main form[action="/signin"] button[type="submit"]'))


def walkthrough(driver):
    emulate(driver, phone=False, dark=False)

    step("1. a protected tool sends a signed-out visitor to the sign-in form")
    driver.get(url("/tools/data-encoding"))
    wait_for_path(driver, "/signin", "opening /tools/data-encoding signed out")
    form = driver.find_element(By.CSS_SELECTOR, "main form")
    assert form.get_attribute("method").lower() == "post", "the sign-in form must POST"
    assert urlsplit(form.get_attribute("action")).path == "/signin", form.get_attribute("action")
    assert form.find_element(By.CSS_SELECTOR, 'input[type="hidden"][name="_csrf"]').get_attribute("value"), \
        "the sign-in form carries no CSRF token"
    username = driver.find_element(By.ID, "username")
    password = driver.find_element(By.ID, "password")
    assert username.is_displayed() and password.is_displayed()
    assert password.get_attribute("type") == "password"
    assert driver.switch_to.active_element == username, "the username field should have the focus"
    assert driver.find_element(By.CSS_SELECTOR, 'label[for="username"]').text == "Username"
    assert driver.find_element(By.CSS_SELECTOR, 'label[for="password"]').text == "Password"
    assert "Sign In" in driver.title, driver.title
    screenshot(driver, "desktop-01-signin")
    ok(f"on {path_of(driver)} with the sign-in form (username, password, CSRF token)")

    step("2. sign in as user / secret123 by typing into the form")
    sign_in(driver)
    wait_for_path(driver, "/tools/data-encoding", "after signing in")
    expect_flash(driver, "Welcome back User.")
    assert visible_text(driver, "header .who") == ["User"], visible_text(driver, "header .who")
    assert driver.find_element(By.XPATH, '//header//button[normalize-space()="Sign out"]').is_displayed()
    screenshot(driver, "desktop-02-signed-in")
    ok(f"back on {path_of(driver)}, 'Welcome back User.' shown, the header names the user")

    step("3. data encoding: base64-encode 'foobar' through the form, then a hex-decode error")
    type_into(driver, "input", "foobar")
    choose(driver, "op", "base64-encode")
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Convert"]'))
    wait_for_path(driver, "/tools/data-encoding", "after Convert")
    assert parse_qs(urlsplit(driver.current_url).query) == {"input": ["foobar"], "op": ["base64-encode"]}, driver.current_url
    result = driver.find_element(By.ID, "result")
    assert result.is_displayed() and result.text == "Zm9vYmFy", f"#result shows {result.text!r}"
    assert driver.find_element(By.ID, "input").get_attribute("value") == "foobar", "the input should keep its text"
    assert Select(driver.find_element(By.ID, "op")).first_selected_option.get_attribute("value") == "base64-encode"
    screenshot(driver, "desktop-03-encoding-result")
    ok("#result holds Zm9vYmFy, the form keeps 'foobar' and the operation")

    type_into(driver, "input", "zz!")
    choose(driver, "op", "hex-decode")
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Convert"]'))
    error = driver.find_element(By.ID, "input-error")
    assert error.is_displayed() and error.text.strip(), "the field error is not shown"
    field = driver.find_element(By.ID, "input")
    assert field.get_attribute("aria-invalid") == "true"
    assert field.get_attribute("aria-describedby") == "input-error"
    assert not driver.find_elements(By.ID, "result"), "an error page shows no result"
    screenshot(driver, "desktop-04-encoding-error")
    ok(f"hex-decode of 'zz!' shows #input-error: {error.text.strip()!r}")

    step("4. date conversion: 0 ms 'To date' as iso8601 in UTC")
    driver.get(url("/tools/date-conversion"))
    wait_for_path(driver, "/tools/date-conversion", "opening the date tool")
    type_into(driver, "millis", "0")
    choose(driver, "unit", "milliseconds")
    type_into(driver, "date", "")
    type_into(driver, "format", "iso8601")
    type_into(driver, "zone", "UTC")
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, 'main form button[name="to"][value="date"]'))
    result = driver.find_element(By.ID, "result")
    assert result.text == "1970-01-01T00:00:00.000Z", f"#result shows {result.text!r}"
    assert driver.find_element(By.ID, "date").get_attribute("value") == "1970-01-01T00:00:00.000Z"
    screenshot(driver, "desktop-05-date-result")
    ok("#result holds 1970-01-01T00:00:00.000Z")

    step("5. data encryption: sha256 of 'abc' by the POST form")
    driver.get(url("/tools/data-encryption"))
    wait_for_path(driver, "/tools/data-encryption", "opening the encryption tool")
    type_into(driver, "input", "abc")
    choose(driver, "op", "sha256")
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Compute"]'))
    assert path_of(driver) == "/tools/data-encryption", f"the secret must not go into the URL: {driver.current_url}"
    result = driver.find_element(By.ID, "result")
    assert result.text == SHA256_ABC, f"#result shows {result.text!r}"
    screenshot(driver, "desktop-06-encryption-result")
    ok(f"#result holds {SHA256_ABC}, the URL stays {path_of(driver)}")

    escaping(driver)

    account(driver)

    invitation(driver)

    two_factor(driver)

    step("7. sign out with the header's 'Sign out' button")
    submit_with(driver, driver.find_element(By.XPATH, '//header//form//button[normalize-space()="Sign out"]'))
    wait_for_path(driver, "/", "after signing out")
    expect_flash(driver, "You have been signed out.")
    assert not driver.find_elements(By.XPATH, '//header//button[normalize-space()="Sign out"]')
    assert driver.find_element(By.XPATH, '//header//a[normalize-space()="Sign in"]').is_displayed()
    screenshot(driver, "desktop-08-signed-out")
    ok("on / with 'You have been signed out.' and a 'Sign in' link")

    step("8. the tool asks for sign-in again")
    driver.get(url("/tools/data-encoding"))
    wait_for_path(driver, "/signin", "opening /tools/data-encoding after signing out")
    assert driver.find_element(By.ID, "username").is_displayed()
    ok(f"on {path_of(driver)} again")
    drain_console(driver, "desktop walkthrough")


# MARK: Account

def account(driver):
    """A second browser signs in; the first ends its session from the sessions page, then
    changes the password."""
    global PASSWORD
    step("6b. the account pages: end a second browser's session, then change the password")
    other = start_browser()
    try:
        other.get(url("/protected"))
        wait_for_path(other, "/signin", "the second browser opening /protected")
        sign_in(other)
        wait_for_path(other, "/protected", "the second browser signing in")
        driver.get(url("/account/sessions"))
        wait_for_path(driver, "/account/sessions", "opening the sessions page")
        entries = driver.find_elements(By.CSS_SELECTOR, "li[data-session-id]")
        assert len(entries) == 2, f"{len(entries)} sessions listed"
        current = [entry for entry in entries if entry.get_attribute("data-current") is not None]
        assert len(current) == 1 and "This device" in current[0].text, "this browser's entry says 'This device'"
        assert all(entry.find_elements(By.CSS_SELECTOR, "time[datetime]") for entry in entries), "each entry has its times"
        screenshot(driver, "desktop-07a-sessions")
        stranger = next(entry for entry in entries if entry.get_attribute("data-current") is None)
        submit_with(driver, stranger.find_element(By.XPATH, './/button[normalize-space()="Sign out"]'))
        wait_for_path(driver, "/account/sessions", "after ending the other session")
        expect_flash(driver, "That session has been signed out.")
        assert len(driver.find_elements(By.CSS_SELECTOR, "li[data-session-id]")) == 1, "the ended session is still listed"
        other.get(url("/protected"))
        wait_for_path(other, "/signin", "the second browser after its session was ended")
        ok("the sessions page listed two sessions; the other one, ended from here, is sent to sign-in")
    finally:
        other.quit()

    driver.get(url("/account/password"))
    wait_for_path(driver, "/account/password", "opening the password page")
    type_into(driver, "current_password", PASSWORD)
    type_into(driver, "new_password", "password1")
    type_into(driver, "new_password_confirmation", "password1")
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Change password"]'))
    error = driver.find_element(By.ID, "new_password-error")
    assert "most commonly used" in error.text, f"the refusal says {error.text!r}"
    type_into(driver, "current_password", PASSWORD)
    type_into(driver, "new_password", NEW_PASSWORD)
    type_into(driver, "new_password_confirmation", NEW_PASSWORD)
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Change password"]'))
    wait_for_path(driver, "/account", "after changing the password")
    expect_flash(driver, "Your password has been changed.")
    PASSWORD = NEW_PASSWORD
    driver.get(url("/account/activity"))
    events = [item.get_attribute("data-event") for item in driver.find_elements(By.CSS_SELECTOR, "[data-event]")]
    assert events[:1] == ["password_changed"] and "session_ended" in events, f"the activity lists {events}"
    screenshot(driver, "desktop-07b-activity")
    ok("'password1' refused as common; the new password taken; the activity lists password_changed and session_ended")


def invitation(driver):
    """The admin invites a newcomer from the users page; the link, opened in another browser,
    lets them choose their password and signs them in. No password passes through the admin."""
    step("6c. the users page invites a user; the set-up link sets their password in another browser")
    newcomer = f"newcomer{int(time.time()) % 100000}"
    driver.get(url("/admin/users"))
    wait_for_path(driver, "/admin/users", "opening the users page")
    type_into(driver, "new-username", newcomer)
    type_into(driver, "new-name", "New Comer")
    type_into(driver, "new-email", f"{newcomer}@example.com")
    if driver.find_elements(By.ID, "proof-password"):
        type_into(driver, "proof-password", PASSWORD)
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Invite with a set-up link instead"]'))
    shown = driver.find_element(By.CSS_SELECTOR, "[data-setup-link]")
    link = shown.get_attribute("data-setup-link")
    assert link.startswith(BASE_URL + "/password/setup?key="), f"the page shows the link {link!r}"
    screenshot(driver, "desktop-07c-setup-link")
    other = start_browser()
    try:
        other.get(link)
        wait_for_path(other, "/password/setup", "opening the set-up link")
        assert "key=" not in other.current_url, f"the secret stays in the address bar: {other.current_url}"
        assert newcomer in other.find_element(By.TAG_NAME, "main").text, "the form names the user"
        chosen = f"a phrase {newcomer} chose"
        type_into(other, "new_password", chosen)
        type_into(other, "new_password_confirmation", chosen)
        submit_with(other, other.find_element(By.XPATH, '//main//form//button[normalize-space()="Set password"]'))
        wait_for_path(other, "/account", "after setting the password")
        expect_flash(other, "Your password is set.")
        assert "New Comer" in other.find_element(By.TAG_NAME, "header").text, "the header names the newcomer"
        # Used: opened again, the link opens nothing.
        other.get(link)
        assert "has been used or has expired" in other.find_element(By.TAG_NAME, "main").text, "the used link says so"
    finally:
        other.quit()
    ok(f"{newcomer} was invited, chose a password through the link and was signed in; the link then opened nothing")


# MARK: Two-factor sign-in

def totp(secret, at=None):
    """RFC 6238's code (HMAC-SHA1, 6 digits, 30 s) of the base32 `secret` now; and its step."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    counter = int((time.time() if at is None else at) // 30)
    mac = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    value = struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 1_000_000:06d}", counter


def sign_out_with_header(driver):
    submit_with(driver, driver.find_element(By.XPATH, '//header//form//button[normalize-space()="Sign out"]'))
    wait_for_path(driver, "/", "after signing out")


def two_factor(driver):
    """Turns two-factor sign-in on, signs out and in with a code computed here, then with a
    recovery code, and turns it off again (the phone pass signs in with the password alone)."""
    step("6c. two-factor sign-in: on, a code, a recovery code, off")
    driver.get(url("/account/two-factor"))
    wait_for_path(driver, "/account/two-factor", "opening the two-factor page")
    type_into(driver, "current_password", PASSWORD)
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Set up two-factor sign-in"]'))
    secret = driver.find_element(By.CSS_SELECTOR, "[data-totp-secret]").get_attribute("data-totp-secret")
    uri = driver.find_element(By.CSS_SELECTOR, "[data-otpauth-uri]").get_attribute("data-otpauth-uri")
    assert uri == f"otpauth://totp/Micro%20Tools:{USERNAME}?secret={secret}&issuer=Micro%20Tools", uri
    qr = driver.find_element(By.CSS_SELECTOR, "figure.qr-code svg")
    assert qr.is_displayed() and qr.size["width"] >= 100, f"the QR code is {qr.size}"
    screenshot(driver, "desktop-07c-two-factor-setup")
    code, used = totp(secret)
    type_into(driver, "code", code)
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Turn on"]'))
    codes = [e.get_attribute("data-recovery-code") for e in driver.find_elements(By.CSS_SELECTOR, "[data-recovery-code]")]
    assert len(codes) == 10 and len(set(codes)) == 10, f"recovery codes shown: {codes}"
    screenshot(driver, "desktop-07d-recovery-codes")
    ok(f"two-factor on with the code {code} computed here; 10 recovery codes shown")

    sign_out_with_header(driver)
    driver.get(url("/protected"))
    wait_for_path(driver, "/signin", "opening /protected signed out")
    sign_in(driver)
    wait_for_path(driver, "/signin/two-factor", "after the password of a user with two-factor on")
    driver.get(url("/protected"))
    wait_for_path(driver, "/signin", "a protected page between the password and the code")
    sign_in(driver)
    wait_for_path(driver, "/signin/two-factor", "after the password again")
    # A code is good once: the one that turned it on has its step; wait for the next one.
    while int(time.time() // 30) <= used:
        time.sleep(0.5)
    code, used = totp(secret)
    type_into(driver, "code", code)
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, 'main form button[type="submit"]'))
    wait_for_path(driver, "/protected", "after the code")
    expect_flash(driver, "Welcome back User.")
    ok("password, then the code: back on /protected, welcomed")

    sign_out_with_header(driver)
    driver.get(url("/protected"))
    wait_for_path(driver, "/signin", "opening /protected signed out")
    sign_in(driver)
    wait_for_path(driver, "/signin/two-factor", "after the password")
    type_into(driver, "code", codes[0])
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, 'main form button[type="submit"]'))
    wait_for_path(driver, "/protected", "after a recovery code")
    driver.get(url("/account/two-factor"))
    left = driver.find_element(By.CSS_SELECTOR, "[data-recovery-codes-left]").text
    assert left == "9", f"recovery codes left: {left}"
    ok("a recovery code signs in; 9 left")

    type_into(driver, "current_password", PASSWORD)
    type_into(driver, "disable-code", codes[1])
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Turn two-factor sign-in off"]'))
    wait_for_path(driver, "/account/two-factor", "after turning two-factor off")
    expect_flash(driver, "Two-factor sign-in is off.")
    driver.get(url("/account/activity"))
    events = [item.get_attribute("data-event") for item in driver.find_elements(By.CSS_SELECTOR, "[data-event]")]
    for event in ("two_factor_enabled", "recovery_code_used", "two_factor_disabled"):
        assert event in events, f"the activity lists {events}"
    ok("turned off with the password and another recovery code; the activity lists each step")


# MARK: Escaping

# `"` and `>` each followed by a combining mark, `<` after a prepend character: one Character
# each, which an escaper comparing Characters lets through, making a real <meta> refresh to
# another site. The short one (64 bytes at most) is a valid date pattern: the tool remembers it.
META_REFRESH = "x\"\u0301>\u0301\u0600<meta http-equiv=refresh content=0;url=//evil.example\u0301>"
SHORT_META_REFRESH = "x\"\u0301>\u0301\u0600<meta http-equiv=refresh content=0\u0301>"
LAYOUT_METAS = [["charset", "utf-8"], ["viewport", None]]  # views/layout.mustache's own


def expect_no_injected_meta(driver, why):
    """The page is still the date tool on this site, and holds only the layout's <meta> elements."""
    try:
        # A refresh of 0 s leaves as soon as the page has loaded: give it a second to.
        WebDriverWait(driver, 1).until(lambda d: urlsplit(d.current_url).netloc != urlsplit(BASE_URL).netloc)
        raise AssertionError(f"{why}: the browser left for {driver.current_url}")
    except TimeoutException:
        pass
    assert urlsplit(driver.current_url).path == "/tools/date-conversion", f"{why}: on {driver.current_url}"
    metas = driver.execute_script(
        "return [...document.querySelectorAll('meta')].map(m => [m.getAttribute('charset') ? 'charset' : m.getAttribute('name') "
        "|| m.getAttribute('http-equiv') || '?', m.getAttribute('charset')])")
    assert metas == LAYOUT_METAS, f"{why}: the page holds <meta> elements {metas}, the layout has {LAYOUT_METAS}"
    assert not driver.find_elements(By.CSS_SELECTOR, "[http-equiv]"), f"{why}: an http-equiv element is in the DOM"


def escaping(driver):
    step("6. escaping: a <meta> refresh joined by combining marks, typed in the date format, stays text")
    driver.get(url("/tools/date-conversion"))
    wait_for_path(driver, "/tools/date-conversion", "opening the date tool")
    type_into(driver, "millis", "0")
    # Set by script: what matters is the value the form sends, not how a keyboard types marks.
    driver.execute_script("document.getElementById('format').value = arguments[0]", META_REFRESH)
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, 'main form button[name="to"][value="date"]'))
    expect_no_injected_meta(driver, "after submitting the payload")
    shown = driver.find_element(By.ID, "format").get_attribute("value")
    assert shown == META_REFRESH, f"the format field should show the payload as typed, it shows {shown!r}"
    assert driver.find_element(By.ID, "format-error").is_displayed(), "a pattern over 64 bytes is refused next to the field"
    screenshot(driver, "desktop-07-escaping")
    ok("the page stays, holds only the layout's <meta> elements, and the field shows the payload as text")

    driver.execute_script("document.getElementById('format').value = arguments[0]", SHORT_META_REFRESH)
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, 'main form button[name="to"][value="date"]'))
    expect_no_injected_meta(driver, "after submitting the short payload")
    driver.get(url("/tools/date-conversion"))
    wait_for_path(driver, "/tools/date-conversion", "opening the date tool again")
    expect_no_injected_meta(driver, "with the payload remembered as the format")
    shown = driver.find_element(By.ID, "format").get_attribute("value")
    assert shown == SHORT_META_REFRESH, f"the remembered format should show as typed, it shows {shown!r}"
    # Back to a plain format for the rest of the walk.
    type_into(driver, "format", "iso8601")
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, 'main form button[name="to"][value="date"]'))
    ok("remembered in the session, the short payload is shown as text on the next visit too")


# MARK: The phone's width

def check_no_sideways_scroll(driver, name, scheme):
    wait_loaded(driver)
    metrics = driver.execute_script("""
        const root = document.documentElement;
        const wide = [];
        for (const element of document.body.querySelectorAll('*')) {
            const box = element.getBoundingClientRect();
            const style = getComputedStyle(element);
            // A box past the page's edge, or text spilling out of a box that lets it show.
            const spills = style.overflowX === 'visible' && !['INPUT', 'TEXTAREA', 'SELECT'].includes(element.tagName)
                && element.scrollWidth > element.clientWidth + 1 && element.clientWidth > 0;
            if (box.width > 0 && (box.right > root.clientWidth + 0.5 || box.left < -0.5 || spills)) {
                wide.push(element.tagName.toLowerCase() + (element.id ? '#' + element.id : '')
                    + (element.className && typeof element.className === 'string' ? '.' + element.className.trim().split(/\\s+/).join('.') : '')
                    + ' [' + Math.round(box.left) + '..' + Math.round(box.right) + ']');
            }
        }
        return {scrollWidth: root.scrollWidth, clientWidth: root.clientWidth,
                innerWidth: window.innerWidth, dark: matchMedia('(prefers-color-scheme: dark)').matches,
                background: getComputedStyle(document.body).backgroundColor, wide: wide.slice(0, 8)};
    """)
    shot = screenshot(driver, f"phone-{scheme}-{name}")
    assert metrics["clientWidth"] == 375, f"{name}: the viewport is {metrics['clientWidth']} px wide, not 375"
    assert metrics["dark"] == (scheme == "dark"), f"{name}: prefers-color-scheme is not {scheme}"
    assert metrics["scrollWidth"] <= metrics["clientWidth"], (
        f"{name} ({scheme}) scrolls sideways at 375 px: scrollWidth {metrics['scrollWidth']} > "
        f"clientWidth {metrics['clientWidth']}; too wide: {metrics['wide']}; see {shot}")
    assert not metrics["wide"], f"{name} ({scheme}): elements stick out of their box or the 375 px page: {metrics['wide']}; see {shot}"
    drain_console(driver, f"{name} ({scheme})")
    shown = path_of(driver) if len(path_of(driver)) <= 48 else path_of(driver)[:47] + "…"
    ok(f"{name:<26} {shown:<48} scrollWidth {metrics['scrollWidth']} <= clientWidth {metrics['clientWidth']}")


def phone_pass(driver, scheme):
    """Every page at 375 px: signed out, then signed in (the session of the walkthrough is gone)."""
    emulate(driver, phone=True, dark=scheme == "dark")
    driver.delete_all_cookies()
    check = lambda name: check_no_sideways_scroll(driver, name, scheme)

    driver.get(url("/"))
    check("home-signed-out")
    driver.get(url("/signout"))
    check("signout-signed-out")
    driver.get(url("/protected"))
    wait_for_path(driver, "/signin", "opening /protected signed out")
    check("signin")
    sign_in(driver, USERNAME, "not-the-password")
    wait_for_path(driver, "/signin", "after a wrong password")
    assert visible_text(driver, "main .flash"), "a failed sign-in shows a message"
    check("signin-failed")
    sign_in(driver)
    wait_for_path(driver, "/protected", "after signing in from /protected")
    check("protected")
    driver.get(url("/"))
    check("home-signed-in")
    driver.get(url("/signout"))
    check("signout-signed-in")

    long_token = "x" * 120  # one long word, as a pasted token or hash would be
    driver.get(url("/tools/data-encoding"))
    check("encoding")
    type_into(driver, "input", "A long line to encode, and a longer word: " + long_token)
    choose(driver, "op", "base64-encode")
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Convert"]'))
    assert driver.find_element(By.ID, "result").is_displayed()
    check("encoding-result")
    type_into(driver, "input", "zz!")
    choose(driver, "op", "hex-decode")
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Convert"]'))
    assert driver.find_element(By.ID, "input-error").is_displayed()
    check("encoding-error")

    driver.get(url("/tools/date-conversion"))
    check("date")
    type_into(driver, "millis", "0")
    type_into(driver, "format", "iso8601")
    type_into(driver, "zone", "UTC")
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, 'main form button[name="to"][value="date"]'))
    assert driver.find_element(By.ID, "result").text == "1970-01-01T00:00:00.000Z"
    check("date-result")
    type_into(driver, "millis", long_token)
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, 'main form button[name="to"][value="date"]'))
    assert driver.find_element(By.ID, "millis-error").is_displayed()
    check("date-error")
    type_into(driver, "millis", "0")
    type_into(driver, "zone", "Mars/" + long_token)
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, 'main form button[name="to"][value="date"]'))
    assert driver.find_element(By.ID, "zone-error").is_displayed()
    check("date-zone-error")

    driver.get(url("/tools/data-encryption"))
    check("encryption")
    type_into(driver, "input", "abc")
    choose(driver, "op", "sha512")
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Compute"]'))
    assert len(driver.find_element(By.ID, "result").text) == 128
    check("encryption-result")
    type_into(driver, "input", "pw")
    choose(driver, "op", "bcrypt")
    type_into(driver, "cost", "4")
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Compute"]'))
    assert driver.find_element(By.ID, "result").text.startswith("$2")
    check("encryption-bcrypt-result")
    # (A cost of 20 cannot be sent from the page: the field's max="14" stops the form.)
    choose(driver, "op", "bcrypt-verify")
    type_into(driver, "hash", "$2b$10$" + long_token)
    submit_with(driver, driver.find_element(By.XPATH, '//main//form//button[normalize-space()="Compute"]'))
    assert driver.find_element(By.ID, "hash-error").is_displayed()
    check("encryption-error")

    # Sign out from the phone's header, as on a phone.
    submit_with(driver, driver.find_element(By.XPATH, '//header//form//button[normalize-space()="Sign out"]'))
    wait_for_path(driver, "/", "after signing out on the phone")
    expect_flash(driver, "You have been signed out.")
    check("home-after-signout")


# MARK: Content-Security-Policy

def csp_violations():
    return [(where, entry) for where, entry in console_log
            if "content security policy" in entry.get("message", "").lower()]


def check_console(driver):
    step("10. no Content-Security-Policy violations in the browser console")
    drain_console(driver, "end")
    # A tool's error page answers 422 and Chrome logs every 4xx page as a failed load: expected.
    expected = [e for _, e in console_log if "status of 422" in e.get("message", "")]
    if expected:
        print(f"  ..  {len(expected)} console entries for the tools' 422 error pages (expected)", flush=True)
    for where, entry in console_log:
        if entry.get("level") in ("SEVERE", "WARNING") and "status of 422" not in entry.get("message", ""):
            print(f"  ..  console {entry.get('level')} on {where}: {entry.get('message', '')[:200]}", flush=True)
    violations = csp_violations()
    assert not violations, "CSP violations:\n" + "\n".join(f"  {w}: {e.get('message')}" for w, e in violations)
    ok(f"{len(console_log)} console entries read, none about the Content Security Policy")

    # The check must be able to fail: an inline style, which the policy forbids, has to show up.
    driver.get(url("/"))
    wait_loaded(driver)
    drain_console(driver, "before the canary")
    driver.execute_script("const s = document.createElement('style'); s.textContent = 'body{}'; document.head.appendChild(s);")
    deadline = time.time() + 5
    canary = []
    while time.time() < deadline and not canary:
        canary = [e for e in drain_console(driver, "canary") if "content security policy" in e.get("message", "").lower()]
        time.sleep(0.2)
    assert canary, "an inline <style> left no CSP message in the console: the console check cannot see violations"
    console_log[:] = [(w, e) for w, e in console_log if w != "canary"]
    ok("an injected inline <style> is refused and reported, so the check above can see violations")


def run(name, body, diagnose=None):
    """Starts Chromium, runs `body(driver)` and reports as the walks do: the failing line, a
    screenshot of the failing page (and what `diagnose(driver)` adds), the steps passed.
    Returns the exit status (module docstring)."""
    started = time.time()
    try:
        driver = start_browser()
    except Exception as error:  # no browser, no driver, or it dies on start
        print(f"CANNOT START CHROMIUM: {type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}",
              file=sys.stderr)
        return EXIT_CANNOT_START
    print(f"Chromium {driver.capabilities.get('browserVersion')} against {BASE_URL}; screenshots in {ARTIFACTS}", flush=True)
    try:
        body(driver)
    except Exception as error:
        try:
            print(f"  (screenshot of the failing page: {screenshot(driver, 'FAILED-' + name)})", file=sys.stderr)
            if diagnose:
                print(f"  ({diagnose(driver)})", file=sys.stderr)
        except Exception:
            pass
        where = traceback.extract_tb(error.__traceback__)[-1]
        print(f"FAIL: {type(error).__name__} at {os.path.basename(where.filename)} line {where.lineno} ({where.line}): {error}",
              file=sys.stderr)
        print(f"{name}: {steps_passed} passed, 1 failed", flush=True)
        return 1
    finally:
        driver.quit()
    print(f"All steps passed in {time.time() - started:.1f} s.", flush=True)
    print(f"{name}: {steps_passed} passed, 0 failed", flush=True)
    return 0


def walk_all(driver):
    walkthrough(driver)
    for scheme in ("light", "dark"):
        step(f"9. every page at 375 px, {scheme} mode: no sideways scrolling")
        phone_pass(driver, scheme)
    check_console(driver)


def main():
    if not BASE_URL:
        print("FAIL: set BASE_URL, e.g. BASE_URL=http://127.0.0.1:4599", file=sys.stderr)
        return 2
    return run("walkthrough", walk_all)


if __name__ == "__main__":
    sys.exit(main())
