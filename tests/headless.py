"""Opens a file in a real headless Chromium and reports what happened, through the DevTools
protocol over a pipe (``--remote-debugging-pipe``: JSON messages ending in NUL on the child's
file descriptors 3 and 4), so no Python package beyond the standard library is needed.

``Browser().open(path)`` loads a page with the browser's network-facing features off (the
flags in ``FLAGS``, a new empty profile) and returns the console errors and exceptions, every
request the page made (the DevTools Network domain sees each one, whatever asked for it), PNG
screenshots of the whole page on screen and as print media renders it, and the values of any
JavaScript expressions the test asks about (evaluated by DevTools; the page runs no script).
Test helper."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
)
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    """The Chromium (or Chrome) on PATH, else None."""
    for name in NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class Page:
    console_errors: list[str] = field(default_factory=list)  # console.error, exceptions, Log
    requests: list[str] = field(default_factory=list)  # URLs the page asked for
    screenshot_png: bytes = b""
    print_screenshot_png: bytes = b""  # the page as print media renders it
    pdf: bytes = b""  # Page.printToPDF
    values: dict = field(default_factory=dict)  # expression -> value


class _Pipe:
    def __init__(self, proc, to_browser: int, from_browser: int):
        self.proc = proc
        self.w = to_browser
        self.r = from_browser
        self.buf = b""
        self.next_id = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def _read(self, deadline: float) -> dict:
        import select

        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self.r], [], [], left)
            if ready:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\0")
        return json.loads(line)

    def call(self, method, params=None, session=None, timeout: float = 30.0) -> dict:
        want = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read(deadline)
            if msg.get("id") == want:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_for(self, method: str, timeout: float = 30.0) -> dict:
        for i, msg in enumerate(self.events):
            if msg.get("method") == method:
                return self.events.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read(deadline)
            if msg.get("method") == method:
                return msg
            self.events.append(msg)


class Browser:
    """One headless Chromium (a new empty profile) for several pages: ``with Browser() as b:
    page = b.open(path, ...)``."""

    def __enter__(self) -> Browser:
        exe = find_chromium()
        if exe is None:
            raise FileNotFoundError("no chromium on PATH")
        self.profile = tempfile.mkdtemp(prefix="kvcalc-chromium-")
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()

        def fds() -> None:  # in the child: fd 3 reads our commands, fd 4 writes the answers
            r, w = os.dup(to_child_r), os.dup(from_child_w)  # above 4: neither overwritten
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.log = open(Path(self.profile) / "stderr.txt", "wb")
        args = [exe, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe",
                "about:blank"]  # fmt: skip
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            preexec_fn=fds,  # a test helper: no threads to deadlock
            close_fds=False,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self.pipe = _Pipe(self.proc, to_child_w, from_child_r)
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.pipe.call("Browser.close", timeout=10)
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.pipe.w)
        os.close(self.pipe.r)
        self.log.close()
        self.stderr = (Path(self.profile) / "stderr.txt").read_text(errors="replace")
        shutil.rmtree(self.profile, ignore_errors=True)

    def open(
        self,
        path: Path,
        *,
        width: int = 1200,
        height: int = 900,
        expressions: tuple[str, ...] = (),
        narrow_width: int | None = None,
        narrow_expressions: tuple[str, ...] = (),
        pdf: bool = False,
    ) -> Page:
        """Load ``path`` in a new tab and collect what a test checks (module docstring);
        with ``narrow_width`` lay it out again that wide and evaluate ``narrow_expressions``
        there."""
        pipe = self.pipe
        page = Page()
        pipe.events.clear()
        target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Runtime", "Log", "Network", "Page"):
            pipe.call(f"{domain}.enable", session=session)
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        pipe.call("Emulation.setDeviceMetricsOverride", metrics, session)
        pipe.call("Page.navigate", {"url": Path(path).resolve().as_uri()}, session)
        pipe.wait_for("Page.loadEventFired")
        for expr in expressions:
            page.values[expr] = _eval(pipe, session, expr)
        page.screenshot_png = _screenshot(pipe, session)
        pipe.call("Emulation.setEmulatedMedia", {"media": "print"}, session)
        page.print_screenshot_png = _screenshot(pipe, session)
        pipe.call("Emulation.setEmulatedMedia", {"media": ""}, session)
        if pdf:
            page.pdf = base64.b64decode(pipe.call("Page.printToPDF", {}, session, 60)["data"])
        if narrow_width:
            pipe.call("Emulation.setDeviceMetricsOverride", {**metrics, "width": narrow_width},
                      session)  # fmt: skip
            for expr in narrow_expressions:
                page.values[expr] = _eval(pipe, session, expr)
        pipe.call("Runtime.evaluate", {"expression": "1"}, session)  # late events arrive first
        for msg in pipe.events:
            if msg.get("sessionId") in (None, session):
                _collect(page, msg)
        pipe.call("Target.closeTarget", {"targetId": target})
        return page


def _screenshot(pipe: _Pipe, session: str, scale: float = 0.5) -> bytes:
    """The whole page as a PNG at ``scale`` (half size: enough to tell ink from blank)."""
    size = pipe.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": scale}
    shot = {"format": "png", "captureBeyondViewport": True, "clip": clip}
    return base64.b64decode(pipe.call("Page.captureScreenshot", shot, session)["data"])


def _eval(pipe: _Pipe, session: str, expr: str):
    res = pipe.call("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session)
    if "exceptionDetails" in res:
        raise RuntimeError(f"{expr}: {res['exceptionDetails']}")
    return res["result"].get("value")


def _collect(page: Page, msg: dict) -> None:
    method, params = msg.get("method"), msg.get("params", {})
    if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        page.console_errors.append(" ".join(str(a.get("value")) for a in params.get("args", [])))
    elif method == "Runtime.exceptionThrown":
        page.console_errors.append(str(params.get("exceptionDetails", {}).get("text")))
    elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
        page.console_errors.append(params["entry"].get("text", ""))
    elif method == "Network.requestWillBeSent":
        page.requests.append(params.get("request", {}).get("url", ""))


def ink_fraction(png: bytes) -> tuple[float, int]:
    """The fraction of pixels that are not the page's background (its most common colour)
    and the number of distinct colours: 0 and 1 for a blank page. Needs Pillow (installed
    with matplotlib, of the test extra)."""
    import io

    import numpy as np
    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.uint32)[::2, ::2]
    codes = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    values, counts = np.unique(codes, return_counts=True)
    return 1 - counts.max() / codes.size, int(values.size)
