// ShuffleUp's service worker, served from the site root by play.service_worker.
// Static assets: the shell's (play/shell.py PRECACHE) precached at install under a versioned cache
// (the version hashes the static files and the offline page at app start, so a deploy gives phones
// a fresh copy), any other the first time a page asks for it; then cache-first, by the whole URL
// (its ?v= hash included: a deploy's new file has a new URL).
// Pages: network-first, the offline page when the network fails; pages themselves are never cached.
// Push (Web Push, live/push.py): a message's decrypted JSON {title, body, url} is shown as a
// notification; a tap opens url (this site's own pages only), or focuses a tab already on it.
// Never touched: fragment requests (HX-Request, from htmx or the pages' own scripts: a fragment must
// never stand in for a page), /api/, the clock's event stream, anything but GET, other origins.
"use strict";
const VERSION = {{ version|tojson }};
const CACHE = "shuffleup-" + VERSION;
const PRECACHE = {{ precache|tojson }};
const OFFLINE = {{ offline|tojson }};
const STATIC = {{ static_prefix|tojson }};
const API = {{ api_prefix|tojson }};

self.addEventListener("install", event => {
  // The static files' URLs carry a hash of their content (the page's own URLs, wiring/precompressed.py):
  // any copy the HTTP cache holds (the page has just loaded them) is the right one, at no request.
  // The offline page's URL never changes: "no-cache" asks the server rather than trust a cached copy.
  event.waitUntil(caches.open(CACHE)
    .then(cache => cache.addAll(PRECACHE.map(url => url === OFFLINE ? new Request(url, { cache: "no-cache" }) : url)))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", event => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("shuffleup-") && name !== CACHE) await caches.delete(name);
    }
    // The page request starts while the worker boots, instead of after (slow phones, slow wifi).
    if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
    await self.clients.claim();
  })());
});

const bypass = (request, url) => request.method !== "GET" || url.origin !== self.location.origin
  || request.headers.has("HX-Request") || url.pathname.startsWith(API)
  || url.pathname.endsWith("/stream") || (request.headers.get("Accept") || "").includes("text/event-stream");

async function page(event) {
  try {
    return (await event.preloadResponse) || await fetch(event.request);
  } catch (error) {
    return (await caches.match(OFFLINE, { cacheName: CACHE, ignoreVary: true })) || Response.error();
  }
}

async function asset(event) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(event.request, { ignoreVary: true });
  if (hit) return hit;
  const response = await fetch(event.request);
  if (response.ok && response.type === "basic") event.waitUntil(cache.put(event.request, response.clone()));
  return response;
}

self.addEventListener("fetch", event => {
  const request = event.request, url = new URL(request.url);
  if (bypass(request, url)) {             // the browser fetches it as if there were no worker
    if (event.preloadResponse) event.waitUntil(event.preloadResponse.catch(() => {}));
    return;
  }
  if (request.mode === "navigate") event.respondWith(page(event));
  else if (url.pathname.startsWith(STATIC)) event.respondWith(asset(event));
});

self.addEventListener("push", event => {
  let message = {};
  try { message = event.data ? event.data.json() : {}; } catch (error) { message = { body: event.data.text() }; }
  event.waitUntil(self.registration.showNotification(message.title || "ShuffleUp", {
    body: message.body || "", data: { url: message.url || "/" }, lang: "en-AU",
  }));
});

self.addEventListener("notificationclick", event => {
  event.notification.close();
  const url = new URL((event.notification.data && event.notification.data.url) || "/", self.location.origin);
  if (url.origin !== self.location.origin) return;  // a message never sends a phone to another site
  event.waitUntil((async () => {
    for (const client of await self.clients.matchAll({ type: "window", includeUncontrolled: true })) {
      if (client.url === url.href && "focus" in client) return client.focus();
    }
    return self.clients.openWindow(url.href);
  })());
});
