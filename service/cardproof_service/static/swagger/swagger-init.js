// The API reference at /schema: Swagger UI on this server's own spec. A file, not an
// inline script, so the page runs under script-src 'self'. No top bar: it loads no
// other spec, from anywhere.
window.addEventListener("DOMContentLoaded", () => {
  window.SwaggerUIBundle({
    url: "/schema/openapi.json",
    dom_id: "#swagger-container",
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
