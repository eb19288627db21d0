#!/usr/bin/env python3
"""site_browser.py — loads pages in one headless Chromium over the DevTools protocol
(python stdlib only: a minimal websocket client) and reports what each page's scripts did.

Usage: site_browser.py CHROMIUM OUTDIR VIEW...
A VIEW is PAGE.html[@WIDTHxHEIGHT][:dark][=NAME] (default 1280x1800, light; NAME: the
file names written, default the page's own name). For each view, in a fresh tab:
  OUTDIR/NAME.dom   the page's DOM once its script set data-ready on <body> (or gave up)
  OUTDIR/NAME.png   a screenshot of the viewport
and one line "NAME: ERROR" on stdout per uncaught exception (Runtime.exceptionThrown),
console.error/console.assert call (Runtime.consoleAPICalled) and browser log entry of
level error (Log.entryAdded: a script or file that did not load). OUTDIR/browser.json
holds, per view, its errors and load_ms: navigation to data-ready, wall clock.
Exit status: 0 no error, 1 an error on some page, 2 Chromium did not start or answer.
"""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time


class WebSocket:
    """A client websocket (RFC 6455) over a plain TCP socket: text frames, masked out."""

    def __init__(self, port, path, timeout=30):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, port, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.s.recv(4096)
            if not chunk:
                raise OSError("the DevTools socket closed during the handshake")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise OSError("DevTools refused the websocket: %s" % head.split(b"\r\n", 1)[0].decode(errors="replace"))

    def send(self, text):
        data = text.encode()
        n = len(data)
        hdr = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                               bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536 else
                               bytes([0x80 | 127]) + struct.pack(">Q", n))
        mask = os.urandom(4)
        self.s.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                raise OSError("the DevTools socket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """The next whole text message (fragments joined, pings answered)."""
        parts = []
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(n)
            op = b0 & 0x0F
            if op == 0x9:  # ping
                self.s.sendall(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
                continue
            if op == 0x8:
                raise OSError("DevTools closed the websocket")
            parts.append(payload)
            if b0 & 0x80:
                return b"".join(parts).decode()


class Browser:
    def __init__(self, chrome):
        self.dir = tempfile.mkdtemp(prefix="hr-chromium-")
        self.proc = subprocess.Popen([chrome, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                                      "--no-first-run", "--remote-debugging-port=0", "--user-data-dir=" + self.dir,
                                      "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.dir, "DevToolsActivePort")
        for _ in range(300):  # up to 30 s
            if os.path.exists(port_file):
                lines = open(port_file).read().split("\n")
                if len(lines) >= 2 and lines[1]:
                    break
            if self.proc.poll() is not None:
                raise OSError("chromium exited with status %d before it listened" % self.proc.returncode)
            time.sleep(0.1)
        else:
            raise OSError("chromium wrote no DevToolsActivePort within 30 s")
        self.ws = WebSocket(int(lines[0]), lines[1])
        self.next_id, self.events = 0, []

    def call(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        end = time.time() + timeout
        while time.time() < end:
            m = json.loads(self.ws.recv())
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise OSError("%s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)
        raise OSError("%s: no answer within %d s" % (method, timeout))

    def pump(self, seconds):
        """Takes the events that arrive within seconds."""
        self.ws.s.settimeout(seconds)
        try:
            while True:
                self.events.append(json.loads(self.ws.recv()))
        except (socket.timeout, TimeoutError):
            pass
        finally:
            self.ws.s.settimeout(30)

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def errors_of(events, session):
    out = []
    for e in events:
        if e.get("sessionId") != session:
            continue
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("uncaught: " + (d.get("exception", {}).get("description") or d.get("text", "?")).split("\n")[0])
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description", "")))
                                                                for a in p.get("args", []))))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            en = p["entry"]
            out.append("log: %s%s" % (en.get("text", "?"), " (%s)" % en["url"] if en.get("url") else ""))
    return out


def view(b, spec, outdir):
    page, dark, w, h = spec, False, 1280, 1800
    name = None
    if "=" in page:
        page, name = page.rsplit("=", 1)
    if page.endswith(":dark"):
        page, dark = page[:-5], True
    if "@" in page:
        page, size = page.rsplit("@", 1)
        w, h = (int(x) for x in size.split("x"))
    name = name or os.path.splitext(os.path.basename(page))[0]
    target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for m in ("Runtime.enable", "Log.enable", "Page.enable"):
        b.call(m, session=s)
    b.call("Emulation.setDeviceMetricsOverride", {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": w < 600},
           session=s)
    b.call("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme",
                                                        "value": "dark" if dark else "light"}]}, session=s)
    t0 = time.time()
    b.call("Page.navigate", {"url": "file://" + os.path.abspath(page)}, session=s)
    ready, load_ms = False, None
    while time.time() - t0 < 20:
        r = b.call("Runtime.evaluate", {"expression": "document.readyState === 'complete' && document.body && "
                                                      "document.body.getAttribute('data-ready')",
                                        "returnByValue": True}, session=s)
        if r.get("result", {}).get("value") == "1":
            ready, load_ms = True, round(1000 * (time.time() - t0))
            break
        b.pump(0.02)
    b.pump(0.2)  # what the page logs right after it is drawn
    dom = b.call("Runtime.evaluate", {"expression": "document.documentElement.outerHTML", "returnByValue": True},
                 session=s)["result"].get("value", "")
    with open(os.path.join(outdir, name + ".dom"), "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html>\n" + dom + "\n")
    png = b.call("Page.captureScreenshot", {"format": "png"}, session=s)["data"]
    with open(os.path.join(outdir, name + ".png"), "wb") as f:
        f.write(base64.b64decode(png))
    errs = errors_of(b.events, s)
    if not ready:
        errs.append("the page's script did not set data-ready within 20 s")
    b.events = [e for e in b.events if e.get("sessionId") != s]
    b.call("Target.closeTarget", {"targetId": target})
    return name, {"page": page, "width": w, "height": h, "dark": dark, "load_ms": load_ms, "errors": errs}


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    chrome, outdir, views = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    try:
        b = Browser(chrome)
    except OSError as e:
        print("chromium: %s" % e)
        return 2
    report, bad = {}, 0
    try:
        for v in views:
            name, r = view(b, v, outdir)
            report[name] = r
            for e in r["errors"]:
                print("%s: %s" % (name, e))
                bad += 1
    except OSError as e:
        print("chromium: %s" % e)
        return 2
    finally:
        b.close()
    with open(os.path.join(outdir, "browser.json"), "w") as f:
        json.dump(report, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
