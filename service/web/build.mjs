// Builds the browser client into the Python package (service/cardproof_service/front/static/web)
// and the offline API reference's assets (static/swagger), so that `make run` needs no Node.
//   node build.mjs                 the assets, into the package
//   node build.mjs --out DIR       the same into DIR (make checks it equals the package's)
//   node build.mjs --tests         the tests, bundled for `node --test` into build-tests/
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const common = { bundle: true, format: "esm", target: "es2022", legalComments: "none", logLevel: "warning" };

if (args.includes("--tests")) {
  const out = join(here, "build-tests");
  rmSync(out, { recursive: true, force: true });
  const tests = readdirSync(join(here, "test")).filter((name) => name.endsWith(".test.ts"));
  await build({
    ...common,
    platform: "node",
    entryPoints: tests.map((name) => join(here, "test", name)),
    outdir: out,
    outExtension: { ".js": ".mjs" },
  });
} else {
  const at = args.indexOf("--out");
  const root = at >= 0 ? args[at + 1] : join(here, "..", "cardproof_service", "front", "static");
  const web = join(root, "web");
  const swagger = join(root, "swagger");
  rmSync(web, { recursive: true, force: true });
  rmSync(swagger, { recursive: true, force: true });
  mkdirSync(web, { recursive: true });
  mkdirSync(swagger, { recursive: true });
  await build({
    ...common,
    platform: "browser",
    entryPoints: {
      play: join(here, "src", "play.ts"),
      verify: join(here, "src", "verify-page.ts"),
      standings: join(here, "src", "standings-gate.ts"),
    },
    outdir: web,
    charset: "utf8",
  });
  for (const name of readdirSync(join(here, "pages"))) {
    copyFileSync(join(here, "pages", name), join(name.startsWith("swagger-") ? swagger : web, name));
  }
  const dist = join(here, "node_modules", "swagger-ui-dist");
  for (const name of ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"]) {
    copyFileSync(join(dist, name), join(swagger, name));
  }
}
