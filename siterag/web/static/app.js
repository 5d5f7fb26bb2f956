// Suggestions as you type: titles, then tags (/api/suggest), then the hybrid search's best hits (/api/hits) under
// them; an ARIA combobox, keyboard and mouse.
(function () {
  "use strict";
  var input = document.getElementById("q");
  var list = document.getElementById("suggestions");
  if (!input || !list) return;
  var timer = null, active = -1, items = [], asked = "";

  function close() {
    list.hidden = true; list.textContent = ""; items = []; active = -1;
    input.setAttribute("aria-expanded", "false"); input.removeAttribute("aria-activedescendant");
  }
  function mark(n) {
    active = n;
    Array.prototype.forEach.call(list.children, function (li, i) { li.setAttribute("aria-selected", i === n ? "true" : "false"); });
    if (n >= 0) input.setAttribute("aria-activedescendant", "sug-" + n); else input.removeAttribute("aria-activedescendant");
  }
  function show(found, more) {
    if (!more) { list.textContent = ""; items = []; active = -1; }
    var seen = {};
    items.forEach(function (it) { seen[it.href] = true; });
    found = found.filter(function (it) { return !seen[it.href]; });
    var first = items.length;
    items = items.concat(found);
    found.forEach(function (it, j) {
      var i = first + j;
      var li = document.createElement("li");
      li.id = "sug-" + i; li.setAttribute("role", "option"); li.setAttribute("aria-selected", "false");
      li.textContent = it.text;  // text, never HTML
      var kind = document.createElement("span");
      kind.className = "kind";
      kind.textContent = it.kind === "tag" ? "tag · " + it.count : it.site + (it.date ? " · " + it.date : "") +
        (it.kind === "hit" ? " · found by " + it.match : "");
      li.appendChild(kind);
      li.addEventListener("mousedown", function (e) { e.preventDefault(); location.href = it.href; });
      list.appendChild(li);
    });
    list.hidden = items.length === 0;
    input.setAttribute("aria-expanded", items.length ? "true" : "false");
  }
  function ask() {
    var q = input.value.trim();
    if (!q) { close(); return; }
    asked = q;
    fetch("/api/suggest?q=" + encodeURIComponent(q), { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : []; })
      .then(function (found) {
        if (asked !== q || input.value.trim() !== q) return;
        show(found, false);
        // then the hybrid search's best hits (slower: the query is embedded), under the titles
        return fetch("/api/hits?q=" + encodeURIComponent(q), { credentials: "same-origin" })
          .then(function (r) { return r.ok ? r.json() : []; })
          .then(function (hits) { if (asked === q && input.value.trim() === q && hits.length) show(hits, true); });
      })
      .catch(function () {});
  }
  input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(ask, 60); });
  input.addEventListener("keydown", function (e) {
    if (list.hidden) return;
    if (e.key === "ArrowDown") { e.preventDefault(); mark((active + 1) % items.length); }
    else if (e.key === "ArrowUp") { e.preventDefault(); mark(active <= 0 ? items.length - 1 : active - 1); }
    else if (e.key === "Escape") { close(); }
    else if (e.key === "Enter" && active >= 0) { e.preventDefault(); location.href = items[active].href; }
  });
  input.addEventListener("blur", function () { setTimeout(close, 100); });
})();
