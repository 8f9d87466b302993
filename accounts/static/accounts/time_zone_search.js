// The settings page's time zone select gets a search box: typing "buda" or "new york" keeps
// only the zones whose name (or region) holds every word typed; the first of them is chosen
// unless the zone chosen before is among them. Without the script the select stays as it is, grouped by region. No inline script:
// the page names the select and the search box in this script tag's data attributes.
(function () {
  "use strict";
  var script = document.currentScript;
  var select = document.getElementById(script.dataset.select);
  var box = document.getElementById(script.dataset.search);
  if (!select || !box) {
    return;
  }
  var input = box.querySelector("input");
  var none = box.querySelector("[data-none]");
  // the whole list, read once: each group with its options, in their order
  var groups = Array.prototype.map.call(select.querySelectorAll("optgroup"), function (group) {
    return { group: group, options: Array.prototype.slice.call(group.children) };
  });

  function words(text) {
    return text.toLowerCase().replace(/[_/\s]+/g, " ").trim();
  }

  function filter() {
    var wanted = words(input.value).split(" ").filter(Boolean);
    var current = select.value;
    var shown = [];
    groups.forEach(function (entry) {
      var label = words(entry.group.label);
      var matches = entry.options.filter(function (option) {
        var text = label + " " + words(option.value + " " + option.textContent);
        return wanted.every(function (word) {
          return text.indexOf(word) !== -1;
        });
      });
      if (matches.length) {
        entry.group.replaceChildren.apply(entry.group, matches);
        shown.push(entry.group);
      }
    });
    none.hidden = shown.length > 0;
    if (!shown.length) {
      // nothing matches: keep the whole list rather than an empty select
      groups.forEach(function (entry) {
        entry.group.replaceChildren.apply(entry.group, entry.options);
        shown.push(entry.group);
      });
    }
    select.replaceChildren.apply(select, shown);
    var kept = shown.some(function (group) {
      return Array.prototype.some.call(group.children, function (option) {
        return option.value === current;
      });
    });
    // the zone chosen before stays chosen while it is listed; else the first match is
    select.value = kept ? current : select.options[0].value;
  }

  // above the time zone's field (its label and select), or the select when it has no field
  var field = select.closest("form > div") || select;
  field.parentNode.insertBefore(box, field);
  box.hidden = false;
  input.addEventListener("input", filter);
})();
