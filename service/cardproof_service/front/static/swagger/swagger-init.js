// The API reference at /schema: Swagger UI on this server's own spec. A file, not an
// inline script, so the page runs under script-src 'self'. No top bar: it loads no
// other spec, from anywhere. Above it, the site's header, as every page has it
// (cardproof_service/front/site.py writes it for the others), with its own small stylesheet.
const SITE = [["/play", "Play"], ["/verify", "Verify"], ["/schema", "API reference"]];

function siteHeader() {
  const header = document.createElement("header");
  header.className = "site";
  const home = document.createElement("a");
  home.className = "home";
  home.href = "/";
  home.textContent = "cardproof";
  const nav = document.createElement("nav");
  nav.setAttribute("aria-label", "Site");
  SITE.forEach(([href, label], index) => {
    const link = document.createElement("a");
    link.href = href;
    if (href === "/schema") link.setAttribute("aria-current", "page");
    link.textContent = label;
    if (index > 0) nav.append(" ");
    nav.append(link);
  });
  header.append(home, " ", nav);
  return header;
}

function linkHead(rel, href, type) {
  const link = document.createElement("link");
  link.rel = rel;
  link.href = href;
  if (type) link.type = type;
  document.head.append(link);
}

window.addEventListener("DOMContentLoaded", () => {
  linkHead("icon", "/static/web/favicon.svg", "image/svg+xml");
  linkHead("stylesheet", "/static/swagger/swagger-nav.css");
  document.body.prepend(siteHeader());
  window.SwaggerUIBundle({
    url: "/schema/openapi.json",
    dom_id: "#swagger-container",
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
