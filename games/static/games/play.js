// A turn played on the table, built on the page's own forms (without JavaScript every move is
// a button of the list, and each tap here presses one of those buttons: the same POST, the
// server's path unchanged). Tap a card of your hand: where it may go lights up (the stone its
// figure reaches, or two figures to start a path with; your own row in the card game; the
// discard pile; in the card game the wishing stone it claims with a card of the same value) and
// its moves show under the hand; tap a lit place to play it. A card with one move plays at the
// first tap. Then tap the deck or a pile to draw. Every lit place is at least 44 px, and while
// lit a button for the keyboard too (Tab to it, Enter or Space plays it; its name is its move's
// words); when none is on a phone's screen, the page scrolls to the first if the card stays in
// sight. Also the board's enlarge button. Runs again after live.js swaps the page.
(function () {
  "use strict";

  var SVG = "http://www.w3.org/2000/svg";
  var TARGET_PX = 46; // a lit place on the board, at least this many CSS px across

  function action(button) {
    var input = button.form && button.form.querySelector("input[name=action]");
    return input ? input.value.split(" ") : [];
  }

  function shown(element) {
    return element.getClientRects().length > 0;
  }

  // the shown one of a selector's elements (a board's piles are drawn twice: beside the board
  // on a wide screen, above it on a narrow one), else the first
  function visible(selector) {
    var all = Array.prototype.slice.call(document.querySelectorAll(selector));
    return all.filter(shown)[0] || all[0] || null;
  }

  // CSS px per SVG unit of a board (1 for a hidden one: its targets are sized when shown)
  function scale(svg) {
    var width = svg.getBoundingClientRect().width;
    return width ? width / svg.viewBox.baseVal.width : 1;
  }

  function setUp() {
    var turn = document.querySelector(".game-turn");
    var boards = Array.prototype.slice.call(document.querySelectorAll(".game-main .board-svg"));
    zoom();
    var forms = turn ? turn.querySelectorAll(".actions button.act") : [];
    if (!forms.length || turn.dataset.directPlay) {
      return;
    }
    turn.dataset.directPlay = "on";
    var hand = turn.querySelector(".hand[data-hand-seat]");
    var seat = hand ? hand.dataset.handSeat : null;
    var groups = Array.prototype.slice.call(turn.querySelectorAll(".action-group[data-card]"));
    var playable = {};
    groups.forEach(function (group) { playable[group.dataset.card] = group; });
    // the card game's claims of a wishing stone: each the move of its two cards ("wish g5 r5")
    var wishes = Array.prototype.slice.call(turn.querySelectorAll(".actions button.act"))
      .filter(function (button) { return action(button)[0] === "wish"; });
    var wishGroup = wishes.length ? wishes[0].closest(".action-group") : null;
    if (wishGroup) { wishGroup.classList.add("wish-group"); }

    function wishesOf(code) {
      return wishes.filter(function (button) { return action(button).indexOf(code) > 0; });
    }

    // a card's moves: those of its group, then the claims it is one of the two cards of
    function movesOf(code) {
      var own = playable[code] ? playable[code].querySelectorAll("button.act") : [];
      return Array.prototype.slice.call(own).concat(wishesOf(code));
    }
    var hint = turn.querySelector(".play-hint");
    if (hint && (groups.length || wishes.length)) { hint.hidden = false; }
    var cards = [];
    turn.querySelectorAll(".hand .kcard[data-card]").forEach(function (chip) {
      var code = chip.dataset.card;
      if (!playable[code] && !wishesOf(code).length) {
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
    var section = turn.querySelector(".actions");
    if ((groups.length || wishes.length) && section && section.dataset.allMoves) {
      // the list of every card's moves, one tap away (before a card is chosen, only the
      // moves of no card show)
      var all = document.createElement("button");
      all.type = "button";
      all.className = "all-moves button--secondary";
      all.textContent = section.dataset.allMoves;
      all.setAttribute("aria-expanded", "false");
      all.addEventListener("click", function () {
        var open = all.getAttribute("aria-expanded") !== "true";
        all.setAttribute("aria-expanded", open ? "true" : "false");
        turn.classList.toggle("all-moves-open", open);
      });
      section.querySelector("h2").after(all);
    }
    var lit = []; // every element lit now, each with the moves a tap on it plays (its __moves)

    // a lit place is a button while lit, in the Tab order and named by its moves' words: a
    // board's stone or figure itself (its board, an image, a group of them meanwhile); on the
    // table, a button put in the place (its first cell, a row), as a list's item or a table's
    // row keeps its own role and words
    function keyOf(element) {
      if (element instanceof SVGElement) {
        var svg = element.ownerSVGElement;
        if (svg && svg.__role === undefined) {
          svg.__role = svg.getAttribute("role");
          svg.setAttribute("role", "group");
        }
        return element;
      }
      var key = document.createElement("span");
      key.className = "lit-key";
      (element.tagName === "TR" ? element.cells[0] : element).prepend(key);
      return key;
    }

    function light(element, button, css) {
      if (!element) {
        return;
      }
      if (!element.__moves) {
        element.__moves = [];
        element.__key = keyOf(element);
        element.__key.setAttribute("tabindex", "0");
        element.__key.setAttribute("role", "button");
        element.classList.add(css);
        lit.push(element);
      }
      element.__moves.push(button);
      element.__key.setAttribute("aria-label", element.__moves.map(function (move) {
        return move.title || move.textContent.trim();
      }).join(" / "));
    }

    function unlight() {
      lit.forEach(function (element) {
        element.classList.remove("place-target", "stone-target");
        if (element.__key === element) {
          ["tabindex", "role", "aria-label"].forEach(function (name) {
            element.removeAttribute(name);
          });
        } else {
          element.__key.remove();
        }
        delete element.__moves;
        delete element.__key;
        if (element.classList.contains("figure-choice")) {
          element.remove();
        }
      });
      lit = [];
      boards.forEach(function (svg) {
        svg.querySelectorAll(".stone-hit--added").forEach(function (hit) { hit.remove(); });
        if (svg.__role !== undefined) {
          svg.setAttribute("role", svg.__role);
          delete svg.__role;
        }
      });
    }

    // "row:r", "row:points" (your own rows), "pile:r" (a discard pile), "wish:W5" (a wishing
    // stone of the card game's row), "deck"
    function place(key) {
      var parts = key.split(":");
      if (parts[0] === "row") {
        return document.querySelector(".player-me .column-" + parts[1]);
      }
      if (parts[0] === "wish") {
        return visible('.stone-row [data-wish="' + parts[1] + '"]');
      }
      if (parts[0] === "pile") {
        return visible(".piles .pile-" + parts[1]);
      }
      return key === "deck" ? visible(".piles .deck") : null;
    }

    // a lit stone: its whole cell is the target (the narrow board draws the cells; the wide
    // one gets a cell while lit, as big as its stones' spacing allows)
    function stone(svg, key) {
      var found = svg.querySelector('.stone[data-stone="' + key + '"]');
      if (found && !found.querySelector(".stone-hit")) {
        var circle = found.querySelector("circle");
        var side = Math.min(Math.max(TARGET_PX / scale(svg), 44), 52);
        var hit = document.createElementNS(SVG, "rect");
        hit.setAttribute("class", "stone-hit stone-hit--added");
        hit.setAttribute("x", Number(circle.getAttribute("cx")) - side / 2);
        hit.setAttribute("y", Number(circle.getAttribute("cy")) - side / 2);
        hit.setAttribute("width", side);
        hit.setAttribute("height", side);
        found.insertBefore(hit, circle);
      }
      return found;
    }

    // the first card of a path starts it with the big figure or a small one: two targets
    // beside its first stone, each the figure it moves
    function figureChoice(svg, key, button, big) {
      var found = svg.querySelector('.stone[data-stone="' + key + '"] circle');
      var model = svg.querySelector('.figures .figure[data-seat="' + seat + '"]' +
                                    (big ? ".figure-big" : ":not(.figure-big)"));
      if (!found || !model) {
        return;
      }
      var side = TARGET_PX / scale(svg);
      var width = svg.viewBox.baseVal.width;
      var x = Number(found.getAttribute("cx")) + (big ? -side - 2 : 2);
      x = Math.max(2, Math.min(x, width - side - 2));
      if (!big && x < side + 4) { x = side + 4; }
      if (big && x > width - 2 * side - 6) { x = width - 2 * side - 6; }
      var y = Number(found.getAttribute("cy")) - side / 2;
      var choice = document.createElementNS(SVG, "g");
      choice.setAttribute("class", "figure-choice");
      var title = document.createElementNS(SVG, "title");
      title.textContent = button.textContent.trim();
      var frame = document.createElementNS(SVG, "rect");
      frame.setAttribute("x", x);
      frame.setAttribute("y", y);
      frame.setAttribute("width", side);
      frame.setAttribute("height", side);
      frame.setAttribute("rx", side / 6);
      var figure = model.cloneNode(true);
      figure.removeAttribute("data-seat");
      figure.querySelector("title").remove();
      var size = model.getBBox().width || 12;
      figure.setAttribute("transform", "translate(" + (x + side / 2) + " " + (y + side / 2) +
                          ") scale(" + (side * 0.5 / size) + ")");
      choice.append(title, frame, figure);
      svg.append(choice);
      light(choice, button, "place-target");
    }

    function choose(code) {
      var again = cards.some(function (button) {
        return button.dataset.card === code && button.getAttribute("aria-pressed") === "true";
      });
      unlight();
      cards.forEach(function (button) {
        button.setAttribute("aria-pressed", !again && button.dataset.card === code ? "true" : "false");
      });
      groups.forEach(function (group) {
        group.classList.toggle("group-chosen", !again && group.dataset.card === code);
      });
      var claims = again ? [] : wishesOf(code);
      if (wishGroup) { // the claims of the chosen card show, as its group does
        wishGroup.classList.toggle("group-chosen", claims.length > 0);
        wishes.forEach(function (button) {
          button.form.classList.toggle("wish-other", claims.indexOf(button) < 0);
        });
      }
      turn.classList.toggle("card-chosen", !again);
      if (again) { // a second tap on the chosen card puts it back
        lightOthers();
        return;
      }
      var moves = movesOf(code);
      if (moves.length === 1) { // the rules leave one move: no second tap
        moves[0].click();
        return;
      }
      moves.forEach(function (button) {
        var words = action(button);
        var figure = words[0] === "play" && (words[2] === "big" || words[2] === "small");
        if (button.dataset.place) {
          light(place(button.dataset.place), button, "place-target");
        }
        if (button.dataset.target) {
          boards.forEach(function (svg) {
            if (figure) {
              figureChoice(svg, button.dataset.target, button, words[2] === "big");
            } else {
              light(stone(svg, button.dataset.target), button, "stone-target");
            }
          });
        }
        // a lay that moves no figure (the path's figure is at its end): its end stone
        if (words[0] === "play" && words[2] === ">-") {
          boards.forEach(function (svg) {
            light(stone(svg, words[1].charAt(0) + "9"), button, "stone-target");
          });
        }
      });
      inView(cards.filter(function (button) { return button.dataset.card === code; })[0]);
    }

    // the chosen card and where it may go, both on the screen: when none of its lit places is
    // (a phone's short screen), the page scrolls down to the first (its lay's place), if the
    // card stays in sight
    function inView(card) {
      var shownLit = lit.filter(shown);
      var onScreen = shownLit.some(function (element) {
        var box = (element.querySelector(".stone-hit") || element).getBoundingClientRect();
        return box.top >= 0 && box.bottom <= window.innerHeight;
      });
      if (!card || !shownLit.length || onScreen) {
        return;
      }
      var first = shownLit[0];
      var down = (first.querySelector(".stone-hit") || first).getBoundingClientRect().bottom -
                 window.innerHeight;
      if (down > 0 && down <= card.getBoundingClientRect().top) {
        window.scrollBy(0, down);
      }
    }

    // the moves of no card: the clover's stones, the deck and the piles to draw from
    function lightOthers() {
      turn.querySelectorAll(".action-group:not([data-card]) button.act").forEach(function (button) {
        var words = action(button);
        if (words[0] === "draw") {
          light(place(words[1] === "deck" ? "deck" : "pile:" + words[1]), button, "place-target");
        } else if (button.dataset.target) {
          boards.forEach(function (svg) {
            light(stone(svg, button.dataset.target), button, "stone-target");
          });
        }
      });
    }

    // a tap on a lit place, or Enter or Space on it, plays its one move (several: the list
    // shows them, the first focused)
    if (!document.documentElement.dataset.directPlayTaps) {
      document.documentElement.dataset.directPlayTaps = "on";
      var press = function (spot, event) {
        var moves = spot && spot.__moves;
        if (!moves || !moves.length) {
          return;
        }
        event.preventDefault();
        if (moves.length === 1) {
          moves[0].click();
        } else {
          moves[0].focus();
        }
      };
      document.addEventListener("click", function (event) {
        press(event.target.closest && event.target.closest(".place-target, .stone-target"), event);
      });
      document.addEventListener("keydown", function (event) {
        var spot = event.target.closest && event.target.closest(".place-target, .stone-target");
        if ((event.key === "Enter" || event.key === " ") && spot && spot.__key === event.target) {
          press(spot, event);
        }
      });
    }
    lightOthers();
  }

  function zoom() {
    var button = document.querySelector(".board-zoom");
    var frame = document.querySelector(".board-frame");
    if (!button || !frame || !button.hidden) {
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
