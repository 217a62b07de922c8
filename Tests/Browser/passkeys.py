#!/usr/bin/env python3
"""Passkeys in a real headless Chromium, with its DevTools virtual authenticator in the place
of a phone or a laptop (CTAP2, internal transport, resident keys, user verification).

Adds a passkey at /account/passkeys, signs out and signs in with it without typing a name,
turns two-factor sign-in on and signs in with the passkey again without being asked for a code,
then answers the second step of a password sign-in with the passkey instead of a code, and
confirms a removal on the passkeys page with it instead of the password (adding one still asks
for the password). The page says where the passkey was added from. No console message may
report a Content-Security-Policy violation.

    BASE_URL=http://localhost:4599 PASSKEY_USER=keys PASSKEY_PASSWORD=... python3 Tests/Browser/passkeys.py

Browsers give passkeys only to a domain name over HTTPS or to localhost: BASE_URL must name
localhost. Exit status: 0 when every step passed, 1 when one failed, 2 when BASE_URL names no
localhost, 3 when Chromium could not start. Uses walkthrough.py's helpers.
"""

import os
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions

import walkthrough as walk
from walkthrough import ok, step, submit_with, type_into, url, wait_for_path

USERNAME = os.environ.get("PASSKEY_USER", "keys")
PASSWORD = os.environ.get("PASSKEY_PASSWORD", "")


def add_authenticator(driver):
    options = VirtualAuthenticatorOptions()
    options.protocol = VirtualAuthenticatorOptions.Protocol.CTAP2
    options.transport = VirtualAuthenticatorOptions.Transport.INTERNAL
    options.has_resident_key = True
    options.has_user_verification = True
    options.is_user_verified = True
    options.is_user_consenting = True
    driver.add_virtual_authenticator(options)


def press(driver, label):
    submit_with(driver, driver.find_element(By.XPATH, f'//main//form//button[normalize-space()="{label}"]'))


def sign_out(driver):
    walk.sign_out_with_header(driver)


def events(driver):
    driver.get(url("/account/activity"))
    return [(item.get_attribute("data-event"), item.text) for item in driver.find_elements(By.CSS_SELECTOR, "[data-event]")]


def passkeys(driver):
    step("P1. the sign-in page offers a passkey, and the username field its autofill")
    driver.get(url("/protected"))
    wait_for_path(driver, "/signin", "opening /protected signed out")
    driver.find_element(By.CSS_SELECTOR, 'form#passkey-sign-in[data-passkey="get"] button')
    autocomplete = driver.find_element(By.ID, "username").get_attribute("autocomplete")
    assert autocomplete == "username webauthn", f"the username field's autocomplete is {autocomplete!r}"
    walk.sign_in(driver, USERNAME, PASSWORD)
    wait_for_path(driver, "/protected", "after the password")
    ok("a passkey button and autocomplete=\"username webauthn\"; signed in with the password")

    step("P2. a passkey added at /account/passkeys with the browser's own dialog")
    driver.get(url("/account/passkeys"))
    wait_for_path(driver, "/account/passkeys", "opening the passkeys page")
    type_into(driver, "passkey-name", "Virtual key")
    type_into(driver, "passkey-password", PASSWORD)
    press(driver, "Add a passkey")
    wait_for_path(driver, "/account/passkeys", "after adding a passkey")
    walk.expect_flash(driver, "Passkey added.")
    names = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "[data-passkey] strong")]
    assert names == ["Virtual key"], f"the page lists {names}"
    origin = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "[data-passkey] [data-added-from]")]
    assert len(origin) == 1 and origin[0].startswith("from Chrome") and " at " in origin[0], f"where it was added from: {origin}"
    credentials = driver.get_credentials()
    assert len(credentials) == 1 and credentials[0].is_resident_credential, f"the authenticator holds {credentials}"
    walk.screenshot(driver, "desktop-11-passkeys")
    ok(f"added: listed by its name and {origin[0]!r}, a discoverable credential in the authenticator")

    step("P3. signed out, then in with the passkey from the username field's autofill, nothing typed")
    sign_out(driver)
    # The virtual authenticator answers the autofill's request at once, as a person choosing the
    # passkey from the field's list would.
    driver.get(url("/protected"))
    wait_for_path(driver, "/protected", "after the autofill's passkey")
    walk.expect_flash(driver, "Welcome back Key Holder.")
    assert driver.get_credentials()[0].sign_count >= 1, "the authenticator's counter did not move"
    ok("back on /protected, welcomed, nothing typed")

    # From here on the pages offer no autofill (as a browser without it), so that the buttons
    # are what signs in, and a password can be typed.
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {
        "source": "PublicKeyCredential.isConditionalMediationAvailable = async () => false;"})

    step("P3b. signed out, then in with the button, no name typed")
    sign_out(driver)
    driver.get(url("/protected"))
    wait_for_path(driver, "/signin", "opening /protected signed out")
    press(driver, "Sign in with a passkey")
    wait_for_path(driver, "/protected", "after the passkey's button")
    walk.expect_flash(driver, "Welcome back Key Holder.")
    ok("the button signs in too")

    step("P4. with two-factor sign-in on, the passkey (which verified the person) asks for no code")
    driver.get(url("/account/two-factor"))
    type_into(driver, "current_password", PASSWORD)
    press(driver, "Set up two-factor sign-in")
    secret = driver.find_element(By.CSS_SELECTOR, "[data-totp-secret]").get_attribute("data-totp-secret")
    code, _ = walk.totp(secret)
    type_into(driver, "code", code)
    press(driver, "Turn on")
    assert driver.find_elements(By.CSS_SELECTOR, "[data-recovery-code]"), "no recovery codes: two-factor is not on"
    sign_out(driver)
    driver.get(url("/protected"))
    wait_for_path(driver, "/signin", "opening /protected signed out")
    press(driver, "Sign in with a passkey")
    wait_for_path(driver, "/protected", "after the passkey, with two-factor on")
    ok("two-factor on; the passkey signs in without the code's page")

    step("P5. a password sign-in's second step answered by the passkey instead of a code")
    sign_out(driver)
    driver.get(url("/protected"))
    wait_for_path(driver, "/signin", "opening /protected signed out")
    walk.sign_in(driver, USERNAME, PASSWORD)
    wait_for_path(driver, "/signin/two-factor", "after the password of a user with two-factor on")
    press(driver, "Use a passkey instead")
    wait_for_path(driver, "/protected", "after the passkey as the second step")
    recorded = events(driver)
    kinds = [kind for kind, _ in recorded]
    assert "passkey_added" in kinds and "passkey_used" in kinds, f"the activity lists {kinds}"
    details = [text for kind, text in recorded if kind == "signed_in"]
    assert any("password+passkey" in text for text in details), f"the sign-ins listed: {details}"
    ok("password, then the passkey: signed in, recorded as password+passkey")

    step("P6. a removal on the passkeys page confirmed with the passkey instead of the password and code")
    driver.get(url("/account/passkeys"))
    wait_for_path(driver, "/account/passkeys", "opening the passkeys page")
    assert driver.find_elements(By.CSS_SELECTOR, 'form [name="current_password"]'), "the page asks for no password before"
    press(driver, "Confirm with a passkey")
    wait_for_path(driver, "/account/passkeys", "after confirming with the passkey")
    walk.expect_flash(driver, "Confirmed with your passkey: you can rename and remove passkeys for a few minutes (adding one asks again).")
    assert not driver.find_elements(By.CSS_SELECTOR, 'li[data-passkey] form [name="current_password"]'), "a removal still asks for the password"
    assert driver.find_elements(By.CSS_SELECTOR, 'form#passkey-add [name="current_password"]'), "adding asks for no password after the proof"
    press(driver, "Remove")
    wait_for_path(driver, "/account/passkeys", "after removing the passkey")
    walk.expect_flash(driver, "Passkey removed.")
    assert driver.find_elements(By.CSS_SELECTOR, '[data-passkeys="none"]'), "the passkey is still listed"
    ok("confirmed by the passkey's dialog, then removed with nothing typed; adding one still asks for the password")


def walk_passkeys(driver):
    add_authenticator(driver)
    passkeys(driver)
    walk.drain_console(driver, "end")
    violations = walk.csp_violations()
    assert not violations, "CSP violations:\n" + "\n".join(f"  {w}: {e.get('message')}" for w, e in violations)
    ok(f"{len(walk.console_log)} console entries read, none about the Content Security Policy")


def main():
    if "localhost" not in walk.BASE_URL:
        print("FAIL: set BASE_URL to a localhost address (browsers give passkeys to no IP address)", file=sys.stderr)
        return 2
    return walk.run("passkeys", walk_passkeys, diagnose=lambda driver: "the page's passkey message: "
                    + repr([e.text for e in driver.find_elements(By.CSS_SELECTOR, "[data-passkey-error]")]))


if __name__ == "__main__":
    sys.exit(main())
