import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { eventually, startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";
import { parseRawResponse, rawConnection as openRawConnection, within, type RawConnection } from "../../helpers/raw-http.js";

/** An HTTP server that takes requests and never answers them: a node that stopped answering. */
async function startHangingNode(): Promise<{ url: string; requests: IncomingMessage[]; close(): Promise<void> }> {
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((request) => void requests.push(request));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("HTTP service — slow clients and bounded shutdown", function () {
  let api: RunningServer;
  const connections: RawConnection[] = [];

  async function rawConnection(baseUrl: string, bytes?: string): Promise<RawConnection> {
    const connection = await openRawConnection(baseUrl, bytes);
    connections.push(connection);
    return connection;
  }

  afterEach(function () {
    for (const connection of connections.splice(0)) connection.socket.destroy();
  });

  before(async function () {
    api = await startServer({ env: { TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS: "0.5", TOKEN_SERVICE_BODY_TIMEOUT_SECONDS: "1" } });
  });

  after(async function () {
    await api?.stop();
  });

  it("closes a connection whose headers stop halfway, with a JSON 408", async function () {
    const connection = await rawConnection(api.baseUrl, "GET /api/v1/networks HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Ke");
    const elapsed = await within(connection.closed, 5_000, "connection with partial headers closed");
    expect(elapsed).to.be.at.least(400);
    const response = parseRawResponse(connection.received());
    expect(response.status).to.equal(408);
    expect(response.body.error.code).to.equal("REQUEST_TIMEOUT");
  });

  it("closes a connection whose body stops halfway, with a JSON 408", async function () {
    const head = `POST /api/v1/wallets HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${TEST_API_KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const connection = await rawConnection(api.baseUrl, `${head}{"chain":"ethereum",`);
    const elapsed = await within(connection.closed, 5_000, "connection with a partial body closed");
    expect(elapsed).to.be.at.least(900);
    const response = parseRawResponse(connection.received());
    expect(response.status).to.equal(408);
    expect(response.body.error.code).to.equal("REQUEST_TIMEOUT");
  });

  it("closes a connection that never sends a byte", async function () {
    const connection = await rawConnection(api.baseUrl);
    await within(connection.closed, 5_000, "silent connection closed");
  });

  it("still serves a client that sends its request in pieces within the limits", async function () {
    const connection = await rawConnection(api.baseUrl, "GET /health HTTP/1.1\r\n");
    connection.socket.write("Host: 127.0.0.1\r\nConnection: close\r\n\r\n");
    await within(connection.closed, 5_000, "answered connection closed");
    expect(parseRawResponse(connection.received()).status).to.equal(200);
  });

  it("shutdown finishes after the grace period even while a request waits on a node that stopped answering", async function () {
    const node = await startHangingNode();
    const dataDir = await mkdtemp(path.join(tmpdir(), "hts-shutdown-"));
    const hanging = await startServer({
      dataDir,
      requestTimeoutMs: 120_000,
      env: { TOKEN_SERVICE_RPC_ETHEREUM_HOODI: node.url, TOKEN_SERVICE_SHUTDOWN_GRACE_SECONDS: "0.5" },
    });
    try {
      const call = hanging
        .call("GET", "/api/v1/wallets?chain=ethereum&network=hoodi&address=0x0000000000000000000000000000000000000001")
        .then(
          (response) => ({ answered: response.status }),
          (error: Error) => ({ failed: error.message }),
        );
      await eventually(
        async () => node.requests.length,
        (count) => count > 0,
        10_000,
        20,
      );
      const started = Date.now();
      await within(hanging.stop(), 10_000, "shutdown with a hanging request");
      expect(Date.now() - started).to.be.below(5_000);
      // The client's connection was closed rather than answered after the node's 120 s.
      expect(await within(call, 5_000, "hanging call settled")).to.have.property("failed");
    } finally {
      await node.close();
      // With the node gone, the abandoned connection attempt fails and the database closes, releasing its lock.
      await eventually(
        async () => existsSync(path.join(dataDir, "db.lock")),
        (locked) => !locked,
        20_000,
      );
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
