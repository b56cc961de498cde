/* The site's service worker, served at /sw.js (scope: the whole site; notices/views.py).
 * - Install: keeps a small offline page, so the app opens with a clear message when there is no network.
 * - Fetch: pages come from the network always (tables are live); only a failed page load gets the
 *   offline page. Nothing else is cached.
 * - Push: shows the notice the site sent ({"title", "body", "url", "tag"}: never a card) and opens its
 *   link when tapped. */
"use strict";
var CACHE = "home-club-offline-v1";
var OFFLINE = "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">" +
  "<title>Offline \u00B7 Home club</title><body style=\"font-family:system-ui,sans-serif;padding:2rem\">" +
  "<h1>You are offline</h1><p>The club's tables need a connection. Try again when you are back online.</p></body></html>";

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return cache.put("/offline", new Response(OFFLINE, { headers: { "Content-Type": "text/html; charset=utf-8" } }));
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k !== CACHE; }).map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (event) {
  if (event.request.mode !== "navigate" || event.request.method !== "GET") return;  // form posts go as they are
  event.respondWith(fetch(event.request).catch(function () { return caches.match("/offline"); }));
});

function sameSite(url) {
  try { return new URL(url, self.location.origin).origin === self.location.origin ? url : "/"; } catch (e) { return "/"; }
}

self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = {}; }
  var title = typeof data.title === "string" ? data.title : "Home club";
  event.waitUntil(self.registration.showNotification(title, {
    body: typeof data.body === "string" ? data.body : "",
    tag: typeof data.tag === "string" ? data.tag : undefined,
    icon: "/static/icons/icon-192.png",
    data: { url: sameSite(typeof data.url === "string" ? data.url : "/") }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
    for (var i = 0; i < windows.length; i += 1) {
      if (windows[i].url === url && "focus" in windows[i]) return windows[i].focus();
    }
    return self.clients.openWindow(url);
  }));
});
