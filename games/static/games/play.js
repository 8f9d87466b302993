// Direct play on the game page, built on its own forms (without JavaScript every move is a
// button of the list): tap a card of your hand and only its moves stay in the list, and where
// they put it lights up: the stones its figure reaches on the board, your own row it is laid
// in (the card game), the pile it is discarded on; one more tap, on a move or on a lit place,
// plays it.
// Also the board's enlarge button. Runs again after live.js swaps the page (live:updated).
(function () {
  "use strict";

  function setUp() {
    var turn = document.querySelector(".game-turn");
    var groups = turn ? Array.prototype.slice.call(turn.querySelectorAll(".action-group[data-card]")) : [];
    var board = document.querySelector(".game-main .board-svg");
    zoom();
    if (!groups.length) {
      return;
    }
    var playable = {};
    groups.forEach(function (group) { playable[group.dataset.card] = group; });
    var hint = turn.querySelector(".play-hint");
    if (hint) { hint.hidden = false; }
    var cards = [];
    turn.querySelectorAll(".hand .kcard[data-card]").forEach(function (chip) {
      var code = chip.dataset.card;
      if (!playable[code]) {
        return;
      }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "hand-pick";
      button.dataset.card = code;
      button.setAttribute("aria-pressed", "false");
      chip.replaceWith(button);
      button.append(chip);
      button.addEventListener("click", function () { choose(code); });
      cards.push(button);
    });
    turn.classList.add("direct-play");

    function lit() {
      return board ? board.querySelectorAll(".stone-target") : [];
    }

    // "row:r", "row:points" (your own rows), "pile:r" (a discard pile): the element on the table
    function place(key) {
      var parts = key.split(":");
      if (parts[0] === "row") {
        return document.querySelector(".player-me .column-" + parts[1]);
      }
      return parts[0] === "pile" ? document.querySelector(".piles .pile-" + parts[1]) : null;
    }

    // a tap on a lit place plays the one move of the chosen card that puts it there
    document.querySelectorAll(".player-me .column, .piles .pile").forEach(function (spot) {
      spot.addEventListener("click", function () {
        var group = turn.querySelector(".action-group.group-chosen");
        if (!group || !spot.classList.contains("place-target")) {
          return;
        }
        var moves = Array.prototype.filter.call(
          group.querySelectorAll("button[data-place]"),
          function (button) { return place(button.dataset.place) === spot; }
        );
        if (moves.length === 1) {
          moves[0].click();
        } else if (moves.length) {
          moves[0].focus();
        }
      });
    });

    function choose(code) {
      var chosen = null;
      cards.forEach(function (button) {
        var on = button.dataset.card === code && (chosen === null);
        if (on) { chosen = button; }
        button.setAttribute("aria-pressed", on ? "true" : "false");
      });
      groups.forEach(function (group) {
        group.classList.toggle("group-chosen", group.dataset.card === code);
      });
      turn.classList.add("card-chosen");
      lit().forEach(function (stone) { stone.classList.remove("stone-target"); });
      document.querySelectorAll(".place-target").forEach(function (spot) {
        spot.classList.remove("place-target");
      });
      var group = playable[code];
      group.querySelectorAll("button[data-place]").forEach(function (button) {
        var spot = place(button.dataset.place);
        if (spot) { spot.classList.add("place-target"); }
      });
      group.querySelectorAll("button[data-target]").forEach(function (button) {
        var stone = board && board.querySelector('.stone[data-stone="' + button.dataset.target + '"]');
        if (stone) { stone.classList.add("stone-target"); }
      });
      var first = group.querySelector("button");
      if (first && window.matchMedia("(max-width: 60rem)").matches) {
        group.scrollIntoView({ block: "nearest" });
      }
    }

    // the lit stones and the clover's stones are moves too: one tap on a stone plays the one
    // move that reaches it (several moves to one stone: the list decides)
    if (board) {
      turn.querySelectorAll(".action-group:not([data-card]) button[data-target]").forEach(function (button) {
        var stone = board.querySelector('.stone[data-stone="' + button.dataset.target + '"]');
        if (stone) { stone.classList.add("stone-target"); }
      });
      board.addEventListener("click", function (event) {
        var stone = event.target.closest && event.target.closest(".stone-target");
        if (!stone) {
          return;
        }
        var key = stone.getAttribute("data-stone");
        var scope = turn.querySelector(".action-group.group-chosen") || turn;
        var moves = Array.prototype.filter.call(
          scope.querySelectorAll("button[data-target]"),
          function (button) { return button.dataset.target === key && button.offsetParent !== null; }
        );
        if (moves.length === 1) {
          moves[0].click();
        } else if (moves.length) {
          moves[0].focus();
        }
      });
    }
  }

  function zoom() {
    var button = document.querySelector(".board-zoom");
    var frame = document.querySelector(".board-frame");
    if (!button || !frame) {
      return;
    }
    button.hidden = false;
    var enlarge = button.textContent;
    button.addEventListener("click", function () {
      var on = !frame.classList.contains("board-frame--zoomed");
      frame.classList.toggle("board-frame--zoomed", on);
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.textContent = on ? button.dataset.fit : enlarge;
    });
    frame.addEventListener("dblclick", function () { button.click(); });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
  document.addEventListener("live:updated", setUp);
})();
