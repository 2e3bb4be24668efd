"""Debian's Chromium, headless, driven by selenium through Debian's chromedriver (nothing downloads
a browser; .ci/run installs both packages), and the page-to-page waits of the review app's
browser tests (tests/webui/test_browser*.py) and its screenshots (``tests.support.screenshots``)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def installed() -> bool:
    """Whether Debian's chromium and chromium-driver are installed."""
    return Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()


@contextmanager
def chromium(width: int = 1400, height: int = 1000) -> Iterator:
    """A headless Chromium (a selenium ``webdriver.Chrome``) with a window of ``width`` by
    ``height`` CSS pixels at a device pixel ratio of 1, a profile of its own that goes with it,
    and its console kept (``get_log("browser")``: the CSP's reports)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="chromium-")
    for flag in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",  # the closed network refuses Chromium's own connections
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        f"--window-size={width},{height}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console: CSP reports
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(5)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def log_in(browser, base_url: str, email: str, password: str) -> None:
    """Log in on the review app at ``base_url`` and wait for the queue."""
    from selenium.webdriver.common.by import By

    browser.get(base_url + "/review/login")
    browser.find_element(By.ID, "email").send_keys(email)
    browser.find_element(By.ID, "password").send_keys(password)
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "login"))
    browser.find_element(By.ID, "queue")  # the queue page


# A global of the page before a submit: the next page's window has none. Element handles of the old
# page cannot say this reliably: while Chromium swaps documents, a check on one can raise "stale
# element reference" (CI, stop 22) or "Node with given id does not belong to the document" (an
# "unknown error", CI, stop 23), depending on the moment.
OLD_PAGE_MARK = "window.reviewTestOldPage = true;"


def wait_for_next_page(browser, seconds: float = 30) -> None:
    """Wait until the page marked with ``OLD_PAGE_MARK`` has gone and the next one has loaded.

    Any WebDriver error while the documents swap means "not yet"; a page that never comes raises
    TimeoutException after ``seconds``."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, seconds, ignored_exceptions=(WebDriverException,)).until(
        lambda b: b.execute_script(
            "return window.reviewTestOldPage === undefined && document.readyState === 'complete'"
        ),
        message="the next page did not load",
    )


def click_and_wait_for_next_page(browser, element) -> None:
    """Click a submit ``element`` and wait for the page it posts to (see wait_for_next_page)."""
    browser.execute_script(OLD_PAGE_MARK)
    element.click()
    wait_for_next_page(browser)
