#!/usr/bin/env python3
"""Browser test of the page `tch matrix` writes (specs/matrix.md M2.1-M2.6), in a real headless
Chromium driven through chromedriver's W3C WebDriver HTTP API, with the Python standard library
only.

    python3 reports/browser/test_matrix.py PAGE.html --expect-case CASE \\
        --expect-candidate NAME --screenshot OUT.png

Opens PAGE.html from disk (file://) and checks: the page's packed document unpacks in the
browser, the column headers are the candidates it names (NAME among them), the script built a
row per packed case and a button per packed cell, the row of CASE
is there, some rows are folded into a merged row and a click unfolds them, the page fetched
nothing (no network), a click on CASE's cell under NAME (a
failing one) opens the detail panel with its verdicts, diff and replay command and moves the
focus there, Escape closes it and gives the focus back. The screenshot is taken with the panel
open. Exit status 0 when every check passes, 1 otherwise; each check prints one line.
"""

import argparse
import base64
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C key of an element reference
FAILING = ("critical", "high", "medium", "low", "failed")
# The driver is on localhost: never through an http_proxy the environment names.
LOCAL = urllib.request.build_opener(urllib.request.ProxyHandler({}))

CHROMIUM = ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser")


class CheckFailed(Exception):
    """A check of the page failed."""


class DriverFailed(Exception):
    """chromedriver or the browser did not do what was asked."""


class WebDriver:
    """A chromedriver process and one session, over the W3C WebDriver HTTP API."""

    def __init__(self, chromedriver, log):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.session = None
        self.process = subprocess.Popen(
            [chromedriver, f"--port={self.port}", f"--log-path={log}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def start(self, chromium, profile):
        """Waits for the driver, then opens a session in a fresh headless browser."""
        self.wait_ready()
        args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1400,900",
            f"--user-data-dir={profile}",
        ]
        options = {"args": args}
        if chromium:
            options["binary"] = chromium
        reply = self.call(
            "POST",
            "/session",
            {"capabilities": {"alwaysMatch": {"goog:chromeOptions": options}}},
        )
        self.session = reply["sessionId"]

    def wait_ready(self, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise DriverFailed(f"chromedriver exited with status {self.process.returncode}")
            try:
                if self.call("GET", "/status").get("ready"):
                    return
            except (OSError, DriverFailed):
                pass
            time.sleep(0.1)
        raise DriverFailed(f"chromedriver not ready within {seconds} s")

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json; charset=utf-8"},
        )
        try:
            with LOCAL.open(request, timeout=60) as response:
                return json.load(response)["value"]
        except urllib.error.HTTPError as error:
            value = json.load(error).get("value", {})
            raise DriverFailed(
                f"WebDriver {method} {path}: {value.get('error')}: {value.get('message', '')[:300]}"
            ) from None

    def session_call(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def script(self, source, *args):
        return self.session_call("POST", "/execute/sync", {"script": source, "args": list(args)})

    def async_script(self, source, *args):
        """Runs `source`, which calls its last argument with the result when it has one."""
        return self.session_call("POST", "/execute/async", {"script": source, "args": list(args)})

    def find(self, css):
        """The elements matching `css`, as references."""
        found = self.session_call("POST", "/elements", {"using": "css selector", "value": css})
        return [element[ELEMENT] for element in found]

    def click(self, element):
        self.session_call("POST", f"/element/{element}/click", {})

    def press(self, key):
        action = {
            "type": "key",
            "id": "keyboard",
            "actions": [{"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}],
        }
        self.session_call("POST", "/actions", {"actions": [action]})

    def quit(self):
        try:
            if self.session:
                self.call("DELETE", f"/session/{self.session}")
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check(condition, message):
    if not condition:
        raise CheckFailed(message)
    print(f"ok: {message}")


def run_checks(driver, page, case, candidate, screenshot):
    driver.session_call("POST", "/url", {"url": page.as_uri()})
    title = driver.session_call("GET", "/title")
    check(title == "tch conformance matrix", f"the page opened from disk (title {title!r})")

    resources = driver.script("return performance.getEntriesByType('resource').map(e => e.name);")
    check(resources == [], f"the page fetched nothing (resources: {resources})")

    headers = driver.script(
        "return Array.from(document.querySelectorAll('thead th.candidate .name'), e => e.textContent);"
    )
    # The details are packed in the page; its script unpacks them into window.tchMatrix.
    blob = driver.async_script(
        "const done = arguments[arguments.length - 1];"
        " window.tchMatrix.then(d => done(d.candidates), e => done('not unpacked: ' + e));"
    )
    check(headers == blob and headers, f"the column headers are the candidates: {headers}")
    # The rows are packed too: the script builds one per case before window.tchMatrix resolves.
    built = driver.script(
        "return {rows: document.querySelectorAll('#matrix tr[data-case]').length,"
        " cells: document.querySelectorAll('#matrix button[data-cell]').length};"
    )
    packed = driver.async_script(
        "const done = arguments[arguments.length - 1];"
        " window.tchMatrix.then(d => done({rows: d.rows.length, cells: d.cells.length}));"
    )
    check(built == packed and built["rows"], f"the script built every packed row and cell: {built}")
    timing = driver.script(
        "const built = performance.getEntriesByName('tch-table-built');"
        " const page = performance.getEntriesByType('navigation')[0];"
        " return {built: built.length ? built[0].startTime : null,"
        " loaded: page ? page.loadEventEnd : null};"
    )
    # A measure for the reader, never a verdict: wall time depends on the machine.
    print(f"info: table built {timing['built']} ms, load event {timing['loaded']} ms after navigation start")
    check(candidate in headers, f"candidate {candidate!r} has a column")
    column = headers.index(candidate)

    rows = driver.find(f'tr[data-case="{css_string(case)}"]')
    check(len(rows) == 1, f"the row of {case} is there")

    merged = driver.find("tr.merged .toggle")
    check(merged, f"{len(merged)} merged rows of identical results")

    cells = driver.find(f'tr[data-case="{css_string(case)}"] button[data-candidate="{column}"]')
    check(len(cells) == 1, f"{case} has a cell under {candidate}")
    cell = cells[0]
    hidden = driver.script("return arguments[0].closest('tr').hidden;", {ELEMENT: cell})
    if hidden:  # folded: open its group first, as a reader would
        group = driver.script("return arguments[0].closest('tr').dataset.memberOf;", {ELEMENT: cell})
        driver.click(driver.find(f'button.toggle[data-group="{group}"]')[0])
    classes = driver.script("return arguments[0].className;", {ELEMENT: cell}).split()
    cell_text = driver.script("return arguments[0].textContent;", {ELEMENT: cell})
    check(
        any(c in FAILING for c in classes),
        f"the cell fails: {cell_text!r} (classes {classes})",
    )
    # "critical: …", or "critical, known: …" for a failure --expect-fail lists.
    severity = cell_text.split(":")[0].split(",")[0]
    check(severity in FAILING, f"the cell names its severity first: {severity!r}")

    driver.click(cell)
    panel = driver.script(
        """const p = document.getElementById('detail');
           const text = s => Array.from(p.querySelectorAll(s), e => e.textContent);
           return {hidden: p.hidden, visible: p.getBoundingClientRect().width > 0,
                   title: document.getElementById('detail-title').textContent,
                   text: p.textContent, findings: text('.finding h3'), diffs: text('pre.diff'),
                   replays: text('pre.replay'),
                   focus: document.activeElement && document.activeElement.id};"""
    )
    check(not panel["hidden"] and panel["visible"], "a click on the cell opens the detail panel")
    check(
        case in panel["title"] and candidate in panel["title"],
        f"the panel names the case and candidate: {panel['title']!r}",
    )
    check(panel["findings"], f"the panel lists {len(panel['findings'])} findings")
    shown = [v.strip() for v in cell_text.split(":", 1)[1].split("+")[0].split(",") if v.strip()]
    missing = [v for v in shown if v not in panel["text"]]
    check(not missing, f"the panel shows the cell's verdicts {shown}")
    check(
        any(d.startswith("---") and ("\n+" in d or "\n-" in d) for d in panel["diffs"]),
        "the panel shows a diff",
    )
    check(
        any(r.startswith("tch run ") and f"--case {case}" in r for r in panel["replays"]),
        f"the panel shows the replay command: {panel['replays'][:1]}",
    )
    check(panel["focus"] == "detail-title", "the focus moved to the panel")

    png = base64.b64decode(driver.session_call("GET", "/screenshot"))
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    screenshot.write_bytes(png)
    check(png.startswith(b"\x89PNG"), f"screenshot written to {screenshot}")

    driver.press("\ue00c")  # Escape
    after = driver.script(
        "return {hidden: document.getElementById('detail').hidden,"
        " back: document.activeElement === arguments[0]};",
        {ELEMENT: cell},
    )
    check(after["hidden"] and after["back"], "Escape closes the panel and refocuses the cell")

    toggle = driver.find("tr.merged .toggle")[0]
    group = driver.script("return arguments[0].dataset.group;", {ELEMENT: toggle})
    before = driver.script(
        "return Array.from(document.querySelectorAll('tr[data-member-of=\"' + arguments[0] + '\"]'),"
        " r => r.getClientRects().length > 0);",
        group,
    )
    driver.click(toggle)
    after = driver.script(
        "return Array.from(document.querySelectorAll('tr[data-member-of=\"' + arguments[0] + '\"]'),"
        " r => r.getClientRects().length > 0);",
        group,
    )
    expanded = driver.script("return arguments[0].getAttribute('aria-expanded');", {ELEMENT: toggle})
    check(
        before and not any(before) and all(after) and expanded == "true",
        f"a click unfolds a merged row into its {len(after)} cases",
    )


def css_string(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", type=pathlib.Path, help="the HTML page tch matrix wrote")
    parser.add_argument("--expect-case", required=True, help="a case id with a failing cell")
    parser.add_argument("--expect-candidate", required=True, help="the candidate it fails under")
    parser.add_argument("--screenshot", required=True, type=pathlib.Path, help="PNG to write")
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    parser.add_argument(
        "--chromium",
        default=next((p for p in CHROMIUM if os.access(p, os.X_OK)), None),
        help="the browser binary (default: Debian's chromium)",
    )
    args = parser.parse_args()
    page = args.page.resolve()
    if not page.is_file():
        print(f"FAIL: no page at {page}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="tch-browser-") as scratch:
        profile = pathlib.Path(scratch, "profile")
        log = pathlib.Path(scratch, "chromedriver.log")
        driver = None
        try:
            driver = WebDriver(args.chromedriver, log)
            driver.start(args.chromium, profile)
            run_checks(driver, page, args.expect_case, args.expect_candidate, args.screenshot.resolve())
        except CheckFailed as error:
            print(f"FAIL: {error}", file=sys.stderr)
            return 1
        except (DriverFailed, OSError) as error:
            print(f"FAIL: {error}", file=sys.stderr)
            if log.exists():
                tail = log.read_text(errors="replace").splitlines()[-15:]
                print("chromedriver log (tail):\n  " + "\n  ".join(tail), file=sys.stderr)
            return 1
        finally:
            if driver is not None:
                driver.quit()
    print("matrix page: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
