import { randomUUID } from "node:crypto";

import { expect } from "chai";

import { storeVariants } from "../../helpers/postgres-schema.js";
import { startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";
import { parseRawResponse, rawConnection, within } from "../../helpers/raw-http.js";

const MAX_UINT256 = (1n << 256n) - 1n;

function expectInvalid(response: { status: number; body: any }, field: string): void {
  expect(response.status, JSON.stringify(response.body)).to.equal(400);
  expect(response.body.error.code).to.equal("INVALID_ARGUMENT");
  expect(response.body.error.field).to.equal(field);
}

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

/** Sends raw bytes as a request and returns the response the server wrote before closing. */
async function rawExchange(baseUrl: string, bytes: string): Promise<{ status: number; body: any }> {
  const connection = await rawConnection(baseUrl, bytes);
  try {
    await within(connection.closed, 10_000, "connection closed after a refused request");
    return parseRawResponse(connection.received());
  } finally {
    connection.socket.destroy();
  }
}

for (const store of storeVariants("hts_hostile")) {
  describe(`HTTP service — hostile input gets a 4xx naming the field, never a 500 — ${store.name}`, function () {
    let api: RunningServer;
    let database: { url: string | undefined; drop(): Promise<void> };
    let funded: { address: string; privateKey: string };
    const pair = { chain: "ethereum", network: "sepolia" };

    before(async function () {
      database = await store.database(this);
      api = await startServer(database.url ? { databaseUrl: database.url } : {});
      funded = (await api.call("POST", "/api/v1/wallets", pair)).body;
      expect((await api.call("POST", "/api/v1/faucet", { ...pair, address: funded.address })).status).to.equal(200);
    });

    after(async function () {
      await api?.stop();
      await database?.drop();
    });

    it("refuses NUL and lone surrogates in token name, symbol and uri", async function () {
      const launch = (type: string, token: Record<string, string>) =>
        api.call("POST", "/api/v1/tokens", { ...pair, type, token, sender: funded.address, privateKey: funded.privateKey });
      expectInvalid(await launch("ERC20", { name: "Nul\u0000Token", symbol: "NUL" }), "token.name");
      expectInvalid(await launch("ERC20", { name: "Half", symbol: "H\ud800" }), "token.symbol");
      expectInvalid(await launch("ERC721", { name: "Uri", symbol: "URI", uri: "ipfs://\u0000/" }), "token.uri");
      expectInvalid(await launch("ERC721", { name: "Low\udc00", symbol: "LOW" }), "token.name");
      const mint = await api.call("POST", "/api/v1/tokens/mint", {
        ...pair,
        type: "ERC721",
        contractAddress: funded.address,
        to: funded.address,
        uri: "x\u0000",
        sender: funded.address,
        privateKey: funded.privateKey,
      });
      expectInvalid(mint, "uri");
      // A well-formed pair of surrogates is just a character outside the BMP.
      const emoji = await launch("ERC20", { name: "Rocket \ud83d\ude80", symbol: "RKT" });
      expect(emoji.status, JSON.stringify(emoji.body)).to.equal(200);
    });

    it("refuses a cursor holding NUL, an out-of-range time or garbage", async function () {
      expectInvalid(await api.call("GET", `/api/v1/operations?cursor=${cursorOf(["1", "a\u0000b"])}`), "cursor");
      expectInvalid(await api.call("GET", `/api/v1/operations?cursor=${cursorOf(["9999999999999999999", "x"])}`), "cursor");
      expectInvalid(await api.call("GET", "/api/v1/operations?cursor=%00"), "cursor");
      expectInvalid(await api.call("GET", "/api/v1/operations?cursor=99999999999999999999999999999999"), "cursor");
    });

    it("refuses a faucet grant that would take a balance past 2^256 - 1, and leaves the balance as it was", async function () {
      const fresh = (await api.call("POST", "/api/v1/wallets", pair)).body;
      const first = await api.call("POST", "/api/v1/faucet", { ...pair, address: fresh.address, amount: MAX_UINT256.toString() });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expectInvalid(
        await api.call("POST", "/api/v1/faucet", { ...pair, address: fresh.address, amount: MAX_UINT256.toString() }),
        "amount",
      );
      expectInvalid(await api.call("POST", "/api/v1/faucet", { ...pair, address: fresh.address, amount: "1" }), "amount");

      const topped = (await api.call("POST", "/api/v1/wallets", pair)).body;
      expect((await api.call("POST", "/api/v1/faucet", { ...pair, address: topped.address })).status).to.equal(200);
      const overflow = await api.call("POST", "/api/v1/faucet", {
        ...pair,
        address: topped.address,
        amount: (MAX_UINT256 - 1n).toString(),
      });
      expectInvalid(overflow, "amount");
      const balance = await api.call("GET", `/api/v1/wallets?chain=ethereum&network=sepolia&address=${topped.address}`);
      expect(balance.body.balances.ETH.balance).to.equal((10n ** 19n).toString());
    });

    it("says which type a field should have, instead of calling it missing", async function () {
      const chain = await api.call("POST", "/api/v1/wallets", { chain: 5, network: "sepolia" });
      expectInvalid(chain, "chain");
      expect(chain.body.error.message).to.equal("chain: must be a string, not a number");
      const nullNetwork = await api.call("POST", "/api/v1/wallets", { chain: "ethereum", network: null });
      expect(nullNetwork.body.error.message).to.equal("network: must be a string, not null");
      const missing = await api.call("POST", "/api/v1/wallets", { chain: "ethereum" });
      expect(missing.body.error.message).to.equal("network: is required");
      const token = await api.call("POST", "/api/v1/tokens", {
        ...pair,
        type: "ERC20",
        token: ["A"],
        sender: funded.address,
        privateKey: funded.privateKey,
      });
      expectInvalid(token, "token");
      expect(token.body.error.message).to.equal("token: must be an object, not an array");
      const limit = await api.call("GET", "/api/v1/operations?limit=1&limit=2");
      expectInvalid(limit, "limit");
      expect(limit.body.error.message).to.equal("limit: must be a number, not an array");
      const body = await api.call("POST", "/api/v1/wallets", "[]");
      expect(body.body.error.message).to.equal("body: must be an object, not an array");
    });

    it("says a bound or a list of options in its own words, with the value it got", async function () {
      const launch = (token: Record<string, unknown>) =>
        api.call("POST", "/api/v1/tokens", { ...pair, type: "ERC20", token, sender: funded.address, privateKey: funded.privateKey });
      const cases: Array<[Promise<{ status: number; body: any }>, string, string]> = [
        [launch({ name: "Big", symbol: "BIG", initialSupply: "1", decimals: 77 }), "token.decimals", "must be at most 36 (got 77)"],
        [launch({ name: "Neg", symbol: "NEG", initialSupply: "1", decimals: -1 }), "token.decimals", "must be at least 0 (got -1)"],
        [launch({ name: "N".repeat(300), symbol: "L", initialSupply: "1" }), "token.name", "must have at most 100 characters (got 300)"],
        [
          api.call("POST", "/api/v1/webhooks", { url: "https://hooks.example/x", events: ["operation.nope"] }),
          "events[0]",
          'must be one of "operation.pending", "operation.mined", "operation.failed", "operation.dropped", "operation.reorged", "operation.cancelled", "operation.stuck", "chain.activity", "chain.event", "chain.activity.removed", "chain.event.removed"',
        ],
      ];
      for (const [call, field, rule] of cases) {
        const refused = await call;
        expectInvalid(refused, field);
        expect(refused.body.error.message).to.equal(`${field}: ${rule}`);
      }
      // A query value is the text it was sent as: quoted back while short, left out when long.
      const page = await api.call("GET", "/api/v1/operations?limit=1000");
      expectInvalid(page, "limit");
      expect(page.body.error.message).to.match(/^limit: must be at most \d+ \(got 1000\)$/);
      const long = await api.call("GET", `/api/v1/operations?limit=${"9".repeat(60)}`);
      expectInvalid(long, "limit");
      expect(long.body.error.message).to.match(/^limit: must be at most \d+$/);
    });

    it("refuses a query parameter the endpoint does not take, naming it and those it takes, after the key is checked", async function () {
      const read = `/api/v1/wallets?chain=ethereum&network=sepolia&address=${funded.address}`;
      // One letter short of erc20TokenContractAddresses: dropped, it would have answered the ETH balance alone.
      const misspelt = await api.call("GET", `${read}&erc20TokenContractAddress=${funded.address}`);
      expectInvalid(misspelt, "erc20TokenContractAddress");
      expect(misspelt.body.error.message).to.equal(
        "unknown query parameter: erc20TokenContractAddress; this endpoint takes chain, network, address, erc20TokenContractAddresses (and apiKey)",
      );
      expect(misspelt.body.error.details).to.deep.equal({
        unknownParameters: ["erc20TokenContractAddress"],
        allowed: ["chain", "network", "address", "erc20TokenContractAddresses", "apiKey"],
      });
      const several = await api.call("POST", `/api/v1/wallets?chain=ethereum&${"x".repeat(100)}=1`, pair);
      expectInvalid(several, "chain");
      expect(several.body.error.message).to.equal(`unknown query parameters: chain, ${"x".repeat(64)}…; this endpoint takes only apiKey`);
      const many = await api.call("POST", `/api/v1/wallets?${Array.from({ length: 500 }, (_, index) => `p${index}=1`).join("&")}`, pair);
      expectInvalid(many, "p0");
      expect(many.body.error.message).to.equal(
        "unknown query parameters: p0, p1, p2, p3, p4, p5, p6, p7, p8, p9 and 490 more; this endpoint takes only apiKey",
      );
      expect(many.body.error.details.unknownParameters).to.have.length(10);
      const waitSecond = await api.call("GET", `/api/v1/operations/${randomUUID()}?waitSecond=30`);
      expectInvalid(waitSecond, "waitSecond");
      // The key in the query is every endpoint's; the request is then answered as without it.
      const keyed = await fetch(`${api.baseUrl}${read}&apiKey=${TEST_API_KEY}`);
      expect(keyed.status).to.equal(200);
      expect(((await keyed.json()) as { address: string }).address).to.equal(funded.address);
      const wallet = await fetch(`${api.baseUrl}/api/v1/wallets?apiKey=${TEST_API_KEY}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(pair),
      });
      expect(wallet.status).to.equal(200);
      // Without a valid key, the answer is 401 whatever the query holds.
      const keyless = await fetch(`${api.baseUrl}${read}&erc20TokenContractAddress=x&apiKey=wrong-key`);
      expect(keyless.status).to.equal(401);
    });

    it("refuses bad transfer, approval and token-read input with a 4xx naming the field, and records nothing", async function () {
      this.timeout(60_000);
      const other = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
      const zero = "0x0000000000000000000000000000000000000000";
      const signer = { sender: funded.address, privateKey: funded.privateKey };
      const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
        ...pair,
        type: "ERC721",
        token: { name: "Bad", symbol: "BAD" },
        ...signer,
      });
      expect(launched.body.status, JSON.stringify(launched.body)).to.equal("mined");
      const nft = launched.body.contractAddress as string;
      // Token 1 is another's: the sender holds none of it.
      const minted = await api.call("POST", "/api/v1/tokens/mint?wait=mined", {
        ...pair,
        type: "ERC721",
        contractAddress: nft,
        to: other,
        ...signer,
      });
      expect(minted.body.status).to.equal("mined");
      const recordsBefore = (await api.call("GET", "/api/v1/operations?limit=100")).body.items.length;

      const native = { ...pair, type: "NATIVE", to: other, amount: "1", ...signer };
      const erc721 = { ...pair, type: "ERC721", contractAddress: nft, to: other, tokenId: "1", ...signer };
      const approval = { ...pair, type: "ERC20", contractAddress: nft, spender: other, amount: "1", ...signer };
      const cases: Array<[string, string, unknown, number, string, string]> = [
        ["POST", "/api/v1/transfers", { ...native, amount: "0" }, 400, "INVALID_ARGUMENT", "amount"],
        ["POST", "/api/v1/transfers", { ...native, amount: "-5" }, 400, "INVALID_ARGUMENT", "amount"],
        ["POST", "/api/v1/transfers", { ...native, amount: 5 }, 400, "INVALID_ARGUMENT", "amount"],
        ["POST", "/api/v1/transfers", { ...native, amount: MAX_UINT256.toString() + "0" }, 400, "INVALID_ARGUMENT", "amount"],
        ["POST", "/api/v1/transfers", { ...native, amount: undefined }, 400, "INVALID_ARGUMENT", "amount"],
        ["POST", "/api/v1/transfers", { ...native, to: "0x1234" }, 400, "INVALID_ADDRESS", "to"],
        ["POST", "/api/v1/transfers", { ...native, to: zero }, 400, "INVALID_ARGUMENT", "to"],
        ["POST", "/api/v1/transfers", { ...native, to: other.toLowerCase().replace("a", "A") }, 400, "INVALID_ADDRESS", "to"],
        ["POST", "/api/v1/transfers", { ...native, contractAddress: nft }, 400, "INVALID_ARGUMENT", "contractAddress"],
        ["POST", "/api/v1/transfers", { ...native, tokenId: "1" }, 400, "INVALID_ARGUMENT", "tokenId"],
        ["POST", "/api/v1/transfers", { ...native, type: "ERC777" }, 400, "INVALID_ARGUMENT", "type"],
        // Bitcoin is sent from held wallets only (docs/custody.md): a key in the body is no field of a Bitcoin send.
        ["POST", "/api/v1/transfers", { ...native, chain: "bitcoin", network: "regtest" }, 400, "INVALID_ARGUMENT", "privateKey"],
        [
          "POST",
          "/api/v1/transfers",
          { chain: "bitcoin", network: "regtest", to: other, amount: "1", sender: other },
          400,
          "INVALID_ADDRESS",
          "sender",
        ],
        ["POST", "/api/v1/transfers", { ...native, sender: other }, 422, "KEY_SENDER_MISMATCH", "privateKey"],
        ["POST", "/api/v1/transfers", { ...native, signedTransaction: "0x01" }, 400, "INVALID_ARGUMENT", "signedTransaction"],
        ["POST", "/api/v1/transfers", { ...native, memo: "hi" }, 400, "INVALID_ARGUMENT", "memo"],
        ["POST", "/api/v1/transfers", { ...erc721, amount: "1" }, 400, "INVALID_ARGUMENT", "amount"],
        ["POST", "/api/v1/transfers", { ...erc721, tokenId: undefined }, 400, "INVALID_ARGUMENT", "tokenId"],
        ["POST", "/api/v1/transfers", { ...erc721, contractAddress: undefined }, 400, "INVALID_ADDRESS", "contractAddress"],
        ["POST", "/api/v1/transfers", { ...erc721, tokenId: "1" }, 422, "NOT_TOKEN_OWNER", "tokenId"],
        ["POST", "/api/v1/transfers", { ...erc721, tokenId: "2" }, 422, "NOT_TOKEN_OWNER", "tokenId"],
        ["POST", "/api/v1/transfers", { ...erc721, type: "ERC1155", amount: "1" }, 422, "NOT_A_TOKEN_CONTRACT", "contractAddress"],
        [
          "POST",
          "/api/v1/transfers",
          { ...erc721, type: "ERC20", tokenId: undefined, amount: "1" },
          422,
          "NOT_A_TOKEN_CONTRACT",
          "contractAddress",
        ],
        ["POST", "/api/v1/tokens/approve", { ...approval, spender: zero }, 400, "INVALID_ARGUMENT", "spender"],
        ["POST", "/api/v1/tokens/approve", { ...approval, spender: "nobody" }, 400, "INVALID_ADDRESS", "spender"],
        ["POST", "/api/v1/tokens/approve", { ...approval, type: "NATIVE" }, 400, "INVALID_ARGUMENT", "type"],
        ["POST", "/api/v1/tokens/approve", { ...approval, amount: undefined }, 400, "INVALID_ARGUMENT", "amount"],
        ["POST", "/api/v1/tokens/approve", { ...approval, all: true }, 400, "INVALID_ARGUMENT", "all"],
        ["POST", "/api/v1/tokens/approve", { ...approval, all: "yes" }, 400, "INVALID_ARGUMENT", "all"],
        [
          "POST",
          "/api/v1/tokens/approve",
          { ...approval, type: "ERC721", amount: undefined, tokenId: "1", all: true },
          400,
          "INVALID_ARGUMENT",
          "all",
        ],
        ["POST", "/api/v1/tokens/approve", { ...approval, type: "ERC721", amount: undefined }, 400, "INVALID_ARGUMENT", "tokenId"],
        ["POST", "/api/v1/tokens/approve", { ...approval, type: "ERC721" }, 400, "INVALID_ARGUMENT", "amount"],
        [
          "POST",
          "/api/v1/tokens/approve",
          { ...approval, type: "ERC1155", amount: undefined, tokenId: "1" },
          400,
          "INVALID_ARGUMENT",
          "tokenId",
        ],
        [
          "POST",
          "/api/v1/tokens/approve",
          { ...approval, type: "ERC721", amount: undefined, tokenId: "1" },
          422,
          "NOT_TOKEN_OWNER",
          "tokenId",
        ],
        [
          "GET",
          `/api/v1/tokens/allowance?chain=ethereum&network=sepolia&type=erc20&contractAddress=${nft}&owner=0x12&spender=${other}`,
          undefined,
          400,
          "INVALID_ADDRESS",
          "owner",
        ],
        [
          "GET",
          `/api/v1/tokens/allowance?chain=ethereum&network=sepolia&type=erc20&contractAddress=${nft}&owner=${other}&spender=${other}&tokenId=1`,
          undefined,
          400,
          "INVALID_ARGUMENT",
          "tokenId",
        ],
        [
          "GET",
          `/api/v1/tokens/allowance?chain=ethereum&network=sepolia&type=native&contractAddress=${nft}&owner=${other}&spender=${other}`,
          undefined,
          400,
          "INVALID_ARGUMENT",
          "type",
        ],
        [
          "GET",
          `/api/v1/tokens/allowance?chain=ethereum&network=sepolia&type=erc721&contractAddress=${nft}&owner=${other}&spender=${other}&tokenId=99`,
          undefined,
          422,
          "NOT_TOKEN_OWNER",
          "tokenId",
        ],
        ["GET", "/api/v1/tokens/0x12?chain=ethereum&network=sepolia", undefined, 400, "INVALID_ADDRESS", "contractAddress"],
        ["GET", `/api/v1/tokens/${other}?chain=ethereum&network=sepolia`, undefined, 422, "NOT_A_TOKEN_CONTRACT", "contractAddress"],
        ["GET", `/api/v1/tokens/${nft}?chain=bitcoin&network=mainnet`, undefined, 400, "UNSUPPORTED_OPERATION", "chain"],
        ["GET", `/api/v1/tokens/${nft}/owners/0x12/tokens?chain=ethereum&network=sepolia`, undefined, 400, "INVALID_ADDRESS", "owner"],
        [
          "GET",
          `/api/v1/tokens/${nft}/owners/${other}/tokens?chain=ethereum&network=sepolia&limit=0`,
          undefined,
          400,
          "INVALID_ARGUMENT",
          "limit",
        ],
        [
          "GET",
          `/api/v1/tokens/${nft}/owners/${other}/tokens?chain=ethereum&network=sepolia&limit=1001`,
          undefined,
          400,
          "INVALID_ARGUMENT",
          "limit",
        ],
        [
          "GET",
          `/api/v1/tokens/${nft}/owners/${other}/tokens?chain=ethereum&network=sepolia&fromBlock=-1`,
          undefined,
          400,
          "INVALID_ARGUMENT",
          "fromBlock",
        ],
        [
          "GET",
          `/api/v1/tokens/${nft}/owners/${other}/tokens?chain=ethereum&network=sepolia&cursor=${cursorOf(["1", "x"])}`,
          undefined,
          400,
          "INVALID_ARGUMENT",
          "cursor",
        ],
        [
          "GET",
          `/api/v1/tokens/${nft}/owners/${other}/tokens?chain=ethereum&network=sepolia&cursor=%00`,
          undefined,
          400,
          "INVALID_ARGUMENT",
          "cursor",
        ],
        [
          "GET",
          `/api/v1/tokens/${nft}/owners/${other}/tokens?chain=ethereum&network=sepolia&cursor=${Buffer.from(`after:${1n << 256n}`).toString("base64url")}`,
          undefined,
          400,
          "INVALID_ARGUMENT",
          "cursor",
        ],
      ];
      for (const [method, path, body, status, code, field] of cases) {
        const response = await api.call(method, path, body);
        const label = `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(response.body)}`;
        expect(response.status, label).to.equal(status);
        expect(response.body.error, label).to.include({ code, field });
      }
      expect((await api.call("GET", "/api/v1/operations?limit=100")).body.items.length).to.equal(recordsBefore);
    });

    it("answers a path with a broken percent-encoding with a 400", async function () {
      const response = await api.call("GET", "/api/v1/tokens/%E0%A4%A/balance?chain=ethereum&network=sepolia&tokenAddress=x&type=erc20");
      expect(response.status).to.equal(400);
      expect(response.body.error).to.deep.equal({
        code: "MALFORMED_REQUEST",
        message: "the path holds an invalid percent-encoding",
        field: "path",
      });
    });

    it("answers what the HTTP parser refuses in the same JSON error shape", async function () {
      const tooLarge = await rawExchange(
        api.baseUrl,
        `GET /api/v1/networks HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${TEST_API_KEY}\r\nX-Pad: ${"a".repeat(20_000)}\r\n\r\n`,
      );
      expect(tooLarge.status).to.equal(431);
      expect(tooLarge.body.error).to.include({ code: "HEADERS_TOO_LARGE", field: "headers" });

      const badName = await rawExchange(api.baseUrl, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n");
      expect(badName.status).to.equal(400);
      expect(badName.body.error.code).to.equal("MALFORMED_REQUEST");

      const badValue = await rawExchange(api.baseUrl, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Nul: a\u0000b\r\n\r\n");
      expect(badValue.status).to.equal(400);
      expect(badValue.body.error.code).to.equal("MALFORMED_REQUEST");

      const badChunk = await rawExchange(
        api.baseUrl,
        `POST /api/v1/wallets HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${TEST_API_KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      );
      expect(badChunk.status).to.equal(400);
      expect(badChunk.body.error.code).to.equal("MALFORMED_REQUEST");
    });
  });
}
