// rlm trace viewer. Everything shown comes from the JSON blocks of this page and is put in the
// document as text (textContent, attribute values of SVG shapes computed here): no markup is
// built from strings, no link is made, nothing is evaluated. The index is read at once; an iteration's block when it is shown.
// No string from the trace is ever a key of a plain object: every table the script looks one up
// in has no prototype (table()) and is read with own(), so a trace whose language, role, code or
// fence tag is "constructor", "__proto__" or "toString" finds nothing of Object.prototype.
(function () {
  'use strict';

  var TEXT_LINES = 40, TEXT_CHARS = 4000; // a longer text is shown cut, with a button for the rest
  var CODE_LINES = 400;

  function table() { return Object.create(null); }
  function own(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }

  var ix = JSON.parse(document.getElementById('rlm-index').textContent);
  var its = ix.iterations;
  var cache = table();
  var app = document.getElementById('app');
  var selected = 0, detailBox = null, rows = [];

  function detail(n) {
    if (!own(cache, n)) {
      var node = document.getElementById('rlm-it-' + n);
      cache[n] = node ? JSON.parse(node.textContent) : null;
    }
    return cache[n];
  }

  // ---- DOM helpers ----
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      if (arguments[i]) parent.appendChild(arguments[i]);
    }
    return parent;
  }
  function button(label, cls, onclick) {
    var b = el('button', cls, label);
    b.type = 'button';
    b.addEventListener('click', onclick);
    return b;
  }
  var SVG = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    return e;
  }

  // ---- formatting ----
  function num(n) { return (n || 0).toLocaleString('en-US'); }
  function tok(n) {
    n = n || 0;
    if (n >= 1e6) return (n / 1e6).toFixed(n >= 1e7 ? 0 : 1) + 'M';
    if (n >= 1e3) return (n / 1e3).toFixed(n >= 1e4 ? 0 : 1) + 'k';
    return String(n);
  }
  function secs(s) {
    if (s === null || s === undefined) return '—';
    if (s < 1) return Math.round(s * 1000) + ' ms';
    if (s < 60) return s.toFixed(s < 10 ? 2 : 1) + ' s';
    var m = Math.floor(s / 60);
    return m + ' min ' + Math.round(s - 60 * m) + ' s';
  }
  function cost(c) { return '$' + (c < 0.01 ? c.toFixed(4) : c.toFixed(2)); }
  function plural(n, word) { return num(n) + ' ' + word + (n === 1 ? '' : 's'); }
  function itTime(r) { return r.time !== null ? r.time : r.code_time; }
  function lineCount(s) {
    var n = 1;
    for (var i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
    return s.charAt(s.length - 1) === '\n' ? n - 1 : n;
  }

  // cut returns the head of s to show folded: at most TEXT_LINES lines and TEXT_CHARS chars.
  function cut(s, lines, chars) {
    var end = Math.min(s.length, chars);
    var at = -1;
    for (var i = 0; i < lines; i++) {
      at = s.indexOf('\n', at + 1);
      if (at === -1 || at >= end) return s.length <= end ? null : s.slice(0, end);
    }
    return s.slice(0, Math.min(at, end));
  }

  // longText shows s in a <pre>, folded when long, with a button that shows the rest.
  function longText(s, cls, empty) {
    var box = el('div', 'text ' + (cls || ''));
    if (!s) {
      box.appendChild(el('div', 'empty', empty || '(empty)'));
      return box;
    }
    var pre = el('pre');
    var head = cut(s, TEXT_LINES, TEXT_CHARS);
    if (head === null) {
      pre.textContent = s;
      return add(box, pre);
    }
    pre.textContent = head;
    var more = button('Show all ' + plural(lineCount(s), 'line') + ' (' + num(s.length) + ' characters)', 'more', function () {
      pre.textContent = s;
      more.remove();
    });
    return add(box, pre, el('div', 'fade'), more);
  }

  // ---- syntax highlighting (Go, JavaScript, Python) ----
  var WORDS = {
    go: {
      k: 'break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var',
      t: 'bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any comparable',
      b: 'append cap clear close complex copy delete imag len make max min new panic print println real recover true false nil iota'
    },
    js: {
      k: 'async await break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof let new of return static super switch this throw try typeof var void while with yield',
      t: 'Array Object String Number Boolean Map Set WeakMap Promise RegExp Math JSON Date Error BigInt Symbol',
      b: 'true false null undefined NaN Infinity console parseInt parseFloat isNaN'
    },
    python: {
      k: 'and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case',
      t: 'int float str bool list dict set tuple bytes object type',
      b: 'True False None print len range enumerate zip map filter sorted sum min max abs open isinstance repr'
    }
  };
  var API = 'context peek search count chunk text length llm_query llm_query_batched rlm_query rlm_query_batched FINAL FINAL_VAR SHOW_VARS print read_file list_dir file_info grep write_file answer';
  var sets = table();
  function wordSet(s) {
    var o = table();
    s.split(' ').forEach(function (w) { o[w] = true; });
    return o;
  }
  Object.keys(WORDS).forEach(function (l) {
    sets[l] = { k: wordSet(WORDS[l].k), t: wordSet(WORDS[l].t), b: wordSet(WORDS[l].b + ' ' + API) };
  });
  var NAMES = table(); // a language's names, as a trace or a fence tag writes them
  [['go', 'go golang'], ['js', 'js javascript ts typescript'], ['python', 'py python']].forEach(function (p) {
    p[1].split(' ').forEach(function (name) { NAMES[name] = p[0]; });
  });
  // langName is the language that name stands for, else dflt.
  function langName(name, dflt) {
    name = String(name || '').toLowerCase();
    return own(NAMES, name) ? NAMES[name] : dflt;
  }
  var lang = langName(ix.meta.lang, 'python'); // the run's language; the reference's REPL is Python
  function langOf(tag) { return langName(tag, lang); }

  var RE = {
    space: /\s+/y,
    ident: /[A-Za-z_$][\w$]*/y,
    number: /(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?)[nij]?/y,
    lineComment: /\/\/[^\n]*/y,
    hashComment: /#[^\n]*/y,
    blockComment: /\/\*[\s\S]*?(?:\*\/|$)/y,
    regex: /\/(?![*/])(?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n[])+\/[a-z]*/y,
    triple: /(?:[rRbBuUfF]{0,2})("""|''')[\s\S]*?(?:\1|$)/y
  };
  function match(re, s, i) {
    re.lastIndex = i;
    var m = re.exec(s);
    return m ? m[0] : null;
  }
  // quoted returns the end of a string literal opened by q at i (escapes honoured; a string
  // other than a template or raw string stops at the end of the line).
  function quoted(s, i, q, multiline, escapes) {
    var j = i + 1;
    while (j < s.length) {
      var c = s.charAt(j);
      if (escapes && c === '\\') { j += 2; continue; }
      if (c === q) return j + 1;
      if (c === '\n' && !multiline) return j;
      j++;
    }
    return s.length;
  }

  // tokens splits code into [class, text] pairs; class '' is plain text.
  function tokens(code, l) {
    var out = [], i = 0, n = code.length, prev = '', w = sets[l];
    function push(cls, t) {
      out.push([cls, t]);
      i += t.length;
      if (!/^\s+$/.test(t)) prev = cls === '' ? t.charAt(t.length - 1) : cls;
    }
    while (i < n) {
      var c = code.charAt(i), t;
      if ((t = match(RE.space, code, i))) { out.push(['', t]); i += t.length; continue; }
      if (l === 'python') {
        if (c === '#') { push('c', match(RE.hashComment, code, i)); continue; }
        if ((t = match(RE.triple, code, i))) { push('s', t); continue; }
      } else if (c === '/') {
        if ((t = match(RE.lineComment, code, i)) || (t = match(RE.blockComment, code, i))) { push('c', t); continue; }
        if (l === 'js' && (prev === '' || /^[(,=:[!&|?{};+\-*%<>~^]$/.test(prev) || prev === 'k') && (t = match(RE.regex, code, i))) {
          push('r', t);
          continue;
        }
      }
      if (c === '"' || c === "'" || c === '`') {
        var raw = c === '`', end = quoted(code, i, c, raw, !(raw && l === 'go'));
        push('s', code.slice(i, end));
        continue;
      }
      if (/\d/.test(c) || (c === '.' && /\d/.test(code.charAt(i + 1)))) {
        if ((t = match(RE.number, code, i))) { push('n', t); continue; }
      }
      if ((t = match(RE.ident, code, i))) {
        var cls = '';
        if (own(w.k, t)) cls = 'k';
        else if (own(w.b, t)) cls = 'b';
        else if (own(w.t, t)) cls = 't';
        else if (code.charAt(i + t.length) === '(') cls = 'f';
        push(cls, t);
        continue;
      }
      push('', c);
    }
    return out;
  }

  function highlight(code, l) {
    var frag = document.createDocumentFragment(), plain = '';
    tokens(code, l).forEach(function (tk) {
      if (tk[0] === '') { plain += tk[1]; return; }
      if (plain) { frag.appendChild(document.createTextNode(plain)); plain = ''; }
      frag.appendChild(el('span', 'tok-' + tk[0], tk[1]));
    });
    if (plain) frag.appendChild(document.createTextNode(plain));
    return frag;
  }

  // codeView shows code with line numbers, highlighted; very long code is folded.
  function codeView(code, l) {
    var box = el('div', 'code');
    var gutter = el('pre', 'gutter'), body = el('pre', 'src');
    function show(s) {
      var n = lineCount(s), nums = [];
      for (var i = 1; i <= n; i++) nums.push(i);
      gutter.textContent = nums.join('\n');
      body.textContent = '';
      body.appendChild(highlight(s, l));
    }
    var head = cut(code, CODE_LINES, 40000);
    show(head === null ? code : head);
    add(box, add(el('div', 'code-scroll'), gutter, body));
    if (head !== null) {
      var more = button('Show all ' + plural(lineCount(code), 'line'), 'more', function () { show(code); more.remove(); });
      box.appendChild(more);
    }
    return box;
  }

  // prose shows a model response: text, with fenced code highlighted, or named when it is the
  // code of one of the iteration's blocks (shown in full below).
  function prose(s, blocks) {
    var box = el('div', 'prose');
    var re = /```([\w+-]*)[^\n]*\n([\s\S]*?)(?:```|$)/g, last = 0, m;
    var codes = (blocks || []).map(function (b) { return b.code.trim(); });
    while ((m = re.exec(s)) !== null) {
      if (m.index > last) box.appendChild(longText(s.slice(last, m.index), 'words'));
      var at = codes.indexOf(m[2].trim());
      if (at !== -1) {
        box.appendChild(el('div', 'code-ref', (codes.length > 1 ? 'Code block ' + (at + 1) : 'The code') + ' (' + plural(lineCount(m[2].replace(/\n$/, '')), 'line') + '), run below'));
      } else {
        box.appendChild(codeView(m[2].replace(/\n$/, ''), langOf(m[1])));
      }
      last = re.lastIndex;
      if (m[0].length === 0) re.lastIndex++;
    }
    if (last < s.length && s.slice(last).trim()) box.appendChild(longText(s.slice(last), 'words'));
    if (!s) box.appendChild(el('div', 'empty', '(empty response)'));
    return box;
  }

  function section(title, cls, count) {
    var s = el('section', 'part ' + (cls || ''));
    var h = el('h4', null, title);
    if (count !== undefined) h.appendChild(el('span', 'count', count));
    s.appendChild(h);
    return s;
  }
  function tag(text, cls) { return el('span', 'tag ' + (cls || ''), text); }

  // ---- header, answer, usage ----
  function header() {
    var h = el('header', 'top');
    var bar = add(el('div', 'bar'), el('span', 'brand', 'rlm trace'), el('span', 'file', ix.name || ''));
    var o = ix.outcome;
    var status = o ? o.status : (ix.final !== null ? 'ANSWER RECORDED' : 'UNFINISHED');
    bar.appendChild(tag(status, o && o.status === 'ANSWERED' ? 'ok' : (o ? 'bad' : 'warn')));
    h.appendChild(bar);
    h.appendChild(el('h1', 'question', ix.question || '(no question recorded)'));
    var facts = el('div', 'facts');
    var tk = totals();
    [
      ['model', ix.meta.root_model || '—'],
      ['language', ix.meta.lang || '—'],
      ['iterations', num(its.length) + (ix.meta.max_iterations ? ' / ' + num(ix.meta.max_iterations) : '')],
      ['sub-calls', num(tk.calls) + (tk.callErrors ? ' (' + num(tk.callErrors) + ' failed)' : '')],
      ['tokens', num(tk.tokens) + (o && o.tokens > tk.tokens ? ' (task: ' + num(o.tokens) + ')' : '')],
      ['wall time', secs(o && o.wall ? o.wall : tk.time)],
      ['cost', o && o.cost ? o.cost : (ix.has_cost ? cost(tk.cost) + ' (calls that record one)' : 'not recorded')],
      ['task', ix.meta.task_id || '—'],
      ['started', ix.meta.started ? ix.meta.started.replace('T', ' ').slice(0, 19) : '—']
    ].forEach(function (f) {
      add(facts, add(el('div', 'fact'), el('span', 'k', f[0]), el('span', 'v', f[1])));
    });
    h.appendChild(facts);
    return h;
  }

  function totals() {
    var t = { calls: 0, callErrors: 0, tokens: 0, time: 0, cost: 0 };
    its.forEach(function (r) {
      t.calls += r.calls; t.callErrors += r.call_errors;
      t.tokens += r.pt + r.ct + r.spt + r.sct; t.time += itTime(r) || 0; t.cost += r.cost || 0;
    });
    if (ix.outcome && ix.outcome.prompt_tokens + ix.outcome.completion_tokens > 0) {
      t.tokens = ix.outcome.prompt_tokens + ix.outcome.completion_tokens;
    }
    return t;
  }

  function answer() {
    var o = ix.outcome, box;
    if (ix.final !== null) {
      box = el('section', 'card answer');
      var from = ix.final_from ? 'recorded in iteration ' + ix.final_from : 'the run\u2019s answer';
      add(box, add(el('h3', null, 'Final answer'), el('span', 'sub', from)));
      box.appendChild(longText(ix.final, 'answer-text', '(empty answer)'));
    }
    if (o && (o.err_kind || o.err_msg)) {
      var err = el('section', 'card failure');
      add(err, el('h3', null, 'The run failed' + (o.err_kind ? ' (' + o.err_kind + ')' : '')));
      err.appendChild(longText(o.err_msg, 'error-text'));
      return add(document.createDocumentFragment(), box, err);
    }
    if (!box) {
      box = el('section', 'card pending');
      add(box, el('h3', null, 'No answer recorded'),
        el('p', 'sub', o ? 'The run ended without an answer.' : 'The trace has no outcome: the run may still be going, or it stopped before writing one.'));
    }
    return box;
  }

  // usage draws tokens (cumulative) and time per iteration; cost when the trace has any.
  function usage() {
    var box = el('section', 'card usage');
    box.appendChild(el('h3', null, 'Usage over the iterations'));
    if (!its.length) {
      box.appendChild(el('p', 'sub', 'No iterations.'));
      return box;
    }
    var root = [], sub = [], all = [], costs = [], r0 = 0, s0 = 0, c0 = 0, tmax = 0;
    its.forEach(function (r) {
      r0 += r.pt + r.ct; s0 += r.spt + r.sct; c0 += r.cost || 0;
      root.push(r0); sub.push(s0); all.push(r0 + s0); costs.push(c0);
      tmax = Math.max(tmax, itTime(r) || 0);
    });
    var charts = el('div', 'charts');
    var series = [[all, 'total', 'all tokens'], [root, 'root', 'root model'], [sub, 'sub', 'sub-calls']];
    charts.appendChild(lineChart('Tokens, cumulative', series, all[all.length - 1], tok));
    if (ix.has_cost) {
      charts.appendChild(lineChart('Cost, cumulative', [[costs, 'cost', 'cost']], c0, cost));
    }
    charts.appendChild(barChart('Time per iteration', tmax));
    box.appendChild(charts);
    var legend = el('div', 'legend');
    series.forEach(function (s) { add(legend, add(el('span', 'key ' + s[1]), el('i'), document.createTextNode(s[2]))); });
    add(legend, add(el('span', 'key time'), el('i'), document.createTextNode('model call and code')));
    legend.appendChild(el('span', 'note', ix.has_cost ? 'Cost as the trace records it.' : 'Cost: not recorded in this trace; tokens are shown.'));
    box.appendChild(legend);
    return box;
  }

  var CW = 420, CH = 150, PAD = { l: 44, r: 10, t: 12, b: 22 };
  function frame(title, max, fmt) {
    var fig = el('figure', 'chart');
    fig.appendChild(el('figcaption', null, title));
    var s = svg('svg', { viewBox: '0 0 ' + CW + ' ' + CH, role: 'img' });
    var t = svg('title', {});
    t.textContent = title;
    s.appendChild(t);
    for (var g = 0; g <= 2; g++) {
      var y = PAD.t + (CH - PAD.t - PAD.b) * g / 2;
      s.appendChild(svg('line', { x1: PAD.l, x2: CW - PAD.r, y1: y, y2: y, 'class': 'grid' }));
      var lab = svg('text', { x: PAD.l - 6, y: y + 4, 'class': 'axis', 'text-anchor': 'end' });
      lab.textContent = fmt(max * (2 - g) / 2);
      s.appendChild(lab);
    }
    var x0 = svg('text', { x: PAD.l, y: CH - 6, 'class': 'axis' });
    x0.textContent = '#1';
    var x1 = svg('text', { x: CW - PAD.r, y: CH - 6, 'class': 'axis', 'text-anchor': 'end' });
    x1.textContent = '#' + its.length;
    add(s, x0, x1);
    fig.appendChild(s);
    return { fig: fig, svg: s };
  }
  function xAt(i) {
    var w = CW - PAD.l - PAD.r;
    return its.length === 1 ? PAD.l + w / 2 : PAD.l + w * i / (its.length - 1);
  }
  function yAt(v, max) { return CH - PAD.b - (CH - PAD.t - PAD.b) * (max > 0 ? v / max : 0); }
  function lineChart(title, series, max, fmt) {
    var f = frame(title, max, fmt);
    series.forEach(function (s) {
      var pts = s[0].map(function (v, i) { return xAt(i).toFixed(1) + ',' + yAt(v, max).toFixed(1); });
      if (pts.length === 1) pts.push(pts[0]);
      f.svg.appendChild(svg('polyline', { points: pts.join(' '), 'class': 'series ' + s[1] }));
    });
    // One invisible target per iteration: a tooltip and a click to open it.
    var step = its.length > 1 ? (CW - PAD.l - PAD.r) / (its.length - 1) : CW - PAD.l - PAD.r;
    its.forEach(function (r, i) {
      var hit = svg('rect', { x: xAt(i) - step / 2, y: PAD.t, width: Math.max(step, 1), height: CH - PAD.t - PAD.b, 'class': 'hit' });
      var tt = svg('title', {});
      tt.textContent = 'Iteration ' + r.n + ': ' + series.map(function (s) { return s[2] + ' ' + fmt(s[0][i]); }).join(', ');
      hit.appendChild(tt);
      hit.addEventListener('click', function () { select(r.n, true); });
      f.svg.appendChild(hit);
    });
    return f.fig;
  }
  function barChart(title, max) {
    var f = frame(title, max, function (v) { return secs(v); });
    var w = (CW - PAD.l - PAD.r) / its.length;
    its.forEach(function (r, i) {
      var v = itTime(r) || 0, y = yAt(v, max);
      var bar = svg('rect', { x: PAD.l + w * i + w * 0.1, y: y, width: Math.max(w * 0.8, 0.5), height: CH - PAD.b - y, 'class': 'bar' + (r.errors ? ' err' : '') });
      var tt = svg('title', {});
      tt.textContent = 'Iteration ' + r.n + ': ' + secs(itTime(r)) + (r.time === null ? ' (code only)' : '');
      bar.appendChild(tt);
      bar.addEventListener('click', function () { select(r.n, true); });
      f.svg.appendChild(bar);
    });
    return f.fig;
  }

  // ---- timeline ----
  function timeline() {
    var nav = el('nav', 'timeline');
    var head = add(el('div', 'tl-head'), el('span', null, plural(its.length, 'iteration')));
    head.appendChild(button('Show all', 'link', function () { renderAll(false); }));
    nav.appendChild(head);
    var list = el('div', 'tl-list');
    its.forEach(function (r) {
      var b = el('button', 'row' + (r.errors ? ' err' : '') + (r.final ? ' final' : ''));
      b.type = 'button';
      b.setAttribute('data-n', r.n);
      var top = add(el('div', 'row-top'), el('span', 'num', '#' + r.n), el('span', 'lead', r.lead || '(no text)'));
      var bits = [plural(r.blocks, 'block')];
      if (r.calls) bits.push(plural(r.calls, 'sub-call'));
      bits.push(secs(itTime(r)));
      var toks = r.pt + r.ct + r.spt + r.sct;
      if (toks) bits.push(tok(toks) + ' tok');
      var bottom = add(el('div', 'row-meta'), el('span', null, bits.join(' · ')));
      if (r.errors) bottom.appendChild(tag(r.errors === 1 ? 'error' : r.errors + ' errors', 'bad'));
      if (r.forced) bottom.appendChild(tag('forced', 'warn'));
      if (r.final) bottom.appendChild(tag('FINAL', 'ok'));
      add(b, top, bottom);
      b.addEventListener('click', function () { select(r.n, true); });
      rows.push(b);
      list.appendChild(b);
    });
    nav.appendChild(list);
    return nav;
  }

  // ---- one iteration ----
  // message finds a prompt message by id: it is kept by the iteration whose prompt brought it.
  function message(id) {
    var lo = 0, hi = its.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (its[mid].m0 <= id) lo = mid; else hi = mid - 1;
    }
    var d = detail(lo + 1);
    return (d && d.msgs[id - its[lo].m0]) || { role: '?', content: '(missing)' };
  }

  function messageView(m, old) {
    var box = el('div', 'msg ' + (m.role === 'user' || m.role === 'assistant' || m.role === 'system' ? m.role : 'other') + (old ? ' old' : ''));
    box.appendChild(el('div', 'role', (m.role || '(no role)') + (old ? ' · as in an earlier prompt' : '')));
    box.appendChild(longText(m.content, 'words'));
    return box;
  }

  function promptView(n, r, d) {
    var fresh = d.msgs.length;
    var det = el('details', 'part prompt');
    var sum = el('summary', null, 'Prompt');
    sum.appendChild(el('span', 'count', plural(r.plen, 'message') + (fresh < r.plen ? ', ' + num(fresh) + ' not in an earlier prompt' : '')));
    det.appendChild(sum);
    var filled = false;
    det.addEventListener('toggle', function () {
      if (!det.open || filled) return;
      filled = true;
      d.msgs.forEach(function (m) { det.appendChild(messageView(m, false)); });
      if (fresh < r.plen) {
        var b = button('Show the whole prompt, in order (' + plural(r.plen, 'message') + ')', 'more', function () {
          while (b.nextSibling) b.nextSibling.remove();
          d.prompt.forEach(function (run) {
            for (var id = run[0]; id < run[0] + run[1]; id++) det.appendChild(messageView(message(id), id < r.m0));
          });
          b.remove();
        });
        det.insertBefore(b, sum.nextSibling);
      }
    });
    return det;
  }

  function blockView(b, i, count) {
    var failed = !!(b.err_kind || b.err_msg);
    var box = el('div', 'block' + (failed ? ' failed' : ''));
    var head = add(el('div', 'block-head'), el('span', 'title', count > 1 ? 'Block ' + (i + 1) + ' of ' + count : 'Code'),
      el('span', 'time', secs(b.time)));
    if (failed) head.appendChild(tag(b.err_kind || 'error', 'bad'));
    if (b.final !== null) head.appendChild(tag('FINAL', 'ok'));
    box.appendChild(head);
    box.appendChild(codeView(b.code, langOf('')));
    var out = section('Output', 'stdout');
    out.appendChild(longText(b.stdout, 'out', '(nothing printed)'));
    box.appendChild(out);
    if (b.stderr) {
      var se = section('stderr', 'stderr');
      se.appendChild(longText(b.stderr, 'out'));
      box.appendChild(se);
    }
    if (failed) {
      var er = section('Error' + (b.err_kind ? ': ' + b.err_kind : ''), 'error');
      er.appendChild(longText(b.err_msg, 'out'));
      box.appendChild(er);
    }
    if (b.locals.length || b.locals_omitted) box.appendChild(variables(b));
    if (b.calls.length) box.appendChild(subCalls(b.calls));
    if (b.final !== null) {
      var fa = section('FINAL', 'final');
      fa.appendChild(longText(b.final, 'out', '(empty)'));
      box.appendChild(fa);
    }
    return box;
  }

  function variables(b) {
    var s = section('Variables', 'vars', num(b.locals.length) + (b.locals_omitted ? ' (+' + num(b.locals_omitted) + ' not recorded)' : ''));
    var t = el('table', 'vars');
    var hr = el('tr');
    ['name', 'type', 'value'].forEach(function (h) { hr.appendChild(el('th', null, h)); });
    t.appendChild(add(el('thead'), hr));
    var body = el('tbody');
    b.locals.forEach(function (v) {
      var tr = el('tr');
      tr.appendChild(el('td', 'name', v[0]));
      tr.appendChild(el('td', 'type' + (v[1] ? '' : ' none'), v[1] || '—'));
      tr.appendChild(el('td', 'repr' + (v[2] ? '' : ' none'), v[2] || 'value not recorded'));
      body.appendChild(tr);
    });
    t.appendChild(body);
    s.appendChild(t);
    return s;
  }

  function subCalls(calls) {
    var s = section('Sub-calls', 'calls', num(calls.length));
    calls.forEach(function (c, i) {
      var det = el('details', 'call' + (c.error ? ' failed' : ''));
      var sum = el('summary');
      add(sum, el('span', 'num', '#' + (i + 1)), el('span', 'model', c.model || 'model'),
        el('span', 'meta', secs(c.time) + ' · ' + num(c.pt) + ' → ' + num(c.ct) + ' tokens' + (c.cost !== null ? ' · ' + cost(c.cost) : '')));
      if (c.error) sum.appendChild(tag('failed', 'bad'));
      sum.appendChild(el('span', 'peek', (c.error || c.response || '').slice(0, 140)));
      det.appendChild(sum);
      var filled = false;
      det.addEventListener('toggle', function () {
        if (!det.open || filled) return;
        filled = true;
        var p = section('Prompt', 'sub-prompt');
        p.appendChild(longText(c.prompt, 'words'));
        var a = section(c.error ? 'Error' : 'Answer', c.error ? 'error' : 'sub-answer');
        a.appendChild(longText(c.error || c.response, 'words', '(empty)'));
        add(det, p, a);
      });
      s.appendChild(det);
      if (calls.length <= 2) det.open = true; // filled by its toggle event
    });
    return s;
  }

  function iterationView(n) {
    var r = its[n - 1], d = detail(n);
    var art = el('article', 'iteration');
    art.id = 'iteration-' + n;
    var h = add(el('h2'), document.createTextNode('Iteration ' + n), el('span', 'of', ' of ' + its.length));
    if (r.forced) h.appendChild(tag('forced final answer: the iteration cap was reached', 'warn'));
    art.appendChild(h);
    var facts = [secs(itTime(r)) + (r.time === null ? ' (code only)' : ''), 'code ' + secs(r.code_time)];
    if (r.pt || r.ct) facts.push('root call ' + num(r.pt) + ' → ' + num(r.ct) + ' tokens');
    if (r.calls) facts.push(plural(r.calls, 'sub-call') + ', ' + num(r.spt) + ' → ' + num(r.sct) + ' tokens');
    if (r.cost !== null) facts.push(cost(r.cost));
    if (r.ts) facts.push(r.ts.replace('T', ' ').slice(0, 19));
    art.appendChild(el('div', 'it-facts', facts.join(' · ')));
    if (!d) {
      art.appendChild(el('p', 'empty', 'This iteration\u2019s record is missing from the page.'));
      return art;
    }
    art.appendChild(promptView(n, r, d));
    var resp = section('Response', 'response');
    resp.appendChild(prose(d.response, d.blocks));
    art.appendChild(resp);
    d.blocks.forEach(function (b, i) { art.appendChild(blockView(b, i, d.blocks.length)); });
    if (!d.blocks.length) art.appendChild(el('p', 'empty', 'No code ran in this iteration.'));
    if (d.final !== null) {
      var fa = section('Final answer of this iteration', 'final');
      fa.appendChild(longText(d.final, 'out', '(empty)'));
      art.appendChild(fa);
    }
    return art;
  }

  function select(n, scroll) {
    if (n < 1 || n > its.length) return;
    selected = n;
    rows.forEach(function (b, i) { b.classList.toggle('sel', i + 1 === n); });
    detailBox.textContent = '';
    detailBox.appendChild(iterationView(n));
    if (history.replaceState) history.replaceState(null, '', '#i' + n);
    var row = rows[n - 1], list = row.parentNode;
    if (row.offsetTop < list.scrollTop || row.offsetTop + row.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = row.offsetTop - list.offsetTop - list.clientHeight / 3; // the list only, never the page
    }
    if (scroll && detailBox.getBoundingClientRect().top < 0) detailBox.scrollIntoView({ block: 'start' });
  }

  // renderAll shows every iteration, one after another (in slices when not sync, so that a
  // long trace does not freeze the page).
  function renderAll(sync) {
    detailBox.textContent = '';
    rows.forEach(function (b) { b.classList.remove('sel'); });
    var n = 1;
    function step() {
      var stop = sync ? its.length : Math.min(its.length, n + 19);
      for (; n <= stop; n++) detailBox.appendChild(iterationView(n));
      if (n <= its.length) setTimeout(step, 0);
      else document.documentElement.setAttribute('data-all-rendered', String(its.length));
    }
    step();
  }

  // ---- page ----
  app.appendChild(header());
  if (ix.warnings.length) {
    var warn = el('section', 'card warnings');
    warn.appendChild(el('h3', null, 'Trace problems'));
    var ul = el('ul');
    ix.warnings.forEach(function (w) { ul.appendChild(el('li', null, w)); });
    warn.appendChild(ul);
    app.appendChild(warn);
  }
  app.appendChild(answer());
  app.appendChild(usage());
  var main = el('main', 'split');
  main.appendChild(timeline());
  detailBox = el('section', 'detail');
  detailBox.appendChild(el('p', 'empty', its.length ? 'Loading the iteration…' : 'The trace has no iterations.'));
  main.appendChild(detailBox);
  app.appendChild(main);
  document.documentElement.setAttribute('data-first-screen-ms', performance.now().toFixed(1));

  document.addEventListener('keydown', function (e) {
    if (e.target && /^(INPUT|TEXTAREA)$/.test(e.target.tagName)) return;
    if (e.key === 'j' || e.key === 'ArrowDown') { select(Math.min(selected + 1, its.length), true); e.preventDefault(); }
    if (e.key === 'k' || e.key === 'ArrowUp') { select(Math.max(selected - 1, 1), true); e.preventDefault(); }
  });

  function start() {
    var h = location.hash, m = /^#i(\d+)$/.exec(h);
    if (h === '#all') renderAll(true);
    else if (its.length) select(m ? Math.min(Math.max(+m[1], 1), its.length) : 1, false);
    document.documentElement.setAttribute('data-ready-ms', performance.now().toFixed(1));
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
