import { createRequire } from "node:module";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { Router } from "express";
import { sharedBytes } from "./shared-bytes.js";

/**
 * GET /docs: Swagger UI over /openapi.json. Its prebuilt bundle is served from the installed `swagger-ui-dist`
 * package, so the reference makes no request to any other host (no CDN, no fonts, no validator badge). Each asset is
 * read once and its bytes shared by every request (shared-bytes.ts).
 */

/** The files of the package the page loads; nothing else of the package directory is served. */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>hardhat-token-service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/initializer.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io for a badge.
const INITIALIZER = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  validatorUrl: null,
  deepLinking: true,
  displayOperationId: true,
  displayRequestDuration: true,
  persistAuthorization: false,
});
`;

/** The directory of the installed package, found without loading its 1.7 MB bundle into the server. */
function swaggerUiDirectory(): string {
  return path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
}

/** Routes for the reference page and its assets, mounted at the application's root. */
export function apiReference(): Router {
  const directory = swaggerUiDirectory();
  const router = Router();
  router.get("/docs", (_request, response) => void response.type("html").send(PAGE));
  router.get("/docs/initializer.js", (_request, response) => void response.type("text/javascript").send(INITIALIZER));
  for (const [name, type] of Object.entries(ASSETS)) {
    router.get(`/docs/${name}`, sharedBytes({ type, load: () => readFile(path.join(directory, name)) }));
  }
  return router;
}
