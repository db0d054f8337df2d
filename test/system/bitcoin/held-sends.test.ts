import { expect } from "chai";

import { useRegtestBitcoind } from "../../helpers/bitcoind.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";
import { until } from "../../helpers/until.js";

// Bitcoin sent from a held wallet (docs/custody.md) against a real bitcoind in regtest: a BIP-84 address made by the
// keystore, funded by the regtest faucet, sends through the service's own API; the record is followed by the tracker
// as an EVM one is: pending in the mempool, mined once in a block, back to pending when `invalidateblock` takes the
// block away, and mined again in the block that replaces it. Read back from the node.

const PASSPHRASE = "the regtest keystore passphrase";

describe("Bitcoin sends from a held wallet, followed to mined and through a reorg (bitcoind regtest)", function () {
  this.timeout(180_000);
  const regtest = useRegtestBitcoind();
  let api: RunningServer;

  before(async function () {
    if (!regtest.available) this.skip();
    api = await startServer({
      env: { TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: regtest.node.url, TOKEN_SERVICE_KEYSTORE_PASSPHRASE: PASSPHRASE },
    });
  });

  after(async function () {
    await api?.stop();
  });

  it("sends from the held wallet, is mined, goes back to pending in a reorg and is mined again", async function () {
    const created = await api.call("POST", "/api/v1/wallets", { chain: "bitcoin", network: "regtest", custody: "service" });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const sender = created.body.address as string;
    expect(sender).to.match(/^bcrt1q/);
    const funded = await api.call("POST", "/api/v1/faucet", { chain: "bitcoin", network: "regtest", address: sender, amount: "5000000" });
    expect(funded.status, JSON.stringify(funded.body)).to.equal(200);

    const { service } = api.server;
    const to = await regtest.node.rpc<string>("getnewaddress", [], regtest.funder.wallet);
    const sent = await service.operations.sendBitcoin({ network: "regtest", sender, to, amount: "1234567", feeRate: 3 });
    expect(sent).to.include({ status: "pending", to, amount: "1234567" });
    const entry = await regtest.node.rpc<{ fees: { base: number }; vsize: number; "bip125-replaceable": boolean }>("getmempoolentry", [
      sent.transactionHash,
    ]);
    expect(Math.round(entry.fees.base * 1e8), "the fee the answer names").to.equal(Number(sent.fee));
    expect(Number(sent.fee) / entry.vsize, "at least the asked rate").to.be.at.least(3);

    const [block] = await regtest.node.rpc<string[]>("generatetoaddress", [1, regtest.funder.address]);
    const mined = await service.operations.wait(sent.id, 30_000);
    expect(mined).to.include({ status: "mined", blockHash: block });
    const onChain = await regtest.node.rpc<{ vout: Array<{ value: number; scriptPubKey: { address?: string } }> }>("getrawtransaction", [
      sent.transactionHash,
      true,
      block,
    ]);
    expect(onChain.vout.find((output) => output.scriptPubKey.address === to)?.value).to.equal(0.01234567);

    // The block is taken away: its transactions return to the mempool, and the record to pending.
    await regtest.node.rpc("invalidateblock", [block]);
    await until(
      async () => (await service.operations.store.getOperation(sent.id))?.status === "pending",
      "the record back to pending after the reorg",
      60_000,
    );
    // Another coinbase address: the same one would make the same block again, the one now marked invalid.
    const miner = await regtest.node.rpc<string>("getnewaddress", [], regtest.funder.wallet);
    const [replacementBlock] = await regtest.node.rpc<string[]>("generatetoaddress", [1, miner]);
    await until(
      async () => (await service.operations.store.getOperation(sent.id))?.blockHash === replacementBlock,
      "mined again in the block that replaced it",
      60_000,
    );
    const record = (await service.operations.store.getOperation(sent.id))!;
    expect(record.status).to.equal("mined");
    expect(record.transitions.map((transition) => transition.status)).to.deep.equal(["signed", "pending", "mined", "pending", "mined"]);
    expect(record.transitions[3]!.reason).to.match(/^reorg: block \d+ \(.+\) is no longer canonical/);
  });

  it("refuses a sender that is no held wallet, and funds short of the amount, before anything is recorded", async function () {
    const { service } = api.server;
    const stranger = await regtest.node.rpc<string>("getnewaddress", [], regtest.funder.wallet);
    await expectRefusal(service.operations.sendBitcoin({ network: "regtest", sender: stranger, to: stranger, amount: "1000" }), "sender");
    const held = (await api.call("POST", "/api/v1/wallets", { chain: "bitcoin", network: "regtest", custody: "service" })).body.address;
    await expectRefusal(service.operations.sendBitcoin({ network: "regtest", sender: held, to: stranger, amount: "1000" }), "amount");
  });
});

async function expectRefusal(promise: Promise<unknown>, field: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason as { field?: string; code?: string },
  );
  expect(error, "refused").to.not.equal(undefined);
  expect(error!.field, JSON.stringify(error)).to.equal(field);
}

describe("Bitcoin sends from a held wallet over HTTP: POST /api/v1/transfers with chain bitcoin (bitcoind regtest)", function () {
  this.timeout(120_000);
  const regtest = useRegtestBitcoind();
  let api: RunningServer;

  before(async function () {
    if (!regtest.available) this.skip();
    api = await startServer({
      env: { TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: regtest.node.url, TOKEN_SERVICE_KEYSTORE_PASSPHRASE: PASSPHRASE },
    });
  });

  after(async function () {
    await api?.stop();
  });

  it("answers the send (pending, its fee), replays it under its Idempotency-Key, and follows it to mined", async function () {
    const sender = (await api.call("POST", "/api/v1/wallets", { chain: "bitcoin", network: "regtest", custody: "service" })).body.address;
    await api.call("POST", "/api/v1/faucet", { chain: "bitcoin", network: "regtest", address: sender, amount: "3000000" });
    const to = await regtest.node.rpc<string>("getnewaddress", [], regtest.funder.wallet);
    const body = { chain: "bitcoin", network: "regtest", to, amount: "200000", sender, feeRate: 2 };
    const sent = await api.call("POST", "/api/v1/transfers", body, { "Idempotency-Key": "btc-send-1" });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
    expect(sent.body).to.include({ chain: "bitcoin", network: "regtest", type: "NATIVE", status: "pending", amount: "200000" });
    const again = await api.call("POST", "/api/v1/transfers", body, { "Idempotency-Key": "btc-send-1" });
    expect(again.body.transactionHash, "the same send, not a second").to.equal(sent.body.transactionHash);
    expect(await regtest.node.rpc<string[]>("getrawmempool")).to.include(sent.body.transactionHash);

    await regtest.node.rpc("generatetoaddress", [1, regtest.funder.address]);
    const mined = await api.server.service.operations.wait(sent.body.id, 30_000);
    expect(mined.status).to.equal("mined");
    // A policy: at most 100,000 satoshis a send, to `to` only; refused sends are recorded nowhere and spend nothing.
    const policy = await api.call("PUT", `/api/v1/wallets/${sender}/policy`, { maxValuePerTransaction: "100000", allowedRecipients: [to] });
    expect(policy.status, JSON.stringify(policy.body)).to.equal(200);
    const gas = await api.call("PUT", `/api/v1/wallets/${sender}/policy`, { maxFeePerGas: "1" });
    expect(gas.status).to.equal(400);
    expect(gas.body.error.field).to.equal("maxFeePerGas");
    const mempool = (await regtest.node.rpc<string[]>("getrawmempool")).length;
    const over = await api.call("POST", "/api/v1/transfers", { ...body, amount: "100001" });
    expect(over.status).to.equal(403);
    expect(over.body.error).to.include({ code: "POLICY_DENIED", field: "maxValuePerTransaction" });
    const stranger = await regtest.node.rpc<string>("getnewaddress", [], regtest.funder.wallet);
    const elsewhere = await api.call("POST", "/api/v1/transfers", { ...body, to: stranger, amount: "1000" });
    expect(elsewhere.body.error).to.include({ code: "POLICY_DENIED", field: "allowedRecipients" });
    expect((await regtest.node.rpc<string[]>("getrawmempool")).length, "nothing broadcast").to.equal(mempool);
    const within = await api.call("POST", "/api/v1/transfers", { ...body, amount: "100000" });
    expect(within.status, JSON.stringify(within.body)).to.equal(200);

    // A key-in-body field is no Bitcoin field: named, not read.
    const refused = await api.call("POST", "/api/v1/transfers", {
      ...body,
      privateKey: "cVt4o7BGAig1UXywgGSmARhxMdzP5qvQsxKkSsc1XEkw3tDTQFpy",
    });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.field).to.equal("privateKey");
  });
});
