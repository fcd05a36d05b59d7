"""Headless Chromium from Debian (``chromium``, ``chromium-driver``: ``make browser``), driven
by Selenium; nothing is downloaded at test time (the system driver is named, offline)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM, CHROMEDRIVER = "chromium", "chromedriver"


def missing() -> str:
    """Why the browser cannot run here ("" when it can)."""
    absent = [name for name in (CHROMIUM, CHROMEDRIVER) if shutil.which(name) is None]
    return f"{' and '.join(absent)} not installed (make browser)" if absent else ""


@contextmanager
def chromium(width: int = 1280, height: int = 860) -> Iterator[WebDriver]:
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not fetch a browser or driver
    options = webdriver.ChromeOptions()
    options.binary_location = str(shutil.which(CHROMIUM))
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}", "--disable-gpu"):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(shutil.which(CHROMEDRIVER))), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def text_of(driver: WebDriver, css: str) -> str:
    """The text of what ``css`` selects now; "" while the page is being replaced (a form just
    submitted: the elements found may go stale before their text is read)."""
    try:
        return " ".join(element.text for element in driver.find_elements(By.CSS_SELECTOR, css))
    except StaleElementReferenceException:
        return ""


def wait_reloading(driver: WebDriver, holds: Callable[[WebDriver], bool], timeout: float) -> None:
    """Reload the page until ``holds`` (the page is server-rendered: a reload is a new read)."""

    def reloaded(d: WebDriver) -> bool:
        if holds(d):
            return True
        d.refresh()
        return holds(d)

    WebDriverWait(driver, timeout, poll_frequency=0.5).until(reloaded)
