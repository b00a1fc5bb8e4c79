#!/usr/bin/env python3
"""Drives the operator console in Debian's Chromium (Selenium with chromium-driver).

    python3 scripts/console-browser.py --url http://127.0.0.1:PORT --token TOKEN \
        --failed-version UUID --out DIR

Signs in through the form, checks the overview, filters the versions list to failed ones, opens
the given failed version, presses Retry, confirms, and checks that the page then shows the version
queued. Saves a screenshot of every step into DIR (desktop width, and the overview and version
page at phone width too). Also checks that a wrong token is refused and that the pages are usable
without JavaScript (the browser runs with JavaScript off). Exits 0 when every check passed,
1 with the failed check on stderr otherwise, 2 when Chromium or chromedriver is missing.
"""
import argparse
import os
import shutil
import sys

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    print("console-browser: selenium is not installed (pip install selenium)", file=sys.stderr)
    sys.exit(2)


def browser(width, height):
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not os.path.exists(chromium) or not os.path.exists(driver_path):
        print("console-browser: chromium and chromium-driver are needed", file=sys.stderr)
        sys.exit(2)
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}", "--proxy-server=direct://", "--proxy-bypass-list=*"]:
        options.add_argument(flag)
    # The console must work without scripts: run with JavaScript off.
    options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service(driver_path), options=options)


def click_and_wait(driver, element):
    """Clicks `element` and waits (at most 20 s) until the page it was on has been replaced and the
    new one has its <main>. While the old document goes away chromedriver may answer "stale
    element" or "node does not belong to the document": both mean gone."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()

    def replaced(d):
        try:
            page.is_enabled()
            return False
        except WebDriverException:
            return True
    WebDriverWait(driver, 20).until(replaced)
    WebDriverWait(driver, 20, ignored_exceptions=(WebDriverException,)).until(
        expected_conditions.presence_of_element_located((By.TAG_NAME, "main")))


class Check:
    def __init__(self, out):
        self.out = out
        self.count = 0

    def shot(self, driver, name):
        path = os.path.join(self.out, f"{name}.png")
        # The whole page, not just the window.
        height = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]["height"]
        width = driver.get_window_size()["width"]
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": int(height) + 1, "deviceScaleFactor": 1, "mobile": width < 600})
        driver.save_screenshot(path)
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        self.count += 1

    @staticmethod
    def that(condition, message):
        if not condition:
            print(f"console-browser: FAILED: {message}", file=sys.stderr)
            sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="the worker's base URL (loopback)")
    ap.add_argument("--token", required=True, help="the worker's API token")
    ap.add_argument("--failed-version", required=True, help="a failed version to retry")
    ap.add_argument("--out", required=True, help="directory for the screenshots")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    base = args.url.rstrip("/")
    check = Check(args.out)

    d = browser(1280, 900)
    try:
        d.get(base + "/console/versions")
        check.that(d.current_url.endswith("/console/sign-in"), f"unsigned request not sent to sign-in: {d.current_url}")
        check.that("Overview" not in d.page_source, "the sign-in page shows navigation")
        check.shot(d, "01-sign-in")

        d.find_element(By.NAME, "token").send_keys("not-the-token")
        click_and_wait(d, d.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        check.that("not this worker's API token" in d.page_source, "a wrong token was not refused")
        check.shot(d, "02-sign-in-refused")

        d.find_element(By.NAME, "token").send_keys(args.token)
        click_and_wait(d, d.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        check.that(d.current_url.rstrip("/").endswith("/console"), f"sign-in did not lead to the overview: {d.current_url}")
        check.that("<h1>Overview</h1>" in d.page_source, "the overview is not shown after sign-in")
        cookie = d.get_cookie("transcode_console")
        check.that(cookie is not None and cookie.get("httpOnly") and cookie.get("sameSite") == "Strict",
                   f"session cookie flags: {cookie}")
        check.shot(d, "03-overview")

        d.get(base + "/console/versions")
        status = d.find_element(By.NAME, "status")
        status.find_element(By.CSS_SELECTOR, "option[value=failed]").click()
        click_and_wait(d, d.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]"))
        check.that("status=failed" in d.current_url, f"the filter did not apply: {d.current_url}")
        badges = [b.text for b in d.find_elements(By.CSS_SELECTOR, "tbody .badge")]
        check.that(badges and all(b == "failed" for b in badges), f"filtered list shows {badges}")
        check.that("<script>alert" not in d.page_source, "markup from the database reached the page unescaped")
        check.shot(d, "04-versions-failed")

        link = d.find_element(By.CSS_SELECTOR, f"a[href='/console/versions/{args.failed_version}']")
        click_and_wait(d, link)
        check.that(args.failed_version in d.page_source, "the version page does not name the version")
        check.that("Error history" in d.page_source, "the version page has no error history")
        check.shot(d, "05-version-failed")

        click_and_wait(d, d.find_element(By.LINK_TEXT, "Retry"))
        check.that("Retry this failed version?" in d.page_source, "no confirmation page before retrying")
        check.shot(d, "06-confirm-retry")
        click_and_wait(d, d.find_element(By.XPATH, "//button[contains(., 'Yes, retry')]"))
        check.that("done=retry" in d.current_url, f"retry did not return to the version page: {d.current_url}")
        badge = d.find_element(By.CSS_SELECTOR, "dl .badge").text
        check.that(badge == "queued", f"after retry the version is {badge}, not queued")
        check.shot(d, "07-version-queued")
    finally:
        d.quit()

    phone = browser(390, 844)
    try:
        phone.get(base + "/console/sign-in")
        phone.find_element(By.NAME, "token").send_keys(args.token)
        click_and_wait(phone, phone.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        check.shot(phone, "08-phone-overview")
        phone.get(base + f"/console/versions/{args.failed_version}")
        check.shot(phone, "09-phone-version")
    finally:
        phone.quit()
    print(f"console-browser: every check passed; {check.count} screenshots in {args.out}")


if __name__ == "__main__":
    main()
