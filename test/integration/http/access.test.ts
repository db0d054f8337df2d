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

  describe("a missing key is answered with where the key goes and how to make one", function () {
    let api: RunningServer;

    before(async function () {
      api = await startServer();
    });

    after(async function () {
      await api?.stop();
    });

    const bare = async (path: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${api.baseUrl}${path}`, { headers });
      return { status: response.status, body: (await response.json()) as { error: { code: string; field: string; message: string } } };
    };

    it("no key: names both places and apikey:create", async function () {
      const answer = await bare("/api/v1/networks");
      expect(answer.status).to.equal(401);
      expect(answer.body.error).to.include({ code: "UNAUTHORIZED", field: "apiKey" });
      expect(answer.body.error.message).to.include("x-api-key").and.include("apiKey").and.include("npx hardhat apikey:create");
    });

    it("a key in a misspelt query parameter is named as that parameter, not as no key, and never echoed", async function () {
      for (const name of ["apikey", "api_key", "APIKEY", "Api-Key"]) {
        const answer = await bare(`/api/v1/networks?${name}=${encodeURIComponent(TEST_API_KEY)}`);
        expect(answer.status, name).to.equal(401);
        expect(answer.body.error, name).to.include({ code: "UNAUTHORIZED", field: name });
        expect(answer.body.error.message, name).to.include(`"${name}"`).and.include("apiKey");
        expect(JSON.stringify(answer.body), name).to.not.include(TEST_API_KEY);
      }
    });

    it("a key in an Authorization header is named as that header, its scheme said only when it is a known one", async function () {
      const bearer = await bare("/api/v1/networks", { authorization: `Bearer ${TEST_API_KEY}` });
      expect(bearer.status).to.equal(401);
      expect(bearer.body.error).to.include({ code: "UNAUTHORIZED", field: "authorization" });
      expect(bearer.body.error.message).to.include("Authorization: Bearer").and.include("x-api-key");
      const raw = await bare("/api/v1/networks", { authorization: TEST_API_KEY });
      expect(raw.body.error.message).to.include("an Authorization header");
      for (const answer of [bearer, raw]) expect(JSON.stringify(answer.body)).to.not.include(TEST_API_KEY);
      // The right place still wins over a stray header.
      const right = await bare("/api/v1/networks", { authorization: "Bearer x", "x-api-key": TEST_API_KEY });
      expect(right.status).to.equal(200);
    });

    it("a wrong key says how to make one", async function () {
      const answer = await bare("/api/v1/networks", { "x-api-key": "not-a-key" });
      expect(answer.status).to.equal(401);
      expect(answer.body.error.message).to.include("not valid").and.include("npx hardhat apikey:create");
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
