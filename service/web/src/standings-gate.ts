/**
 * `/tournaments/ID` of an invite-only tournament, opened in a browser without a credential
 * (a link carries no header): the server answers with a gate that asks for the invite
 * code or the entry's token. This script reads the standings page again with whichever
 * the person has (an entry this browser made on `/play` is found by itself) and shows
 * it in place, reading it again as often as the page itself would reload.
 *
 * The credential stays in this browser: an entry's token where `/play` keeps it
 * (localStorage), a code or token given here in this tab only (sessionStorage).
 */

const main = document.getElementById("gate") as HTMLElement;
const tid = main.dataset["tournament"] ?? "";
const given = `cardproof:reader:${tid}`;
let timer: number | undefined;

/** The headers a credential goes in: a token (`cpe_`, `cpo_`) as a bearer, else an invite code. */
function headersOf(credential: string): Record<string, string> {
  return /^cp[eo]_/.test(credential) ? { Authorization: `Bearer ${credential}` } : { "X-Invite-Code": credential };
}

/** The entry `/play` kept for this tournament in this browser, if any: its token. */
function entryToken(): string | null {
  try {
    const kept = JSON.parse(localStorage.getItem(`cardproof:entry:${tid}`) ?? "null") as { token?: unknown } | null;
    return typeof kept?.token === "string" ? kept.token : null;
  } catch {
    return null;
  }
}

function say(text: string): void {
  const said = document.getElementById("said");
  if (said) said.textContent = text;
}

/** Read the standings page with `credential`; shown in place if it opens it. */
async function openWith(credential: string, typed: boolean): Promise<boolean> {
  let answer: Response;
  try {
    answer = await fetch(`${location.pathname}${location.search}`, {
      headers: { Accept: "text/html", ...headersOf(credential) },
      credentials: "omit",
      cache: "no-store",
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
  // the page reloads itself while the tournament is open: read it again as often
  const refresh = Number.parseInt(page.querySelector('meta[http-equiv="refresh"]')?.getAttribute("content") ?? "", 10);
  clearTimeout(timer);
  if (refresh > 0) timer = window.setTimeout(() => void openWith(credential, false), refresh * 1000);
  return true;
}

async function start(): Promise<void> {
  const input = document.getElementById("credential") as HTMLInputElement;
  document.getElementById("open")?.addEventListener("click", () => {
    const credential = input.value.trim();
    if (credential) void openWith(credential, true);
    else say("Give the invite code you were sent, or your entry's token.");
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") document.getElementById("open")?.click();
  });
  const known = [sessionStorage.getItem(given), entryToken()].filter((c): c is string => !!c);
  for (const credential of known) if (await openWith(credential, false)) break;
  document.body.dataset["ready"] = "1";
}

void start();
export {};
