#!/usr/bin/env python3
"""Single sign-on in a real headless Chromium, against django-oidc-provider: run by
Tests/Oidc/run.sh, which starts the provider and the app.

    browser.py --app URL --issuer URL --driver URL

The app has MICRO_OIDC_USERS=existing and its users in a table (MICRO_USERS_DB) holding
`user`; the provider knows `user` (password idp-user-pw). The walk: a protected page sends
to /signin, `Sign in with Test IdP`, the provider's sign-in form (and its consent page when
it asks), back on the protected page signed in, the account's sessions page lists this
browser, sign out. --driver is the chromedriver run.sh started (and stops by its PID). Exit status 0 when every step passed, 3 when chromedriver cannot drive
Chromium at all.
"""

import argparse
import os
import sys
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 15  # seconds for any one page


def ok(text):
    print(f"  ok   {text}", flush=True)


def start_browser(driver_url):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM_BINARY", "/usr/bin/chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900",
                 "--no-first-run", "--disable-extensions", "--disable-background-networking", "--disable-sync", "--lang=en-US"):
        options.add_argument(flag)
    driver = webdriver.Remote(command_executor=driver_url, options=options)
    driver.set_page_load_timeout(WAIT * 2)
    return driver


def wait_for(driver, condition, why):
    try:
        WebDriverWait(driver, WAIT, ignored_exceptions=(WebDriverException,)).until(condition)
    except TimeoutException:
        raise AssertionError(f"{why}: the browser is on {driver.current_url}: {driver.find_element(By.TAG_NAME, 'body').text[:300]!r}")
    WebDriverWait(driver, WAIT, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script("return document.readyState") == "complete")


def on(base, path):
    """A condition: the browser shows `path` of `base` (its scheme, host and port)."""
    expected = urlsplit(base)

    def condition(driver):
        now = urlsplit(driver.current_url)
        return (now.scheme, now.netloc, now.path) == (expected.scheme, expected.netloc, path)
    return condition


def button(driver, text):
    for candidate in driver.find_elements(By.CSS_SELECTOR, "button, input[type=submit]"):
        if (candidate.text or candidate.get_attribute("value") or "").strip() == text:
            return candidate
    raise AssertionError(f"no button {text!r} on {driver.current_url}")


def walk(driver, app, issuer):
    driver.get(app + "/protected")
    wait_for(driver, on(app, "/signin"), "a protected page sends to /signin")
    ok("a protected page sends to /signin")
    button(driver, "Sign in with Test IdP").click()
    provider = f"{urlsplit(issuer).scheme}://{urlsplit(issuer).netloc}"
    wait_for(driver, on(provider, "/accounts/login/"), "the button leads to the provider's sign-in form")
    ok("Sign in with Test IdP leads to the provider's sign-in form")
    driver.find_element(By.ID, "id_username").send_keys("user")
    driver.find_element(By.ID, "id_password").send_keys("idp-user-pw")
    button(driver, "Sign in to the IdP").click()
    # The provider's consent page, when it asks (its form has `allow`).
    wait_for(driver, lambda d: urlsplit(d.current_url).netloc == urlsplit(app).netloc
             or d.find_elements(By.CSS_SELECTOR, "input[name=allow]"), "the provider answers the sign-in")
    allow = driver.find_elements(By.CSS_SELECTOR, "input[name=allow]")
    if allow:
        allow[0].click()
        ok("consented at the provider")
    wait_for(driver, on(app, "/protected"), "back on the remembered page")
    body = driver.find_element(By.TAG_NAME, "body").text
    if "Welcome back" not in body:
        raise AssertionError(f"no welcome on /protected: {body[:300]!r}")
    ok("back on /protected, signed in and welcomed")
    driver.get(app + "/account/sessions")
    wait_for(driver, on(app, "/account/sessions"), "the sessions page opens")
    current = driver.find_elements(By.CSS_SELECTOR, "ul.sessions li[data-current]")
    if len(current) != 1:
        raise AssertionError(f"the sessions page lists {len(current)} current sessions")
    ok("the account's sessions page lists this browser's session")
    driver.get(app + "/signout")
    wait_for(driver, on(app, "/signout"), "the sign-out page opens")
    button(driver, "Sign out").click()
    wait_for(driver, lambda d: "/signout" != urlsplit(d.current_url).path, "signing out leaves the sign-out page")
    driver.get(app + "/protected")
    wait_for(driver, on(app, "/signin"), "signed out: the protected page asks to sign in again")
    ok("signed out: the protected page asks to sign in again")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--app", required=True)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--driver", required=True)
    args = parser.parse_args()
    try:
        driver = start_browser(args.driver)
    except WebDriverException as error:
        print(f"chromedriver cannot drive Chromium: {error}", flush=True)
        return 3
    try:
        walk(driver, args.app, args.issuer)
    except Exception as error:  # noqa: BLE001 - any failure is the walk's
        print(f"  FAIL {type(error).__name__}: {error}", flush=True)
        return 1
    finally:
        driver.quit()
    print("the browser walk passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
