import { connect } from "node:net";

import { expect } from "chai";

import { startServer, type RunningServer } from "../../helpers/http-server.js";
import { until } from "../../helpers/until.js";

// A client that goes away is not a fault (issue 34, item 2): 40 downloads of the API reference's bundle, each closed
// by the client as soon as it is asked for, leave no error-level line (no INTERNAL, no stack), info lines for the
// requests, and a service that answers the next request.

describe("HTTP service — clients that close the connection mid-request", function () {
  this.timeout(60_000);
  let api: RunningServer;

  before(async function () {
    api = await startServer();
  });

  after(async function () {
    await api?.stop();
  });

  it("logs aborted downloads at info, never as an error, and keeps answering", async function () {
    const { port } = new URL(api.baseUrl);
    for (let round = 0; round < 40; round++) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), "127.0.0.1", () => {
          socket.write(`GET /docs/swagger-ui-bundle.js HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`, () => {
            socket.destroy();
            resolve();
          });
        });
        socket.on("error", reject);
      });
    }
    // Every aborted connection handled: none left open on the server.
    await until(
      () => new Promise<boolean>((resolve) => api.http.getConnections((_error, count) => resolve(count === 0))),
      "the aborted connections closed",
      20_000,
    );
    const lines = api.logs.lines.map((line) => JSON.parse(line) as { level: number; msg: string; code?: string });
    expect(
      lines.filter((line) => line.level >= 50),
      "error-level lines",
    ).to.deep.equal([]);
    expect(lines.filter((line) => line.code === "INTERNAL")).to.deep.equal([]);
    // Each request that was read has its line at info: answered into the socket before the client left ("request"), or
    // left before its answer was written. A connection closed before its request was read has none.
    const downloads = (lines as { level: number; msg: string; path?: string }[]).filter(
      (line) => line.path === "/docs/swagger-ui-bundle.js",
    );
    expect(downloads.length, "lines for the aborted downloads").to.be.greaterThan(0);
    expect(downloads.map((line) => line.level)).to.deep.equal(downloads.map(() => 30));
    expect((await fetch(`${api.baseUrl}/health`)).status).to.equal(200);
    const bundle = await fetch(`${api.baseUrl}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).to.equal(200);
    expect((await bundle.text()).length).to.be.greaterThan(100_000);
  });
});
