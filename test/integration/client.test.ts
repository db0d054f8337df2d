import { readFile } from "node:fs/promises";
import path from "node:path";

import { expect } from "chai";
import { SigningKey, Transaction, Wallet, type TransactionRequest } from "ethers";
import hre from "hardhat";

import {
  TokenServiceClientError,
  createTokenServiceClient,
  hardhatAccountSigner,
  launchToken,
  mintToken,
  waitForOperation,
  type TokenServiceClient,
  type TransactionSigner,
} from "../../src/client/index.js";
import { GENERATED_TYPES_FILE, generateClientTypes } from "../../scripts/client-types.js";
import { TEST_API_KEY, startServer, type RunningServer } from "../helpers/http-server.js";
import { checkResponseAgainstOpenApi, parseBody } from "../helpers/openapi-responses.js";

const pair = { chain: "ethereum", network: "sepolia" } as const;

/** A fetch that checks every answer against /openapi.json, as the other HTTP helpers do. */
const checkedFetch: typeof fetch = async (input, init) => {
  const request = input instanceof Request ? input : new Request(input, init);
  const response = await fetch(request);
  const text = await response.clone().text();
  const url = new URL(request.url);
  checkResponseAgainstOpenApi(request.method, `${url.pathname}${url.search}`, {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: parseBody(text),
  });
  return response;
};

/** A hardware-style signer: holds a key, signs digests, knows nothing of ethers' Signer class. */
function externalSigner(privateKey: string): TransactionSigner {
  const key = new SigningKey(privateKey);
  const address = new Wallet(privateKey).address;
  return {
    getAddress: async () => address,
    async signTransaction(request: TransactionRequest) {
      const { from: _from, ...fields } = request;
      const transaction = Transaction.from(fields as Parameters<typeof Transaction.from>[0]);
      transaction.signature = key.sign(transaction.unsignedHash);
      return transaction.serialized;
    },
  };
}

describe("the typed client (hardhat-token-service/client)", function () {
  let api: RunningServer;
  let client: TokenServiceClient;

  before(async function () {
    api = await startServer();
    client = createTokenServiceClient({ baseUrl: api.baseUrl, apiKey: TEST_API_KEY, fetch: checkedFetch });
  });

  after(async function () {
    await api?.stop();
  });

  async function fund(address: string): Promise<void> {
    const { response } = await client.POST("/api/v1/faucet", { body: { ...pair, address } });
    expect(response.status).to.equal(200);
  }

  it("its committed OpenAPI types equal a fresh generation from the service's document (npm run generate:client)", async function () {
    const committed = await readFile(path.resolve(import.meta.dirname, "../..", GENERATED_TYPES_FILE), "utf8");
    expect(committed === (await generateClientTypes()), "src/client/openapi.d.ts is stale: run npm run generate:client").to.equal(true);
  });

  it("launches an ERC20 signed locally by a Wallet, waits for it by id and by hash, and mints more", async function () {
    const wallet = Wallet.createRandom();
    await fund(wallet.address);
    const launched = await launchToken(
      client,
      { ...pair, type: "SERVICE_ERC20", token: { name: "Gold", symbol: "GLD", initialSupply: "1000" } },
      wallet,
    );
    expect(launched).to.include({ status: "pending", sender: wallet.address, nonce: 0 });
    const byId = await waitForOperation(client, launched.id, { timeoutMs: 30_000 });
    expect(byId).to.include({ status: "mined", kind: "launch", contractAddress: launched.contractAddress });
    const byHash = await waitForOperation(client, launched.transactionHash, { timeoutMs: 30_000 });
    expect(byHash.id).to.equal(launched.id);

    const minted = await mintToken(
      client,
      { ...pair, type: "ERC20", contractAddress: launched.contractAddress, to: wallet.address, amount: "5" },
      wallet,
      { wait: "mined" },
    );
    expect(minted).to.include({ status: "mined", amount: "5" });
    const { data } = await client.GET("/api/v1/tokens/{address}/balance", {
      params: { path: { address: wallet.address }, query: { ...pair, tokenAddress: launched.contractAddress, type: "erc20" } },
    });
    expect(data).to.include({ balance: "1005" });
  });

  it("launches on avalanche/fuji, signed locally for its chain id, and reads the AVAX balance", async function () {
    const fuji = { chain: "avalanche", network: "fuji" } as const;
    const wallet = Wallet.createRandom();
    const { response } = await client.POST("/api/v1/faucet", { body: { ...fuji, address: wallet.address } });
    expect(response.status).to.equal(200);
    const signer = externalSigner(wallet.privateKey);
    const signed: number[] = [];
    const launched = await launchToken(
      client,
      { ...fuji, type: "ERC20", token: { name: "Snow", symbol: "SNW", initialSupply: "3" } },
      {
        getAddress: signer.getAddress,
        signTransaction: async (request) => {
          signed.push(Number(request.chainId));
          return signer.signTransaction(request);
        },
      },
      { wait: "mined" },
    );
    expect(signed).to.deep.equal([43113]);
    expect(launched).to.include({ status: "mined", chain: "avalanche", network: "fuji" });
    const { data } = await client.GET("/api/v1/wallets", {
      params: { query: { ...fuji, address: wallet.address, erc20TokenContractAddresses: launched.contractAddress } },
    });
    expect(data?.balances.SNW).to.include({ balance: "3" });
    expect(data?.balances).to.have.property("AVAX");
  });

  it("signs with an external signer that only implements signTransaction, and with a Hardhat network's configured account", async function () {
    const key = Wallet.createRandom().privateKey;
    const external = externalSigner(key);
    await fund(await external.getAddress());
    const art = await launchToken(client, { ...pair, type: "ERC721", token: { name: "Art", symbol: "ART" } }, external, { wait: "mined" });
    expect(art).to.include({ status: "mined", type: "ERC721" });

    const connection = await hre.network.create();
    try {
      const account = await hardhatAccountSigner(connection.networkConfig, 1);
      const [, expected] = (await connection.provider.request({ method: "eth_accounts" })) as string[];
      expect(account.address.toLowerCase()).to.equal(expected!.toLowerCase());
      await fund(account.address);
      const minted = await mintToken(
        client,
        { ...pair, type: "ERC721", contractAddress: art.contractAddress, to: account.address },
        external,
        {
          wait: "mined",
        },
      );
      expect(minted).to.include({ status: "mined", tokenId: "1" });
      const launched = await launchToken(client, { ...pair, type: "ERC20", token: { name: "Hat", symbol: "HAT" } }, account, {
        wait: "mined",
      });
      expect(launched).to.include({ status: "mined", sender: account.address });
    } finally {
      await connection.close();
    }
  });

  it("a submit whose answer the network lost is sent again with the same Idempotency-Key: one launch, the first answer", async function () {
    const wallet = Wallet.createRandom();
    await fund(wallet.address);
    let lost = 0;
    const submits: string[] = [];
    // The request reaches the service and is served; its answer never reaches the caller, once.
    const lossyFetch: typeof fetch = async (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const body = request.method === "POST" ? await request.clone().text() : "";
      const response = await checkedFetch(request);
      if (body.includes('"signedTransaction"')) {
        submits.push(request.headers.get("idempotency-key") ?? "");
        if (lost++ === 0) throw new TypeError("fetch failed: the connection was reset");
      }
      return response;
    };
    const lossy = createTokenServiceClient({ baseUrl: api.baseUrl, apiKey: TEST_API_KEY, fetch: lossyFetch });
    const launched = await launchToken(lossy, { ...pair, type: "ERC20", token: { name: "Once", symbol: "ONE" } }, wallet);
    expect(submits).to.have.length(2);
    expect(submits[0]).to.match(/^[0-9a-f-]{36}$/);
    expect(submits[1]).to.equal(submits[0]);
    const { data } = await client.GET("/api/v1/tokens", { params: { query: { limit: 100 } } });
    const mine = data!.items.filter((item) => item.sender === wallet.address);
    expect(mine.map((item) => item.id)).to.deep.equal([launched.id]);
  });

  it("throws the service's refusal with its status, code and field", async function () {
    const wallet = Wallet.createRandom();
    const refused = await launchToken(client, { ...pair, type: "SERVICE_ERC20", token: { name: "Poor", symbol: "PR" } }, wallet).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(TokenServiceClientError);
    expect(refused).to.include({ status: 422, code: "INSUFFICIENT_FUNDS", field: "sender" });
    const missing = await waitForOperation(client, "no-such-operation", { timeoutMs: 1_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(missing).to.include({ status: 404, code: "NOT_FOUND" });
  });
});
