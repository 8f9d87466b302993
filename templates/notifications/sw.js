// The site's service worker (served from /sw.js, scope "/"): shows the Web Push messages the
// site sends (notifications/channels/push.py) and opens the game a message names when it is
// tapped. The message holds the game's title, what happened and its address: nothing hidden.
//
// It also makes the site an installable app (keltis_site/app_shell.py): it keeps the offline
// page and the few static files that page needs, and answers a page that cannot be loaded
// with it. It keeps nothing else, ever: no page of a player (an old game page would show an
// old hand), no API answer. Every other request goes to the network as if it were not here.
"use strict";

const OFFLINE_URL = {{ offline_url }};
const PRECACHE = {{ precache }};
const CACHE_PREFIX = {{ cache_prefix }};
// changes with the offline page and the files' addresses: a new worker, a new cache
const CACHE = {{ cache_name }};
const KEPT = new Set(PRECACHE.map((url) => new URL(url, self.location.origin).href));

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      // past the HTTP cache: the page in the language and the version of today
      .then((cache) => cache.addAll(PRECACHE.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting())
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(
        names
          .filter((name) => name.startsWith(CACHE_PREFIX) && name !== CACHE)
          .map((name) => caches.delete(name))
      );
      // the page's request starts while the worker wakes up: no delay added to a navigation
      if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
      await self.clients.claim(); // the page that installed it is offline-ready at once
    })()
  );
});

async function pageOrOffline(event) {
  try {
    const preloaded = await event.preloadResponse;
    if (preloaded) return preloaded;
    return await fetch(event.request);
  } catch (error) {
    // no network (an answer of the site, even an error page, is passed on as it is)
    const page = await caches.match(OFFLINE_URL, { cacheName: CACHE, ignoreVary: true });
    return page || Response.error();
  }
}

async function keptFile(request) {
  try {
    return await fetch(request);
  } catch (error) {
    const file = await caches.match(request, { cacheName: CACHE, ignoreVary: true });
    return file || Response.error();
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return; // a move, a form: the network's alone
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(pageOrOffline(event));
  } else if (KEPT.has(url.href)) {
    event.respondWith(keptFile(request)); // the offline page's own CSS and icon
  }
});

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (error) {
    data = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(
    self.registration.showNotification(data.title || "Keltis by mail", {
      body: data.body || "",
      tag: data.tag || undefined,
      data: { url: data.url || "/" },
    })
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  let target = new URL("/", self.location.origin);
  try {
    const url = new URL((event.notification.data || {}).url || "/", self.location.origin);
    if (url.origin === self.location.origin) target = url; // only the site's own pages
  } catch (error) {
    // a malformed address: the home page
  }
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      for (const client of windows) {
        if (client.url === target.href && "focus" in client) return client.focus();
      }
      return self.clients.openWindow(target.href);
    })
  );
});
