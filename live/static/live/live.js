// Live pages: listen to the site's event stream (Server-Sent Events) and, when the game or the
// player's games change, fetch this page again and swap its live regions and title.
// The stream says only which game moved (never a card): the page's own view comes over the
// ordinary authenticated GET, as a reload would show it. Without JavaScript nothing changes.
(function () {
  "use strict";
  var body = document.body;
  var url = body.dataset.liveUrl;
  if (!url || !window.EventSource || !window.fetch || !window.DOMParser) {
    return;
  }
  var game = body.dataset.liveGame || "";
  var lobby = body.dataset.liveLobby === "1"; // the lobby: every open game too
  var since = body.dataset.liveSince || ""; // the state this page shows (the SSE event id)
  var delay = 1000;
  var fetching = false;
  var again = false;

  function streamUrl() {
    var query = new URLSearchParams();
    if (game) { query.set("game", game); }
    if (lobby) { query.set("lobby", "1"); }
    if (since) { query.set("since", since); }
    return url + "?" + query.toString();
  }

  // What the reader is doing in a region survives its swap: the text typed into a field and
  // the open <details> marked data-live-keep (by id), and the focus with its selection.
  function kept() {
    var values = {};
    document.querySelectorAll("[data-live-keep][id]").forEach(function (el) {
      values[el.id] = el.tagName === "DETAILS" ? el.open : el.value;
    });
    var active = document.activeElement;
    var focus = active && active.id && active.hasAttribute("data-live-keep") ? {
      id: active.id, start: active.selectionStart, end: active.selectionEnd
    } : null;
    return { values: values, focus: focus };
  }

  function restore(state) {
    Object.keys(state.values).forEach(function (id) {
      var el = document.getElementById(id);
      if (!el || !el.hasAttribute("data-live-keep")) { return; }
      if (el.tagName === "DETAILS") { el.open = state.values[id]; } else { el.value = state.values[id]; }
    });
    var focus = state.focus && document.getElementById(state.focus.id);
    if (focus) {
      focus.focus();
      if (state.focus.start !== null && focus.setSelectionRange) {
        focus.setSelectionRange(state.focus.start, state.focus.end);
      }
    }
  }

  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    var state = kept();
    document.title = fresh.title;
    document.querySelectorAll("[data-live-region]").forEach(function (region) {
      var other = region.id && fresh.getElementById(region.id);
      if (other) { region.innerHTML = other.innerHTML; }
    });
    restore(state);
    since = fresh.body.dataset.liveSince || since;
    body.dataset.liveSince = since;
    document.dispatchEvent(new CustomEvent("live:updated"));
  }

  function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    fetch(window.location.href, { credentials: "same-origin", headers: { "X-Live": "1" } })
      .then(function (response) {
        if (!response.ok) { throw new Error(String(response.status)); }
        return response.text();
      })
      .then(swap)
      .catch(function () { /* the next change or reconnect tries again */ })
      .then(function () {
        fetching = false;
        if (again) { again = false; refresh(); }
      });
  }

  function connect() {
    var source = new EventSource(streamUrl(), { withCredentials: true });
    source.addEventListener("open", function () {
      delay = 1000;
      body.dataset.liveState = "open";
    });
    source.addEventListener("change", function (event) {
      // a table talk message at this page's game leaves the game's state as it was: fetch
      var data = {};
      try { data = JSON.parse(event.data || "{}"); } catch (error) { data = {}; }
      var talk = data.message && game && String(data.game) === game;
      if (!talk && event.lastEventId && event.lastEventId === since) { return; } // shown already
      refresh();
    });
    source.addEventListener("error", function () {
      // reconnect ourselves, with back-off and jitter, sending the last state seen
      source.close();
      body.dataset.liveState = "closed";
      window.setTimeout(connect, delay + Math.random() * delay / 2);
      delay = Math.min(delay * 2, 30000);
    });
  }

  connect();
}());
