import { expect } from "chai";

import { startSilentServer } from "../../helpers/json-rpc-servers.js";
import { storeVariants } from "../../helpers/postgres-schema.js";
import { closedPort } from "../../helpers/service.js";
import { startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";

function expectError(response: { status: number; body: any }, status: number, code: string, field?: string): void {
  expect(response.status, JSON.stringify(response.body)).to.equal(status);
  expect(response.body).to.have.property("error");
  expect(response.body.error.code).to.equal(code);
  expect(response.body.error.message)
    .to.be.a("string")
    .and.not.match(/\n\s+at /);
  if (field !== undefined) expect(response.body.error.field).to.equal(field);
}

const STORES = storeVariants("hts_errors");

for (const store of STORES) {
  describe(`HTTP service — every error status with its code — ${store.name}`, function () {
    let api: RunningServer;
    let database: { url: string | undefined; drop(): Promise<void> };
    let silent: { url: string; close(): Promise<void> };
    let wallet: { address: string; privateKey: string };

    before(async function () {
      silent = await startSilentServer();
      database = await store.database(this);
      api = await startServer({
        ...(database.url ? { databaseUrl: database.url } : {}),
        requestTimeoutMs: 500,
        env: {
          TOKEN_SERVICE_RPC_ETHEREUM_HOLESKY: `http://127.0.0.1:${await closedPort()}`,
          TOKEN_SERVICE_RPC_ETHEREUM_HOODI: silent.url,
        },
      });
      wallet = (await api.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "sepolia" })).body;
    });

    after(async function () {
      await api?.stop();
      await silent?.close();
      await database?.drop();
    });

    it("400 names the missing field", async function () {
      expectError(await api.call("POST", "/api/v1/wallets", { chain: "ethereum" }), 400, "INVALID_ARGUMENT", "network");
    });

    it("400 for an unknown chain and an unknown network, listing the allowed values", async function () {
      const chain = await api.call("POST", "/api/v1/wallets", { chain: "dogecoin", network: "mainnet" });
      expectError(chain, 400, "UNSUPPORTED_CHAIN", "chain");
      expect(chain.body.error.message).to.include("binance_smart_chain");
      expectError(
        await api.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "goerli" }),
        400,
        "UNSUPPORTED_NETWORK",
        "network",
      );
    });

    it("400 for malformed JSON", async function () {
      expectError(await api.call("POST", "/api/v1/wallets", '{"chain": "ethereum",'), 400, "MALFORMED_JSON", "body");
    });

    it("400 names unknown body fields and unknown token fields", async function () {
      expectError(
        await api.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "sepolia", colour: "red" }),
        400,
        "INVALID_ARGUMENT",
        "colour",
      );
      const response = await api.call("POST", "/api/v1/tokens", {
        chain: "ethereum",
        network: "sepolia",
        type: "SERVICE_ERC721",
        token: { name: "A", symbol: "A", initialSupply: "1" },
        sender: wallet.address,
        privateKey: wallet.privateKey,
      });
      expectError(response, 400, "INVALID_ARGUMENT", "token.initialSupply");
    });

    it("400 for a bad address, a bad amount, an unknown type, and a query chain that disagrees with the body", async function () {
      expectError(await api.call("GET", "/api/v1/wallets?chain=ethereum&network=sepolia&address=0x123"), 400, "INVALID_ADDRESS", "address");
      const base = { chain: "ethereum", network: "sepolia", sender: wallet.address, privateKey: wallet.privateKey };
      expectError(
        await api.call("POST", "/api/v1/tokens", {
          ...base,
          type: "SERVICE_ERC20",
          token: { name: "A", symbol: "A", initialSupply: "-5" },
        }),
        400,
        "INVALID_ARGUMENT",
        "token.initialSupply",
      );
      expectError(
        await api.call("POST", "/api/v1/tokens", { ...base, type: "ERC777", token: { name: "A", symbol: "A" } }),
        400,
        "INVALID_ARGUMENT",
        "type",
      );
      expectError(
        await api.call("POST", "/api/v1/tokens?chain=binance_smart_chain", { ...base, type: "ERC20", token: { name: "A", symbol: "A" } }),
        400,
        "INVALID_ARGUMENT",
        "chain",
      );
    });

    it("400 beyond 50 ERC20 contracts, counting comma-separated and repeated parameters together", async function () {
      const many = Array.from({ length: 26 }, (_, index) => `0x${(index + 1).toString(16).padStart(40, "0")}`);
      const query = `chain=ethereum&network=sepolia&address=${wallet.address}&erc20TokenContractAddresses=${many.join(",")}&erc20TokenContractAddresses=${many.join(",")}`;
      expectError(await api.call("GET", `/api/v1/wallets?${query}`), 400, "INVALID_ARGUMENT", "erc20TokenContractAddresses");
    });

    it("401 without a key and with a wrong key", async function () {
      const missing = await fetch(`${api.baseUrl}/api/v1/networks`);
      expectError({ status: missing.status, body: await missing.json() }, 401, "UNAUTHORIZED", "apiKey");
      const wrong = await fetch(`${api.baseUrl}/api/v1/networks?apiKey=nope`);
      expectError({ status: wrong.status, body: await wrong.json() }, 401, "UNAUTHORIZED", "apiKey");
    });

    it("404 for an unknown route, and for an unknown transaction", async function () {
      expectError(await api.call("GET", "/api/v1/nothing-here"), 404, "NOT_FOUND");
      expectError(
        await api.call("GET", `/api/v1/transactions/0x${"ab".repeat(32)}?chain=ethereum&network=sepolia`),
        404,
        "TRANSACTION_NOT_FOUND",
        "transactionHash",
      );
    });

    it("405 with Allow for a fixed route asked with another method, not read as a path parameter", async function () {
      const ask = async (method: string, path: string) => {
        const response = await fetch(`${api.baseUrl}${path}`, { method, headers: { "x-api-key": TEST_API_KEY } });
        return { status: response.status, allow: response.headers.get("allow"), body: await response.json() };
      };
      for (const [method, path, allow] of [
        ["GET", "/api/v1/tokens/mint", "POST"],
        ["GET", "/api/v1/tokens/burn", "POST"],
        ["GET", "/api/v1/tokens/pause", "POST"],
        ["DELETE", "/api/v1/tokens", "GET, HEAD, POST"],
        ["PUT", "/api/v1/wallets", "GET, HEAD, POST"],
      ] as const) {
        const answer = await ask(method, path);
        expectError(answer, 405, "METHOD_NOT_ALLOWED");
        expect(answer.allow, `${method} ${path}`).to.equal(allow);
        expect(answer.body.error.message).to.include(`it takes ${allow}`);
      }
      // A token address under the same prefix is still read as one.
      const token = await ask("GET", `/api/v1/tokens/0x${"00".repeat(19)}01?chain=ethereum&network=sepolia`);
      expect(token.status).to.not.equal(405);
    });

    it("409 when an Idempotency-Key is reused with another body", async function () {
      const key = { "Idempotency-Key": "conflict-1" };
      const first = await api.call("POST", "/api/v1/faucet", { chain: "ethereum", network: "sepolia", address: wallet.address }, key);
      expect(first.status).to.equal(200);
      expectError(
        await api.call("POST", "/api/v1/faucet", { chain: "ethereum", network: "sepolia", address: wallet.address, amount: "1" }, key),
        409,
        "IDEMPOTENCY_CONFLICT",
        "Idempotency-Key",
      );
    });

    it("413 for a body over 64 KiB", async function () {
      expectError(
        await api.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "sepolia", pad: "x".repeat(70 * 1024) }),
        413,
        "PAYLOAD_TOO_LARGE",
        "body",
      );
    });

    it("415 for a body that is not JSON", async function () {
      expectError(
        await api.call("POST", "/api/v1/wallets", "chain=ethereum", { "content-type": "application/x-www-form-urlencoded" }),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
        "Content-Type",
      );
    });

    it("422 for what the chain refuses: insufficient funds (with needed and available), a key that does not derive the sender, not a token contract", async function () {
      const poor = (await api.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "sepolia" })).body;
      const launch = { chain: "ethereum", network: "sepolia", type: "ERC20", token: { name: "A", symbol: "A" } };
      const broke = await api.call("POST", "/api/v1/tokens", { ...launch, sender: poor.address, privateKey: poor.privateKey });
      expectError(broke, 422, "INSUFFICIENT_FUNDS", "sender");
      expect(broke.body.error.details.available).to.equal("0");
      expect(BigInt(broke.body.error.details.needed) > 0n).to.equal(true);
      const mismatch = await api.call("POST", "/api/v1/tokens", { ...launch, sender: wallet.address, privateKey: poor.privateKey });
      expectError(mismatch, 422, "KEY_SENDER_MISMATCH", "privateKey");
      expect(JSON.stringify(mismatch.body)).not.to.include(poor.privateKey.slice(2));
      const notToken = await api.call(
        "GET",
        `/api/v1/wallets?chain=ethereum&network=sepolia&address=${wallet.address}&erc20TokenContractAddresses=${poor.address}`,
      );
      expectError(notToken, 422, "NOT_A_TOKEN_CONTRACT", "erc20TokenContractAddresses");
    });

    it("422 LIVE_NETWORK_FAUCET on a network with a configured endpoint", async function () {
      expectError(
        await api.call("POST", "/api/v1/faucet", { chain: "ethereum", network: "holesky", address: wallet.address }),
        422,
        "LIVE_NETWORK_FAUCET",
        "network",
      );
      expectError(
        await api.call("POST", "/api/v1/faucet", {
          chain: "bitcoin",
          network: "testnet",
          address: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx",
        }),
        422,
        "LIVE_NETWORK_FAUCET",
        "network",
      );
    });

    it("429 once the per-key rate limit is reached, with Retry-After", async function () {
      // A second process on the same database: it may not simulate chains beside the first one.
      const limited = await startServer({
        rateLimit: { limit: 2, windowMs: 60_000 },
        env: { TOKEN_SERVICE_SIMULATED_CHAINS: "off" },
        ...(database.url ? { databaseUrl: database.url } : {}),
      });
      try {
        expect((await limited.call("GET", "/api/v1/networks")).status).to.equal(200);
        expect((await limited.call("GET", "/api/v1/networks")).status).to.equal(200);
        const third = await limited.call("GET", "/api/v1/networks");
        expectError(third, 429, "RATE_LIMITED");
        expect(Number(third.headers.get("retry-after"))).to.be.greaterThan(0);
      } finally {
        await limited.stop();
      }
    });

    it("502 when the node is down, 504 when it hangs, 503 when a network has no backend", async function () {
      expectError(
        await api.call("GET", `/api/v1/wallets?chain=ethereum&network=holesky&address=${wallet.address}`),
        502,
        "UPSTREAM_UNAVAILABLE",
      );
      expectError(await api.call("GET", `/api/v1/wallets?chain=ethereum&network=hoodi&address=${wallet.address}`), 504, "UPSTREAM_TIMEOUT");
      expectError(
        await api.call("GET", "/api/v1/wallets?chain=bitcoin&network=regtest&address=bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"),
        503,
        "BACKEND_NOT_CONFIGURED",
        "network",
      );
    });

    it("never answers 500 to anything a client sent, and never includes the API key in logs", async function () {
      const odd = [
        api.call("POST", "/api/v1/tokens", "[]"),
        api.call("POST", "/api/v1/tokens", "null"),
        api.call("POST", "/api/v1/tokens", { chain: 5, network: [], type: {}, token: "x", sender: 1, privateKey: 2 }),
        api.call("POST", "/api/v1/tokens/mint", {
          chain: "ethereum",
          network: "sepolia",
          type: "erc20",
          contractAddress: wallet.address,
          to: wallet.address,
          sender: wallet.address,
          privateKey: wallet.privateKey,
        }),
        api.call("GET", "/api/v1/wallets?chain=ethereum&chain=bitcoin&network=sepolia&address=x"),
        api.call("GET", `/api/v1/tokens/address=zz/balance?tokenAddress=${wallet.address}&type=erc721&chain=ethereum&network=sepolia`),
        api.call("GET", "/api/v1/operations?limit=100000"),
        api.call("GET", "/api/v1/transactions/0x12?chain=ethereum&network=sepolia"),
      ];
      for (const response of await Promise.all(odd)) {
        expect(response.status, JSON.stringify(response.body)).to.be.within(400, 499);
        expect(response.body.error.code).to.be.a("string");
      }
      expect(api.logs.text()).not.to.include(TEST_API_KEY);
    });
  });
}
