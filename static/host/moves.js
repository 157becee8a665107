// The tables' moves on the host's roster (players.html, host/_moves.html): Next shows the following
// move and leaves this one for later; after a tap in the panel the thumb stays there, on its first
// button, since the roster's redraw replaces the button tapped.
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
  let tapped = false;
  D.addEventListener("submit", e => { tapped = !!(e.submitter && e.submitter.closest("[data-moves]")); }, true);
  D.addEventListener("htmx:afterSettle", () => {
    if (!tapped) return;
    tapped = false;
    const refusal = D.querySelector("[data-moves] #refusal");
    const panel = D.querySelector("[data-moves]");
    if (panel) (refusal || first() || panel).focus({ preventScroll: true });
  });
})();
