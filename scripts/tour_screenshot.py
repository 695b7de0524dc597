"""Takes the README's tour screenshot (docs/tour-result.png) with Debian's chromium.

    scripts/tour_screenshot.py URL USER PASSWORD

URL is a running `make run` (e.g. http://127.0.0.1:8000); the user presses
"Run the demo what-if" on the home page and the answer is photographed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

OUT = Path(__file__).resolve().parent.parent / "docs" / "tour-result.png"


def main(url: str, user: str, password: str) -> None:
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{url}/accounts/login/")
        page.fill("#id_username", user)
        page.fill("#id_password", password)
        page.click("button[type=submit]")
        page.click("text=Run the demo what-if")
        page.wait_for_selector("#outcome", timeout=60_000)
        page.wait_for_timeout(500)
        page.screenshot(path=str(OUT), full_page=False)
        browser.close()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
