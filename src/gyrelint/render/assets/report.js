/* gyrelint HTML report: map clicks, evidence panel, filters, snippets.
   Every string from the analyzed repo is put into the page with textContent, never innerHTML. */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("gyre-data").textContent);
  var panel = document.getElementById("panel");
  var KW = /^(False|None|True|and|as|assert|async|await|break|class|continue|def|del|elif|else|except|finally|for|from|global|if|import|in|is|lambda|nonlocal|not|or|pass|raise|return|self|try|while|with|yield)$/;
  var TOKEN = /(#.*$)|("""|'''|[rbfuRBFU]{0,2}"(?:\\.|[^"\\])*"?|[rbfuRBFU]{0,2}'(?:\\.|[^'\\])*'?)|(@[\w.]+)|\b(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\b|([A-Za-z_]\w*)/g;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function sideChip(side) {
    var s = el("span", "chip side-" + (side || "neutral"), side || "neutral");
    return s;
  }
  function highlight(line, python) {
    var frag = document.createDocumentFragment();
    if (!python) { frag.appendChild(document.createTextNode(line)); return frag; }
    var last = 0, m;
    TOKEN.lastIndex = 0;
    while ((m = TOKEN.exec(line)) !== null) {
      if (m[0] === "") { TOKEN.lastIndex++; continue; }
      var cls = m[1] ? "tc" : m[2] ? "ts" : m[3] ? "td" : m[4] ? "tn" : (m[5] && KW.test(m[5])) ? "tk" : null;
      if (!cls) continue;
      if (m.index > last) frag.appendChild(document.createTextNode(line.slice(last, m.index)));
      frag.appendChild(el("span", cls, m[0]));
      last = m.index + m[0].length;
    }
    if (last < line.length) frag.appendChild(document.createTextNode(line.slice(last)));
    return frag;
  }
  function shown(file) {  /* repo-relative key -> the path as it opens from where gyrelint ran */
    if (!file || !DATA.prefix || file.charAt(0) === "/") return file;
    return file === "." ? DATA.prefix.replace(/\/$/, "") : DATA.prefix + file;
  }
  function snippet(file, line) {
    var lines = DATA.snippets[file];
    var box = el("div", "snippet");
    var head = el("div", "snip-head", line ? shown(file) + ":" + line : shown(file));
    box.appendChild(head);
    if (!lines) { box.appendChild(el("div", "snip-none", "source not available in this report")); return box; }
    var pre = el("pre", "code");
    var py = /\.pyi?$/.test(file);
    var lo = Math.max(1, line - 3), hi = line + 3, any = false;
    for (var i = lo; i <= hi; i++) {
      var t = lines[String(i)];
      if (t === undefined) continue;
      any = true;
      var row = el("span", "ln" + (i === line ? " hit" : ""));
      row.appendChild(el("span", "no", String(i)));
      row.appendChild(highlight(t, py));
      pre.appendChild(row);
    }
    if (!any) { box.appendChild(el("div", "snip-none", "source not available in this report")); return box; }
    box.appendChild(pre);
    return box;
  }
  function fnLink(q, side) {
    var a = el("a", "fn", q);
    a.href = "#";
    a.setAttribute("data-q", q);
    var li = el("li");
    if (side !== undefined) li.appendChild(sideChip(side));
    if (DATA.functions[q]) li.appendChild(a); else li.appendChild(el("span", "", q));
    return li;
  }
  function evidenceList(ev) {
    var wrap = el("div", "evlist");
    if (!ev.length) { wrap.appendChild(el("p", "note", "no signal recorded")); return wrap; }
    ev.forEach(function (e, i) {
      var item = el("div", "evitem");
      var h = el("div", "evhead");
      h.appendChild(el("code", "", e[0]));
      h.appendChild(document.createTextNode(" " + shown(e[1]) + ":" + e[2] + (e[3] && e[3] !== "own" ? "  via " + e[3] : "")));
      item.appendChild(h);
      if (i < 6) item.appendChild(snippet(e[1], e[2]));
      wrap.appendChild(item);
    });
    return wrap;
  }
  function section(title, body) {
    var s = el("section", "psec");
    s.appendChild(el("h3", "", title));
    s.appendChild(body);
    return s;
  }
  function listOf(pairs) {
    var ul = el("ul", "plist");
    if (!pairs.length) ul.appendChild(el("li", "note", "none found"));
    pairs.forEach(function (p) { ul.appendChild(fnLink(p[0], p[1])); });
    return ul;
  }
  function open(children, title) {
    panel.textContent = "";
    var close = el("button", "close", "×");
    close.type = "button";
    close.title = "close";
    close.addEventListener("click", function () { panel.classList.remove("open"); panel.textContent = ""; selectNode(null); });
    panel.appendChild(close);
    if (title) panel.appendChild(title);
    children.forEach(function (c) { panel.appendChild(c); });
    panel.classList.add("open");
    panel.scrollTop = 0;
  }
  function showFunction(q) {
    var f = DATA.functions[q];
    if (!f) return;
    var t = el("div", "ptitle");
    t.appendChild(sideChip(f.side));
    if (f.hk) t.appendChild(el("span", "chip hk", f.hk));
    t.appendChild(el("h2", "", q));
    t.appendChild(el("div", "where", shown(f.file) + ":" + f.line + (f.reached ? "" : "  (" + (DATA.unreached || "not reached from an entry point") + ")")));
    var parts = [section("signals", evidenceList(f.ev)), section("callers", listOf(f.callers)),
                 section("callees", listOf(f.callees))];
    if (f.rules.length) parts.push(section("findings", el("p", "", f.rules.join(", "))));
    parts.push(section("definition", snippet(f.file, f.line)));
    open(parts, t);
    selectNode(nodeOfFunction(q));
  }
  function nodeOfFunction(q) {
    for (var id in DATA.nodes) if (DATA.nodes[id].members.indexOf(q) >= 0) return id;
    return null;
  }
  function showNode(id) {
    var n = DATA.nodes[id];
    if (!n) return;
    if (n.kind !== "group" && n.members.length === 1 && DATA.functions[n.members[0]]) { showFunction(n.members[0]); return; }
    var t = el("div", "ptitle");
    t.appendChild(sideChip(n.side));
    t.appendChild(el("h2", "", n.label.replace(/\n/g, " ")));
    if (n.file) t.appendChild(el("div", "where", shown(n.file) + (n.line ? ":" + n.line : "")));
    var members = el("ul", "plist");
    n.members.forEach(function (m) { members.appendChild(fnLink(m, DATA.functions[m] ? DATA.functions[m].side : undefined)); });
    if (n.more) members.appendChild(el("li", "note", "… " + n.more + " more"));
    var parts = [section(n.kind === "group" ? "collapsed here (" + (n.members.length + n.more) + ")" : "stands for", members)];
    if (n.ev.length) parts.push(section("signals", evidenceList(n.ev)));
    open(parts, t);
    selectNode(id);
  }
  function showSource(file, line) {
    var t = el("div", "ptitle");
    t.appendChild(el("h2", "", shown(file) + (line ? ":" + line : "")));
    open([snippet(file, line)], t);
  }
  function selectNode(id) {
    var prev = document.querySelectorAll("#map .selected");
    for (var i = 0; i < prev.length; i++) prev[i].classList.remove("selected");
    if (id) { var g = document.getElementById(id); if (g) g.classList.add("selected"); }
  }

  // clicks: map nodes, function links, source links
  document.addEventListener("click", function (ev) {
    var t = ev.target;
    var a = t.closest ? t.closest("a.fn, a.src") : null;
    if (a) {
      ev.preventDefault();
      if (a.classList.contains("fn")) showFunction(a.getAttribute("data-q"));
      else showSource(a.getAttribute("data-file"), parseInt(a.getAttribute("data-line"), 10) || 0);
      return;
    }
    var node = t.closest ? t.closest("#map .gnode") : null;
    if (node && DATA.nodes[node.id]) { ev.preventDefault(); showNode(node.id); }
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape") { panel.classList.remove("open"); panel.textContent = ""; selectNode(null); }
  });

  // long tables arrive as parked rows: parse them when the table is first opened
  function unpark(details) {
    var parked = document.getElementById("rows-" + details.id);
    if (!parked) return;
    var tbody = details.querySelector("tbody");
    tbody.innerHTML = parked.textContent.replace(/<\\\//g, "</");  /* server-escaped markup */
    parked.parentNode.removeChild(parked);
    apply();
  }
  var tables = document.querySelectorAll("details.tbl");
  for (var d = 0; d < tables.length; d++) tables[d].addEventListener("toggle", function (ev) {
    if (ev.currentTarget.open) unpark(ev.currentTarget);
  });

  // filters
  var sideBoxes = document.querySelectorAll('#filters input[name="side"]');
  var modInput = document.getElementById("f-module");
  var ruleSel = document.getElementById("f-rule");
  var status = document.getElementById("f-status");
  function apply() {
    var on = {};
    for (var i = 0; i < sideBoxes.length; i++) on[sideBoxes[i].value] = sideBoxes[i].checked;
    var mod = (modInput.value || "").trim().toLowerCase();
    var rule = ruleSel.value;
    var rows = document.querySelectorAll("#tables tbody tr"), shown = 0;
    for (var r = 0; r < rows.length; r++) {
      var row = rows[r];
      var side = row.getAttribute("data-side");
      var ok = !side || on[side] !== false;
      if (ok && mod) ok = (row.getAttribute("data-mod") || "").toLowerCase().indexOf(mod) >= 0 ||
                          (row.getAttribute("data-file") || "").toLowerCase().indexOf(mod) >= 0;
      if (ok && rule) {
        var rr = row.getAttribute("data-rule");
        if (rr !== null) ok = rr === rule;
        else {
          var q = row.querySelector("a.fn");
          if (q) { var f = DATA.functions[q.getAttribute("data-q")]; ok = !!f && f.rules.indexOf(rule) >= 0; }
        }
      }
      row.classList.toggle("hidden", !ok);
      if (ok) shown++;
    }
    var dimmed = 0;
    Object.keys(DATA.nodes).forEach(function (id) {
      var n = DATA.nodes[id], g = document.getElementById(id);
      if (!g) return;
      var ok = on[n.side] !== false;
      if (ok && mod) ok = n.label.toLowerCase().indexOf(mod) >= 0 ||
                          n.members.some(function (m) { return m.toLowerCase().indexOf(mod) >= 0; });
      if (ok && rule) ok = n.rules.indexOf(rule) >= 0;
      g.classList.toggle("dim", !ok);
      if (!ok) dimmed++;
    });
    var edges = document.querySelectorAll("#map g.edge");
    for (var k = 0; k < edges.length; k++) {
      var ttl = edges[k].querySelector("title");
      var ends = ttl ? ttl.textContent.split("->") : [];
      var dim = ends.some(function (x) { var g = document.getElementById(x.trim()); return g && g.classList.contains("dim"); });
      edges[k].classList.toggle("dim", dim);
    }
    status.textContent = shown + " rows shown" + (dimmed ? ", " + dimmed + " map boxes dimmed" : "");
  }
  for (var i = 0; i < sideBoxes.length; i++) sideBoxes[i].addEventListener("change", apply);
  modInput.addEventListener("input", apply);
  ruleSel.addEventListener("change", apply);

  // zoom
  var svg = document.querySelector("#map svg");
  var scale = 1, baseW = 0;
  if (svg) {
    baseW = parseFloat(svg.getAttribute("width")) || svg.getBoundingClientRect().width;
    svg.removeAttribute("height");
    var wrapW = document.getElementById("map").clientWidth - 8;
    if (baseW > wrapW && wrapW > 0) scale = Math.max(0.5, wrapW / baseW);
    setZoom(scale);
  }
  function setZoom(s) {
    scale = s;
    if (svg) { svg.style.width = Math.round(baseW * s) + "px"; svg.style.height = "auto"; }
  }
  var zb = document.querySelectorAll("[data-zoom]");
  for (var z = 0; z < zb.length; z++) zb[z].addEventListener("click", function (ev) {
    var what = ev.currentTarget.getAttribute("data-zoom");
    if (!svg) return;
    if (what === "in") setZoom(scale * 1.25);
    else if (what === "out") setZoom(Math.max(0.1, scale / 1.25));
    else setZoom(Math.max(0.1, (document.getElementById("map").clientWidth - 8) / baseW));
  });
  var restored = modInput.value || ruleSel.value;
  for (var b = 0; b < sideBoxes.length; b++) if (!sideBoxes[b].checked) restored = true;
  if (restored) apply();  /* a reload kept the form's state */
  else status.textContent = document.querySelectorAll("#tables tbody tr").length + " rows";
  document.body.setAttribute("data-ready", "1");
})();
