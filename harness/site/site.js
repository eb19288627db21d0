/* site.js — draws a page of headroom's results site from the data inlined in it
 * (<script id="hr-data">): sortable, filterable tables and Chart.js charts. Every chart
 * writes data-points (points drawn), data-rows (rows behind it) and data-series (the series
 * drawn, the roof line not counted) on its box once drawn,
 * and the page sets data-ready on <body>, so a test in a headless browser can check them.
 * Without Chart.js (window.Chart absent) the tables are drawn and each chart box says so. */
(function () {
  'use strict';
  var errors = [];
  function note(msg) {
    errors.push(String(msg));
    document.body.setAttribute('data-errors', String(errors.length));
    var pre = document.getElementById('hr-errors');
    if (pre) { pre.hidden = false; pre.textContent = errors.join('\n'); }
  }
  window.addEventListener('error', function (e) { note(e.message || e); });
  var cerr = console.error;
  console.error = function () { note(Array.prototype.join.call(arguments, ' ')); cerr.apply(console, arguments); };

  /* ---- theme: prefers-color-scheme, overridden by the toggle (kept where storage works) ---- */
  function stored() { try { return localStorage.getItem('hr-theme'); } catch (e) { return null; } }
  function dark() {
    var t = document.documentElement.getAttribute('data-theme');
    if (t) return t === 'dark';
    return window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
  }
  if (stored()) document.documentElement.setAttribute('data-theme', stored());

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function fmt(v, c) {
    if (v === null || v === undefined || v === '') return '';
    if (typeof v !== 'number') return String(v);
    var d = c.digits !== undefined ? c.digits : (Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
    return v.toFixed(d) + (c.unit || '');
  }

  /* ---- tables: click a heading to sort, type in the box to filter ---- */
  function table(parent, t) {
    var box = el('section', { 'class': 'tbl', id: 'tbl-' + t.id });
    if (t.title) box.appendChild(el('h2', null, t.title));
    if (t.note) box.appendChild(el('p', { 'class': 'note' }, t.note));
    var filt = el('input', { type: 'search', placeholder: 'filter rows', 'aria-label': 'filter ' + (t.title || 'rows') });
    var count = el('span', { 'class': 'count' });
    var bar = el('div', { 'class': 'bar' });
    bar.appendChild(filt); bar.appendChild(count); box.appendChild(bar);
    var wrap = el('div', { 'class': 'scroll' });
    var tb = el('table'), th = el('thead'), hr = el('tr'), body = el('tbody');
    var rows = t.rows.map(function (r, i) { return { r: r, i: i }; });
    var sortc = -1, dir = 1;
    t.cols.forEach(function (c, j) {
      var h = el('th', { scope: 'col', tabindex: '0', 'class': c.num ? 'num' : '' }, c.label);
      function go() {
        dir = sortc === j ? -dir : (c.num ? -1 : 1); sortc = j;
        rows.sort(function (a, b) {
          var x = a.r[c.key], y = b.r[c.key];
          if (x === y) return a.i - b.i;
          if (x === null || x === undefined) return 1;
          if (y === null || y === undefined) return -1;
          return (x < y ? -1 : 1) * dir;
        });
        Array.prototype.forEach.call(hr.children, function (x) { x.removeAttribute('aria-sort'); });
        h.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
        draw();
      }
      h.addEventListener('click', go);
      h.addEventListener('keydown', function (e) { if (e.key === 'Enter') go(); });
      hr.appendChild(h);
    });
    th.appendChild(hr); tb.appendChild(th); tb.appendChild(body); wrap.appendChild(tb); box.appendChild(wrap);
    function draw() {
      var q = filt.value.toLowerCase(), shown = 0;
      body.textContent = '';
      rows.forEach(function (x) {
        var r = x.r, tr = el('tr', { id: t.id + '-' + x.i });
        var text = '';
        t.cols.forEach(function (c) {
          var td = el('td', { 'class': (c.num ? 'num ' : '') + (r[c.key + '_class'] || '') });
          var s = fmt(r[c.key], c);
          if (c.link && r[c.link]) { var a = el('a', { href: r[c.link] }, s); td.appendChild(a); } else td.textContent = s;
          text += ' ' + s;
          tr.appendChild(td);
        });
        if (q && text.toLowerCase().indexOf(q) < 0) return;
        shown++;
        body.appendChild(tr);
      });
      count.textContent = shown + ' of ' + rows.length + ' rows';
    }
    filt.addEventListener('input', draw);
    draw();
    parent.appendChild(box);
    return { show: function (i) {
      filt.value = ''; draw();
      var tr = document.getElementById(t.id + '-' + i);
      if (!tr) return;
      Array.prototype.forEach.call(body.querySelectorAll('.hit'), function (x) { x.classList.remove('hit'); });
      tr.classList.add('hit');
      tr.scrollIntoView({ block: 'center' });
    } };
  }

  /* ---- charts: a scatter or line per spec {id, title, src, x, y, group, xlog, ylog, line, roof} ---- */
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];
  function usable(v, log) { return typeof v === 'number' && isFinite(v) && (!log || v > 0); }
  function chart(parent, c, data, tables) {
    var box = el('figure', { 'class': 'chart', id: 'chart-' + c.id });
    box.appendChild(el('figcaption', null, c.title));
    var src = data[c.src] || [];
    var idx = [];
    src.forEach(function (r, i) { if (usable(r[c.x], c.xlog) && usable(r[c.y], c.ylog)) idx.push(i); });
    box.setAttribute('data-rows', String(idx.length));
    parent.appendChild(box);
    if (!window.Chart) {
      box.appendChild(el('p', { 'class': 'note' }, 'chart not drawn: Chart.js was not found when the site was built (tables only)'));
      box.setAttribute('data-points', '0');
      return;
    }
    var holder = el('div', { 'class': 'canvas' }), cv = el('canvas', { role: 'img', 'aria-label': c.title });
    holder.appendChild(cv); box.appendChild(holder);
    var groups = {}, order = [];
    idx.forEach(function (i) {
      var g = c.group ? String(src[i][c.group]) : c.y;
      if (!groups[g]) { groups[g] = []; order.push(g); }
      groups[g].push({ x: src[i][c.x], y: src[i][c.y], i: i });
    });
    var sets = order.map(function (g, k) {
      var pts = groups[g];
      /* dodge: each series a little to the side of a whole x, so equal values of two series
       * (machines on one shape) do not hide each other */
      if (c.dodge && order.length > 1)
        pts.forEach(function (p) { p.x += (k - (order.length - 1) / 2) * 0.5 / order.length; });
      if (c.line) pts.sort(function (a, b) { return a.x - b.x; });
      return { label: g, data: pts, showLine: !!c.line, borderColor: palette[k % palette.length],
               backgroundColor: palette[k % palette.length],
               pointRadius: pts.map(function (p) { return src[p.i].flag ? 9 : c.line ? 3 : 4; }),
               pointStyle: pts.map(function (p) { return src[p.i].flag ? 'triangle' : 'circle'; }),
               pointBorderWidth: pts.map(function (p) { return src[p.i].flag ? 3 : 1; }) };
    });
    var npts = sets.length;
    if (c.roof && c.roof.length) {
      sets.push({ label: c.roof_label || 'roof', data: c.roof, showLine: true, pointRadius: 0, borderDash: [6, 4],
                  borderColor: dark() ? '#bbb' : '#555', backgroundColor: 'transparent', roof: true });
    }
    var grid = dark() ? 'rgba(255,255,255,0.15)' : 'rgba(0,0,0,0.1)', ink = dark() ? '#ddd' : '#222';
    function axis(log, title, whole) {
      var t = { color: ink };
      if (whole) t.stepSize = 1, t.precision = 0;
      return { type: log ? 'logarithmic' : 'linear', title: { display: true, text: title, color: ink },
               grid: { color: grid }, ticks: t };
    }
    var tip = function (ctx) {
      if (ctx.dataset.roof) return (c.roof_label || 'roof') + ': ' + fmt(ctx.parsed.y, {}) + (c.roof_unit || ' GFLOP/s');
      var r = src[ctx.raw.i], s = (c.tip || []).map(function (k) { return k[0] + ' ' + fmt(r[k[1]], { unit: k[2] || '' }); });
      return s.join(', ');
    };
    var ch = new window.Chart(cv.getContext('2d'), {
      type: 'scatter',
      data: { datasets: sets },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false, parsing: false, normalized: true,
        scales: { x: axis(c.xlog, c.xlabel || c.x, c.xint), y: axis(c.ylog, c.ylabel || c.y) },
        plugins: { legend: { labels: { color: ink, boxWidth: 14, boxHeight: 10 } }, tooltip: { callbacks: { label: tip } } },
        onClick: function (e, els) {
          if (!els.length || !c.table || !tables[c.table]) return;
          var d = sets[els[0].datasetIndex];
          if (d.roof) return;
          tables[c.table].show(d.data[els[0].index].i);
        }
      }
    });
    var drawn = 0;
    for (var k = 0; k < npts; k++) drawn += ch.getDatasetMeta(k).data.length;
    box.setAttribute('data-points', String(drawn));
    box.setAttribute('data-series', String(npts));
  }

  function main() {
    var node = document.getElementById('hr-data');
    var data = JSON.parse(node.textContent);
    var btn = document.getElementById('theme');
    if (btn) btn.addEventListener('click', function () {
      var t = dark() ? 'light' : 'dark';
      document.documentElement.setAttribute('data-theme', t);
      try { localStorage.setItem('hr-theme', t); } catch (e) { /* file:// without storage */ }
      draw(data);
    });
    draw(data);
  }

  /* Draws the page anew (once, and again after a theme change: the charts take its colours). */
  function draw(data) {
    var app = document.getElementById('app');
    app.textContent = '';
    (data.facts || []).forEach(function (f) {
      var p = el('p', { 'class': 'fact' });
      p.appendChild(el('b', null, f[0] + ': ')); p.appendChild(document.createTextNode(f[1]));
      app.appendChild(p);
    });
    (data.links || []).forEach(function (l) {
      var p = el('p', { 'class': 'links' }); p.appendChild(document.createTextNode(l[0] + ': '));
      l[1].forEach(function (x, i) { if (i) p.appendChild(document.createTextNode(' · ')); p.appendChild(el('a', { href: x[1] }, x[0])); });
      app.appendChild(p);
    });
    var tables = {}, charts = el('div', { 'class': 'charts' });
    if ((data.charts || []).length) app.appendChild(charts);
    (data.tables || []).forEach(function (t) { t.rows = data[t.src] || []; tables[t.id] = table(app, t); });
    (data.charts || []).forEach(function (c) {
      try { chart(charts, c, data, tables); } catch (e) { note('chart ' + c.id + ': ' + e.message); }
    });
    document.body.setAttribute('data-ready', '1');
    document.body.setAttribute('data-ready-ms', String(Math.round(performance.now())));
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', main); else main();
})();
