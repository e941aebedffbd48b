// tooldesign tool reference: search on the index, provider tabs on tool pages.
// Every page works without this script; it only adds the search and turns the provider
// definitions (shown one after another) into tabs.
(function () {
  "use strict";

  function words(text) {
    return text.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 0; });
  }

  function setUpSearch() {
    var input = document.getElementById("q");
    var status = document.getElementById("search-status");
    if (!input || !status || document.body.getAttribute("data-page") !== "index") {
      return;
    }
    var items = Array.prototype.slice.call(document.querySelectorAll(".tool-item"));
    var groups = Array.prototype.slice.call(document.querySelectorAll(".toolset, .service"));
    var form = input.form;

    function apply() {
      var wanted = words(input.value);
      var shown = 0;
      items.forEach(function (item) {
        var terms = item.getAttribute("data-terms") || "";
        var match = wanted.every(function (w) { return terms.indexOf(w) !== -1; });
        item.hidden = !match;
        if (match) { shown += 1; }
      });
      groups.forEach(function (group) {
        group.hidden = group.querySelector(".tool-item:not([hidden])") === null;
      });
      if (wanted.length === 0) {
        status.textContent = "";
      } else if (shown === 0) {
        status.textContent = "No tool matches \u201c" + input.value.trim() + "\u201d.";
      } else {
        status.textContent = shown + (shown === 1 ? " tool matches" : " tools match") +
          " \u201c" + input.value.trim() + "\u201d.";
      }
    }

    var query = new URLSearchParams(window.location.search).get("q");
    if (query) {
      input.value = query;
    }
    input.addEventListener("input", apply);
    if (form) {
      form.addEventListener("submit", function (event) {
        // On the index the list filters as you type: Enter opens the only match, if one.
        event.preventDefault();
        var visible = items.filter(function (item) { return !item.hidden; });
        if (visible.length === 1) {
          var link = visible[0].querySelector("a");
          if (link) { window.location.href = link.href; }
        }
      });
    }
    apply();
  }

  function setUpTabs(container, index) {
    var panels = Array.prototype.slice.call(container.querySelectorAll(":scope > .tab-panel"));
    if (panels.length < 2) {
      return;
    }
    var list = document.createElement("div");
    list.setAttribute("role", "tablist");
    list.setAttribute("aria-label", "Provider");
    var tabs = panels.map(function (panel, i) {
      var tab = document.createElement("button");
      tab.type = "button";
      tab.id = "tab-" + index + "-" + i;
      tab.setAttribute("role", "tab");
      tab.setAttribute("aria-controls", panel.id);
      tab.textContent = panel.getAttribute("data-tab-label") || ("Tab " + (i + 1));
      panel.setAttribute("role", "tabpanel");
      panel.setAttribute("aria-labelledby", tab.id);
      panel.setAttribute("tabindex", "0");
      list.appendChild(tab);
      return tab;
    });

    function select(i, focus) {
      tabs.forEach(function (tab, j) {
        var on = i === j;
        tab.setAttribute("aria-selected", on ? "true" : "false");
        tab.tabIndex = on ? 0 : -1;
        panels[j].hidden = !on;
      });
      if (focus) { tabs[i].focus(); }
    }

    tabs.forEach(function (tab, i) {
      tab.addEventListener("click", function () { select(i, false); });
      tab.addEventListener("keydown", function (event) {
        var next = null;
        if (event.key === "ArrowRight") { next = (i + 1) % tabs.length; }
        if (event.key === "ArrowLeft") { next = (i - 1 + tabs.length) % tabs.length; }
        if (event.key === "Home") { next = 0; }
        if (event.key === "End") { next = tabs.length - 1; }
        if (next !== null) {
          event.preventDefault();
          select(next, true);
        }
      });
    });
    container.insertBefore(list, panels[0]);
    container.classList.add("is-enhanced");
    var wanted = window.location.hash.slice(1);
    var start = panels.findIndex(function (panel) { return panel.id === wanted; });
    select(start === -1 ? 0 : start, false);
  }

  setUpSearch();
  Array.prototype.slice.call(document.querySelectorAll("[data-tabs]")).forEach(setUpTabs);
})();
