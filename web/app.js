/* sgdsim's results browser: draws the data model that sgdsim wrote into the page (report
 * --html) or serves at data.json (serve); see web/model_json.h for its fields.  It computes
 * nothing of its own beyond drawing: groups, bands, statistics and verdicts come from the
 * analysis layer.  Every string from a database reaches the DOM through textContent (never as
 * markup), and chart labels are internal ids ("s0", "s1") while the legend is ours, so no
 * name is ever parsed as markup.  No eval, no inline handlers: the Content-Security-Policy
 * forbids both. */
(function () {
  'use strict';

  var PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b',
                 '#e377c2', '#7f7f7f', '#bcbd22'];
  var DASHES = [null, [8, 4], [2, 3], [10, 3, 2, 3]];
  var RUNS_DRAWN_MAX = 100;
  var POLL_MS = 2000;

  var model = null, chart = null, charts = [];
  var state = {metric: null, x: 'update', view: 'groups', tableView: 'runs', filter: '',
               sort: null, sortDir: 1, run: null, hidden: {}, useExact: false};
  var api = {ready: false, errors: [], renders: 0};
  window.sgdsim = api;

  // Without dygraphs' legend plugin: it writes series labels as markup with style
  // attributes, which the policy refuses; the page's own legend (#hover) uses textContent.
  Dygraph.PLUGINS = Dygraph.PLUGINS.filter(function (p) { return p !== Dygraph.Plugins.Legend; });

  // ---- small DOM helpers ------------------------------------------------------------------

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function byId(id) { return document.getElementById(id); }

  function fmt(v) {
    if (v === null || v === undefined) return '';
    if (typeof v !== 'number') return String(v);
    if (Number.isInteger(v)) return String(v);
    var a = Math.abs(v);
    return (a !== 0 && (a < 1e-3 || a >= 1e6)) ? v.toExponential(4) : String(+v.toPrecision(6));
  }
  function meanSd(s) {
    if (!s || s.n === 0) return '';
    return s.n > 1 ? fmt(s.mean) + ' \u00b1 ' + fmt(s.sd) + ' (n=' + s.n + ')'
                   : fmt(s.mean) + ' (n=1)';
  }

  // ---- the model --------------------------------------------------------------------------

  function metricIndex(name) { return model.metrics.indexOf(name); }
  function runLabel(r) {
    return (model.dbs.length > 1 ? model.dbs[r.db].label + ' ' : '') + 'run ' + r.id +
           ' (seed ' + r.seed + ')';
  }
  // A group's colour: the model's (a baseline group and the candidate group paired with it
  // share one; the candidate is dashed, dbDash), else its own index.
  function groupColor(gi) {
    var g = gi >= 0 ? model.groups[gi] : null;
    var c = g && typeof g.color === 'number' ? g.color : (gi < 0 ? 0 : gi);
    return PALETTE[c % PALETTE.length];
  }
  function dbDash(db) { return DASHES[db % DASHES.length]; }
  function configOf(r, key) {
    for (var i = 0; i < r.config.length; i++) if (r.config[i][0] === key) return r.config[i][1];
    return null;
  }
  // A run's status; a running run's with how far it has come: the last update of its rows
  // in the database and the update it stops at (its stop.updates).
  function statusText(r) {
    if (r.status !== 'running') return r.status;
    var of = typeof r.stop_updates === 'number' ? ' of ' + r.stop_updates : '';
    return typeof r.last_update === 'number' ? 'running, update ' + r.last_update + of
                                             : 'running, no update recorded yet' + (of && ' (' + of.slice(1) + ')');
  }
  function tagText(r) {
    return r.tags.map(function (t) { return t[0] + '=' + t[1]; }).join(' ');
  }

  // The runs' series: two binary documents (web/pack.h, read by web/pack.js), gzip-compressed
  // (base64 in the page's data blocks, or fetched when served), inflated and read only when
  // the page first draws runs: "series", the decimated ones as drawn; "exact", every one
  // whole and exact.
  var docs = {series: null, exact: null, pending: {}};

  function loadDoc(name) {
    var mine = docs; // a new model (live) starts new documents; this one fills its own
    if (mine[name]) return Promise.resolve(mine[name]);
    if (!mine.pending[name]) {
      var bytes = model.live
        ? fetch(name + '.gz', {cache: 'no-store'}).then(function (r) {
            if (!r.ok) throw new Error(name + '.gz: HTTP ' + r.status);
            return r.arrayBuffer();
          })
        : Promise.resolve(sgdsimPack.fromBase64(byId('sgdsim-' + name).textContent));
      mine.pending[name] = bytes.then(sgdsimPack.inflate).then(sgdsimPack.unpack)
        .then(function (m) { return (mine[name] = m); });
    }
    return mine.pending[name];
  }
  function loadRunDocs() { return Promise.all([loadDoc('series'), loadDoc('exact')]); }
  // A run's series of metric mi: as drawn when decimated (unless exact values are asked
  // for), else exact.
  function runSeries(ri, mi) {
    var key = ri + ':' + mi, s = !state.useExact && docs.series ? docs.series.get(key) : null;
    return s || (docs.exact && docs.exact.get(key)) || null;
  }

  // ---- the runs table ---------------------------------------------------------------------

  // A filter term: key=value, key<number, key>number, or text found anywhere in the row.
  function parseFilter(text) {
    return text.split(/\s+/).filter(Boolean).map(function (t) {
      var m = /^([^=<>]+)(=|<|>)(.*)$/.exec(t);
      return m ? {key: m[1], op: m[2], value: m[3]} : {text: t.toLowerCase()};
    });
  }
  function runField(r, key) {
    var cols = {id: r.id, db: model.dbs[r.db].label, scenario: r.scenario, algorithm: r.algorithm,
                status: r.status, seed: r.seed, workers: r.workers, updates: r.updates,
                vtime_s: r.vtime_s};
    if (Object.prototype.hasOwnProperty.call(cols, key)) return cols[key];
    var mi = metricIndex(key.replace(/^final_/, ''));
    if (mi >= 0) return r.final[mi];
    for (var i = 0; i < r.tags.length; i++) if (r.tags[i][0] === key) return r.tags[i][1];
    return configOf(r, key);
  }
  function rowText(r) {
    var parts = [r.id, r.scenario, r.algorithm, r.status, r.seed, model.dbs[r.db].label,
                 tagText(r)];
    r.config.forEach(function (kv) { parts.push(kv[0] + '=' + kv[1]); });
    return parts.join(' ').toLowerCase();
  }
  function matches(r, terms) {
    return terms.every(function (t) {
      if (t.text) return rowText(r).indexOf(t.text) >= 0;
      var v = runField(r, t.key);
      if (v === null || v === undefined) return false;
      if (t.op === '=') return String(v) === t.value;
      var x = parseFloat(t.value);
      return t.op === '<' ? Number(v) < x : Number(v) > x;
    });
  }
  function visibleRuns() {
    var terms = parseFilter(state.filter), out = [];
    model.runs.forEach(function (r, i) { if (matches(r, terms)) out.push(i); });
    return out;
  }

  function runColumns() {
    var cols = [];
    if (model.dbs.length > 1) cols.push({name: 'db', get: function (r) { return model.dbs[r.db].label; }});
    ['id', 'scenario', 'algorithm', 'status', 'seed', 'workers', 'updates'].forEach(function (k) {
      cols.push({name: k, get: k === 'status' ? statusText : function (r) { return r[k]; }});
    });
    cols.push({name: 'vtime_s', get: function (r) { return r.clock ? r.vtime_s : 'no clock'; }});
    model.axes.forEach(function (k) {
      if (k !== 'algorithm.name' && k !== 'cluster.workers' && k !== 'seed')
        cols.push({name: k, get: function (r) { return configOf(r, k); }});
    });
    cols.push({name: 'tags', get: tagText});
    model.metrics.forEach(function (m, mi) {
      cols.push({name: 'final_' + m, get: function (r) { return r.final[mi]; }});
    });
    return cols;
  }

  function sortRows(rows, get) {
    if (!state.sort) return rows;
    return rows.slice().sort(function (a, b) {
      var x = get(a), y = get(b);
      if (x === y) return 0;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      var c = (typeof x === 'number' && typeof y === 'number') ? x - y
              : String(x).localeCompare(String(y));
      return c * state.sortDir;
    });
  }

  function headerRow(table, cols) {
    var tr = add(add(table, el('thead')), el('tr'));
    cols.forEach(function (c) {
      var th = add(tr, el('th', 'sortable', c.name + (state.sort === c.name ? (state.sortDir > 0 ? ' \u25b2' : ' \u25bc') : '')));
      th.addEventListener('click', function () {
        state.sortDir = state.sort === c.name ? -state.sortDir : 1;
        state.sort = c.name;
        renderTable();
      });
    });
  }

  function renderRunsTable(box) {
    var cols = runColumns(), table = add(box, el('table', 'data'));
    table.id = 'runs-table';
    headerRow(table, cols);
    var col = cols.filter(function (c) { return c.name === state.sort; })[0];
    var rows = sortRows(visibleRuns(), function (i) { return col ? col.get(model.runs[i]) : i; });
    var body = add(table, el('tbody'));
    rows.forEach(function (ri) {
      var r = model.runs[ri], tr = add(body, el('tr', 'run status-' + String(r.status).replace(/[^a-z]/g, '')));
      if (state.run === ri) tr.className += ' selected';
      tr.dataset.run = String(ri);
      cols.forEach(function (c) { add(tr, el('td', typeof c.get(r) === 'number' ? 'num' : '', fmt(c.get(r)))); });
      tr.addEventListener('click', function () { state.run = ri; renderTable(); renderRun(); });
    });
    return rows.length;
  }

  function renderGroupsTable(box) {
    var cols = [{name: 'configuration', get: function (g) { return g.label; }},
                {name: 'seeds', get: function (g) { return g.seedsText; }},
                {name: 'runs', get: function (g) { return g.runs.length; }}];
    model.metrics.forEach(function (m, mi) {
      cols.push({name: 'final_' + m + ' (mean \u00b1 sd)',
                 get: function (g) { return g.final[mi] ? g.final[mi].mean : null; },
                 show: function (g) { return meanSd(g.final[mi]); }});
    });
    var table = add(box, el('table', 'data'));
    table.id = 'groups-table';
    headerRow(table, cols);
    var col = cols.filter(function (c) { return c.name === state.sort; })[0];
    var idx = model.groups.map(function (g, i) { return i; });
    var body = add(table, el('tbody'));
    sortRows(idx, function (i) { return col ? col.get(model.groups[i]) : i; }).forEach(function (gi) {
      var g = model.groups[gi], tr = add(body, el('tr'));
      cols.forEach(function (c, k) {
        var td = add(tr, el('td', '', c.show ? c.show(g) : fmt(c.get(g))));
        if (k === 0) { var sw = el('span', 'swatch'); sw.style.background = groupColor(gi); td.insertBefore(sw, td.firstChild); }
      });
    });
    return idx.length;
  }

  function renderTable() {
    var box = byId('table-box');
    clear(box);
    var n = state.tableView === 'runs' ? renderRunsTable(box) : renderGroupsTable(box);
    byId('table-count').textContent = state.tableView === 'runs'
      ? n + ' of ' + model.runs.length + ' runs' : n + ' configurations \u00d7 seeds';
  }

  // ---- curves -----------------------------------------------------------------------------

  // The series to draw: {id, label, color, dash, xs, lo, mean, hi, dec, n}.
  function curveSeries(mi) {
    var out = [], useTime = state.x === 'time', skipped = 0;
    if (state.view === 'groups') {
      model.groups.forEach(function (g, gi) {
        var b = g.bands[mi];
        if (!b) return;
        if (useTime && !g.clock) { skipped++; return; }
        out.push({id: 's' + out.length, key: 'g' + gi, label: g.label + ' [' + g.seedsText + ']',
                  color: groupColor(gi), dash: dbDash(g.db), xs: useTime ? b.t : b.u,
                  mean: b.mean, lo: b.lo, hi: b.hi, dec: b.dec, n: b.n, shown: b.u.length});
      });
    } else {
      var rows = visibleRuns();
      rows.slice(0, RUNS_DRAWN_MAX).forEach(function (ri) {
        var r = model.runs[ri], s = runSeries(ri, mi);
        if (!s) return;
        if (useTime && !r.clock) { skipped++; return; }
        out.push({id: 's' + out.length, key: 'r' + ri, label: runLabel(r), color: groupColor(r.group),
                  dash: dbDash(r.db), xs: useTime ? s.t : s.u, mean: s.v, dec: s.dec && s.v.length < s.n,
                  n: s.n, shown: s.u.length});
      });
      if (rows.length > RUNS_DRAWN_MAX) skipped += rows.length - RUNS_DRAWN_MAX;
    }
    return {series: out, skipped: skipped};
  }

  // Rows for dygraphs: the union of every series' x, each cell [lo, mean, hi] or null.
  function chartRows(series, bars) {
    var at = new Map(), xs = [];
    series.forEach(function (s) { s.xs.forEach(function (x) { if (!at.has(x)) { at.set(x, 0); xs.push(x); } }); });
    xs.sort(function (a, b) { return a - b; });
    xs.forEach(function (x, i) { at.set(x, i); });
    var rows = xs.map(function (x) { var r = new Array(series.length + 1).fill(null); r[0] = x; return r; });
    series.forEach(function (s, k) {
      for (var i = 0; i < s.xs.length; i++) {
        var m = s.mean[i];
        rows[at.get(s.xs[i])][k + 1] = bars ? [s.lo ? s.lo[i] : m, m, s.hi ? s.hi[i] : m] : m;
      }
    });
    return rows;
  }

  function showLegend(series, x, points) {
    var box = byId('hover');
    clear(box);
    if (x === null) return;
    add(box, el('div', 'hover-x', (state.x === 'time' ? 'virtual time ' + fmt(x) + ' s' : 'update ' + x)));
    points.forEach(function (p) {
      var s = series[parseInt(p.name.slice(1), 10)];
      if (!s || p.yval === null || isNaN(p.yval)) return;
      var line = add(box, el('div', 'hover-line'));
      var sw = add(line, el('span', 'swatch'));
      sw.style.background = s.color;
      add(line, el('span', '', s.label + ': ' + fmt(p.yval)));
    });
  }

  function renderToggles(series) {
    var box = byId('toggles');
    clear(box);
    series.forEach(function (s, k) {
      var lab = add(box, el('label', 'toggle')), cb = add(lab, el('input'));
      cb.type = 'checkbox';
      cb.checked = !state.hidden[s.key];
      var sw = add(lab, el('span', 'swatch' + (s.dash ? ' dashed' : '')));
      sw.style.background = s.color;
      add(lab, el('span', '', s.label));
      cb.addEventListener('change', function () {
        state.hidden[s.key] = !cb.checked;
        if (chart) chart.setVisibility(k, cb.checked);
      });
    });
  }

  function renderNote(series, skipped) {
    var note = byId('curve-note');
    clear(note);
    var dec = series.filter(function (s) { return s.dec; });
    if (dec.length) {
      var total = 0, shown = 0;
      dec.forEach(function (s) { total += s.n; shown += s.shown; });
      add(note, el('span', 'decimated', dec.length + ' series decimated for drawing: ' + shown + ' of ' + total +
        ' points (the smallest and largest value of each of ' + model.columns +
        ' pixel columns, to 7 significant digits). '));
      if (state.view === 'runs' && !state.useExact) {
        var btn = add(note, el('button', '', 'Show exact values'));
        btn.id = 'show-exact';
        btn.addEventListener('click', function () { state.useExact = true; renderCurves(); });
      } else if (state.view === 'groups') {
        var b2 = add(note, el('button', '', 'Exact values: draw runs'));
        b2.addEventListener('click', function () { state.useExact = true; state.view = 'runs'; byId('view').value = 'runs'; renderCurves(); });
      }
    } else if (state.useExact && state.view === 'runs') {
      add(note, el('span', '', 'Exact values drawn. '));
    }
    if (skipped) add(note, el('span', '', ' ' + skipped + (state.x === 'time'
      ? ' series without a clock (uniform driver) are not drawn against virtual time.'
      : ' runs past the first ' + RUNS_DRAWN_MAX + ' of the table are not drawn; filter the table to choose.')));
  }

  // A band (customBars) as one polygon per stretch of points, upper edge forward and lower
  // edge back: dygraphs' own error plotter fills one quadrilateral per pair of points, and a
  // hundred configurations' thousand-point bands made that half of the page's opening
  // (docs/performance.md).  The same area, in the same colour and opacity.  As there, a
  // point a series lacks (null) is passed over and one without a value (NaN) ends a stretch.
  function bandPlotter(e) {
    var ctx = e.drawingContext, area = e.plotArea, run = [];
    function y(p, edge) { return area.h * (isNaN(edge) ? p.y : edge) + area.y; }
    function fill() {
      for (var i = 0; i < run.length; i++) ctx[i ? 'lineTo' : 'moveTo'](run[i].canvasx, y(run[i], run[i].y_top));
      for (i = run.length - 1; i >= 0; i--) ctx.lineTo(run[i].canvasx, y(run[i], run[i].y_bottom));
      if (run.length) ctx.closePath();
      run = [];
    }
    ctx.save();
    ctx.fillStyle = e.color;
    ctx.globalAlpha = e.dygraph.getNumericOption('fillAlpha', e.setName);
    ctx.beginPath();
    e.points.forEach(function (p) {
      if (p.yval === null) return;
      if (isNaN(p.y)) fill(); else run.push(p);
    });
    fill();
    ctx.fill();
    ctx.restore();
  }

  function renderCurves() {
    if (state.view === 'runs' && (!docs.series || !docs.exact)) {
      byId('chart').textContent = 'Reading the runs\' series\u2026';
      loadRunDocs().then(renderCurves, function (e) { byId('chart').textContent = String(e); });
      return;
    }
    var mi = metricIndex(state.metric), box = byId('chart');
    if (chart) { chart.destroy(); chart = null; }
    clear(box);
    byId('hover').textContent = '';
    if (mi < 0) { box.textContent = 'No metric rows yet.'; return; }
    var cs = curveSeries(mi), series = cs.series;
    renderToggles(series);
    renderNote(series, cs.skipped);
    if (!series.length) { add(box, el('p', 'empty', 'Nothing to draw for this metric and axis.')); return; }
    var bars = state.view === 'groups', opts = {
      labels: ['x'].concat(series.map(function (s) { return s.id; })),
      customBars: bars, connectSeparatedPoints: true, legend: 'never', drawPoints: false,
      strokeWidth: 1.5, fillAlpha: 0.18, colors: series.map(function (s) { return s.color; }),
      labelsKMB: false, animatedZooms: false,
      visibility: series.map(function (s) { return !state.hidden[s.key]; }),
      highlightCallback: function (e, x, points) { showLegend(series, x, points); },
      unhighlightCallback: function () { showLegend(series, null, []); },
      series: {}
    };
    if (bars) opts.plotter = [bandPlotter, Dygraph.Plotters.linePlotter];
    series.forEach(function (s) { if (s.dash) opts.series[s.id] = {strokePattern: s.dash}; });
    chart = new Dygraph(box, chartRows(series, bars), opts);
    byId('x-label').textContent = state.x === 'time' ? 'virtual time (s)' : 'update';
  }

  // ---- one run ----------------------------------------------------------------------------

  function kvTable(parent, title, rows, head) {
    add(parent, el('h3', '', title));
    if (!rows.length) { add(parent, el('p', 'empty', 'none')); return; }
    var t = add(parent, el('table', 'data kv'));
    if (head) { var hr = add(add(t, el('thead')), el('tr')); head.forEach(function (h) { add(hr, el('th', '', h)); }); }
    var body = add(t, el('tbody'));
    rows.forEach(function (row) {
      var tr = add(body, el('tr'));
      row.forEach(function (c) { add(tr, el('td', typeof c === 'number' ? 'num' : '', fmt(c))); });
    });
  }

  function histogram(parent, title, bins, what) {
    add(parent, el('h3', '', title));
    if (!bins.length) { add(parent, el('p', 'empty', 'no histogram (synchronous runs have none)')); return; }
    var box = add(parent, el('div', 'hist'));
    var rows = bins.map(function (b) { return [b[0], b[1]]; });
    charts.push(new Dygraph(box, rows, {labels: [what, 'count'], stepPlot: true, fillGraph: true,
      legend: 'never', colors: ['#1f77b4'], drawPoints: true, includeZero: true}));
  }

  function renderRun() {
    var box = byId('run');
    charts.forEach(function (c) { c.destroy(); });
    charts = [];
    clear(box);
    if (state.run === null || !model.runs[state.run]) {
      add(box, el('p', 'empty', 'Click a run in the table to see its parameters, command line, tags, histograms and traffic.'));
      return;
    }
    var r = model.runs[state.run];
    add(box, el('h2', '', runLabel(r) + ' \u2014 ' + (r.scenario || '')));
    var cols = add(box, el('div', 'columns'));
    var left = add(cols, el('div', 'col')), right = add(cols, el('div', 'col'));
    kvTable(left, 'Provenance', [['status', statusText(r)], ['status detail', r.text.status_detail],
      ['algorithm', r.algorithm], ['workers', r.workers], ['seed', r.seed], ['updates', r.updates],
      ['virtual time (s)', r.clock ? r.vtime_s : 'no clock (uniform driver)'], ['wall (s)', r.wall_s],
      ['started at', r.text.started_at], ['backend', r.backend], ['BLAS kernel', r.blas_core],
      ['run key', r.run_key], ['git revision', r.text.git_rev], ['host', r.text.host],
      ['digest', r.text.digest]].filter(function (kv) { return kv[1] !== null && kv[1] !== undefined; }));
    add(left, el('h3', '', 'Command line'));
    add(left, el('pre', 'cmd', r.text.command_line || '(not recorded)'));
    kvTable(left, 'Tags', r.tags);
    kvTable(left, 'Final metrics', model.metrics.map(function (m, mi) { return [m, r.final[mi]]; })
      .filter(function (kv) { return kv[1] !== null; }));
    kvTable(left, 'Traffic', r.traffic, ['kind', 'sent msgs', 'sent bytes', 'skipped msgs', 'skipped bytes']);
    kvTable(right, 'Parameters', r.config);
    histogram(right, 'Staleness (tau)', r.staleness, 'tau');
    histogram(right, 'Parameter version age', r.versionAge, 'age');
  }

  // ---- compare ----------------------------------------------------------------------------

  function renderVerdicts() {
    var sec = byId('compare');
    clear(sec);
    if (!model.verdicts) { sec.hidden = true; return; }
    sec.hidden = false;
    add(sec, el('h2', '', 'Compare: ' + model.dbs[1].label + ' (candidate) against ' + model.dbs[0].label + ' (baseline)'));
    add(sec, el('p', 'note', model.verdicts.rule + (model.verdicts.nnew ? '; ' + model.verdicts.nnew + ' configuration(s) only in the candidate' : '')));
    var t = add(sec, el('table', 'data'));
    t.id = 'verdict-table';
    var hr = add(add(t, el('thead')), el('tr'));
    ['scenario', 'configuration', 'seeds', 'metric', 'verdict', 'detail'].forEach(function (h) { add(hr, el('th', '', h)); });
    var body = add(t, el('tbody'));
    model.verdicts.rows.forEach(function (row) {
      var tr = add(body, el('tr', row[6] ? 'fails' : ''));
      row.slice(0, 6).forEach(function (c, k) {
        add(tr, el('td', k === 4 ? 'verdict v-' + String(c).replace(/[^a-z]/g, '') : '', c));
      });
    });
  }

  // ---- the page ---------------------------------------------------------------------------

  function renderHeader() {
    var h = byId('summary');
    clear(h);
    var running = model.runs.filter(function (r) { return r.status === 'running'; }).length;
    add(h, el('span', 'pill', model.runs.length + ' runs'));
    if (running) add(h, el('span', 'pill running', running + ' running'));
    add(h, el('span', 'pill', model.groups.length + ' configurations'));
    model.dbs.forEach(function (d) {
      add(h, el('span', 'pill db', (d.role ? d.role + ': ' : '') + d.path));
    });
    var live = byId('live');
    live.textContent = model.live ? 'live \u2014 updated ' + new Date().toLocaleTimeString()
                                  : 'snapshot written by ' + model.generator;
    live.className = model.live ? 'live on' : 'live';
  }

  function fillSelect(sel, options, value) {
    clear(sel);
    options.forEach(function (o) {
      var opt = add(sel, el('option', '', o[1]));
      opt.value = o[0];
      if (o[2]) opt.disabled = true;
    });
    sel.value = value;
  }

  function renderControls() {
    if (model.metrics.indexOf(state.metric) < 0)
      state.metric = model.metrics.indexOf('val_error') >= 0 ? 'val_error'
                   : model.metrics.indexOf('train_loss') >= 0 ? 'train_loss' : model.metrics[0] || null;
    fillSelect(byId('metric'), model.metrics.map(function (m) { return [m, m]; }), state.metric);
    var anyClock = model.runs.some(function (r) { return r.clock; });
    if (!anyClock) state.x = 'update';
    fillSelect(byId('xaxis'), [['update', 'update'], ['time', anyClock ? 'virtual time (s)' : 'virtual time (no run has a clock)', !anyClock]], state.x);
  }

  function renderAll() {
    renderHeader();
    renderControls();
    renderTable();
    renderCurves();
    renderVerdicts();
    renderRun();
    api.model = model;
    api.renders++;
    api.ready = true;
  }

  function wire() {
    byId('metric').addEventListener('change', function (e) { state.metric = e.target.value; renderCurves(); });
    byId('xaxis').addEventListener('change', function (e) { state.x = e.target.value; renderCurves(); });
    byId('view').addEventListener('change', function (e) { state.view = e.target.value; renderCurves(); });
    byId('filter').addEventListener('input', function (e) {
      state.filter = e.target.value;
      renderTable();
      if (state.view === 'runs') renderCurves();
    });
    byId('table-view').addEventListener('change', function (e) { state.tableView = e.target.value; state.sort = null; renderTable(); });
  }

  // Live: the served page asks for the model again every POLL_MS; a new one is drawn with
  // the reader's choices kept.
  var lastText = null;
  function poll() {
    fetch('data.json', {cache: 'no-store'}).then(function (r) {
      if (!r.ok) throw new Error('data.json: HTTP ' + r.status);
      return r.text();
    }).then(function (text) {
      var live = byId('live');
      live.className = 'live on';
      if (text === lastText) {
        live.textContent = 'live \u2014 checked ' + new Date().toLocaleTimeString();
        return;
      }
      lastText = text;
      var zoom = chart && chart.isZoomed('x') ? chart.xAxisRange() : null;
      model = JSON.parse(text);
      docs = {series: null, exact: null, pending: {}};
      renderAll();
      if (zoom && chart) chart.updateOptions({dateWindow: zoom});
    }).catch(function (e) {
      var live = byId('live');
      live.textContent = 'live \u2014 cannot reach the server (' + e.message + '); retrying';
      live.className = 'live off';
    }).then(function () { setTimeout(poll, POLL_MS); });
  }

  // Exact values of one run's series, for tests and for the console: a promise of
  // [update, value] rows (null when the run has no such metric).
  api.series = function (db, id, metric) {
    var ri = -1, mi = metricIndex(metric);
    model.runs.forEach(function (r, i) { if (r.db === db && r.id === id) ri = i; });
    return loadDoc('exact').then(function (exact) {
      var s = exact.get(ri + ':' + mi);
      return s ? s.u.map(function (u, i) { return [u, s.v[i]]; }) : null;
    });
  };
  api.tableRows = function () { return document.querySelectorAll('#runs-table tbody tr, #groups-table tbody tr').length; };
  // The series the chart draws now, {label, color, dashed}, and the verdict table's rows.
  api.curves = function () {
    return curveSeries(metricIndex(state.metric)).series.map(function (s) {
      return {label: s.label, color: s.color, dashed: !!s.dash};
    });
  };
  api.verdictRows = function () { return model.verdicts ? model.verdicts.rows : []; };

  function start() {
    wire();
    var data = byId('sgdsim-data').textContent;
    if (data.trim()) {
      model = JSON.parse(data);
      renderAll();
    }
    if (!model || model.live) poll();
  }
  start();
})();
