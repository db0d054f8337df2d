import { expect } from "chai";
import hre from "hardhat";

import { createTokenService } from "../../../src/api.js";
import { bitcoinBackendsFromEnv } from "../../../src/chains/bitcoin/backends.js";
import { ErrorCode } from "../../../src/domain/errors.js";
import { expectServiceError } from "../../helpers/errors.js";
import { closedPort } from "../../helpers/service.js";

const REGTEST_ADDRESS = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";
const TESTNET_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";
const MAINNET_ADDRESS = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4";
const PASSWORD = "s3cret-Pa55word";

describe("bitcoin backend selection", function () {
  it("bitcoind takes precedence over Esplora; the endpoint shows host:port, never the credentials", function () {
    const backends = bitcoinBackendsFromEnv({
      TOKEN_SERVICE_BITCOIND_BITCOIN_TESTNET: `http://alice:${PASSWORD}@10.0.0.5:48332`,
      TOKEN_SERVICE_ESPLORA_BITCOIN_TESTNET: "https://esplora.example.org/api",
    });
    expect(backends.describe("testnet")).to.deep.equal({ backend: "bitcoind", endpoint: "10.0.0.5:48332" });
    expect(backends.get("testnet")?.kind).to.equal("bitcoind");
    expect(backends.describe("mainnet")).to.deep.equal({ backend: "esplora", endpoint: "https://mempool.space/api" });
  });

  it("regtest has a backend (with a faucet) only when its bitcoind variable is set", function () {
    expect(bitcoinBackendsFromEnv({ TOKEN_SERVICE_ESPLORA_BITCOIN_REGTEST: "http://127.0.0.1:3002/api" }).get("regtest")?.kind).to.equal(
      "esplora",
    );
    expect(bitcoinBackendsFromEnv({}).get("regtest")).to.equal(undefined);
    const regtest = bitcoinBackendsFromEnv({ TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: "http://u:p@127.0.0.1:18443" }).get("regtest");
    expect(regtest?.fund).to.be.a("function");
    const testnet = bitcoinBackendsFromEnv({ TOKEN_SERVICE_BITCOIND_BITCOIN_TESTNET: "http://u:p@127.0.0.1:48332" }).get("testnet");
    expect(testnet?.fund).to.equal(undefined);
  });

  it("configurationHint names the variables", function () {
    const backends = bitcoinBackendsFromEnv({});
    expect(backends.configurationHint("regtest")).to.equal("TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST");
    expect(backends.configurationHint("signet")).to.equal(
      "TOKEN_SERVICE_BITCOIND_BITCOIN_SIGNET (or TOKEN_SERVICE_ESPLORA_BITCOIN_SIGNET)",
    );
  });

  it("no backend for regtest: BACKEND_NOT_CONFIGURED naming the variable, for balance and faucet", async function () {
    const service = await createTokenService({ hre, env: {} });
    try {
      const read = await expectServiceError(
        service.getBalances({ chain: "bitcoin", network: "regtest", address: REGTEST_ADDRESS }),
        ErrorCode.BACKEND_NOT_CONFIGURED,
        "network",
      );
      expect(read.message).to.include("TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST");
      const faucet = await expectServiceError(
        service.faucet({ chain: "bitcoin", network: "regtest", address: REGTEST_ADDRESS }),
        ErrorCode.BACKEND_NOT_CONFIGURED,
        "network",
      );
      expect(faucet.message).to.include("TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST");
      const regtest = service.networks().find((pair) => pair.chain === "bitcoin" && pair.network === "regtest");
      expect(regtest).to.include({ backend: "none" });
      expect(regtest?.endpoint).to.include("TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST");
    } finally {
      await service.close();
    }
  });

  it("the faucet refuses live networks with LIVE_NETWORK_FAUCET, Esplora or bitcoind alike, before any request", async function () {
    const port = await closedPort();
    const service = await createTokenService({ hre, env: { TOKEN_SERVICE_BITCOIND_BITCOIN_SIGNET: `http://u:p@127.0.0.1:${port}` } });
    try {
      await expectServiceError(
        service.faucet({ chain: "bitcoin", network: "testnet", address: TESTNET_ADDRESS }),
        ErrorCode.LIVE_NETWORK_FAUCET,
        "network",
      );
      await expectServiceError(
        service.faucet({ chain: "bitcoin", network: "signet", address: TESTNET_ADDRESS }),
        ErrorCode.LIVE_NETWORK_FAUCET,
        "network",
      );
      await expectServiceError(
        service.faucet({ chain: "bitcoin", network: "mainnet", address: MAINNET_ADDRESS }),
        ErrorCode.LIVE_NETWORK_FAUCET,
        "network",
      );
    } finally {
      await service.close();
    }
  });

  it("an address of another network is INVALID_ADDRESS naming address (tb1 on regtest and mainnet, bc1 on testnet)", async function () {
    const service = await createTokenService({ hre, env: { TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: "http://u:p@127.0.0.1:1" } });
    try {
      await expectServiceError(
        service.getBalances({ chain: "bitcoin", network: "regtest", address: TESTNET_ADDRESS }),
        ErrorCode.INVALID_ADDRESS,
        "address",
      );
      await expectServiceError(
        service.faucet({ chain: "bitcoin", network: "regtest", address: TESTNET_ADDRESS }),
        ErrorCode.INVALID_ADDRESS,
        "address",
      );
      await expectServiceError(
        service.getBalances({ chain: "bitcoin", network: "mainnet", address: TESTNET_ADDRESS }),
        ErrorCode.INVALID_ADDRESS,
        "address",
      );
      await expectServiceError(
        service.getBalances({ chain: "bitcoin", network: "testnet", address: MAINNET_ADDRESS }),
        ErrorCode.INVALID_ADDRESS,
        "address",
      );
      await expectServiceError(
        service.getBalances({ chain: "bitcoin", network: "regtest", address: "0x00000000000000000000000000000000000000aa" }),
        ErrorCode.INVALID_ADDRESS,
        "address",
      );
    } finally {
      await service.close();
    }
  });

  it("a malformed bitcoind URL is BACKEND_NOT_CONFIGURED naming the variable, never echoing its value", async function () {
    const value = `ftp://bob:${PASSWORD}@host:1`;
    const service = await createTokenService({ hre, env: { TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: value } });
    try {
      const error = await expectServiceError(
        service.getBalances({ chain: "bitcoin", network: "regtest", address: REGTEST_ADDRESS }),
        ErrorCode.BACKEND_NOT_CONFIGURED,
        "network",
        [PASSWORD, value],
      );
      expect(error.message).to.include("TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST");
      expect(JSON.stringify(service.networks())).not.to.include(PASSWORD);
    } finally {
      await service.close();
    }
  });

  it("an unreachable bitcoind is UPSTREAM_UNAVAILABLE naming host:port, without the password", async function () {
    const port = await closedPort();
    const service = await createTokenService({
      hre,
      env: { TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: `http://alice:${PASSWORD}@127.0.0.1:${port}` },
    });
    try {
      const error = await expectServiceError(
        service.getBalances({ chain: "bitcoin", network: "regtest", address: REGTEST_ADDRESS }),
        ErrorCode.UPSTREAM_UNAVAILABLE,
        undefined,
        [PASSWORD, "alice"],
      );
      expect(error.message).to.include(`127.0.0.1:${port}`);
      expect(error.details).to.include({ backend: "bitcoind", endpoint: `127.0.0.1:${port}`, reason: "ECONNREFUSED" });
      await expectServiceError(
        service.faucet({ chain: "bitcoin", network: "regtest", address: REGTEST_ADDRESS }),
        ErrorCode.UPSTREAM_UNAVAILABLE,
        undefined,
        [PASSWORD],
      );
      const cause = (error as { cause?: unknown }).cause;
      expect(String(cause) + String((cause as Error | undefined)?.stack)).not.to.include(PASSWORD);
    } finally {
      await service.close();
    }
  });
});
