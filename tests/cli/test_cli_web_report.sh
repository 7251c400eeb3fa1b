#!/usr/bin/env bash
# `sgdsim report DB... --html FILE`: bad input is exit 2 with nothing written; the page is
# one file whose only scripts are the two its policy names by hash, whose data block holds
# every hostile name escaped (no "</script>", "<img", U+2028 or U+2029 in it), and which
# names the databases it was made from.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/web_hostile_db.sh"
cd "$TMP"
small_scenario s.json
for seed in 1 2; do "$SGDSIM" run s.json --db a.db --seed "$seed" -q || fail "run $seed"; done
cp a.db a.copy

# ---- bad input: exit 2, named, no file --------------------------------------------------
expect_exit 2 "missing.db" -- "$SGDSIM" report missing.db --html out.html
expect_exit 2 "several databases" -- "$SGDSIM" report a.db a.db
expect_exit 2 "--html" -- "$SGDSIM" report a.db --html out.html --json
expect_exit 2 "--html" -- "$SGDSIM" report a.db --html out.html --wide
expect_exit 2 "missing value" -- "$SGDSIM" report a.db --html
expect_exit 2 "refusing to overwrite" -- "$SGDSIM" report a.db --html a.db
expect_exit 2 "refusing to overwrite" -- "$SGDSIM" report a.db --html a.db-wal
echo "not sqlite" > junk.db
expect_exit 2 "junk.db" -- "$SGDSIM" report a.db junk.db --html out.html
SGDSIM_DYGRAPHS_DIR="$TMP/nowhere" expect_exit 2 "libjs-dygraphs" -- "$SGDSIM" report a.db --html out.html
expect_exit 2 "out-dir" -- "$SGDSIM" report a.db --html out-dir/x.html
[ -e out.html ] && fail "a refused report --html left out.html"
cmp -s a.db a.copy || fail "report --html changed its database"

# ---- one database ------------------------------------------------------------------------
"$SGDSIM" report a.db --html one.html || fail "report --html a.db"
grep -q "Content-Security-Policy" one.html || fail "no policy in the page"
grep -q "default-src 'none'\|default-src &#39;none&#39;" one.html || fail "policy not restrictive"
grep -q "connect-src &#39;none&#39;" one.html || fail "a file page may connect somewhere"
[ "$(grep -o '<script>' one.html | wc -l)" = 2 ] || fail "not exactly two executable scripts"
grep -qE '(src|href)="https?:' one.html && fail "the page names a network resource"
grep -q 'eval(' one.html && fail "the page calls eval"

# ---- hostile names ------------------------------------------------------------------------
hostile_db "$TMP/h.db" || fail "hostile database"
"$SGDSIM" report h.db --html h.html || fail "report --html h.db"
python3 - h.html <<'PY' || fail "hostile names escaped"
import re, sys
page = open(sys.argv[1], encoding='utf-8').read()
data = re.search(r'<script type="application/json" id="sgdsim-data">(.*?)</script>', page, re.S)
assert data, 'no data block ended by its own </script>'
text = data.group(1)
for bad in ('<', '>', '&', '\u2028', '\u2029'):
    assert bad not in text, f'{bad!r} raw in the data block'
import json
model = json.loads(text)
names = [r['scenario'] for r in model['runs']]
assert names[0] == '</script><img src=x onerror=alert(1)>line\u2028sep\u2029end', names
assert any('"q\' & <b>bold</b>' in m for m in model['metrics']), model['metrics']
assert page.count('<img') == 0, 'an <img in the page'
PY

# ---- two databases: compare's verdicts ----------------------------------------------------
for seed in 1 2; do "$SGDSIM" run s.json --db b.db --seed "$seed" -q || fail "run b $seed"; done
"$SGDSIM" report a.db b.db --html ab.html || fail "report --html a.db b.db"
python3 - ab.html <<'PY' || fail "verdicts in the page"
import json, re, sys
page = open(sys.argv[1], encoding='utf-8').read()
model = json.loads(re.search(r'id="sgdsim-data">(.*?)</script>', page, re.S).group(1))
v = model['verdicts']
assert v and v['rows'], 'no verdict rows'
assert all(r[4] == 'same' for r in v['rows'] if r[3] != 'status'), v['rows']
assert [d['role'] for d in model['dbs']] == ['baseline', 'candidate']
PY
finish
