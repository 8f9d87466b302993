// The history's replay, stepped in the browser: one page load holds every position
// (#replay-data, from games.presenters.replay: frame 0 whole, then only what changed) and the
// record of every move, and the stepper's links, ← → Home End and a sideways swipe redraw the
// server-drawn position in place. The server draws one page of the move list; the others are
// drawn here from the record, so that the page is as small for 600 moves as for 20.
// Without JavaScript the ?step= links load each position as a page of its own.
(function () {
  "use strict";
  var source = document.getElementById("replay-data");
  var section = document.querySelector(".replay");
  if (!source || !section) {
    return;
  }
  var data = JSON.parse(source.textContent);
  var frames = data.frames;
  var last = frames.length - 1;
  var words = data.words;
  var SVG = "http://www.w3.org/2000/svg";
  var states = [];  // the whole frame at each step, built on first need

  function merge(base, change) {
    var out = Object.assign({}, base);
    Object.keys(change).forEach(function (key) {
      if (key === "players") {
        out.players = base.players.map(function (player, index) {
          var fields = change.players[String(index)];
          if (!fields) {
            return player;
          }
          var merged = Object.assign({}, player, fields);
          if (fields.cols) {
            merged.cols = Object.assign({}, player.cols, fields.cols);
          }
          return merged;
        });
      } else if (key === "piles") {
        out.piles = Object.assign({}, base.piles, change.piles);
      } else {
        out[key] = change[key];
      }
    });
    return out;
  }

  function fill(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (all, name) {
      return name in values ? values[name] : all;
    });
  }

  function state(step) {
    for (var i = states.length; i <= step; i++) {
      states.push(i === 0 ? frames[0] : merge(states[i - 1], frames[i]));
    }
    return states[step];
  }

  function chip(code) {
    var card = data.cards[code] || ["kcard-unknown", code, code];
    var span = document.createElement("span");
    span.className = "kcard " + card[0];
    span.title = card[2];
    var name = document.createElement("span");
    name.className = "vh";
    name.textContent = card[2];
    var face = document.createElement("span");
    face.setAttribute("aria-hidden", "true");
    face.textContent = card[1];
    span.append(name, face);
    return span;
  }

  function dash() {
    var span = document.createElement("span");
    span.className = "muted";
    span.textContent = "—";
    return span;
  }

  function fillCards(cell, codes) {
    if (!cell) {
      return;
    }
    var list = codes ? codes.split(" ") : [];
    cell.replaceChildren.apply(cell, list.length ? list.map(chip) : [dash()]);
  }

  function setText(selector, text, root) {
    var node = (root || section).querySelector(selector);
    if (node) {
      node.textContent = text;
    }
  }

  // a seat's figure as the server draws it (its shape, colours and, when big, its mark), at the
  // size of the drawing it stands on (the icons beside the columns: the wide board's)
  function figureBody(seat, big, layout) {
    var shape = data.figures[seat + "-" + big];
    var sized = layout ? layout.shapes[seat + "-" + big] : [shape.r, shape.points];
    var body = document.createElementNS(SVG, shape.shape === "circle" ? "circle" : "polygon");
    if (shape.shape === "circle") {
      body.setAttribute("r", sized[0]);
    } else {
      body.setAttribute("points", sized[1]);
    }
    body.setAttribute("fill", shape.fill);
    body.setAttribute("stroke", shape.stroke);
    var nodes = [body];
    if (big) {
      var mark = document.createElementNS(SVG, "circle");
      mark.setAttribute("r", "2.6");
      mark.setAttribute("fill", shape.mark);
      nodes.push(mark);
    }
    return nodes;
  }

  // "Anna: big figure on stone 4 of the green path", worded as the server words it
  function figureTitle(seat, big, colour, stone) {
    var where = colour
      ? fill(words.figure_on, { stone: stone, colour: words.colours[colour] || colour })
      : words.figure_start;
    return (data.names[seat] || "") + ": " + words.figure[big ? 1 : 0] + " " + where;
  }

  function figureGroup(seat, big) {
    var g = document.createElementNS(SVG, "g");
    g.setAttribute("class", "figure" + (big ? " figure-big" : ""));
    return g;
  }

  // the small drawing of a figure beside its column (games/_figure_icon.html)
  function figureIcon(seat, big) {
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("class", "figure-icon");
    svg.setAttribute("viewBox", "-11 -11 22 22");
    svg.setAttribute("width", "22");
    svg.setAttribute("height", "22");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    var g = figureGroup(seat, big);
    g.append.apply(g, figureBody(seat, big));
    svg.append(g);
    return svg;
  }

  // each drawing of the board on the page (the wide one, the narrow one): its layout's figure
  // places (data.boards) and its stones' centres, read off the drawing once
  var boards = [];
  section.querySelectorAll(".board-svg").forEach(function (svg) {
    var layer = svg.querySelector(".figures");
    var layout = (data.boards || {})[svg.classList.contains("board-svg--narrow") ? "narrow" : "wide"];
    if (!layer || !layout) {
      return;
    }
    var centres = {};
    svg.querySelectorAll(".stone[data-stone]").forEach(function (stone) {
      var circle = stone.querySelector(":scope > circle");
      if (circle) {
        centres[stone.getAttribute("data-stone")] = [
          Number(circle.getAttribute("cx")), Number(circle.getAttribute("cy")),
        ];
      }
    });
    boards.push({ layer: layer, layout: layout, centres: centres });
  });

  // a step's figures ([seat, big, colour, stone]: "" and 0 on the start stone) on every
  // drawing of the board, each placed as that drawing's layout places it
  function drawFigures(figures) {
    boards.forEach(function (board) {
      var waiting = {};
      board.layer.replaceChildren.apply(board.layer, figures.map(function (f) {
        var seat = f[0];
        var x;
        var y;
        if (f[2]) {
          var centre = board.centres[f[2] + f[3]];
          var slot = board.layout.slots[seat];
          x = centre[0] + slot[0];
          y = centre[1] + slot[1];
        } else {
          waiting[seat] = (waiting[seat] || 0) + 1;
          var place = board.layout.start[seat][waiting[seat] - 1];
          x = place[0];
          y = place[1];
        }
        var g = figureGroup(seat, f[1]);
        g.setAttribute("data-seat", seat);
        g.setAttribute("transform", "translate(" + x + " " + y + ")");
        var title = document.createElementNS(SVG, "title");
        title.textContent = figureTitle(seat, f[1], f[2], f[3]);
        g.append(title);
        g.append.apply(g, figureBody(seat, f[1], board.layout));
        return g;
      }));
    });
  }

  function drawTiles(tiles) {
    section.querySelectorAll(".board-svg .stone[data-stone]").forEach(function (stone) {
      var tile = stone.querySelector(".tile");
      if (tile) {
        tile.style.display = tiles.indexOf(stone.getAttribute("data-stone")) >= 0 ? "" : "none";
      }
    });
  }

  function drawPiles(piles, fresh) {
    Object.keys(piles).forEach(function (key) {
      var item = section.querySelector(".pile-" + key);
      if (!item) {
        return;
      }
      var top = piles[key][0];
      var card = item.querySelector(".kcard");
      var drawn;
      if (top) {
        drawn = chip(top);
      } else {
        drawn = document.createElement("span");
        drawn.className = "kcard kcard-empty";
        drawn.title = words.empty;
        var empty = document.createElement("span");
        empty.className = "vh";
        empty.textContent = words.empty;
        drawn.append(empty);
      }
      if (card) {
        card.replaceWith(drawn);
      } else {
        item.prepend(drawn);
      }
      setText(".pile-size", words.cards[piles[key][1]], item);
      // "discarded this turn": it may not be taken back in the turn it was discarded
      var isFresh = Boolean(top) && (fresh || []).indexOf(key) >= 0;
      var note = item.querySelector(".pile-note");
      if (isFresh && !note) {
        note = document.createElement("span");
        note.className = "pile-note";
        note.textContent = words.fresh;
        item.append(note);
      } else if (!isFresh && note) {
        note.remove();
      }
      item.classList.toggle("pile-fresh", isFresh);
    });
  }

  function drawPlayer(player, index, toMove) {
    var panel = section.querySelector('.player[data-seat="' + index + '"]');
    if (!panel) {
      return;
    }
    panel.classList.toggle("player-to-move", toMove === index);
    var badge = panel.querySelector(".badge--turn");
    if (toMove === index && !badge) {
      badge = document.createElement("span");
      badge.className = "badge badge--turn";
      badge.textContent = words.to_move;
      panel.querySelector(".score").before(badge, " ");
    } else if (toMove !== index && badge) {
      badge.remove();
    }
    setText(".score", player.score, panel);
    Object.keys(player.cols).forEach(function (colour) {
      var col = player.cols[colour];
      var row = panel.querySelector(".column-" + colour);
      if (!row) {
        return;
      }
      row.classList.toggle("column-empty", !col[0]);
      fillCards(row.querySelector(".column-cards"), col[0]);
      var dir = row.querySelector(".column-dir");
      var order = words.dirs[col[1]] || ["", ""];
      if (dir) {
        // the arrow for the eye, its words for a screen reader, as the server writes them
        dir.title = order[1];
        dir.replaceChildren();
        if (order[0]) {
          var arrow = document.createElement("span");
          arrow.setAttribute("aria-hidden", "true");
          arrow.textContent = order[0];
          var said = document.createElement("span");
          said.className = "vh";
          said.textContent = order[1];
          dir.append(arrow, said);
        }
        var closedWord = col[2] === "s" ? words.sealed : col[2] === "c" ? words.closed : "";
        if (closedWord) {
          var badge = document.createElement("span");
          badge.className = "badge";
          badge.textContent = closedWord;
          dir.append(" ", badge);
        }
      }
      var fig = row.querySelector(".column-figure");
      if (fig) {
        fig.replaceChildren();
        fig.title = "";
        if (col[3] >= 0) {
          var big = col[4] ? 1 : 0;
          fig.title = figureTitle(index, big, colour, col[3]);
          fig.append(figureIcon(index, big), " " + words.stone[col[3]]);
        }
      }
    });
    if ("points" in player) {
      fillCards(panel.querySelector(".column-points .column-cards"), player.points);
      fillCards(panel.querySelector(".column-stones .column-cards"), player.stones);
    }
    var facts = [];
    if ("wish" in player) {
      facts.push(fill(words.facts[0], { n: player.wish }), fill(words.facts[1], { n: player.tiles }),
        fill(words.facts[2], { s: player.start }));
    }
    facts.push(fill(words.facts[3], { n: player.in_hand }));
    setText(".player-facts", facts.join(" · "), panel);
    if ("hand" in player) {
      fillCards(panel.querySelector(".player-hand .hand"), player.hand);
    }
  }

  function drawStatus(frame) {
    var status = section.querySelector(".replay-next");
    if (!status) {
      return;
    }
    if (frame.to_move === null || frame.to_move === undefined) {
      status.textContent = words.over;
      return;
    }
    var escape = function (text) {
      var span = document.createElement("span");
      span.textContent = text;
      return span.innerHTML;
    };
    // the sentence is the site's own translation; only the name and phase are filled in
    status.innerHTML = fill(words.next, {
      name: escape(data.names[frame.to_move] || ""),
      phase: escape(data.phases[frame.phase] || ""),
    });
  }

  var moves = data.moves || [];
  var table = document.querySelector(".history-table");
  var body = table ? table.tBodies[0] : null;
  var pageSize = data.page || 20;
  var listFirst = table ? Number(table.getAttribute("data-first")) : 1;
  var talkSeqs = table ? (table.getAttribute("data-talk") || "").split(" ").filter(Boolean).map(Number) : [];
  // the rows the server drew for its page of the list: each move's, and the table talk after
  // each move (0: before the first), kept so that they come back with that page
  var serverRows = {};
  var serverTalk = {};
  var serverFirst = listFirst;
  var serverLast = table ? Number(table.getAttribute("data-last")) : 0;
  if (body) {
    var after = 0;
    Array.prototype.forEach.call(body.rows, function (row) {
      if (/^move-\d+$/.test(row.id)) {
        after = Number(row.id.slice(5));
        serverRows[after] = row;
      } else {
        (serverTalk[after] = serverTalk[after] || []).push(row);
      }
    });
  }

  function seatIcon(seat) {
    var icon = document.createElement("i");
    icon.className = "seat-icon s" + seat;
    return icon;
  }

  // what a move did, as the list words it: the text and, for a bot's or a clock's, a note
  function moveWords(move) {
    var nodes = [document.createTextNode(move[1])];
    if (move[3]) {
      var note = document.createElement("span");
      note.className = "event-source event-source--" + move[2];
      note.textContent = move[3];
      nodes.push(document.createTextNode(" "), note);
    }
    return nodes;
  }

  function moveRow(seq) {
    var move = moves[seq - 1];
    var row = document.createElement("tr");
    row.id = "move-" + seq;
    var number = document.createElement("a");
    number.href = "?step=" + seq;
    number.textContent = seq;
    var time = document.createElement("time");
    time.setAttribute("datetime", move[4]);
    time.textContent = move[5];
    var cells = [[number], [seatIcon(move[0]), " " + (data.names[move[0]] || "")], moveWords(move), [time]];
    cells.forEach(function (nodes) {
      var cell = document.createElement("td");
      cell.append.apply(cell, nodes);
      row.append(cell);
    });
    return row;
  }

  // table talk the server did not draw (another page of the list): a link to the page that shows it
  function talkLink(seq) {
    var row = document.createElement("tr");
    row.className = "talk-row";
    var mark = document.createElement("td");
    var bubble = document.createElement("span");
    bubble.setAttribute("aria-hidden", "true");
    bubble.textContent = "💬";
    mark.append(bubble);
    var cell = document.createElement("td");
    cell.colSpan = 3;
    var link = document.createElement("a");
    link.href = "?step=" + seq + (seq ? "#move-" + seq : "#history-title");
    link.className = "talk-elsewhere";
    link.textContent = words.talk;
    cell.append(link);
    row.append(mark, cell);
    return row;
  }

  // the table talk after move ``seq`` (0: before the first; after the last move, all that
  // came later): the server's rows on its own page, elsewhere a link to the page that has them
  function talkRows(seq) {
    var drawn = seq === 0 ? serverFirst === 1 : serverFirst <= seq && seq <= serverLast;
    if (drawn) {
      return serverTalk[seq] || [];
    }
    var later = seq > 0 && seq === moves.length;
    var has = talkSeqs.some(function (s) { return s === seq || (later && s > seq); });
    return has ? [talkLink(seq)] : [];
  }

  var pager = document.querySelector(".moves-pager");

  function pagerLink(link, to) {
    if (!link) {
      return;
    }
    var off = to === null;
    link.classList.toggle("disabled", off);
    if (off) {
      link.removeAttribute("href");
      link.setAttribute("role", "link");
      link.setAttribute("aria-disabled", "true");
    } else {
      link.href = "?step=" + to + "#history-title";
      link.removeAttribute("role");
      link.removeAttribute("aria-disabled");
    }
  }

  // the page of the list from move ``first`` on, drawn from the record
  function drawList(first) {
    if (!body || !moves.length) {
      return;
    }
    first = Math.max(1, Math.min(first, moves.length));
    var lastShown = Math.min(moves.length, first + pageSize - 1);
    listFirst = first;
    var rows = first === 1 ? talkRows(0) : [];
    for (var seq = first; seq <= lastShown; seq++) {
      rows.push(serverRows[seq] || moveRow(seq));
      rows = rows.concat(talkRows(seq));
    }
    body.replaceChildren.apply(body, rows);
    if (pager) {
      setText(".moves-shown", fill(words.shown, { first: first, last: lastShown, total: moves.length }), pager);
      pagerLink(pager.querySelector(".moves-earlier"), first > 1 ? first - 1 : null);
      pagerLink(pager.querySelector(".moves-later"), lastShown < moves.length ? lastShown + 1 : null);
    }
  }

  function pageOf(step) {
    return Math.floor((Math.max(step, 1) - 1) / pageSize) * pageSize + 1;
  }

  function drawEvent(step) {
    var line = section.querySelector(".current-event");
    var move = step > 0 ? moves[step - 1] : null;
    if (line) {
      line.replaceChildren();
      if (move) {
        line.append(seatIcon(move[0]), " ");
        line.append.apply(line, moveWords(move));
      }
    }
    if (body && step > 0 && (step < listFirst || step >= listFirst + pageSize)) {
      drawList(pageOf(step));
    }
    document.querySelectorAll(".history-table tr.current").forEach(function (tr) {
      tr.classList.remove("current");
    });
    var row = document.getElementById("move-" + step);
    if (row) {
      row.classList.add("current");
    }
    return move;
  }

  var current = Number(section.getAttribute("data-step"));
  var said = document.getElementById("replay-said");
  var stepper = section.querySelector(".stepper");
  var links = {};
  ["first", "prev", "next", "last"].forEach(function (name) {
    links[name] = stepper.querySelector(".step-" + name);
  });

  // a stepper link: to a position's own URL, or switched off at either end
  function stepLink(name, to, off, rel) {
    var link = links[name];
    link.classList.toggle("disabled", off);
    if (off) {
      link.removeAttribute("href");
      link.removeAttribute("id");
      link.removeAttribute("rel");
      link.setAttribute("role", "link");
      link.setAttribute("aria-disabled", "true");
    } else {
      link.id = "step-" + name;
      link.href = "?step=" + to;
      if (rel) {
        link.rel = rel;
      }
      link.removeAttribute("role");
      link.removeAttribute("aria-disabled");
    }
  }

  function show(step, announce) {
    step = Math.max(0, Math.min(last, step));
    current = step;
    var frame = state(step);
    var title = step === 0 ? words.start : fill(words.after, { step: step, last: last });
    setText("#replay-title", title);
    if (frame.figures) {
      drawFigures(frame.figures);
      drawTiles(frame.tiles);
      setText(".goal-count .goal-text", words.goal[frame.goal]);
    }
    drawPiles(frame.piles, frame.fresh);
    setText(".deck .deck-text", words.deck[frame.deck]);
    frame.players.forEach(function (player, index) {
      drawPlayer(player, index, frame.to_move);
    });
    if (frame.free) {
      section.querySelectorAll(".stone-row li").forEach(function (item, index) {
        var free = frame.free.indexOf("W" + (index + 1)) >= 0;
        item.className = free ? "stone-free" : "stone-taken";
        setText(".vh", free ? words.free : words.taken, item);
      });
      setText(".closed-rows", frame.closed);
    }
    drawStatus(frame);
    var move = drawEvent(step);
    setText(".step-now", step + " / " + last);
    stepLink("first", 0, step === 0);
    stepLink("prev", step - 1, step === 0, "prev");
    stepLink("next", step + 1, step === last, "next");
    stepLink("last", last, step === last);
    if (announce && said) {
      // one sentence for a screen reader: where the replay is, and the move that led there
      said.textContent = title + (move ? ": " + move[1] : "");
    }
    var url = new URL(window.location.href);
    url.searchParams.set("step", step);
    window.history.replaceState(null, "", url);
  }

  var targets = {
    first: function () { return 0; },
    prev: function () { return current - 1; },
    next: function () { return current + 1; },
    last: function () { return last; },
  };
  Object.keys(links).forEach(function (name) {
    links[name].addEventListener("click", function (event) {
      event.preventDefault();
      if (!links[name].classList.contains("disabled")) {
        show(targets[name](), true);
      }
    });
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(target.tagName))) {
      return;
    }
    var to = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: last }[event.key];
    if (to !== undefined) {
      event.preventDefault();
      show(to, true);
    }
  });

  var touch = null;
  section.addEventListener("touchstart", function (event) {
    touch = event.touches.length === 1 ? event.touches[0] : null;
  }, { passive: true });
  section.addEventListener("touchend", function (event) {
    if (!touch) {
      return;
    }
    var end = event.changedTouches[0];
    var dx = end.clientX - touch.clientX;
    var dy = end.clientY - touch.clientY;
    touch = null;
    if (Math.abs(dx) > 50 && Math.abs(dx) > 2 * Math.abs(dy)) {
      show(dx < 0 ? current + 1 : current - 1, true);  // swipe left: forward, as pages turn
    }
  });

  // the move list's step links step in place too; its pager turns its pages without a load
  if (body) {
    body.addEventListener("click", function (event) {
      var link = event.target.closest("a");
      if (!link || link.classList.contains("talk-elsewhere") || !/^\?step=\d+$/.test(link.getAttribute("href") || "")) {
        return;
      }
      event.preventDefault();
      show(Number(link.getAttribute("href").slice(6)), true);
      section.scrollIntoView({ block: "start" });
    });
  }
  if (pager) {
    pager.addEventListener("click", function (event) {
      var link = event.target.closest("a");
      if (!link) {
        return;
      }
      event.preventDefault();
      if (link.classList.contains("disabled")) {
        return;
      }
      drawList(link.classList.contains("moves-earlier") ? listFirst - pageSize : listFirst + pageSize);
    });
  }

  section.classList.add("replay-live");
  show(current, false);  // the server's drawing, drawn as each step draws it (the same elements)
})();
