// The site's service worker (served from /sw.js, scope "/"): shows the Web Push messages the
// site sends (notifications/channels/push.py) and opens the game a message names when it is
// tapped. The message holds the game's title, what happened and its address: nothing hidden.
"use strict";

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
