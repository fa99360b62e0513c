// The native stand-in of rlm's model API for JS cells under node (taskbench): length, peek,
// text, search, count, chunk, FINAL, print and console.log, and the handles context, ctx0,
// ctx1, …, written in plain JavaScript over each input read into memory, with rlm's semantics
// (tools/doc.go, engine/js/host.go): offsets and lengths count characters (code points, not
// UTF-16 units); a pattern is RE2 text ("(?m)^x") or a RegExp, whose i, m and s flags count;
// search's matches are those of Go's regexp.FindAllIndex over the whole input (an empty match
// right after a match is skipped), numbered from 0, in pages of 200 with their line, text and
// line_text cut at 500 characters; the same caps. The functions are configurable globals, so a
// cell may declare a top-level variable of the same name (let count = 0), as rlm allows.
//
// taskbench puts the cell after this file in one script. The inputs are the script's
// arguments, in --ctx order; the recorded answer is written at exit to the file
// $RLMBENCH_FINAL names.
(function () {
  "use strict";
  const fs = require("fs");
  const PEEK = 16000, RESULTS = 200, MATCH = 500, CHUNKS = 5000, TEXT = 32000000, BLOCK = 4096;
  const paths = process.argv.slice(2);
  const handles = new Map();
  const docs = new Map();

  function handle(name) {
    const h = { toString: () => "[context: the input, a handle]" };
    handles.set(h, name);
    return h;
  }

  function load(c) {
    let name = handles.has(c) ? handles.get(c) : typeof c === "string" ? c : undefined;
    if (name === "context") name = "ctx0";
    if (docs.has(name)) return docs.get(name);
    const i = /^ctx\d+$/.test(name || "") ? Number(name.slice(3)) : -1;
    if (i < 0 || i >= paths.length) throw new Error(`no context named ${String(name)}; the contexts are ctx0 … ctx${paths.length - 1}`);
    const d = { name, data: fs.readFileSync(paths[i], "utf8"), marks: null };
    d.wide = /[\uD800-\uDFFF]/.test(d.data); // some character takes two UTF-16 units
    d.length = d.wide ? indexChars(d) : d.data.length;
    docs.set(name, d);
    return d;
  }

  // indexChars marks the UTF-16 offset of every BLOCK-th character and returns the count.
  function indexChars(d) {
    const s = d.data;
    d.marks = [];
    let n = 0;
    for (let u = 0; u < s.length; n++) {
      if (n % BLOCK === 0) d.marks.push(u);
      const c = s.charCodeAt(u);
      u += c >= 0xd800 && c < 0xdc00 && u + 1 < s.length && (s.charCodeAt(u + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    }
    return n;
  }

  // unitAt is the UTF-16 offset of character k; charAt the character offset of unit u.
  function unitAt(d, k) {
    if (!d.wide) return k;
    if (k >= d.length) return d.data.length;
    let u = d.marks[Math.floor(k / BLOCK)];
    for (let n = k % BLOCK; n > 0; n--) u += width(d.data, u);
    return u;
  }

  function charAt(d, u) {
    if (!d.wide) return u;
    let lo = 0, hi = d.marks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (d.marks[mid] <= u) lo = mid; else hi = mid - 1;
    }
    return lo * BLOCK + chars(d.data, d.marks[lo], u);
  }

  function width(s, u) {
    const c = s.charCodeAt(u);
    return c >= 0xd800 && c < 0xdc00 && u + 1 < s.length && (s.charCodeAt(u + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }

  function chars(s, from, to) {
    let n = 0;
    for (let u = from; u < to; n++) u += width(s, u);
    return n;
  }

  // regex turns an RE2 pattern or a RegExp into a global JS RegExp.
  function regex(p) {
    if (p instanceof RegExp) {
      return new RegExp(p.source, "g" + [...p.flags].filter((f) => "imsu".includes(f)).join(""));
    }
    if (typeof p !== "string") throw new TypeError("regex must be a string or a RegExp");
    let src = p, flags = "g";
    for (let m; (m = /^\(\?([ims]+)\)/.exec(src)); src = src.slice(m[0].length)) flags += m[1];
    if (/\(\?[a-zA-Z-]+[:)]|\[\[:/.test(src)) throw new Error(`the stand-in cannot translate the RE2 pattern ${JSON.stringify(p)}`);
    src = src.replace(/\(\?P</g, "(?<").replace(/\\z/g, "(?![\\s\\S])").replace(/\\A/g, "(?<![\\s\\S])");
    return new RegExp(src, [...new Set(flags)].join(""));
  }

  // eachMatch calls f(start, end) for each match as Go's regexp.FindAllIndex reports them: after
  // an empty match the search moves on one character, and an empty match right after the
  // previous match is skipped.
  function eachMatch(s, re, f) {
    let prevEnd = -1;
    for (let pos = 0; pos <= s.length;) {
      re.lastIndex = pos;
      const m = re.exec(s);
      if (m === null) break;
      const start = m.index, end = start + m[0].length;
      let accept = true;
      if (end === pos) {
        accept = start !== prevEnd;
        pos += pos < s.length ? width(s, pos) : 1;
      } else {
        pos = end;
      }
      prevEnd = end;
      if (accept && f(start, end) === false) return;
    }
  }

  function clip(s, max) {
    let n = 0;
    for (let u = 0; u < s.length; n++) {
      if (n === max) return s.slice(0, u) + "…";
      u += width(s, u);
    }
    return s;
  }

  // lineText: the line that holds unit s, cut as rlm cuts it (see standin.go).
  function lineText(data, s, max) {
    let ls = data.lastIndexOf("\n", s - 1) + 1;
    if (s === 0) ls = 0;
    let le = data.indexOf("\n", s);
    if (le < 0) le = data.length;
    const clipStart = chars(data, ls, s) > Math.floor(max * 4 / 5);
    if (clipStart) {
      ls = s;
      for (let n = Math.floor(max / 5); n > 0 && ls > 0; n--) {
        ls -= ls >= 2 && (data.charCodeAt(ls - 1) & 0xfc00) === 0xdc00 && (data.charCodeAt(ls - 2) & 0xfc00) === 0xd800 ? 2 : 1;
      }
    }
    let text = clip(data.slice(ls, le), max);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    return clipStart ? "…" + text : text;
  }

  const ref = (d, start, end) => `${d.name}[${start}:${end}]`;

  const api = {
    length: (c) => load(c).length,
    peek(c, offset, n) {
      const d = load(c);
      if (n < 0) throw new Error(`peek length ${n} is negative; ask for 0 to ${PEEK} characters`);
      if (n > PEEK) throw new Error(`peek length ${n} exceeds ${PEEK}; peek smaller slices or search first`);
      if (offset < 0) throw new Error(`peek offset ${offset} is negative`);
      if (offset > d.length) return "";
      return d.data.slice(unitAt(d, offset), unitAt(d, Math.min(offset + n, d.length)));
    },
    text(c) {
      const d = load(c);
      if (d.length > TEXT) throw new Error(`text(${d.name}): the context is ${d.length} characters, more than text returns (${TEXT})`);
      return d.data;
    },
    count(c, pattern) {
      let n = 0;
      eachMatch(load(c).data, regex(pattern), () => { n++; });
      return n;
    },
    search(c, pattern, from = 0) {
      const d = load(c);
      if (from < 0) throw new Error(`search from ${from} is negative`);
      const page = [];
      let total = 0;
      eachMatch(d.data, regex(pattern), (s, e) => {
        if (total >= from && total < from + RESULTS) page.push([s, e]);
        total++;
      });
      let line = 1, lineFrom = 0;
      const out = page.map(([s, e], i) => {
        for (let u = d.data.indexOf("\n", lineFrom); u >= 0 && u < s; u = d.data.indexOf("\n", u + 1)) line++;
        lineFrom = s;
        const start = charAt(d, s), end = charAt(d, e);
        return { index: from + i, start, end, line, text: clip(d.data.slice(s, e), MATCH),
          line_text: lineText(d.data, s, MATCH), ref: ref(d, start, end), total };
      });
      const next = from + out.length;
      return Object.assign(out, { total, truncated: next < total, next });
    },
    chunk(c, size, overlap) {
      const d = load(c);
      if (size < 1) throw new Error(`chunk size ${size} must be at least 1 character`);
      if (overlap < 0 || overlap >= size) throw new Error(`chunk overlap ${overlap} must be at least 0 and less than the size ${size}`);
      const out = [];
      for (let start = 0; start < d.length; start += size - overlap) {
        const end = Math.min(start + size, d.length);
        out.push({ index: out.length, start, end, ref: ref(d, start, end) });
        if (out.length > CHUNKS) throw new Error(`chunk(size=${size}, overlap=${overlap}) makes more than ${CHUNKS} chunks`);
        if (end === d.length) break;
      }
      return out;
    },
  };

  let final;
  const show = (v) => (typeof v === "string" ? v : JSON.stringify(v) ?? String(v));
  const print = (...values) => { process.stdout.write(values.map(show).join(" ") + "\n"); };
  Object.assign(api, {
    FINAL(value) { final = typeof value === "string" ? value : JSON.stringify(value); },
    print,
    console: { log: print, info: print, warn: print, error: print, debug: print },
    context: handle("context"),
  });
  for (let i = 0; i < Math.max(paths.length, 1); i++) api["ctx" + i] = i === 0 ? api.context : handle("ctx" + i);
  Object.assign(globalThis, api);
  process.on("exit", () => {
    if (final !== undefined && process.env.RLMBENCH_FINAL) fs.writeFileSync(process.env.RLMBENCH_FINAL, final);
  });
})();
