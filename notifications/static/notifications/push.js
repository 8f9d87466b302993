// The settings page's "Allow on this device" (Web Push): registers the site's service worker
// (/sw.js), subscribes with the site's VAPID public key and posts the subscription to the
// site. Without a browser that can, the button says so and does nothing.
"use strict";

(function () {
  const form = document.getElementById("push-subscribe");
  if (!form) return;
  const status = document.getElementById("push-status");
  const say = (text) => {
    if (status) status.textContent = text;
  };
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !window.isSecureContext) {
    say(form.dataset.unsupported);
    form.querySelector("button").disabled = true;
    return;
  }

  function keyBytes(base64url) {
    const padded = (base64url + "===".slice((base64url.length + 3) % 4))
      .replace(/-/g, "+")
      .replace(/_/g, "/");
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") {
        say(form.dataset.denied);
        return;
      }
      const registration = await navigator.serviceWorker.register(form.dataset.worker, {
        scope: "/",
      });
      await navigator.serviceWorker.ready;
      const subscription =
        (await registration.pushManager.getSubscription()) ||
        (await registration.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: keyBytes(form.dataset.key),
        }));
      const response = await fetch(form.action, {
        method: "POST",
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/json",
          "X-CSRFToken": form.querySelector("[name=csrfmiddlewaretoken]").value,
        },
        body: JSON.stringify(subscription.toJSON()),
      });
      if (!response.ok) throw new Error(String(response.status));
      window.location.reload();
    } catch (error) {
      say(form.dataset.failed);
    }
  });
})();
