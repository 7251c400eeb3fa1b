#!/usr/bin/env bash
# `sgdsim serve`: bad input is exit 2 before anything listens; a warning for a non-loopback
# --host; the served routes, 404 for everything else, no write route, path traversal and
# oversized requests refused, a foreign Host header refused while the URL printed is
# accepted for any --host (another loopback address, a name, IPv6); the database never
# changes.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
small_scenario s.json
"$SGDSIM" run s.json --db a.db -q || fail "run"
cp a.db a.copy

expect_exit 2 "missing.db" -- "$SGDSIM" serve missing.db --port 0
expect_exit 2 "--port" -- "$SGDSIM" serve a.db --port 70000
expect_exit 2 "--host not a host!: expected an IPv4 or IPv6 address, or a host name" -- \
  "$SGDSIM" serve a.db --host 'not a host!'
expect_exit 2 "--host 300.1.2.3: expected" -- "$SGDSIM" serve a.db --host 300.1.2.3
expect_exit 2 "cannot listen on 192.0.2.1" -- "$SGDSIM" serve a.db --port 0 --host 192.0.2.1
expect_exit 2 "missing DB" -- "$SGDSIM" serve

# start_server ARGS...: starts serve in the background, waits (polling, 60 s at most) for
# its address line, sets URL and SERVER.
start_server() {
  # emptied here, before the background server's own redirection does it: the loop below
  # must not read the previous server's address line
  : > serve.out; : > serve.err
  "$SGDSIM" serve "$@" > serve.out 2> serve.err &
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

if start_server a.db --port 0; then
  case "$URL" in http://127.0.0.1:*/) ;; *) fail "not bound to 127.0.0.1: $URL" ;; esac
  python3 - "$URL" <<'PY' || fail "HTTP routes"
import http.client, json, socket, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
def req(method, path, headers=None, body=None):
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    c.putrequest(method, path, skip_host=bool(headers and 'Host' in headers))
    for k, v in (headers or {}).items(): c.putheader(k, v)
    if body is not None: c.putheader('Content-Length', str(len(body)))
    c.endheaders(body)
    r = c.getresponse()
    return r.status, dict(r.getheaders()), r.read()
def raw(line):  # a request line as sent, not normalised by a client library
    s = socket.create_connection((u.hostname, u.port), timeout=30)
    s.sendall(line.encode() + f'\r\nHost: 127.0.0.1:{u.port}\r\n\r\n'.encode())
    return int(s.recv(100).split()[1])
def big_body(n):  # the server answers 413 and may close before the body is all sent
    s = socket.create_connection((u.hostname, u.port), timeout=30)
    s.sendall(f'POST / HTTP/1.1\r\nHost: 127.0.0.1:{u.port}\r\nContent-Length: {n}\r\n\r\n'.encode())
    try:
        s.sendall(b'x' * n)
    except (BrokenPipeError, ConnectionResetError):
        pass
    return int(s.recv(100).split()[1])
fails = []
def want(what, got, expected):
    if got != expected: fails.append(f'{what}: {got}, wanted {expected}')
s, h, d = req('GET', '/')
want('GET /', s, 200)
want('CSP header', "default-src 'none'" in h.get('Content-Security-Policy', ''), True)
want('connect-src', "connect-src 'self'" in h.get('Content-Security-Policy', ''), True)
want('nosniff', h.get('X-Content-Type-Options'), 'nosniff')
s, h, d = req('GET', '/data.json')
want('GET /data.json', s, 200)
want('runs in data.json', len(json.loads(d)['runs']), 1)
for doc in ('/series.gz', '/exact.gz'):  # the runs' series: gzip-compressed packs
    s, h, d = req('GET', doc)
    want('GET ' + doc, (s, h.get('Content-Type'), d[:2]), (200, 'application/gzip', b'\x1f\x8b'))
for path in ('/nope', '/index.htm', '/data.json/x', '/exact.json', '/etc/passwd', '/a.db'):
    want('GET ' + path, req('GET', path)[0], 404)
for line in ('GET /../a.db HTTP/1.1', 'GET /x/../../a.db HTTP/1.1', 'GET /..%2fa.db HTTP/1.1',
             'GET /%2e%2e/a.db HTTP/1.1', 'GET /x\\..\\a.db HTTP/1.1'):
    want(line, raw(line) in (400, 404), True)
for method in ('POST', 'PUT', 'DELETE', 'PATCH'):
    want(method, req(method, '/data.json')[0] in (405, 413), True)
want('GET with a body', req('GET', '/data.json', None, b'x' * 10)[0], 413)
want('POST with a large body', big_body(1000000), 413)
want('long URL', req('GET', '/' + 'a' * 5000)[0] in (414, 431), True)
want('huge header', req('GET', '/', {'X-Big': 'a' * 40000})[0] in (413, 431), True)
want('foreign Host', req('GET', '/data.json', {'Host': 'attacker.example:80'})[0], 421)
for f in fails: print('FAIL:', f, file=sys.stderr)
sys.exit(1 if fails else 0)
PY
  stop_server
fi
cmp -s a.db a.copy || fail "serve changed its database"

# The URL serve prints is accepted, whatever the --host: another loopback address
# (127.0.0.2 was answered 421 "unknown Host"), a name, IPv6 in brackets (where this machine
# has ::1); localhost too; a foreign Host header, a wrong port or none (not port 80) is 421.
cat > hosts.py <<'PY'
import http.client, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
def status(host):
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    c.putrequest('GET', '/data.json', skip_host=True)
    c.putheader('Host', host)
    c.endheaders()
    return c.getresponse().status
fails = [f'Host {h}: {status(h)}, wanted {want}' for h, want in (
    (u.netloc, 200), (f'localhost:{u.port}', 200), (f'LocalHost.:{u.port}', 200),
    (f'attacker.example:{u.port}', 421), (f'{u.hostname}.attacker.example:{u.port}', 421),
    (u.netloc.rsplit(':', 1)[0], 421), (u.netloc.rsplit(':', 1)[0] + ':1', 421),
    (f'{u.netloc}:1', 421), ('[::1', 421), (f'::1:{u.port}', 421)) if status(h) != want]
for f in fails: print('FAIL:', f, file=sys.stderr)
sys.exit(1 if fails else 0)
PY
hosts=(127.0.0.2 localhost)
python3 -c "import socket; socket.socket(socket.AF_INET6).bind(('::1', 0))" 2>/dev/null &&
  hosts+=(::1 '[::1]')
for h in "${hosts[@]}"; do
  if start_server a.db --port 0 --host "$h"; then
    want=$h; case "$h" in *:*) want="[${h#[}"; want="${want%]}]" ;; esac
    case "$URL" in "http://$want:"*/) ;; *) fail "--host $h: serving $URL" ;; esac
    [ -s serve.err ] && fail "--host $h: a warning for a loopback address: $(cat serve.err)"
    python3 hosts.py "$URL" || fail "--host $h: the Host headers"
    stop_server
  fi
done

# A non-loopback address warns (0.0.0.0 binds every interface).
if start_server a.db --port 0 --host 0.0.0.0; then
  grep -q "not a loopback address" serve.err || fail "no warning for --host 0.0.0.0"
  stop_server
fi
finish
