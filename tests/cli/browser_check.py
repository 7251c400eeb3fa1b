#!/usr/bin/env python3
"""Loads a results-browser page in headless Chromium and checks it, over Chromium's remote
debugging protocol (a small WebSocket client on the standard library only).

Checks, each optional but the first:
  - the console has no errors: no exception, no console.error, no log entry of level error
    (a Content-Security-Policy violation or a failed request is one);
  - --offline: the page makes no request but for file: and data: URLs;
  - --text TEXT: the page shows TEXT (a hostile name arrives as text); and always: no
    img, iframe, object, embed or b element exists (the page makes none, so one would be
    markup from a database) and no dialog opened;
  - --rows N: the runs table shows N rows;
  - --series DB:ID:METRIC=FILE: window.sgdsim.series(DB, ID, METRIC) equals the rows of FILE
    ("update value" lines, as sqlite3 prints them), value for value;
  - --then-rows N --then ARG...: runs the command (no shell; --then comes last) after the
    checks above, then
    waits (polling, up to --deadline seconds) until the table shows N rows;
  - --screenshot FILE: a PNG of the page (--width x --height), after --eval EXPR (a user's
    action: a click) has run.
Exit 0: every check passed; 1: one failed (messages on stderr); 77: Chromium is missing and
the environment variable CI is not set (in CI a missing Chromium fails).
"""
import argparse
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request


class Cdp:
    """One WebSocket connection to a page target: commands by id, events queued."""

    def __init__(self, ws_url):
        m = re.match(r'ws://([^:/]+):(\d+)(/.*)', ws_url)
        self.sock = socket.create_connection((m.group(1), int(m.group(2))), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f'GET {m.group(3)} HTTP/1.1\r\nHost: {m.group(1)}:{m.group(2)}\r\n'
                           f'Upgrade: websocket\r\nConnection: Upgrade\r\n'
                           f'Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n').encode())
        head = b''
        while b'\r\n\r\n' not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise RuntimeError('WebSocket handshake: connection closed')
            head += chunk
        if b' 101 ' not in head.split(b'\r\n')[0]:
            raise RuntimeError('WebSocket handshake refused: ' + head.decode(errors='replace'))
        self.next_id = 0
        self.events = []

    def _recv_exact(self, n):
        data = b''
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError('WebSocket closed')
            data += chunk
        return data

    def _recv_message(self):
        message = b''
        while True:
            b0, b1 = self._recv_exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack('>H', self._recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack('>Q', self._recv_exact(8))[0]
            payload = self._recv_exact(n)
            if b0 & 0x0F == 8:
                raise RuntimeError('WebSocket closed by Chromium')
            message += payload
            if b0 & 0x80:
                return json.loads(message.decode())

    def send(self, method, **params):
        self.next_id += 1
        data = json.dumps({'id': self.next_id, 'method': method, 'params': params}).encode()
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                                bytes([0x80 | 126]) + struct.pack('>H', n) if n < 65536 else
                                bytes([0x80 | 127]) + struct.pack('>Q', n))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
        while True:
            msg = self._recv_message()
            if msg.get('id') == self.next_id:
                if 'error' in msg:
                    raise RuntimeError(f'{method}: {msg["error"]}')
                return msg.get('result', {})
            self.events.append(msg)

    def evaluate(self, expr):
        r = self.send('Runtime.evaluate', expression=expr, returnByValue=True, awaitPromise=True)
        if 'exceptionDetails' in r:
            raise RuntimeError(f'{expr}: {r["exceptionDetails"]}')
        return r['result'].get('value')

    def wait_event(self, name, deadline):
        while time.time() < deadline:
            for i, e in enumerate(self.events):
                if e.get('method') == name:
                    del self.events[i]
                    return e
            self.sock.settimeout(max(0.1, deadline - time.time()))
            try:
                self.events.append(self._recv_message())
            except socket.timeout:
                break
        raise RuntimeError(f'no {name} before the deadline')


def find_chromium():
    for name in ('chromium', 'chromium-browser', 'google-chrome'):
        path = shutil.which(name)
        if path:
            return path
    return None


def start_chromium(binary, profile, width, height):
    proc = subprocess.Popen([binary, '--headless', '--no-sandbox', '--disable-gpu',
                             '--no-first-run', '--disable-extensions', '--disable-sync',
                             '--disable-background-networking', '--disable-component-update',
                             '--remote-debugging-port=0', f'--user-data-dir={profile}',
                             f'--window-size={width},{height}', 'about:blank'],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            # a session of its own: Chromium signals its process group when
                            # it ends, which must not reach the test runner
                            start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stderr.readline()
        m = re.search(r'DevTools listening on (ws://\S+)', line)
        if m:
            port = re.match(r'ws://[^:]+:(\d+)/', m.group(1)).group(1)
            return proc, int(port)
        if not line and proc.poll() is not None:
            break
    stop_chromium(proc)
    raise RuntimeError('Chromium did not start its debugging endpoint')


def stop_chromium(proc):
    """Ends Chromium and every process it started (its own session's group)."""
    try:
        os.killpg(proc.pid, 9)
    except ProcessLookupError:
        pass
    proc.wait()


def page_socket(port):
    deadline = time.time() + 30
    while time.time() < deadline:
        with urllib.request.urlopen(f'http://127.0.0.1:{port}/json/list', timeout=10) as r:
            for t in json.load(r):
                if t.get('type') == 'page':
                    return t['webSocketDebuggerUrl']
        time.sleep(0.2)
    raise RuntimeError('no page target')


def console_errors(events):
    out = []
    for e in events:
        m, p = e.get('method'), e.get('params', {})
        if m == 'Runtime.exceptionThrown':
            out.append('exception: ' + json.dumps(p.get('exceptionDetails'))[:600])
        elif m == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert'):
            out.append('console.error: ' + json.dumps(p.get('args'))[:600])
        elif m == 'Log.entryAdded' and p.get('entry', {}).get('level') == 'error':
            out.append('log: ' + p['entry'].get('text', '')[:600] + ' ' + p['entry'].get('url', ''))
        elif m == 'Page.javascriptDialogOpening':
            out.append('a dialog opened (injected script?): ' + p.get('message', ''))
    return out


def foreign_requests(events):
    return [e['params']['request']['url'] for e in events
            if e.get('method') == 'Network.requestWillBeSent'
            and not re.match(r'(file|data):', e['params']['request']['url'])]


def rows_shown(cdp):
    return cdp.evaluate('window.sgdsim && window.sgdsim.ready ? window.sgdsim.tableRows() : -1')


def wait_ready(cdp, deadline):
    while time.time() < deadline:
        if cdp.evaluate('!!(window.sgdsim && window.sgdsim.ready)'):
            return
        time.sleep(0.2)
    raise RuntimeError('the page never became ready (window.sgdsim.ready)')


def check_series(cdp, spec, fails):
    m = re.match(r'(\d+):(\d+):(.+)=(.+)', spec)
    db, run, metric, path = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
    want = [[int(u), float(v)] for u, v in (line.split() for line in open(path) if line.strip())]
    got = cdp.evaluate(f"window.sgdsim.series({db}, {run}, {json.dumps(metric)}).then(JSON.stringify)")
    got = json.loads(got) if got else None
    if got != want:
        fails.append(f'series {spec}: the page has {str(got)[:300]}, the database {str(want)[:300]}')


def run_checks(a, cdp, fails):
    deadline = time.time() + a.deadline
    cdp.send('Page.navigate', url=a.url)
    cdp.wait_event('Page.loadEventFired', deadline)
    wait_ready(cdp, deadline)
    if a.rows is not None and rows_shown(cdp) != a.rows:
        fails.append(f'runs table: {rows_shown(cdp)} rows, the database has {a.rows}')
    for spec in a.series:
        check_series(cdp, spec, fails)
    if a.then:
        subprocess.run(a.then, check=True)
        while time.time() < deadline and rows_shown(cdp) != a.then_rows:
            time.sleep(0.25)
        if rows_shown(cdp) != a.then_rows:
            fails.append(f'live: {rows_shown(cdp)} rows after the new run, wanted {a.then_rows}')
    for text in a.text:
        if not cdp.evaluate(f'document.body.textContent.includes({json.dumps(text)})'):
            fails.append(f'the page does not show the text {text!r}')
    for expr in a.check:  # a statement about the page that must hold
        if cdp.evaluate(f'!!({expr})') is not True:
            fails.append(f'does not hold: {expr}')
    injected = cdp.evaluate("document.querySelectorAll('img,iframe,object,embed,b').length")
    if injected:
        fails.append(f'{injected} element(s) the page never makes (img, iframe, object, embed, b): '
                     'markup from the database was parsed')
    for expr in a.eval:  # a user's action before the screenshot, e.g. a click on a row
        cdp.evaluate(expr)
        time.sleep(0.5)
    if a.screenshot:
        time.sleep(0.3)
        shot = cdp.send('Page.captureScreenshot', format='png', captureBeyondViewport=True)
        with open(a.screenshot, 'wb') as f:
            f.write(base64.b64decode(shot['data']))
    cdp.evaluate('1')  # collect the events queued so far
    fails.extend(console_errors(cdp.events))
    if a.offline:
        fails.extend('network request: ' + u for u in foreign_requests(cdp.events))


def main():
    p = argparse.ArgumentParser()
    p.add_argument('url')
    p.add_argument('--rows', type=int)
    p.add_argument('--series', action='append', default=[])
    p.add_argument('--offline', action='store_true')
    p.add_argument('--text', action='append', default=[])
    p.add_argument('--then', nargs=argparse.REMAINDER)  # last: the rest is the command
    p.add_argument('--then-rows', type=int)
    p.add_argument('--screenshot')
    p.add_argument('--eval', action='append', default=[])
    p.add_argument('--check', action='append', default=[])
    p.add_argument('--width', type=int, default=1400)
    p.add_argument('--height', type=int, default=1000)
    p.add_argument('--deadline', type=float, default=120)
    a = p.parse_args()
    binary = find_chromium()
    if not binary:
        if os.environ.get('CI'):
            print('FAIL: Chromium is missing (CI is set: the browser tests must run)', file=sys.stderr)
            return 1
        print('SKIP: Chromium is not installed (Debian: chromium); set CI to make this fail')
        return 77
    profile = tempfile.mkdtemp(prefix='sgdsim-chromium-')
    proc = None
    fails = []
    try:
        proc, port = start_chromium(binary, profile, a.width, a.height)
        cdp = Cdp(page_socket(port))
        for domain in ('Runtime', 'Log', 'Page', 'Network'):
            cdp.send(domain + '.enable')
        cdp.send('Emulation.setDeviceMetricsOverride', width=a.width, height=a.height,
                 deviceScaleFactor=1, mobile=False)
        run_checks(a, cdp, fails)
    except Exception as e:  # a broken page or browser is a failed check, with its reason
        fails.append(f'{type(e).__name__}: {e}')
    finally:
        if proc:
            stop_chromium(proc)
        shutil.rmtree(profile, ignore_errors=True)
    for f in fails:
        print('FAIL: ' + f, file=sys.stderr)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
