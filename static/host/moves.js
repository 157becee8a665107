// The tables' moves on the host's roster (players.html, host/_moves.html): Next shows the following
// move and leaves this one for later. After a tap in the panel (fixed to the foot of the screen) the
// roster stays where the host had scrolled it, which the redraw would lose (the button tapped is
// gone, so roster.js has nothing to keep in place), and the thumb stays in the panel, on its first
// button.
(() => {
  "use strict";
  const D = document;
  const first = () => D.querySelector("[data-moves] li:not([hidden]) button, [data-moves] button");
  D.addEventListener("click", e => {
    const next = e.target.closest && e.target.closest("[data-move-next]");
    if (!next) return;
    const move = next.closest("[data-move]"), moves = [...move.parentElement.children];
    const following = moves[(moves.indexOf(move) + 1) % moves.length];
    move.hidden = true;
    following.hidden = false;
    following.querySelector("button").focus();
  });
  let tapped = null;  // where the roster was scrolled when a button in the panel was tapped
  D.addEventListener("submit", e => {
    tapped = e.submitter && e.submitter.closest("[data-moves]") ? scrollY : null;
  }, true);
  D.addEventListener("htmx:afterSwap", () => { if (tapped !== null) scrollTo(0, tapped); });
  D.addEventListener("htmx:afterSettle", () => {
    if (tapped === null) return;
    scrollTo(0, tapped);
    tapped = null;
    const refusal = D.querySelector("[data-moves] #refusal");
    const panel = D.querySelector("[data-moves]");
    if (panel) (refusal || first() || panel).focus({ preventScroll: true });
  });
})();
