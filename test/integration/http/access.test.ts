import { request } from "node:http";
import { expect } from "chai";

import { startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";

/** A GET with a Host header of our choosing (fetch does not allow setting it), as a rebound DNS name would send. */
function getWithHost(baseUrl: string, path: string, host: string): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request({ hostname, port, path, headers: { host }, agent: false }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

describe("HTTP service — who may call", function () {
  describe("failed API-key attempts", function () {
    let api: RunningServer;

    before(async function () {
      api = await startServer({ env: { TOKEN_SERVICE_AUTH_FAILURE_LIMIT: "3", TOKEN_SERVICE_AUTH_FAILURE_WINDOW_SECONDS: "60" } });
    });

    after(async function () {
      await api?.stop();
    });

    it("answers 429 with Retry-After once a client has sent too many wrong keys, even with the right key", async function () {
      for (let attempt = 0; attempt < 3; attempt++) {
        const wrong = await api.call("GET", "/api/v1/networks", undefined, { "x-api-key": `guess-${attempt}` });
        expect(wrong.status).to.equal(401);
      }
      const blocked = await api.call("GET", "/api/v1/networks", undefined, { "x-api-key": "guess-3" });
      expect(blocked.status).to.equal(429);
      expect(blocked.body.error).to.include({ code: "TOO_MANY_AUTH_FAILURES", field: "apiKey" });
      const retryAfter = Number(blocked.headers.get("retry-after"));
      expect(retryAfter).to.be.within(1, 60);
      // A guess that happens to be right gets no answer either while the client is blocked.
      const right = await api.call("GET", "/api/v1/networks", undefined, { "x-api-key": TEST_API_KEY });
      expect(right.status).to.equal(429);
      // Endpoints without keys still answer, without one.
      expect((await fetch(`${api.baseUrl}/health`)).status).to.equal(200);
    });
  });

  describe("behind one reverse proxy (TOKEN_SERVICE_TRUST_PROXY=1): the client's address is the one the proxy saw", function () {
    let api: RunningServer;
    // This test is the proxy: it connects from 127.0.0.1 and appends the address it saw, as nginx's
    // $proxy_add_x_forwarded_for does; whatever the client wrote itself comes before.
    const through = (clientWrote: string | undefined, clientAddress: string) => ({
      "x-forwarded-for": clientWrote === undefined ? clientAddress : `${clientWrote}, ${clientAddress}`,
    });

    before(async function () {
      api = await startServer({
        env: { TOKEN_SERVICE_AUTH_FAILURE_LIMIT: "3", TOKEN_SERVICE_AUTH_FAILURE_WINDOW_SECONDS: "60", TOKEN_SERVICE_TRUST_PROXY: "1" },
      });
    });

    after(async function () {
      await api?.stop();
    });

    it("counts wrong keys per real client however it rotates its own X-Forwarded-For, and a forged one locks out nobody", async function () {
      const attacker = "203.0.113.66";
      const victim = "198.51.100.7";
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 60; attempt++) {
        const rotated = attempt % 2 === 0 ? `10.9.${attempt}.1` : victim;
        statuses.push(
          (await api.call("GET", "/api/v1/networks", undefined, { "x-api-key": `guess-${attempt}`, ...through(rotated, attacker) })).status,
        );
      }
      expect(statuses.slice(0, 3)).to.deep.equal([401, 401, 401]);
      expect(
        statuses.slice(3).every((status) => status === 429),
        "every later guess is refused",
      ).to.equal(true);
      const victimCall = await api.call("GET", "/api/v1/networks", undefined, { "x-api-key": TEST_API_KEY, ...through(undefined, victim) });
      expect(victimCall.status, `the victim the attacker named is not locked out: ${JSON.stringify(victimCall.body)}`).to.equal(200);
    });
  });

  describe("--no-auth answers loopback names only", function () {
    let open: RunningServer;
    let keyed: RunningServer;

    before(async function () {
      open = await startServer({ auth: false });
      keyed = await startServer();
    });

    after(async function () {
      await open?.stop();
      await keyed?.stop();
    });

    it("refuses a request whose Host is another name (DNS rebinding) with 421", async function () {
      for (const host of ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.evil.example", "10.0.0.1"]) {
        const response = await getWithHost(open.baseUrl, "/api/v1/networks", host);
        expect(response.status, host).to.equal(421);
        expect(response.body.error).to.include({ code: "HOST_NOT_ALLOWED", field: "Host" });
      }
      expect((await getWithHost(open.baseUrl, "/health", "evil.example")).status).to.equal(421);
    });

    it("answers localhost, 127.x and [::1], with or without a port", async function () {
      for (const host of ["localhost", "LOCALHOST:8080", "127.0.0.1", "127.0.0.2:80", "[::1]", "[::1]:8080"]) {
        expect((await getWithHost(open.baseUrl, "/api/v1/networks", host)).status, host).to.equal(200);
      }
    });

    it("leaves the Host alone when API keys are required", async function () {
      const response = await new Promise<number>((resolve, reject) => {
        const { hostname, port } = new URL(keyed.baseUrl);
        request(
          { hostname, port, path: "/api/v1/networks", headers: { host: "api.example.com", "x-api-key": TEST_API_KEY }, agent: false },
          (incoming) => {
            incoming.resume();
            resolve(incoming.statusCode ?? 0);
          },
        )
          .on("error", reject)
          .end();
      });
      expect(response).to.equal(200);
    });
  });
});
