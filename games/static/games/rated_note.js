// The create form's "Rated: ... / Unrated: ..." line follows the seats as they change. The
// server wrote every possible line into the page (#rated-by-table, keyed "players-bots");
// this only picks one (a seat for an invited person counts as a person). Without the script
// the line shows the choices the page was made for.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var data = document.getElementById("rated-by-table");
    var note = document.getElementById("rated-note");
    var form = note && note.closest("form");
    if (!data || !form) {
      return;
    }
    var reasons = JSON.parse(data.textContent);

    function update() {
      var checked = form.querySelector('input[name="player_count"]:checked');
      var players = checked ? parseInt(checked.value, 10) : 2;
      var bots = 0;
      for (var seat = 1; seat < players; seat += 1) {
        var select = form.elements["seat_" + seat];
        // "invite" holds the seat for a person: only a bot level counts as a bot
        if (select && select.value && select.value !== "invite") {
          bots += 1;
        }
      }
      var text = reasons[players + "-" + bots];
      if (text) {
        var strong = document.createElement("strong");
        strong.textContent = text;
        note.replaceChildren(strong);
      }
    }

    form.addEventListener("change", update);
    update();
  });
})();
