// "Tell me when I move": this phone's Web Push subscription for its member (POST/DELETE /me/push).
// The browser's permission is asked only after the tap (browsers ignore or block a prompt that comes
// unasked); on iPhone push needs the app on the home screen (iOS 16.4+), so the switch says how.
const box = document.querySelector("[data-push]");
const button = box && box.querySelector("button");
const note = box && box.querySelector("[data-push-note]");

const say = text => { note.textContent = text; };
const pressed = on => {
  button.setAttribute("aria-pressed", String(on));
  button.textContent = on ? "Telling me when I move: tap to stop" : "Tell me when I move";
};

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, c => c.charCodeAt(0));
}

async function send(method, body) {
  const answer = await fetch(box.dataset.subscribe, {
    method, body: JSON.stringify(body), credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": box.dataset.csrf },
  });
  if (!answer.ok) {
    const reason = await answer.json().catch(() => ({}));
    throw new Error(reason.error || "The server said no: try again in a moment.");
  }
}

async function turnOn(registration) {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") {
    say("Notifications are blocked for this site: allow them in the browser's settings, then tap again.");
    return;
  }
  const { public_key: key } = await (await fetch(box.dataset.key)).json();
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  await send("POST", subscription.toJSON());
  pressed(true);
  say("Done: this phone will buzz when your seat moves, your penalty is over, or the results are up.");
}

async function turnOff(registration) {
  const subscription = await registration.pushManager.getSubscription();
  if (subscription) {
    await send("DELETE", { endpoint: subscription.endpoint });
    await subscription.unsubscribe();
  }
  pressed(false);
  say("Stopped: this phone won't be told any more.");
}

async function start() {
  const ios = /iP(hone|ad|od)/.test(navigator.userAgent);
  const home = navigator.standalone === true || matchMedia("(display-mode: standalone)").matches;
  box.hidden = false;
  if (!("serviceWorker" in navigator && "PushManager" in window && "Notification" in window)) {
    button.disabled = true;
    say(ios && !home ? "On iPhone: tap Share, then Add to Home Screen, open ShuffleUp from there and tap this again."
      : "This browser can't show notifications: the clock page still shows your seat.");
    return;
  }
  const registration = await navigator.serviceWorker.ready;
  pressed(Boolean(await registration.pushManager.getSubscription()) && Notification.permission === "granted");
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await (button.getAttribute("aria-pressed") === "true" ? turnOff(registration) : turnOn(registration));
    } catch (problem) {
      say(problem.message || "That didn't work: try again in a moment.");
    } finally {
      button.disabled = false;
    }
  });
}

if (box) start();
