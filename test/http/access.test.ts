import { expect } from "chai";

import { startServer, TEST_API_KEY, type RunningServer } from "../helpers/http-server.js";

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
      // Endpoints without keys still answer.
      expect((await api.call("GET", "/health")).status).to.equal(200);
    });
  });
});
