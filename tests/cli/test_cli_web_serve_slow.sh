#!/usr/bin/env bash
# `sgdsim serve` under slow clients (web/guard.h): 100 connections that trickle one byte of
# their request's headers a second (more than the server keeps, 64) do not keep a fresh
# client out -- it gets the page while they still trickle, long before their timeout --;
# off loopback, one client address holds 16 connections at most; and with
# `--request-timeout 2` trickling connections, and a connection idle after its answer, are
# cut once 2 s have passed since they began waiting, not before, and the server still
# answers.  Nothing here depends on the machine's speed: the bounds are generous and the
# test waits for states (a connection ended, an answer in).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
small_scenario s.json
"$SGDSIM" run s.json --db a.db -q || fail "run"

# start_server ARGS...: serve in the background; sets URL and SERVER once it listens.
start_server() {
  : > serve.out; : > serve.err
  "$SGDSIM" serve a.db --port 0 "$@" > serve.out 2> serve.err &
  SERVER=$!
  URL=""
  for _ in $(seq 600); do
    URL=$(sed -n 's/^serving //p' serve.out)
    [ -n "$URL" ] && return 0
    kill -0 "$SERVER" 2>/dev/null || break
    sleep 0.1
  done
  fail "serve $* printed no address: $(cat serve.err)"
  return 1
}
stop_server() {
  kill "$SERVER" 2>/dev/null
  wait "$SERVER"
  local rc=$?
  [ "$rc" = 0 ] || fail "serve did not stop cleanly on SIGTERM (exit $rc): $(cat serve.err)"
}

cat > slow.py <<'PY'
import http.client, socket, sys, threading, time, urllib.parse
url, mode = sys.argv[1], sys.argv[2]
u = urllib.parse.urlparse(url)
fails = []

class Slow:
    """n connections, each sending a request's first line and then one byte of a header
    a second; ended[i] is when connection i was seen ended by the server."""
    def __init__(self, n, source='127.0.0.1'):
        self.socks, self.t0 = [], []
        for _ in range(n):
            self.t0.append(time.monotonic())
            s = socket.create_connection(('127.0.0.1' if u.hostname == '0.0.0.0' else u.hostname,
                                          u.port), timeout=30, source_address=(source, 0))
            s.sendall(f'GET / HTTP/1.1\r\nHost: {u.netloc}\r\nX-Slow: '.encode())
            s.setblocking(False)
            self.socks.append(s)
        self.ended = [None] * n
        self.rounds = 0
        self.stop = False
        threading.Thread(target=self.run, daemon=True).start()
    def alive(self):
        return sum(e is None for e in self.ended)
    def one_round(self):
        for i, s in enumerate(self.socks):
            if self.ended[i] is not None:
                continue
            try:
                if s.recv(1) == b'':  # the server ended it (it never answers an unfinished request)
                    self.ended[i] = time.monotonic()
                    continue
                fails.append(f'connection {i}: the server answered an unfinished request')
            except BlockingIOError:
                pass
            except OSError:
                self.ended[i] = time.monotonic()
                continue
            try:
                s.send(b'a')
            except OSError:
                self.ended[i] = time.monotonic()
        self.rounds += 1
    def run(self):
        while not self.stop:
            self.one_round()
            time.sleep(1)
    def wait(self, what, cond, limit):
        end = time.monotonic() + limit
        while not cond() and time.monotonic() < end:
            time.sleep(0.05)
        if not cond():
            fails.append(f'after {limit} s: {what}')

def get_page(source='127.0.0.1'):
    c = http.client.HTTPConnection('127.0.0.1' if u.hostname == '0.0.0.0' else u.hostname,
                                   u.port, timeout=30, source_address=(source, 0))
    try:
        c.request('GET', '/')
        r = c.getresponse()
        return r.status, r.read()
    except OSError as e:
        return str(e), b''

if mode == 'slots':
    slow = Slow(100)
    slow.wait('the slow clients never trickled twice', lambda: slow.rounds >= 2, 60)
    t = time.monotonic()
    status, body = get_page()
    took = time.monotonic() - t
    if status != 200 or b'<html' not in body.lower():
        fails.append(f'a fresh client did not get the page while 100 clients trickle: {status}')
    # Their timeout is 600 s: the fresh client got in because room was made, and most of the
    # slow ones are still there (64 are kept: the newest, less one for the fresh client).
    if slow.alive() < 32:
        fails.append(f'only {slow.alive()} of the slow clients still open')
    print(f'fresh client answered in {took:.2f} s; {slow.alive()} slow clients open')
elif mode == 'per-client':  # --host 0.0.0.0: 16 connections per client address
    slow = Slow(24)
    slow.wait('more than 16 slow clients of one address kept', lambda: slow.alive() <= 16, 60)
    status, body = get_page('127.0.0.2')
    if status != 200:
        fails.append(f'a client of another address did not get the page: {status}')
    print(f'{slow.alive()} of 24 slow clients of one address open')
else:  # timeout: --request-timeout 2
    slow = Slow(20)
    idle = socket.create_connection((u.hostname, u.port), timeout=30)
    idle.sendall(f'GET /data.json HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n'.encode())
    idle_t0 = None
    data = b''
    while True:  # the whole answer (it has a Content-Length), then the connection stays open
        chunk = idle.recv(65536)
        if not chunk:
            fails.append('the connection ended before its answer')
            break
        data += chunk
        head, sep, rest = data.partition(b'\r\n\r\n')
        if sep:
            n = int([l.split(b':')[1] for l in head.split(b'\r\n')
                     if l.lower().startswith(b'content-length:')][0])
            if len(rest) >= n:
                idle_t0 = time.monotonic()
                break
    slow.wait('the slow clients were not all cut', lambda: slow.alive() == 0, 60)
    for i, (t0, e) in enumerate(zip(slow.t0, slow.ended)):
        if e is not None and e - t0 < 1.95:
            fails.append(f'connection {i} cut after {e - t0:.2f} s, before its timeout')
    if idle_t0 is not None:
        idle.settimeout(60)
        try:
            ended = idle.recv(1) == b''
        except OSError:
            ended = True
        waited = time.monotonic() - idle_t0
        if not ended:
            fails.append('an idle connection got bytes instead of its end')
        elif waited < 1.5:  # it began to wait when the answer was sent, just before it came
            fails.append(f'an idle connection cut after {waited:.2f} s, before its timeout')
    status, _ = get_page()
    if status != 200:
        fails.append(f'after the cuts, GET / gave {status}')
    print('cut after', ', '.join(f'{e - t0:.1f}' for t0, e in zip(slow.t0, slow.ended) if e))
slow.stop = True
for f in fails:
    print('FAIL:', f, file=sys.stderr)
sys.exit(1 if fails else 0)
PY

# More slow clients than connections kept, with a timeout far beyond the test: only the
# room kept for newcomers lets the fresh client in.
if start_server --request-timeout 600; then
  python3 slow.py "$URL" slots || fail "slow clients kept a fresh one out"
  stop_server
fi
# Off loopback, one client address holds at most 16 connections: the others are refused,
# and a client of another address (127.0.0.2; 0.0.0.0 listens on every address) gets in.
if start_server --request-timeout 600 --host 0.0.0.0; then
  python3 slow.py "$URL" per-client || fail "one client address took more than its share"
  stop_server
fi
# A short timeout: every slow client is cut once it has passed, not before.
if start_server --request-timeout 2; then
  python3 slow.py "$URL" timeout || fail "slow or idle clients were not cut at their timeout"
  stop_server
fi
for bad in 0 3601 x; do
  expect_exit 2 "--request-timeout $bad: expected seconds, 1-3600" -- \
    "$SGDSIM" serve a.db --request-timeout "$bad"
done
finish
