/* wovepaper progressive enhancement (the CSP forbids inline script; everything works without it):
   1. name autocomplete on inputs with data-suggest="researcher,institution" (ARIA combobox);
   2. the "fetch from arXiv" progress on the 404 page (polls a JSON status URL). */
(function () {
  "use strict";

  var KIND_LABEL = { researcher: "Researchers", institution: "Institutions" };

  function debounce(fn, ms) {
    var t;
    return function () {
      var args = arguments, self = this;
      clearTimeout(t);
      t = setTimeout(function () { fn.apply(self, args); }, ms);
    };
  }

  function fetchJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" }).then(function (r) {
      if (!r.ok) { throw new Error("HTTP " + r.status); }
      return r.json();
    });
  }

  var counter = 0;

  function setupSuggest(input) {
    var kinds = (input.getAttribute("data-suggest") || "").split(",").filter(Boolean);
    var fillId = input.getAttribute("data-suggest-fill") === "id";
    var holder = input.parentElement;
    if (getComputedStyle(holder).position === "static") { holder.style.position = "relative"; }
    var list = document.createElement("ul");
    var listId = "suggest-" + (++counter);
    list.id = listId;
    list.className = "suggest-list";
    list.setAttribute("role", "listbox");
    list.hidden = true;
    holder.appendChild(list);
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", listId);

    var options = [];
    var active = -1;
    var lastQuery = "";

    function close() {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      active = -1;
    }

    function highlight(index) {
      options.forEach(function (o, i) { o.el.setAttribute("aria-selected", i === index ? "true" : "false"); });
      active = index;
      if (index >= 0) {
        input.setAttribute("aria-activedescendant", options[index].el.id);
        options[index].el.scrollIntoView({ block: "nearest" });
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }

    function choose(option) {
      if (fillId) {
        input.value = String(option.item.id);
        close();
        if (input.form) { input.form.submit(); }
      } else {
        window.location.assign(option.item.url);
      }
    }

    function render(groups) {
      list.textContent = "";
      options = [];
      groups.forEach(function (group) {
        if (!group.results.length) { return; }
        if (kinds.length > 1) {
          var head = document.createElement("li");
          head.className = "group";
          head.setAttribute("role", "presentation");
          var label = document.createElement("span");
          label.className = "kind";
          label.textContent = KIND_LABEL[group.kind] || group.kind;
          head.appendChild(label);
          list.appendChild(head);
        }
        group.results.forEach(function (item) {
          var li = document.createElement("li");
          li.id = listId + "-" + options.length;
          li.setAttribute("role", "option");
          li.setAttribute("aria-selected", "false");
          var name = document.createElement("span");
          name.textContent = item.name;
          var detail = document.createElement("span");
          detail.className = "detail";
          detail.textContent = item.detail || "";
          li.appendChild(name);
          li.appendChild(detail);
          var option = { el: li, item: item };
          li.addEventListener("mousedown", function (e) { e.preventDefault(); choose(option); });
          options.push(option);
          list.appendChild(li);
        });
      });
      if (options.length) {
        list.hidden = false;
        input.setAttribute("aria-expanded", "true");
      } else {
        close();
      }
    }

    var lookup = debounce(function () {
      var q = input.value.trim();
      if (q.length < 2 || /^\d+$/.test(q)) { close(); return; }
      lastQuery = q;
      Promise.all(kinds.map(function (kind) {
        return fetchJSON("/search/suggest?kind=" + encodeURIComponent(kind) + "&q=" + encodeURIComponent(q))
          .then(function (data) { return { kind: kind, results: (data.results || []).slice(0, kinds.length > 1 ? 5 : 8) }; })
          .catch(function () { return { kind: kind, results: [] }; });
      })).then(function (groups) {
        if (q === lastQuery && document.activeElement === input) { render(groups); }
      });
    }, 180);

    input.addEventListener("input", lookup);
    input.addEventListener("keydown", function (e) {
      if (list.hidden) { return; }
      if (e.key === "ArrowDown") { e.preventDefault(); highlight(Math.min(active + 1, options.length - 1)); }
      else if (e.key === "ArrowUp") { e.preventDefault(); highlight(Math.max(active - 1, -1)); }
      else if (e.key === "Enter" && active >= 0) { e.preventDefault(); choose(options[active]); }
      else if (e.key === "Escape") { close(); }
    });
    input.addEventListener("blur", function () { setTimeout(close, 120); });
  }

  function setupFetch(box) {
    var statusUrl = box.getAttribute("data-fetch-status");
    var message = box.querySelector("[data-fetch-message]");
    var tries = 0;
    function poll() {
      tries += 1;
      fetchJSON(statusUrl).then(function (data) {
        if (data.state === "done" && data.url) {
          if (message) { message.textContent = "Found it. Opening the paper…"; }
          window.location.assign(data.url);
          return;
        }
        if (data.state === "failed" || data.state === "missing" || data.state === "incomplete") {
          box.classList.add("fetch-failed");
          if (message) { message.textContent = data.message || "arXiv does not know this identifier."; }
          var bar = box.querySelector(".progress");
          if (bar) { bar.hidden = true; }
          return;
        }
        if (message && data.message) { message.textContent = data.message; }
        if (tries < 90) { setTimeout(poll, tries < 5 ? 1000 : 2000); }
      }).catch(function () {
        if (tries < 90) { setTimeout(poll, 3000); }
      });
    }
    poll();
  }

  // The search page's Researchers and Institutions tab counts, when that tab is not the one
  // open: asked for once the page has loaded (counting names is slow on a large archive).
  function setupTabCounts(nav) {
    fetchJSON(nav.getAttribute("data-tab-counts")).then(function (data) {
      nav.querySelectorAll("[data-tab-count]").forEach(function (span) {
        var n = data[span.getAttribute("data-tab-count")];
        if (typeof n !== "number") { return; }
        span.textContent = n.toLocaleString("en-US");
        span.hidden = false;
      });
    }).catch(function () { /* the tabs work without their counts */ });
  }

  function init() {
    document.querySelectorAll("[data-tab-counts]").forEach(setupTabCounts);
    document.querySelectorAll("input[data-suggest]").forEach(setupSuggest);
    document.querySelectorAll("[data-fetch-status]").forEach(setupFetch);
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
})();
