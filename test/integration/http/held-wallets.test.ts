import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";

import { expect } from "chai";
import { HDNodeWallet, Wallet } from "ethers";

import { createTokenServiceClient, type HeldWallet, type WalletPolicy } from "../../../src/client/index.js";
import { createLogger } from "../../../src/http/logger.js";
import { LogCapture, TEST_API_KEY, startServer, type RunningServer } from "../../helpers/http-server.js";
import { startKmsStandIn, type KmsStandIn } from "../../helpers/kms-stand-in.js";

// Held wallets through a real `serve` composition on a socket (docs/custody.md): the service keeps their keys in its
// keystore and signs the writes that name them without a key; another API key neither sees nor uses them; a locked
// keystore signs nothing and takes no nonce; an imported key's bytes are nowhere but encrypted.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const PASSPHRASE = "correct horse battery staple 42";
const OTHER_KEY = "other-key-0123456789";

/** Every file under `dir`, read whole. */
async function filesUnder(dir: string): Promise<Array<{ file: string; bytes: Buffer }>> {
  const found: Array<{ file: string; bytes: Buffer }> = [];
  for (const entry of await readdir(dir, { recursive: true })) {
    const file = path.join(dir, entry);
    if ((await stat(file)).isFile()) found.push({ file, bytes: await readFile(file) });
  }
  return found;
}

/** The ways a 32-byte key could be written down: hex (either case, with or without 0x), base64, base64url, raw bytes. */
function encodingsOf(privateKey: string): Buffer[] {
  const raw = Buffer.from(privateKey.slice(2), "hex");
  return [
    Buffer.from(privateKey.slice(2).toLowerCase()),
    Buffer.from(privateKey.slice(2).toUpperCase()),
    Buffer.from(raw.toString("base64")),
    Buffer.from(raw.toString("base64url")),
    raw,
  ];
}

describe("held wallets: the service keeps the key and signs (HTTP, embedded store)", function () {
  this.timeout(180_000);
  let api: RunningServer;
  let dataDir: string;
  const logs = new LogCapture();
  const answers: string[] = [];

  const start = (env: Record<string, string>) =>
    startServer({ ...(dataDir ? { dataDir } : {}), env, apiKeys: [TEST_API_KEY, OTHER_KEY], logger: createLogger(logs, "trace") });
  const call = async (method: string, url: string, body?: unknown, headers?: Record<string, string>) => {
    const answer = await api.call(method, url, body, headers);
    answers.push(JSON.stringify(answer.body));
    return answer;
  };
  const asOther = { "x-api-key": OTHER_KEY };

  before(async function () {
    api = await start({ TOKEN_SERVICE_KEYSTORE_PASSPHRASE: PASSPHRASE });
    dataDir = api.dataDir;
  });

  after(async function () {
    await api?.stop({ keepData: false });
  });

  it("creates a held wallet (201, no key), signs a launch, a mint and a transfer from it, and lists it for its key alone", async function () {
    const created = await call("POST", "/api/v1/wallets", { ...SEPOLIA, custody: "service" });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ ...SEPOLIA, custody: "service", source: "derived" });
    expect(created.body).to.not.have.property("privateKey");
    const sender = created.body.address as string;
    expect((await call("POST", "/api/v1/faucet", { ...SEPOLIA, address: sender })).status).to.equal(200);

    const launched = await call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC20",
      token: { name: "Held", symbol: "HLD", initialSupply: "1000" },
      sender,
    });
    expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
    expect(launched.body).to.include({ status: "mined", sender });
    const contract = launched.body.contractAddress as string;
    const mint = await call("POST", "/api/v1/tokens/mint?wait=mined", {
      ...SEPOLIA,
      type: "ERC20",
      contractAddress: contract,
      to: sender,
      amount: "5",
      sender,
    });
    expect(mint.body.status, JSON.stringify(mint.body)).to.equal("mined");
    const transfer = await call("POST", "/api/v1/transfers?wait=mined", {
      ...SEPOLIA,
      type: "ERC20",
      contractAddress: contract,
      to: Wallet.createRandom().address,
      amount: "7",
      sender,
    });
    expect(transfer.body.status, JSON.stringify(transfer.body)).to.equal("mined");

    const mine = await call("GET", "/api/v1/wallets/held?chain=ethereum&network=sepolia");
    expect(mine.status).to.equal(200);
    expect(mine.body.items.map((wallet: { address: string }) => wallet.address)).to.include(sender);
    const theirs = await call("GET", "/api/v1/wallets/held", undefined, asOther);
    expect(theirs.body.items, "another API key sees none of them").to.deep.equal([]);
    // Another key naming it as sender without a key gets what any sender gets: the transaction to sign. Nothing is signed.
    const other = await call(
      "POST",
      "/api/v1/tokens",
      { ...SEPOLIA, type: "ERC20", token: { name: "Not", symbol: "NOT" }, sender },
      asOther,
    );
    expect(other.status).to.equal(200);
    expect(other.body).to.have.property("unsignedTransaction");
    expect(other.body).to.not.have.property("transactionHash");
  });

  it("imports a key (201, without it), signs with it, refuses a second import, and keeps its bytes out of files, rows, logs and answers", async function () {
    const key = Wallet.createRandom();
    const imported = await call("POST", "/api/v1/wallets/import", { ...SEPOLIA, privateKey: key.privateKey });
    expect(imported.status, JSON.stringify(imported.body)).to.equal(201);
    expect(imported.body).to.include({ address: key.address, custody: "service", source: "imported" });
    expect((await call("POST", "/api/v1/faucet", { ...SEPOLIA, address: key.address })).status).to.equal(200);
    const sent = await call("POST", "/api/v1/transfers?wait=mined", {
      ...SEPOLIA,
      type: "NATIVE",
      to: Wallet.createRandom().address,
      amount: "1000",
      sender: key.address,
    });
    expect(sent.body.status, JSON.stringify(sent.body)).to.equal("mined");
    const again = await call("POST", "/api/v1/wallets/import", { ...SEPOLIA, privateKey: key.privateKey }, asOther);
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal("WALLET_ALREADY_HELD");

    const encodings = encodingsOf(key.privateKey);
    const files = await filesUnder(dataDir);
    expect(files.length, "the data directory holds the store").to.be.greaterThan(0);
    for (const { file, bytes } of files) {
      for (const encoding of encodings) expect(bytes.includes(encoding), `${file} holds the key`).to.equal(false);
    }
    const logText = logs.lines.join("\n");
    expect(logText.length, "trace logging captured").to.be.greaterThan(0);
    for (const encoding of encodings.slice(0, 4)) {
      expect(logText.includes(encoding.toString()), "a log line holds the key").to.equal(false);
      expect(
        answers.some((answer) => answer.includes(encoding.toString())),
        "an answer holds the key",
      ).to.equal(false);
    }
  });

  it("locked (no passphrase, then a wrong one): makes wallets, signs nothing, takes no nonce; the right one signs again", async function () {
    const held = (await call("POST", "/api/v1/wallets", { ...SEPOLIA, custody: "service" })).body.address as string;
    await call("POST", "/api/v1/faucet", { ...SEPOLIA, address: held });
    await api.stop({ keepData: true });
    const launch = { ...SEPOLIA, type: "ERC20", token: { name: "Locked", symbol: "LCK" }, sender: held };
    const locked: Array<Record<string, string>> = [{}, { TOKEN_SERVICE_KEYSTORE_PASSPHRASE: "not the passphrase at all" }];
    for (const env of locked) {
      api = await start(env);
      const refused = await call("POST", "/api/v1/tokens", launch);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
      expect(refused.body.error.code).to.equal("KEYSTORE_LOCKED");
      expect(refused.body.error.message).to.match(/TOKEN_SERVICE_KEYSTORE_PASSPHRASE/);
      // Everything else works: a new held wallet (its address needs no passphrase), a balance read.
      expect((await call("POST", "/api/v1/wallets", { ...SEPOLIA, custody: "service" })).status).to.equal(201);
      const balance = await call("GET", `/api/v1/wallets?chain=ethereum&network=sepolia&address=${held}`);
      expect(balance.status).to.equal(200);
      const { service } = api.server;
      const chain = await service.evm.get(service.chains.resolve(SEPOLIA.chain, SEPOLIA.network) as never);
      expect(await chain.provider.getTransactionCount(held, "pending"), "no nonce taken").to.equal(0);
      await api.stop({ keepData: true });
    }
    api = await start({ TOKEN_SERVICE_KEYSTORE_PASSPHRASE: PASSPHRASE });
    const launched = await call("POST", "/api/v1/tokens?wait=mined", launch);
    expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
    expect(launched.body).to.include({ status: "mined", nonce: 0 });
  });
});

describe("held wallets without a keystore or a passphrase", function () {
  this.timeout(60_000);
  let api: RunningServer;

  before(async function () {
    api = await startServer({ env: {} });
  });

  after(async function () {
    await api?.stop();
  });

  it("answers 503 KEYSTORE_LOCKED saying how to make one; wallets with their key still work", async function () {
    const held = await api.call("POST", "/api/v1/wallets", { ...SEPOLIA, custody: "service" });
    expect(held.status).to.equal(503);
    expect(held.body.error.code).to.equal("KEYSTORE_LOCKED");
    expect(held.body.error.message).to.match(/no keystore yet: set TOKEN_SERVICE_KEYSTORE_PASSPHRASE/);
    expect((await api.call("POST", "/api/v1/wallets", SEPOLIA)).status).to.equal(200);
  });
});

describe("the production switch: TOKEN_SERVICE_ALLOW_PRIVATE_KEYS=false", function () {
  this.timeout(60_000);
  let api: RunningServer;

  before(async function () {
    api = await startServer({ env: { TOKEN_SERVICE_ALLOW_PRIVATE_KEYS: "false", TOKEN_SERVICE_KEYSTORE_PASSPHRASE: PASSPHRASE } });
  });

  after(async function () {
    await api?.stop();
  });

  it("refuses a privateKey in any body (403) and answers no key; held wallets and prepares work", async function () {
    const key = Wallet.createRandom();
    const launch = { ...SEPOLIA, type: "ERC20", token: { name: "Prod", symbol: "PRD" }, sender: key.address };
    const bodies: Array<[string, unknown]> = [
      ["/api/v1/tokens", { ...launch, privateKey: key.privateKey }],
      ["/api/v1/wallets/import", { ...SEPOLIA, privateKey: key.privateKey }],
      ["/api/v1/faucet", { ...SEPOLIA, address: key.address, privateKey: key.privateKey }],
      ["/api/v1/transfers", { ...SEPOLIA, type: "NATIVE", to: key.address, amount: "1", sender: key.address, privateKey: "0x01" }],
    ];
    for (const [url, body] of bodies) {
      const refused = await api.call("POST", url, body);
      expect(refused.status, `${url}: ${JSON.stringify(refused.body)}`).to.equal(403);
      expect(refused.body.error).to.include({ code: "PRIVATE_KEYS_DISABLED", field: "privateKey" });
      expect(JSON.stringify(refused.body)).to.not.include(key.privateKey.slice(2));
    }
    expect((await api.call("GET", "/api/v1/operations")).body.items, "nothing recorded").to.deep.equal([]);
    const caller = await api.call("POST", "/api/v1/wallets", { ...SEPOLIA, custody: "caller" });
    expect(caller.status).to.equal(403);
    expect(caller.body.error.code).to.equal("PRIVATE_KEYS_DISABLED");
    const held = await api.call("POST", "/api/v1/wallets", SEPOLIA);
    expect(held.status, "custody omitted: a held wallet").to.equal(201);
    expect(held.body).to.not.have.property("privateKey");
    await api.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: held.body.address });
    const signed = await api.call("POST", "/api/v1/tokens?wait=mined", { ...launch, sender: held.body.address });
    expect(signed.body.status, JSON.stringify(signed.body)).to.equal("mined");
    await api.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: key.address });
    const prepared = await api.call("POST", "/api/v1/tokens", launch);
    expect(prepared.status).to.equal(200);
    expect(prepared.body).to.have.property("unsignedTransaction");
  });
});

describe("held wallets in AWS KMS (TOKEN_SERVICE_SIGNER=aws-kms), against a loopback KMS stand-in", function () {
  this.timeout(60_000);
  let kms: KmsStandIn;
  let api: RunningServer;

  before(async function () {
    kms = await startKmsStandIn({ region: "eu-west-1" });
    api = await startServer({
      env: {
        TOKEN_SERVICE_SIGNER: "aws-kms",
        TOKEN_SERVICE_AWS_KMS_REGION: "eu-west-1",
        TOKEN_SERVICE_AWS_KMS_ENDPOINT: kms.endpoint,
        AWS_ACCESS_KEY_ID: "AKIASTANDIN000000000",
        AWS_SECRET_ACCESS_KEY: "stand-in-secret",
      },
    });
  });

  after(async function () {
    await api?.stop();
    await kms?.close();
  });

  it("makes the key in KMS (201), signs a launch with it there, and answers 503 SIGNING_KEY_UNAVAILABLE when KMS refuses the key", async function () {
    const created = await api.call("POST", "/api/v1/wallets", { ...SEPOLIA, custody: "service" });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ custody: "service", source: "kms" });
    const sender = created.body.address as string;
    await api.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: sender });
    const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC20",
      token: { name: "Kms", symbol: "KMS", initialSupply: "1" },
      sender,
    });
    expect(launched.body.status, JSON.stringify(launched.body)).to.equal("mined");
    const { service } = api.server;
    const chain = await service.evm.get(service.chains.resolve(SEPOLIA.chain, SEPOLIA.network) as never);
    expect((await chain.provider.getTransaction(launched.body.transactionHash))?.from, "signed by the KMS key").to.equal(sender);

    kms.failWith({ type: "AccessDeniedException", status: 400, message: "User is not authorized to perform: kms:Sign" });
    const refused = await api.call("POST", "/api/v1/tokens", {
      ...SEPOLIA,
      type: "ERC20",
      token: { name: "Denied", symbol: "DNY" },
      sender,
    });
    kms.failWith(undefined);
    expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
    expect(refused.body.error).to.deep.include({ code: "SIGNING_KEY_UNAVAILABLE", details: { problem: "access-denied" } });
    expect(await chain.provider.getTransactionCount(sender, "pending"), "nothing sent").to.equal(1);
  });
});

describe("held wallets through the typed client", function () {
  this.timeout(60_000);
  let api: RunningServer;

  before(async function () {
    api = await startServer({ env: { TOKEN_SERVICE_KEYSTORE_PASSPHRASE: PASSPHRASE } });
  });

  after(async function () {
    await api?.stop();
  });

  it("creates a held wallet, sets its policy and launches from it with typed calls", async function () {
    const client = createTokenServiceClient({ baseUrl: api.baseUrl, apiKey: TEST_API_KEY });
    const created = await client.POST("/api/v1/wallets", { body: { ...SEPOLIA, custody: "service" } });
    expect(created.response.status).to.equal(201);
    const held = created.data as HeldWallet;
    expect(held.custody).to.equal("service");
    const policy: WalletPolicy = { networks: ["ethereum/sepolia"] };
    const set = await client.PUT("/api/v1/wallets/{address}/policy", { params: { path: { address: held.address } }, body: policy });
    expect(set.data).to.deep.equal(policy);
    await client.POST("/api/v1/faucet", { body: { ...SEPOLIA, address: held.address } });
    const launched = await client.POST("/api/v1/tokens", {
      params: { query: { wait: "mined" } },
      body: { ...SEPOLIA, type: "ERC20", token: { name: "Typed", symbol: "TYP" }, sender: held.address },
    });
    expect(launched.data).to.deep.include({ status: "mined", sender: held.address });
    const page = await client.GET("/api/v1/wallets/held", { params: { query: { chain: "ethereum" } } });
    expect(page.data?.items.map((wallet) => wallet.address)).to.deep.equal([held.address]);
  });
});

describe("held Bitcoin wallets: BIP-84 addresses from the keystore's seed", function () {
  this.timeout(60_000);
  let api: RunningServer;

  before(async function () {
    api = await startServer({ env: { TOKEN_SERVICE_KEYSTORE_PASSPHRASE: PASSPHRASE } });
  });

  after(async function () {
    await api?.stop();
  });

  it("makes native SegWit addresses any BIP-84 wallet derives from the seed, on mainnet and testnet", async function () {
    // The keystore exists once an EVM held wallet made it (index 0); the Bitcoin ones take the next indexes.
    await api.call("POST", "/api/v1/wallets", { ...SEPOLIA, custody: "service" });
    const testnet = await api.call("POST", "/api/v1/wallets", { chain: "bitcoin", network: "testnet", custody: "service" });
    expect(testnet.status, JSON.stringify(testnet.body)).to.equal(201);
    expect(testnet.body.address).to.match(/^tb1q[02-9ac-hj-np-z]{38}$/);
    const mainnet = await api.call("POST", "/api/v1/wallets", { chain: "bitcoin", network: "mainnet", custody: "service" });
    expect(mainnet.body.address).to.match(/^bc1q/);
    const taproot = await api.call("POST", "/api/v1/wallets", {
      chain: "bitcoin",
      network: "testnet",
      custody: "service",
      addressType: "p2tr",
    });
    expect(taproot.status).to.equal(400);
    expect(taproot.body.error.field).to.equal("addressType");

    // Read back with bitcoinjs-lib and ethers' BIP-32 from the backed-up words, as a reader's own wallet would.
    const phrase = await api.server.service.custody.backupPhrase();
    const { payments, networks } = await import("bitcoinjs-lib");
    const addressAt = (path: string, network: typeof networks.bitcoin) =>
      payments.p2wpkh({ pubkey: Buffer.from(HDNodeWallet.fromPhrase(phrase, undefined, path).publicKey.slice(2), "hex"), network }).address;
    expect(testnet.body.address).to.equal(addressAt("m/84'/1'/0'/0/1", networks.testnet));
    expect(mainnet.body.address).to.equal(addressAt("m/84'/0'/0'/0/2", networks.bitcoin));
    const listed = await api.call("GET", "/api/v1/wallets/held?chain=bitcoin");
    expect(listed.body.items.map((wallet: { address: string }) => wallet.address)).to.have.members([
      testnet.body.address,
      mainnet.body.address,
    ]);
  });
});
