import { connect, type Socket } from "node:net";

import { expect } from "chai";

import { startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";
import { until } from "../../helpers/until.js";

// The liveness probe (docs/operations.md#probes; issue 34, item 1): GET /health/live answers 200 whenever the process can
// answer, without a key, and even on a connection past the per-client connection bound, where every other request is
// answered 429 TOO_MANY_CONNECTIONS and acted on by nothing. A probe from the same address as a client flooding the
// service with idle sockets must not take a working instance out.

/** Opens a raw connection from 127.0.0.1 and collects what the server sends on it. */
function rawConnection(port: number): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    let text = "";
    const socket = connect(port, "127.0.0.1", () => resolve({ socket, received: () => text, closed }));
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    socket.on("error", reject);
  });
}

describe("HTTP service — liveness probe past the per-client connection bound", function () {
  this.timeout(60_000);
  let api: RunningServer;
  const sockets: Socket[] = [];

  before(async function () {
    api = await startServer({ env: { TOKEN_SERVICE_MAX_CONNECTIONS_PER_CLIENT: "3" } });
  });

  after(async function () {
    for (const socket of sockets) socket.destroy();
    await api?.stop();
  });

  it("answers /health/live 200 where every other request is 429, and acts on nothing past the bound", async function () {
    const port = Number(new URL(api.baseUrl).port);
    const recordsBefore = (await api.call("GET", "/api/v1/operations?limit=100")).body.items.length as number;
    // Three idle connections take the address's bound.
    for (let index = 0; index < 3; index++) sockets.push((await rawConnection(port)).socket);
    await until(
      () => new Promise<boolean>((resolve) => api.http.getConnections((_error, count) => resolve(count >= 3))),
      "the three idle connections held",
      10_000,
    );
    const ask = async (request: string) => {
      const connection = await rawConnection(port);
      sockets.push(connection.socket);
      connection.socket.write(request);
      await connection.closed;
      return connection.received();
    };
    const live = await ask(`GET /health/live HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    expect(live).to.match(/^HTTP\/1\.1 200 OK/);
    expect(live).to.include('{"status":"live"}');
    const health = await ask(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    expect(health)
      .to.match(/^HTTP\/1\.1 429/)
      .and.to.include("TOO_MANY_CONNECTIONS");
    // A faucet grant would be a record: past the bound it is refused before anything is read.
    const body = JSON.stringify({ chain: "ethereum", network: "sepolia", address: "0x000000000000000000000000000000000000dEaD" });
    const write = await ask(
      `POST /api/v1/faucet HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-api-key: ${TEST_API_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(write).to.match(/^HTTP\/1\.1 429/);
    // A connection past the bound that sends nothing is told too, and closed.
    const idle = await rawConnection(port);
    sockets.push(idle.socket);
    await idle.closed;
    expect(idle.received()).to.match(/^HTTP\/1\.1 429/);

    for (const socket of sockets.splice(0)) socket.destroy();
    await until(
      () => new Promise<boolean>((resolve) => api.http.getConnections((_error, count) => resolve(count === 0))),
      "every connection closed",
      10_000,
    );
    // Within the bound again: the same probe over fetch, and nothing was recorded past it.
    const probe = await fetch(`${api.baseUrl}/health/live`);
    expect(probe.status).to.equal(200);
    expect(await probe.json()).to.deep.equal({ status: "live" });
    expect((await api.call("GET", "/api/v1/operations?limit=100")).body.items.length).to.equal(recordsBefore);
  });
});
