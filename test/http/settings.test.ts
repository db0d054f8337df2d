import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import hre from "hardhat";

import { createServer } from "../../src/server/app.js";
import { loadSettings, SettingsError } from "../../src/server/settings.js";

function refusal(env: Record<string, string>): string {
  try {
    loadSettings(env);
  } catch (error) {
    expect(error).to.be.instanceOf(SettingsError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe("Settings from the environment", function () {
  it("has bounded defaults", function () {
    expect(loadSettings({})).to.deep.equal({
      apiKeys: [],
      rateLimit: { limit: 600, windowMs: 60_000 },
      authFailures: { limit: 10, windowMs: 300_000 },
      trustProxy: false,
      headersTimeoutMs: 10_000,
      bodyTimeoutMs: 30_000,
      shutdownGraceMs: 10_000,
      healthCacheMs: 5_000,
    });
  });

  it("reads every variable, taking empty ones as unset", function () {
    const settings = loadSettings({
      TOKEN_SERVICE_API_KEYS: " a, b ,,",
      TOKEN_SERVICE_RATE_LIMIT: "0",
      TOKEN_SERVICE_RATE_WINDOW_SECONDS: "1.5",
      TOKEN_SERVICE_AUTH_FAILURE_LIMIT: "",
      TOKEN_SERVICE_TRUST_PROXY: "true",
      TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS: "2",
      TOKEN_SERVICE_BODY_TIMEOUT_SECONDS: "4",
      TOKEN_SERVICE_SHUTDOWN_GRACE_SECONDS: "0",
      TOKEN_SERVICE_HEALTH_CACHE_SECONDS: "0.25",
    });
    expect(settings.apiKeys).to.deep.equal(["a", "b"]);
    expect(settings.rateLimit).to.deep.equal({ limit: 0, windowMs: 1_500 });
    expect(settings.trustProxy).to.equal(true);
    expect(settings.headersTimeoutMs).to.equal(2_000);
    expect(settings.bodyTimeoutMs).to.equal(4_000);
    expect(settings.shutdownGraceMs).to.equal(0);
    expect(settings.authFailures).to.deep.equal({ limit: 10, windowMs: 300_000 });
    expect(settings.healthCacheMs).to.equal(250);
  });

  it("refuses malformed values with a message that names the variable and quotes the value", function () {
    expect(refusal({ TOKEN_SERVICE_RATE_LIMIT: "6OO" })).to.equal('TOKEN_SERVICE_RATE_LIMIT must be a whole number, 0 or more (got "6OO")');
    expect(refusal({ TOKEN_SERVICE_RATE_WINDOW_SECONDS: "1m" })).to.equal('TOKEN_SERVICE_RATE_WINDOW_SECONDS must be a number of seconds, like 30 or 0.5 (got "1m")');
    expect(refusal({ TOKEN_SERVICE_RATE_WINDOW_SECONDS: "0" })).to.equal('TOKEN_SERVICE_RATE_WINDOW_SECONDS must be more than 0 seconds (got "0")');
    expect(refusal({ TOKEN_SERVICE_RATE_LIMIT: "-1" })).to.match(/^TOKEN_SERVICE_RATE_LIMIT /);
    expect(refusal({ TOKEN_SERVICE_TRUST_PROXY: "yes" })).to.equal('TOKEN_SERVICE_TRUST_PROXY must be true or false (got "yes")');
    expect(refusal({ TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS: "Infinity" })).to.match(/^TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS /);
    expect(refusal({ TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS: "40" })).to.match(/^TOKEN_SERVICE_BODY_TIMEOUT_SECONDS must be at least TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS/);
  });

  it("stops createServer before it opens the database", async function () {
    const dataDir = await mkdtemp(path.join(tmpdir(), "hts-settings-"));
    try {
      let refused: unknown;
      await createServer({ hre, dataDir, env: { TOKEN_SERVICE_RATE_LIMIT: "6OO" } }).catch((error: unknown) => (refused = error));
      expect(refused).to.be.instanceOf(SettingsError);
      expect(await readdir(dataDir)).to.deep.equal([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
