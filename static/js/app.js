// ShuffleUp on every page (issue 5): the light/dark toggle and the service worker (cached assets,
// the offline page). base.html's inline script applies a saved theme before the first paint.
(() => {
  "use strict";
  const D = document, root = D.documentElement, KEY = "shuffleup-theme";
  const script = D.currentScript;            // deferred classic scripts still have it while they run
  const COLOURS = { dark: "#101418", light: "#fbfbf8" };  // app.css's --bg in each theme

  function show(theme) {
    root.dataset.theme = theme;
    const meta = D.querySelector('meta[name="theme-color"]');
    if (meta) meta.content = COLOURS[theme];
    for (const button of D.querySelectorAll("[data-theme-toggle]")) {
      button.setAttribute("aria-pressed", theme === "light");
      button.hidden = false;
    }
  }
  show(root.dataset.theme === "light" ? "light" : "dark");
  D.addEventListener("click", e => {
    if (!e.target.closest || !e.target.closest("[data-theme-toggle]")) return;
    const theme = root.dataset.theme === "light" ? "dark" : "light";
    show(theme);
    try { localStorage.setItem(KEY, theme); } catch (err) { /* private mode: this page only */ }
  });

  // Registered after the page has loaded, so the worker's downloads never slow the first paint.
  // Offline there is nothing to fetch: the next online visit registers or updates it.
  const sw = script && script.dataset.sw;
  if (sw && "serviceWorker" in navigator && navigator.onLine !== false) {
    addEventListener("load", () => { navigator.serviceWorker.register(sw).catch(() => {}); });
  }
  // The offline page tries the page again by itself as soon as the phone is back online.
  if (D.querySelector("[data-offline]")) addEventListener("online", () => location.reload());
})();
