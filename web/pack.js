/* sgdsim's results browser: the reader of the runs' series packs (web/pack.h), which the page
 * carries as base64 (report --html) or fetches (serve), gzip-compressed.  Compiled in before
 * web/app.js, in the page's one script of its own (web/CMakeLists.txt); it defines
 * sgdsimPack and nothing else.  No eval: bytes become numbers through typed arrays only. */
var sgdsimPack = (function () {
  'use strict';

  var LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

  // The bytes that base64 text stands for.
  function fromBase64(text) {
    var bin = atob(text.trim()), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  // A promise of the gzip-compressed bytes inflated, by the browser's own DecompressionStream.
  function inflate(bytes) {
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).arrayBuffer();
  }
  // Elements [first, first + n) of a section of count elements of w bytes stored byte plane
  // by byte plane from bytes[at], as numbers.
  function planes(bytes, at, count, w, first, n) {
    var out = new Uint8Array(n * w);
    for (var b = 0; b < w; b++) {
      var o = LITTLE_ENDIAN ? b : w - 1 - b, from = at + b * count + first;
      for (var i = 0; i < n; i++) out[i * w + o] = bytes[from + i];
    }
    return w === 8 ? new Float64Array(out.buffer) : new Float32Array(out.buffer);
  }
  // One series of a pack (where its points start in each section: p) as {n, dec, u, t (with
  // a clock), v, nf}, v null where nf says [index, "nan" | "inf" | "-inf"].
  function decodeSeries(bytes, sec, p) {
    var n = p.points, s = {n: p.rows, dec: n < p.rows, u: new Array(n), v: new Array(n), nf: []};
    var U = planes(bytes, sec.u.at, sec.u.count, 8, p.u, n), u = 0, i;
    var V = p.flags & 2 ? planes(bytes, sec.v4.at, sec.v4.count, 4, p.v, n)
                        : planes(bytes, sec.v8.at, sec.v8.count, 8, p.v, n);
    for (i = 0; i < n; i++) {
      s.u[i] = u += U[i];
      s.v[i] = isFinite(V[i]) ? V[i] : null;
      if (!isFinite(V[i])) s.nf.push([i, V[i] !== V[i] ? 'nan' : V[i] > 0 ? 'inf' : '-inf']);
    }
    if (p.flags & 1) {
      var T = planes(bytes, sec.t.at, sec.t.count, 8, p.t, n), t = 0;
      s.t = new Array(n);
      for (i = 0; i < n; i++) s.t[i] = (t += T[i]) * 1e-9;
    }
    return s;
  }
  // The series of a pack by "RUN:METRIC" (get), each decoded when first asked for: the runs
  // drawn are at most a hundred of them (app.js, RUNS_DRAWN_MAX).
  function unpack(buffer) {
    var bytes = new Uint8Array(buffer), fail = 'the runs\' series: a pack cut short or too long';
    if (bytes.length < 16 || String.fromCharCode.apply(null, bytes.subarray(0, 8)) !== 'sgdpack1')
      throw new Error('the runs\' series: not a series pack');
    var ns = planes(bytes, 8, 1, 8, 0, 1)[0];
    if (!(ns >= 0 && 16 + 40 * ns <= bytes.length)) throw new Error(fail);
    var head = planes(bytes, 16, 5 * ns, 8, 0, 5 * ns), where = new Map(), done = new Map();
    var sec = {u: {count: 0}, t: {count: 0}, v8: {count: 0}, v4: {count: 0}};
    for (var k = 0; k < ns; k++) {
      var h = head.subarray(5 * k, 5 * k + 5), v = h[4] & 2 ? sec.v4 : sec.v8;
      where.set(h[0] + ':' + h[1], {rows: h[2], points: h[3], flags: h[4], u: sec.u.count,
                                    t: sec.t.count, v: v.count});
      sec.u.count += h[3];
      if (h[4] & 1) sec.t.count += h[3];
      v.count += h[3];
    }
    sec.u.at = 16 + 40 * ns;
    sec.t.at = sec.u.at + 8 * sec.u.count;
    sec.v8.at = sec.t.at + 8 * sec.t.count;
    sec.v4.at = sec.v8.at + 8 * sec.v8.count;
    if (sec.v4.at + 4 * sec.v4.count !== bytes.length) throw new Error(fail);
    return {get: function (key) {
      if (!done.has(key) && where.has(key)) done.set(key, decodeSeries(bytes, sec, where.get(key)));
      return done.get(key);
    }};
  }

  return {fromBase64: fromBase64, inflate: inflate, unpack: unpack};
})();
