/* The pipeline's timeline page (resident pipeline --html), embedded at build time. It reads
 * the runs from the JSON in #rs-data and draws, per run, one lane per stream and kind of
 * work (copy direction, kernels) plus the host's waits, all runs on one time axis; the
 * summary table sits beside them. Nothing is fetched. */
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("rs-data").textContent);
  var W = 1000, LABEL = 170, LANE = 22, AXIS = 24;

  function el(name, attrs, parent) {
    var e = document.createElementNS(SVG, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmtBytes(b) {
    if (b >= 1e9) return (b / 1e9).toFixed(2) + " GB";
    if (b >= 1e6) return (b / 1e6).toFixed(1) + " MB";
    if (b >= 1e3) return (b / 1e3).toFixed(1) + " kB";
    return b + " B";
  }
  function ms(x) { return x === 0 ? "0" : x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3); }

  /* where an entry sits: its stream's lane at device time when timed, else host time */
  function lane(e) {
    if (e.kind === "wait") return {key: "host waits", order: 9};
    var s = e.stream === "(nil)" || e.stream === "0x0" ? "default stream" : "stream " + e.stream;
    if (e.kind === "kernel") return {key: s + " \u00b7 kernels", order: 2};
    var o = {H2D: 1, D2H: 3, D2D: 4, H2H: 5}[e.dir] || 6;
    return {key: s + " \u00b7 " + e.dir + " copies", order: o};
  }

  var span = 0;
  data.runs.forEach(function (run) {
    run.origin = Infinity;
    run.entries.forEach(function (e) { run.origin = Math.min(run.origin, e.start); });
    if (!isFinite(run.origin)) run.origin = 0;
    run.entries.forEach(function (e) { span = Math.max(span, e.start + e.dur - run.origin); });
  });
  if (!(span > 0)) span = 1;
  var scale = (W - LABEL - 10) / span;

  var tip = document.getElementById("tip");
  function show(ev, e) {
    var lines = [e.kind === "copy" ? e.dir + " " + (e.implicit ? "implicit" : "explicit") + " copy" : e.kind,
                 "cause: " + e.cause + (e.arg >= 0 ? " (argument " + e.arg + ")" : "")];
    if (e.kind === "copy") {
      lines.push("bytes: " + fmtBytes(e.bytes) + (e.shape ? ", shape " + e.shape : ""));
      if (e.dur > 0) lines.push("bandwidth: " + (e.bytes / e.dur / 1e6).toFixed(2) + " GB/s");
    }
    if (e.kind !== "wait") lines.push("stream: " + e.stream);
    lines.push("start: " + ms(e.start) + " ms (" + (e.timed ? "device time" : "host time") + ")");
    lines.push("duration: " + ms(e.dur) + " ms");
    lines.push("host call: " + ms(e.host_ms) + " ms");
    tip.textContent = lines.join("\n");
    tip.style.display = "block";
    tip.style.left = (ev.clientX + 14) + "px";
    tip.style.top = (ev.clientY + 14) + "px";
  }
  function hide() { tip.style.display = "none"; }

  var runsDiv = document.getElementById("runs");
  data.runs.forEach(function (run) {
    var lanes = {}, list = [];
    run.entries.forEach(function (e) {
      var l = lane(e);
      if (!(l.key in lanes)) { lanes[l.key] = l; list.push(l); }
    });
    list.sort(function (a, b) { return a.key.split(" \u00b7 ")[0] < b.key.split(" \u00b7 ")[0] ? -1 :
                                       a.key.split(" \u00b7 ")[0] > b.key.split(" \u00b7 ")[0] ? 1 : a.order - b.order; });
    list.forEach(function (l, i) { l.row = i; });
    var div = document.createElement("div");
    div.className = "run";
    var h = document.createElement("h2");
    h.textContent = run.mode + ": " + run.copies + " copies, " + fmtBytes(run.bytes) + ", " + ms(run.wall_ms) + " ms wall";
    div.appendChild(h);
    var H = AXIS + Math.max(1, list.length) * LANE + 6;
    var svg = el("svg", {"class": "timeline", viewBox: "0 0 " + W + " " + H, "data-run": run.mode}, div);
    var axis = el("g", {"class": "axis"}, svg);
    var step = Math.pow(10, Math.floor(Math.log10(span / 5)));
    if (span / step > 10) step *= 2;
    if (span / step > 10) step *= 2.5;
    for (var t = 0; t <= span * 1.0001; t += step) {
      var x = LABEL + t * scale;
      el("line", {x1: x, x2: x, y1: AXIS - 4, y2: H}, axis);
      el("text", {x: x, y: AXIS - 8, "text-anchor": "middle"}, axis).textContent =
        t.toFixed(Math.max(0, -Math.floor(Math.log10(step)))) + " ms";
    }
    list.forEach(function (l) {
      el("text", {"class": "lane-label", x: 4, y: AXIS + l.row * LANE + LANE / 2 + 4}, svg).textContent = l.key;
    });
    run.entries.forEach(function (e) {
      var l = lanes[lane(e).key];
      var cls = "bar " + e.kind + (e.kind === "copy" ? " " + (e.implicit ? "implicit" : "explicit") + " " + e.dir : "");
      var r = el("rect", {"class": cls, x: LABEL + (e.start - run.origin) * scale, y: AXIS + l.row * LANE + 3,
                          width: Math.max(1.5, e.dur * scale), height: LANE - 6}, svg);
      r.addEventListener("mousemove", function (ev) { show(ev, e); });
      r.addEventListener("mouseleave", hide);
    });
    runsDiv.appendChild(div);
  });

  /* the summary beside the timelines */
  var table = document.getElementById("summary");
  var rows = [["copies", function (r) { return r.copies; }],
              ["  implicit", function (r) { return r.copies_implicit; }],
              ["  explicit", function (r) { return r.copies - r.copies_implicit; }],
              ["bytes moved", function (r) { return fmtBytes(r.bytes); }],
              ["copy time", function (r) { return ms(r.copy_ms) + " ms"; }],
              ["kernels", function (r) { return r.kernels; }],
              ["kernel time", function (r) { return ms(r.kernel_ms) + " ms"; }],
              ["host waits", function (r) { return ms(r.wait_ms) + " ms"; }],
              ["wall time", function (r) { return ms(r.wall_ms) + " ms"; }],
              ["result vs CPU", function (r) { return r.result_ok ? "OK" : "WRONG"; }]];
  var head = table.insertRow();
  head.appendChild(document.createElement("th"));
  data.runs.forEach(function (r) { var th = document.createElement("th"); th.textContent = r.mode; head.appendChild(th); });
  rows.forEach(function (row) {
    var tr = table.insertRow();
    tr.insertCell().textContent = row[0];
    data.runs.forEach(function (r) { tr.insertCell().textContent = row[1](r); });
  });
  if (data.runs.length === 2) {
    var a = data.runs[0], b = data.runs[1];
    document.getElementById("verdict").textContent =
      "keeping the data on the device: " + (a.copies - b.copies) + " fewer copies, " +
      (b.wall_ms > 0 ? (a.wall_ms / b.wall_ms).toFixed(2) + "x the speed" : "");
  }
  document.body.setAttribute("data-rendered", String(document.querySelectorAll("rect.bar").length));
})();
