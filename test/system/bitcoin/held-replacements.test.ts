import { expect } from "chai";

import { useRegtestBitcoind } from "../../helpers/bitcoind.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";

// Speed-up and cancel of Bitcoin sends from a held wallet (docs/custody.md#speed-up-and-cancel-on-bitcoin) against a
// real bitcoind in regtest, through the service's HTTP API: a BIP 125 replacement the node takes in place of the
// original, followed to mined (or `cancelled`) by the tracker, read back from the node's mempool and blocks.

const PASSPHRASE = "the regtest keystore passphrase";

interface MempoolEntry {
  fees: { base: number };
  vsize: number;
}

describe("Bitcoin speed-up and cancel from a held wallet: BIP 125 replacements (bitcoind regtest)", function () {
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

  /** A held wallet holding one confirmed coin of `amount` satoshis. */
  async function fundedWallet(amount: string): Promise<string> {
    const created = await api.call("POST", "/api/v1/wallets", { chain: "bitcoin", network: "regtest", custody: "service" });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const funded = await api.call("POST", "/api/v1/faucet", {
      chain: "bitcoin",
      network: "regtest",
      address: created.body.address,
      amount,
    });
    expect(funded.status, JSON.stringify(funded.body)).to.equal(200);
    return created.body.address as string;
  }

  async function send(sender: string, to: string, amount: string, feeRate: number) {
    const sent = await api.call("POST", "/api/v1/transfers", { chain: "bitcoin", network: "regtest", sender, to, amount, feeRate });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
    expect(sent.body.status).to.equal("pending");
    return sent.body as { id: string; transactionHash: string; fee: string };
  }

  const mempool = () => regtest.node.rpc<string[]>("getrawmempool");
  const recipient = () => regtest.node.rpc<string>("getnewaddress", [], regtest.funder.wallet);

  it("speeds a send up: the node takes the replacement in place of the original, and the record is mined as it", async function () {
    const sender = await fundedWallet("3000000");
    const to = await recipient();
    const sent = await send(sender, to, "200000", 1);

    const low = await api.call("POST", `/api/v1/operations/${sent.id}/speed-up`, { feeRate: 1 });
    expect(low.status, "a rate no higher than the current one replaces nothing").to.equal(400);
    expect(low.body.error.field).to.equal("feeRate");

    const sped = await api.call("POST", `/api/v1/operations/${sent.id}/speed-up`, { feeRate: 6 });
    expect(sped.status, JSON.stringify(sped.body)).to.equal(200);
    const replacement = sped.body.transactionHash as string;
    expect(replacement).to.not.equal(sent.transactionHash);
    expect(sped.body.transactions.map((each: { role: string }) => each.role)).to.deep.equal(["original", "replacement"]);
    expect(sped.body.transactions[1]).to.include({ transactionHash: replacement });
    expect(sped.body.transactions[1].feeRate).to.be.at.least(6);
    expect(sped.body.transitions.at(-1).reason).to.match(/^sped up: replaced by /);

    const pool = await mempool();
    expect(pool, "the replacement in the mempool").to.include(replacement);
    expect(pool, "the original evicted").to.not.include(sent.transactionHash);
    const entry = await regtest.node.rpc<MempoolEntry>("getmempoolentry", [replacement]);
    expect(Math.round(entry.fees.base * 1e8) / entry.vsize, "the rate the node sees").to.be.at.least(6);

    // Unasked, the next speed-up pays at least 1 sat/vB over the current rate (regtest has no estimate).
    const again = await api.call("POST", `/api/v1/operations/${sent.id}/speed-up`, {});
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    const third = again.body.transactionHash as string;
    expect(again.body.transactions.at(-1).feeRate).to.be.above(sped.body.transactions[1].feeRate);

    const [block] = await regtest.node.rpc<string[]>("generatetoaddress", [1, regtest.funder.address]);
    const mined = await api.server.service.operations.wait(sent.id, 30_000);
    expect(mined).to.include({ status: "mined", blockHash: block, transactionHash: third });
    expect(mined.transitions.at(-1)!.reason).to.match(/\(as replacement /);
    const onChain = await regtest.node.rpc<{ vout: Array<{ value: number; scriptPubKey: { address?: string } }> }>("getrawtransaction", [
      third,
      true,
      block,
    ]);
    expect(onChain.vout.find((output) => output.scriptPubKey.address === to)?.value, "the same payment").to.equal(0.002);

    const late = await api.call("POST", `/api/v1/operations/${sent.id}/speed-up`, { feeRate: 20 });
    expect(late.status).to.equal(409);
    expect(late.body.error.code).to.equal("OPERATION_FINAL");
  });

  it("cancels a send: the same coins go back to the sender, and the record ends cancelled with nothing paid", async function () {
    const sender = await fundedWallet("1000000");
    const to = await recipient();
    const sent = await send(sender, to, "300000", 2);

    const cancelled = await api.call("POST", `/api/v1/operations/${sent.id}/cancel`, {});
    expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
    const cancel = cancelled.body.transactionHash as string;
    expect(cancelled.body.transactions.at(-1)).to.include({ role: "cancel", transactionHash: cancel });
    const decoded = await regtest.node.rpc<{ vout: Array<{ scriptPubKey: { address?: string } }> }>("getrawtransaction", [cancel, true]);
    expect(
      decoded.vout.map((output) => output.scriptPubKey.address),
      "one output: the sender's own",
    ).to.deep.equal([sender]);
    expect(await mempool()).to.not.include(sent.transactionHash);

    await regtest.node.rpc("generatetoaddress", [1, regtest.funder.address]);
    const settled = await api.server.service.operations.wait(sent.id, 30_000);
    expect(settled.status).to.equal("cancelled");
    expect(settled.transitions.at(-1)!.reason).to.match(/^cancelled: .* the same coins back to the sender/);
    expect(
      await regtest.node.rpc<number>("getreceivedbyaddress", [to, 0], regtest.funder.wallet),
      "nothing reached the recipient",
    ).to.equal(0);
    const { balances } = await api.server.service.getBalances({ chain: "bitcoin", network: "regtest", address: sender });
    const fee = BigInt(cancelled.body.transactions.at(-1).fee);
    expect(balances.BTC?.confirmed?.balance, "everything back but the cancel's fee").to.equal(String(1_000_000n - fee));
  });

  it("refuses to replace a send whose change a later send spends (409 OUTPUT_SPENT), and speeds up the later one", async function () {
    const sender = await fundedWallet("1000000");
    const first = await send(sender, await recipient(), "100000", 2);
    // The wallet's only coin is the first send's change, in the mempool: the second send spends it.
    const second = await send(sender, await recipient(), "100000", 2);
    const parents = await regtest.node.rpc<{ vin: Array<{ txid: string }> }>("getrawtransaction", [second.transactionHash, true]);
    expect(parents.vin.map((input) => input.txid)).to.include(first.transactionHash);

    const refused = await api.call("POST", `/api/v1/operations/${first.id}/speed-up`, { feeRate: 10 });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
    expect(refused.body.error.code).to.equal("OUTPUT_SPENT");
    expect(refused.body.error.details.output).to.match(new RegExp(`^${first.transactionHash}:\\d$`));
    expect(await mempool(), "nothing evicted").to.include.members([first.transactionHash, second.transactionHash]);

    const child = await api.call("POST", `/api/v1/operations/${second.id}/speed-up`, { feeRate: 10 });
    expect(child.status, JSON.stringify(child.body)).to.equal(200);
    await regtest.node.rpc("generatetoaddress", [1, regtest.funder.address]);
    expect((await api.server.service.operations.wait(first.id, 30_000)).status).to.equal("mined");
    expect((await api.server.service.operations.wait(second.id, 30_000)).status).to.equal("mined");
  });
});
