#!/usr/bin/env bash
# web/pack.js itself, under Node.js, reads the pack test_web_pack writes (a series of
# extreme update indexes and virtual times) and gets every update and time that the C
# reading in test_web_pack gets, to the bit.  Without Node.js it skips, unless CI is set:
# then it fails.
set -u
PACK_TEST="$1"
PACK_JS="$(cd "$(dirname "$0")/../.." && pwd)/web/pack.js"
if ! command -v node > /dev/null; then
  [ -n "${CI:-}" ] && { echo "FAIL: CI is set but node is not installed" >&2; exit 1; }
  echo "node is not installed: skipping"
  exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$PACK_TEST" "$TMP/pack.gz" "$TMP/want.txt" || { echo "FAIL: test_web_pack" >&2; exit 1; }
node - "$PACK_JS" "$TMP/pack.gz" "$TMP/want.txt" <<'JS'
'use strict';
const fs = require('fs'), vm = require('vm');
const [packJs, packPath, wantPath] = process.argv.slice(2);
vm.runInThisContext(fs.readFileSync(packJs, 'utf8'), {filename: packJs});
const want = fs.readFileSync(wantPath, 'utf8').trim().split('\n')
  .map(l => l.split(' ').map(Number));
sgdsimPack.inflate(new Uint8Array(fs.readFileSync(packPath))).then(buf => {
  const s = sgdsimPack.unpack(buf).get('0:0');
  const fails = [];
  if (!s || s.u.length !== want.length) fails.push('series 0:0 of ' + want.length + ' points');
  else
    for (let i = 0; i < want.length; i++) {
      const [u, t] = want[i];
      if (!Object.is(s.u[i], u)) fails.push(`update[${i}]: ${s.u[i]}, wanted ${u}`);
      if (!Object.is(s.t[i], t)) fails.push(`time[${i}]: ${s.t[i]}, wanted ${t}`);
      if (s.v[i] !== i + 0.5) fails.push(`value[${i}]: ${s.v[i]}`);
    }
  for (const f of fails) console.error('FAIL: ' + f);
  if (!fails.length) console.log('all checks passed');
  process.exit(fails.length ? 1 : 0);
}, e => { console.error('FAIL: ' + e); process.exit(1); });
JS
