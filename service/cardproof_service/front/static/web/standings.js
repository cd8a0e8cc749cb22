// src/standings-gate.ts
var main = document.getElementById("gate");
var tid = main.dataset["tournament"] ?? "";
var given = `cardproof:reader:${tid}`;
var timer;
function headersOf(credential) {
  return /^cp[eo]_/.test(credential) ? { Authorization: `Bearer ${credential}` } : { "X-Invite-Code": credential };
}
function entryToken() {
  try {
    const kept = JSON.parse(localStorage.getItem(`cardproof:entry:${tid}`) ?? "null");
    return typeof kept?.token === "string" ? kept.token : null;
  } catch {
    return null;
  }
}
function say(text) {
  const said = document.getElementById("said");
  if (said) said.textContent = text;
}
async function openWith(credential, typed) {
  let answer;
  try {
    answer = await fetch(`${location.pathname}${location.search}`, {
      headers: { Accept: "text/html", ...headersOf(credential) },
      credentials: "omit",
      cache: "no-store"
    });
  } catch {
    say("The standings could not be read: check your connection and try again.");
    return false;
  }
  if (answer.status === 401 || answer.status === 403) {
    if (typed) say("That invite code or token does not open this tournament's standings.");
    sessionStorage.removeItem(given);
    return false;
  }
  if (!answer.ok) {
    say(`The standings could not be read (HTTP ${answer.status}).`);
    return false;
  }
  const page = new DOMParser().parseFromString(await answer.text(), "text/html");
  const shown = page.querySelector("main");
  if (!shown) return false;
  if (typed) sessionStorage.setItem(given, credential);
  document.title = page.title;
  document.querySelector("main")?.replaceWith(document.importNode(shown, true));
  const refresh = Number.parseInt(page.querySelector('meta[http-equiv="refresh"]')?.getAttribute("content") ?? "", 10);
  clearTimeout(timer);
  if (refresh > 0) timer = window.setTimeout(() => void openWith(credential, false), refresh * 1e3);
  return true;
}
async function start() {
  const input = document.getElementById("credential");
  document.getElementById("open")?.addEventListener("click", () => {
    const credential = input.value.trim();
    if (credential) void openWith(credential, true);
    else say("Give the invite code you were sent, or your entry's token.");
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") document.getElementById("open")?.click();
  });
  const known = [sessionStorage.getItem(given), entryToken()].filter((c) => !!c);
  for (const credential of known) if (await openWith(credential, false)) break;
  document.body.dataset["ready"] = "1";
}
void start();
