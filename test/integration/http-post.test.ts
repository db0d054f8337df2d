import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

import { expect } from "chai";
import { isError } from "ethers";

import { EndpointPool } from "../../src/chains/evm/endpoint-pool.js";
import { httpPost } from "../../src/chains/evm/http-post.js";
import { closedPort } from "../helpers/service.js";

/** A local HTTP server answering each request with `answer`; what it received is kept. */
async function server(answer: (request: IncomingMessage, body: string, response: ServerResponse) => void) {
  const received: Array<{ headers: IncomingMessage["headers"]; body: string }> = [];
  const http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: request.headers, body });
      answer(request, body, response);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    port,
    received,
    close: () => {
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

describe("JSON-RPC over Node's HTTP client (the endpoint pool's transport), against local servers", function () {
  it("posts the body with its headers and answers the status and bytes; a gzipped answer is undone", async function () {
    const answer = JSON.stringify({ jsonrpc: "2.0", id: 1, result: "0x" + "ab".repeat(4000) });
    const plain = await server((_request, _body, response) => response.writeHead(200, { "content-type": "application/json" }).end(answer));
    const zipped = await server((_request, _body, response) =>
      response.writeHead(503, { "content-encoding": "gzip" }).end(gzipSync(Buffer.from(answer))),
    );
    try {
      const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }));
      const first = await httpPost(new URL(`http://127.0.0.1:${plain.port}/rpc`), body, { "x-node-key": "k" }, 5_000);
      expect(first.statusCode).to.equal(200);
      expect(first.body.toString("utf8")).to.equal(answer);
      expect(plain.received[0]!.body).to.equal(body.toString("utf8"));
      expect(plain.received[0]!.headers).to.include({
        "x-node-key": "k",
        "content-type": "application/json",
        "content-length": String(body.length),
        "accept-encoding": "gzip",
      });
      const second = await httpPost(new URL(`http://127.0.0.1:${zipped.port}/`), body, {}, 5_000);
      expect(second.statusCode).to.equal(503);
      expect(second.body.toString("utf8")).to.equal(answer);
    } finally {
      await Promise.all([plain.close(), zipped.close()]);
    }
  });

  it("sends a URL's credentials as Basic authorization", async function () {
    const node = await server((_request, _body, response) => response.end("{}"));
    try {
      await httpPost(new URL(`http://user:p%40ss@127.0.0.1:${node.port}/`), Buffer.from("{}"), {}, 5_000);
      expect(node.received[0]!.headers.authorization).to.equal(`Basic ${Buffer.from("user:p@ss").toString("base64")}`);
    } finally {
      await node.close();
    }
  });

  it("fails with ethers' TIMEOUT error when the whole answer has not come within the timeout, even while bytes trickle in", async function () {
    const trickling = await server((_request, _body, response) => {
      response.writeHead(200);
      const drip = setInterval(() => response.write(" "), 50);
      response.on("close", () => clearInterval(drip));
    });
    try {
      const started = performance.now();
      const error = await httpPost(new URL(`http://127.0.0.1:${trickling.port}/`), Buffer.from("{}"), {}, 300).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(isError(error, "TIMEOUT"), String(error)).to.equal(true);
      expect(performance.now() - started).to.be.below(5_000);
    } finally {
      await trickling.close();
    }
  });

  it("keeps Node's code for a connection refused", async function () {
    const error = await httpPost(new URL(`http://127.0.0.1:${await closedPort()}/`), Buffer.from("{}"), {}, 5_000).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect((error as { code?: string })?.code).to.equal("ECONNREFUSED");
  });

  it("fails every request to an endpoint whose URL cannot be parsed, without quoting it (it may carry a key)", async function () {
    const pool = new EndpointPool("ethereum/sepolia", 11155111, ["http://user:s3cret@[not-a-host"], { requestTimeoutMs: 1_000 });
    const error = await pool.send({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).to.be.instanceOf(Error);
    expect(String((error as Error).message)).not.to.include("s3cret");
    expect(pool.statuses()[0]!.detail ?? "").not.to.include("s3cret");
  });
});
