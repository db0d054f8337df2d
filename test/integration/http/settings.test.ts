import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import hre from "hardhat";

import { hardhatSimulatedChains } from "../../../src/hardhat/simulated-chains.js";
import { createServer } from "../../../src/http/app.js";
import { loadSettings, SettingsError } from "../../../src/http/settings.js";

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
      allowPrivateKeys: true,
      apiKeys: [],
      rateLimit: { limit: 600, windowMs: 60_000 },
      authFailures: { limit: 10, windowMs: 300_000 },
      trustProxy: false,
      maxConnections: 512,
      maxConnectionsPerClient: 128,
      headersTimeoutMs: 10_000,
      bodyTimeoutMs: 30_000,
      shutdownGraceMs: 10_000,
      healthCacheMs: 5_000,
      tracker: { confirmations: 1, dropAfterMs: 600_000, reorgWatchMs: 3_600_000, behindGraceMs: 30_000, leaseMs: 30_000 },
      nonceReservationMs: 120_000,
      idempotencyLeaseMs: undefined,
      idempotencyRetentionMs: 86_400_000,
      simulatedChains: true,
      chainFaults: false,
      metricsPublic: false,
      webhooks: {
        allowPrivateTargets: false,
        delivery: { timeoutMs: 10_000, retryWindowMs: 86_400_000, firstBackoffMs: 5_000, maxBackoffMs: 3_600_000, pollMs: 1_000 },
      },
    });
  });

  it("reads the webhook settings and refuses bad ones by name", function () {
    const settings = loadSettings({
      TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      TOKEN_SERVICE_WEBHOOK_TIMEOUT_SECONDS: "0.5",
      TOKEN_SERVICE_WEBHOOK_RETRY_WINDOW_SECONDS: "0",
      TOKEN_SERVICE_WEBHOOK_FIRST_RETRY_SECONDS: "0.1",
      TOKEN_SERVICE_WEBHOOK_POLL_SECONDS: "2",
    });
    expect(settings.webhooks).to.deep.equal({
      allowPrivateTargets: true,
      delivery: { timeoutMs: 500, retryWindowMs: 0, firstBackoffMs: 100, maxBackoffMs: 3_600_000, pollMs: 2_000 },
    });
    expect(refusal({ TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "yes" })).to.equal(
      'TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false (got "yes")',
    );
    expect(refusal({ TOKEN_SERVICE_WEBHOOK_TIMEOUT_SECONDS: "0" })).to.match(
      /^TOKEN_SERVICE_WEBHOOK_TIMEOUT_SECONDS must be more than 0 seconds/,
    );
    expect(refusal({ TOKEN_SERVICE_WEBHOOK_RETRY_WINDOW_SECONDS: "1d" })).to.match(
      /^TOKEN_SERVICE_WEBHOOK_RETRY_WINDOW_SECONDS must be a number of seconds/,
    );
  });

  it("reads the operation lifecycle's settings and refuses bad ones by name", function () {
    const settings = loadSettings({
      TOKEN_SERVICE_CONFIRMATIONS: "3",
      TOKEN_SERVICE_DROP_AFTER_SECONDS: "90",
      TOKEN_SERVICE_REORG_WATCH_SECONDS: "0",
      TOKEN_SERVICE_NODE_BEHIND_GRACE_SECONDS: "5",
      TOKEN_SERVICE_LEASE_SECONDS: "5",
      TOKEN_SERVICE_IDEMPOTENCY_LEASE_SECONDS: "4",
      TOKEN_SERVICE_IDEMPOTENCY_RETENTION_HOURS: "0.5",
      TOKEN_SERVICE_SIMULATED_CHAINS: "off",
    });
    expect(settings).to.deep.include({
      tracker: { confirmations: 3, dropAfterMs: 90_000, reorgWatchMs: 0, behindGraceMs: 5_000, leaseMs: 5_000 },
      idempotencyLeaseMs: 4_000,
      idempotencyRetentionMs: 1_800_000,
      simulatedChains: false,
    });
    expect(refusal({ TOKEN_SERVICE_CONFIRMATIONS: "0" })).to.equal('TOKEN_SERVICE_CONFIRMATIONS must be 1 or more (got "0")');
    expect(refusal({ TOKEN_SERVICE_SIMULATED_CHAINS: "no" })).to.equal('TOKEN_SERVICE_SIMULATED_CHAINS must be on or off (got "no")');
    expect(loadSettings({ TOKEN_SERVICE_CHAIN_FAULTS: "on" }).chainFaults).to.equal(true);
    expect(refusal({ TOKEN_SERVICE_CHAIN_FAULTS: "yes" })).to.equal('TOKEN_SERVICE_CHAIN_FAULTS must be on or off (got "yes")');
    expect(refusal({ TOKEN_SERVICE_DROP_AFTER_SECONDS: "10m" })).to.match(/^TOKEN_SERVICE_DROP_AFTER_SECONDS must be a number of seconds/);
    expect(refusal({ TOKEN_SERVICE_NODE_BEHIND_GRACE_SECONDS: "-1" })).to.match(/^TOKEN_SERVICE_NODE_BEHIND_GRACE_SECONDS must be/);
  });

  it("reads every variable, taking empty ones as unset", function () {
    const settings = loadSettings({
      TOKEN_SERVICE_API_KEYS: " a, b ,,",
      TOKEN_SERVICE_RATE_LIMIT: "0",
      TOKEN_SERVICE_RATE_WINDOW_SECONDS: "1.5",
      TOKEN_SERVICE_AUTH_FAILURE_LIMIT: "",
      TOKEN_SERVICE_TRUST_PROXY: "1",
      TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS: "2",
      TOKEN_SERVICE_BODY_TIMEOUT_SECONDS: "4",
      TOKEN_SERVICE_SHUTDOWN_GRACE_SECONDS: "0",
      TOKEN_SERVICE_HEALTH_CACHE_SECONDS: "0.25",
    });
    expect(settings.apiKeys).to.deep.equal(["a", "b"]);
    expect(settings.rateLimit).to.deep.equal({ limit: 0, windowMs: 1_500 });
    expect(settings.trustProxy).to.equal(1);
    expect(settings.headersTimeoutMs).to.equal(2_000);
    expect(settings.bodyTimeoutMs).to.equal(4_000);
    expect(settings.shutdownGraceMs).to.equal(0);
    expect(settings.authFailures).to.deep.equal({ limit: 10, windowMs: 300_000 });
    expect(settings.healthCacheMs).to.equal(250);
  });

  it("refuses malformed values with a message that names the variable and quotes the value", function () {
    expect(refusal({ TOKEN_SERVICE_RATE_LIMIT: "6OO" })).to.equal('TOKEN_SERVICE_RATE_LIMIT must be a whole number, 0 or more (got "6OO")');
    expect(refusal({ TOKEN_SERVICE_RATE_WINDOW_SECONDS: "1m" })).to.equal(
      'TOKEN_SERVICE_RATE_WINDOW_SECONDS must be a number of seconds, like 30 or 0.5 (got "1m")',
    );
    expect(refusal({ TOKEN_SERVICE_RATE_WINDOW_SECONDS: "0" })).to.equal(
      'TOKEN_SERVICE_RATE_WINDOW_SECONDS must be more than 0 seconds (got "0")',
    );
    expect(refusal({ TOKEN_SERVICE_RATE_LIMIT: "-1" })).to.match(/^TOKEN_SERVICE_RATE_LIMIT /);
    expect(refusal({ TOKEN_SERVICE_TRUST_PROXY: "yes" })).to.match(
      /^TOKEN_SERVICE_TRUST_PROXY must be a number of proxies or proxy addresses and ranges \(yes is neither/,
    );
    expect(refusal({ TOKEN_SERVICE_TRUST_PROXY: "true" }), "never trust every hop").to.match(/^TOKEN_SERVICE_TRUST_PROXY must not be true/);
    expect(loadSettings({ TOKEN_SERVICE_TRUST_PROXY: "10.0.0.5, 10.1.0.0/16, loopback" }).trustProxy).to.deep.equal([
      "10.0.0.5",
      "10.1.0.0/16",
      "loopback",
    ]);
    expect(loadSettings({ TOKEN_SERVICE_TRUST_PROXY: "off" }).trustProxy).to.equal(false);
    expect(refusal({ TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS: "Infinity" })).to.match(/^TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS /);
    expect(refusal({ TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS: "40" })).to.match(
      /^TOKEN_SERVICE_BODY_TIMEOUT_SECONDS must be at least TOKEN_SERVICE_HEADERS_TIMEOUT_SECONDS/,
    );
  });

  it("stops createServer before it opens the database", async function () {
    const dataDir = await mkdtemp(path.join(tmpdir(), "hts-settings-"));
    try {
      let refused: unknown;
      await createServer({ simulatedChainFactory: hardhatSimulatedChains(hre), dataDir, env: { TOKEN_SERVICE_RATE_LIMIT: "6OO" } }).catch(
        (error: unknown) => (refused = error),
      );
      expect(refused).to.be.instanceOf(SettingsError);
      expect(await readdir(dataDir)).to.deep.equal([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe("Settings of held wallets' signers", function () {
  it("refuses aws-kms without a region, naming the variable, and a passphrase too short to be one", function () {
    expect(() => loadSettings({ TOKEN_SERVICE_SIGNER: "aws-kms" })).to.throw(SettingsError, /^TOKEN_SERVICE_AWS_KMS_REGION is required/);
    expect(() => loadSettings({ TOKEN_SERVICE_SIGNER: "kms" })).to.throw(
      SettingsError,
      /^TOKEN_SERVICE_SIGNER must be local-keystore or aws-kms/,
    );
    expect(() => loadSettings({ TOKEN_SERVICE_KEYSTORE_PASSPHRASE: "short" })).to.throw(
      SettingsError,
      /^TOKEN_SERVICE_KEYSTORE_PASSPHRASE must be at least 12/,
    );
    expect(() => loadSettings({ TOKEN_SERVICE_ALLOW_PRIVATE_KEYS: "no" })).to.throw(
      SettingsError,
      /^TOKEN_SERVICE_ALLOW_PRIVATE_KEYS must be true or false/,
    );
    expect(loadSettings({ TOKEN_SERVICE_ALLOW_PRIVATE_KEYS: "false" }).allowPrivateKeys).to.equal(false);
  });

  it("never quotes the passphrase it refuses", function () {
    let message = "";
    try {
      loadSettings({ TOKEN_SERVICE_KEYSTORE_PASSPHRASE: "tiny-secret" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).to.match(/TOKEN_SERVICE_KEYSTORE_PASSPHRASE/);
    expect(message).to.not.include("tiny-secret");
  });
});
