import { expect } from "chai";
import { readFile } from "node:fs/promises";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { gunzipSync } from "node:zlib";

import { startServer, type RunningServer } from "../../helpers/http-server.js";

// The reference's large answers (Swagger UI's files, /openapi.json) are served from one shared Buffer each, in
// identity and gzip forms (src/http/shared-bytes.ts). node:http, not fetch(): fetch decodes gzip and hides the bytes.

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function get(url: string, headers: Record<string, string> = {}, method = "GET"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on("data", (chunk: Buffer) => chunks.push(chunk));
      answer.on("end", () => resolve({ status: answer.statusCode!, headers: answer.headers, body: Buffer.concat(chunks) }));
      answer.on("error", reject);
    });
    sent.once("error", reject);
    sent.end();
  });
}

const swaggerUi = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const ASSETS = [
  { route: "/docs/swagger-ui-bundle.js", file: "swagger-ui-bundle.js", type: "text/javascript; charset=utf-8" },
  { route: "/docs/swagger-ui.css", file: "swagger-ui.css", type: "text/css; charset=utf-8" },
  { route: "/docs/favicon-32x32.png", file: "favicon-32x32.png", type: "image/png" },
];

describe("HTTP service — the reference's large answers, one shared copy in two encodings", function () {
  let api: RunningServer;

  before(async function () {
    api = await startServer();
  });

  after(async function () {
    await api?.stop();
  });

  for (const { route, file, type } of ASSETS) {
    it(`${route}: the package's file as it is, gzipped when asked, 304 when unchanged, headers alone for HEAD`, async function () {
      const expected = await readFile(path.join(swaggerUi, file));
      const plain = await get(`${api.baseUrl}${route}`, { "accept-encoding": "identity" });
      expect(plain.status).to.equal(200);
      expect(plain.headers["content-type"]).to.equal(type);
      expect(plain.headers["content-encoding"]).to.equal(undefined);
      expect(plain.body.equals(expected), "identity bytes").to.equal(true);
      expect(Number(plain.headers["content-length"])).to.equal(expected.length);
      expect(plain.headers.vary).to.match(/accept-encoding/i);

      const gzipped = await get(`${api.baseUrl}${route}`, { "accept-encoding": "gzip, deflate, br" });
      expect(gzipped.headers["content-encoding"]).to.equal("gzip");
      expect(Number(gzipped.headers["content-length"])).to.equal(gzipped.body.length);
      expect(gunzipSync(gzipped.body).equals(expected), "gzip decodes to the file").to.equal(true);
      expect(gzipped.headers.etag).to.equal(plain.headers.etag);

      const unchanged = await get(`${api.baseUrl}${route}`, { "if-none-match": plain.headers.etag! });
      expect(unchanged.status).to.equal(304);
      expect(unchanged.body.length).to.equal(0);

      const head = await get(`${api.baseUrl}${route}`, { "accept-encoding": "identity" }, "HEAD");
      expect(head.status).to.equal(200);
      expect(Number(head.headers["content-length"])).to.equal(expected.length);
      expect(head.body.length).to.equal(0);
    });
  }

  it("/openapi.json: one document, the same bytes to every request, concurrent ones included", async function () {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => get(`${api.baseUrl}/openapi.json`, { "accept-encoding": "identity" })),
    );
    const first = answers[0]!;
    expect(first.headers["content-type"]).to.equal("application/json; charset=utf-8");
    expect(JSON.parse(first.body.toString("utf8"))).to.have.property("openapi", "3.1.0");
    for (const answer of answers) expect(answer.body.equals(first.body)).to.equal(true);
    const gzipped = await get(`${api.baseUrl}/openapi.json`, { "accept-encoding": "gzip" });
    expect(gunzipSync(gzipped.body).equals(first.body)).to.equal(true);
    expect(gzipped.body.length, "gzip is smaller").to.be.lessThan(first.body.length / 4);
  });
});
