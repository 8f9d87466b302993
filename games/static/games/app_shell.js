// Every page (templates/base.html): registers the site's service worker (/sw.js, scope "/"),
// which makes the site installable as an app and shows the offline page when a page cannot
// be loaded (keltis_site/app_shell.py). The settings page's push button registers the same
// worker (notifications/static/notifications/push.js). Without a browser that can, nothing.
"use strict";

(function () {
  const script = document.currentScript;
  if (!script || !("serviceWorker" in navigator) || !window.isSecureContext) return;
  const worker = script.dataset.worker;
  // after the page has loaded: the worker's first install never competes with the page
  window.addEventListener("load", () => {
    navigator.serviceWorker.register(worker, { scope: "/" }).catch(() => {
      // a browser that refuses (private mode, storage full): the site works as before
    });
  });
})();
