import { expect } from "chai";
import { Wallet } from "ethers";

import { TEST_API_KEY, startServer, type RunningServer } from "../../helpers/http-server.js";

// A held wallet's policy through a real `serve` composition (docs/custody.md): each rule refuses a write outside it with
// 403 POLICY_DENIED naming the rule, before anything is signed; counted on the chain (the sender's nonce does not move).
// The day's sum is in the store: a restart keeps it.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const AMOY = { chain: "polygon", network: "amoy" } as const;
const PASSPHRASE = "a passphrase for the policy tests";
const OTHER_KEY = "other-key-0123456789";
const ETH = 10n ** 18n;

describe("held wallet policies (HTTP, embedded store)", function () {
  this.timeout(120_000);
  let api: RunningServer;
  let dataDir: string | undefined;
  const key = Wallet.createRandom();
  const sender = key.address;

  const start = async () => {
    api = await startServer({
      ...(dataDir ? { dataDir } : {}),
      env: { TOKEN_SERVICE_KEYSTORE_PASSPHRASE: PASSPHRASE },
      apiKeys: [TEST_API_KEY, OTHER_KEY],
    });
    dataDir = api.dataDir;
  };
  const nonceOf = async (pair: { chain: string; network: string }) => {
    const { service } = api.server;
    const chain = await service.evm.get(service.chains.resolve(pair.chain, pair.network) as never);
    return chain.provider.getTransactionCount(sender, "pending");
  };
  const send = (to: string, amount: bigint, pair: { chain: string; network: string } = SEPOLIA) =>
    api.call("POST", "/api/v1/transfers?wait=mined", { ...pair, type: "NATIVE", to, amount: amount.toString(), sender });
  /** The write is refused by `rule`, and the chain's nonce for the sender did not move. */
  const expectDenied = async (
    answer: Promise<{ status: number; body: any }>,
    rule: string,
    pair: { chain: string; network: string } = SEPOLIA,
  ) => {
    const before = await nonceOf(pair);
    const { status, body } = await answer;
    expect(status, JSON.stringify(body)).to.equal(403);
    expect(body.error).to.include({ code: "POLICY_DENIED", field: rule });
    expect(body.error.details).to.deep.equal({ rule });
    expect(await nonceOf(pair), "no nonce taken").to.equal(before);
  };

  before(async function () {
    await start();
    for (const pair of [SEPOLIA, AMOY]) {
      expect((await api.call("POST", "/api/v1/wallets/import", { ...pair, privateKey: key.privateKey })).status).to.equal(201);
      await api.call("POST", "/api/v1/faucet", { ...pair, address: sender, amount: (100n * ETH).toString() });
    }
  });

  after(async function () {
    await api?.stop();
  });

  it("is set and read by the API key that holds the wallet; another key gets 404", async function () {
    const policy = { maxValuePerTransaction: (2n * ETH).toString(), networks: ["ethereum/sepolia"] };
    const set = await api.call("PUT", `/api/v1/wallets/${sender}/policy`, policy);
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.body).to.deep.equal(policy);
    expect((await api.call("GET", `/api/v1/wallets/${sender}/policy`)).body).to.deep.equal(policy);
    const theirs = await api.call("PUT", `/api/v1/wallets/${sender}/policy`, {}, { "x-api-key": OTHER_KEY });
    expect(theirs.status).to.equal(404);
    expect(theirs.body.error.code).to.equal("HELD_WALLET_NOT_FOUND");
    const bad = await api.call("PUT", `/api/v1/wallets/${sender}/policy`, { networks: ["sepolia"] });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.field).to.equal("networks[0]");
  });

  it("refuses each rule's breach before signing, and signs what the policy allows", async function () {
    const friend = Wallet.createRandom().address;
    await api.call("PUT", `/api/v1/wallets/${sender}/policy`, {
      maxValuePerTransaction: (2n * ETH).toString(),
      allowedRecipients: [friend],
      networks: ["ethereum/sepolia"],
    });
    await expectDenied(send(friend, ETH, AMOY), "networks", AMOY);
    await expectDenied(send(Wallet.createRandom().address, ETH), "allowedRecipients");
    await expectDenied(send(friend, 3n * ETH), "maxValuePerTransaction");
    const allowed = await send(friend, ETH);
    expect(allowed.body.status, JSON.stringify(allowed.body)).to.equal("mined");

    // A launch deploys and calls no contract; a transfer of its token calls one the policy does not list.
    await api.call("PUT", `/api/v1/wallets/${sender}/policy`, { allowedContracts: [Wallet.createRandom().address] });
    const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC20",
      token: { name: "Policed", symbol: "POL", initialSupply: "10" },
      sender,
    });
    expect(launched.body.status, JSON.stringify(launched.body)).to.equal("mined");
    await expectDenied(
      api.call("POST", "/api/v1/transfers", {
        ...SEPOLIA,
        type: "ERC20",
        contractAddress: launched.body.contractAddress,
        to: friend,
        amount: "1",
        sender,
      }),
      "allowedContracts",
    );

    // A fee ceiling below what the chain asks now.
    await api.call("PUT", `/api/v1/wallets/${sender}/policy`, { maxFeePerGas: "1" });
    await expectDenied(send(friend, 1n), "maxFeePerGas");
  });

  it("counts the day's value in the store: the limit holds across a restart", async function () {
    const friend = Wallet.createRandom().address;
    await api.call("PUT", `/api/v1/wallets/${sender}/policy`, { maxValuePerDay: (3n * ETH).toString() });
    expect((await send(friend, 2n * ETH)).body.status).to.equal("mined");
    await expectDenied(send(friend, 2n * ETH), "maxValuePerDay");
    await api.stop({ keepData: true });
    await start();
    await expectDenied(send(friend, 2n * ETH), "maxValuePerDay");
    const within = await send(friend, ETH);
    expect(within.body.status, JSON.stringify(within.body)).to.equal("mined");
    await expectDenied(send(friend, 1n), "maxValuePerDay");
  });
});
