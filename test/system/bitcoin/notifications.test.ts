import { expect } from "chai";

import { eventId } from "../../../src/core/notifications/match.js";
import { startBitcoindEsplora } from "../../helpers/bitcoind-esplora.js";
import { useRegtestBitcoind } from "../../helpers/bitcoind.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";
import { until } from "../../helpers/until.js";

// Bitcoin address subscriptions (docs/notifications.md) against a real bitcoind in regtest, through the HTTP API, once
// with the bitcoind backend and once with the Esplora backend (on the stand-in Esplora answering from the same node):
// a payment from a node wallet to a held wallet's address is an `in`; a send from the held wallet is an `out` and an
// `in` for its change; a subscription asking two confirmations waits for the second block; `invalidateblock` of the
// send's block removes what was delivered from it under the same ids, and the block that takes the send in again
// delivers it again under those ids with its new block hash. A subscription made afterwards with `fromBlock` backfills
// the same events. The node tells the expected amounts, outputs and addresses.

const PASSPHRASE = "the regtest keystore passphrase";
const REGTEST = { chain: "bitcoin", network: "regtest" } as const;

interface Pulled {
  id: string;
  type: string;
  data: {
    id: string;
    direction: string;
    asset: string;
    contract: string | null;
    amount: string;
    from: string;
    to: string;
    txHash: string;
    logIndex: number | null;
    blockNumber: number;
    blockHash: string;
    confirmations: number;
  };
}

interface NodeOutput {
  value: number;
  n: number;
  scriptPubKey: { address?: string };
}

interface NodeBlock {
  height: number;
  tx: Array<{ txid: string; vin: Array<{ prevout?: NodeOutput }>; vout: NodeOutput[] }>;
}

for (const backend of ["bitcoind", "esplora"] as const) {
  describe(`Bitcoin address subscriptions: in, out, confirmations and a reorg (${backend} backend, bitcoind regtest)`, function () {
    this.timeout(300_000);
    const regtest = useRegtestBitcoind();
    let api: RunningServer;
    let standIn: Awaited<ReturnType<typeof startBitcoindEsplora>> | undefined;

    before(async function () {
      if (!regtest.available) this.skip();
      let env: Record<string, string> = { TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: regtest.node.url };
      if (backend === "esplora") {
        standIn = await startBitcoindEsplora(regtest.node.rpc);
        env = { TOKEN_SERVICE_ESPLORA_BITCOIN_REGTEST: standIn.url };
      }
      api = await startServer({ env: { ...env, TOKEN_SERVICE_KEYSTORE_PASSPHRASE: PASSPHRASE } });
    });

    after(async function () {
      await api?.stop();
      await standIn?.close();
    });

    const pull = async (id: string): Promise<Pulled[]> => {
      const items: Pulled[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await api.call(
          "GET",
          `/api/v1/subscriptions/${id}/events?limit=3${after ? `&after=${encodeURIComponent(after)}` : ""}`,
        );
        expect(page.status, JSON.stringify(page.body)).to.equal(200);
        items.push(...(page.body.items as Pulled[]));
        if (page.body.items.length === 0) return items;
        after = page.body.nextCursor;
      }
    };
    const listed = async (id: string, count: number, what: string): Promise<Pulled[]> => {
      await until(async () => (await pull(id)).length >= count, what, 60_000, 200);
      const items = await pull(id);
      expect(items.length, `${what}: no more than ${count}`).to.equal(count);
      return items;
    };
    const subscribe = async (body: Record<string, unknown>) => {
      const created = await api.call("POST", "/api/v1/subscriptions", { ...REGTEST, ...body });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      return created.body as { id: string; startBlock: number; target: { address: string } };
    };
    const rpc = <T>(method: string, params: unknown[] | Record<string, unknown> = [], wallet?: string) =>
      regtest.node.rpc<T>(method, params, wallet);
    const mine = async (address = regtest.funder.address) => (await rpc<string[]>("generatetoaddress", [1, address]))[0]!;
    const satoshis = (btc: number) => String(Math.round(btc * 1e8));

    it("finds payments to a held wallet's address and its sends, waits for confirmations, and removes what a reorg took", async function () {
      const wallet = await api.call("POST", "/api/v1/wallets", { ...REGTEST, custody: "service" });
      expect(wallet.status, JSON.stringify(wallet.body)).to.equal(201);
      const watched = wallet.body.address as string;
      const deposits = await subscribe({ address: watched });
      const confirmed = await subscribe({ address: watched, confirmations: 2 });
      // A bech32 address is kept as nodes write it; a contract has no place on Bitcoin.
      const upper = await subscribe({ address: watched.toUpperCase() });
      expect(upper.target.address).to.equal(watched);
      expect((await api.call("DELETE", `/api/v1/subscriptions/${upper.id}`)).status).to.equal(204);
      const contract = await api.call("POST", "/api/v1/subscriptions", { ...REGTEST, contract: watched });
      expect(contract.status).to.equal(400);
      expect(contract.body.error.field).to.equal("contract");

      // A node wallet pays the watched address: one `in`, for the output paying it.
      const paid = await rpc<string>("sendtoaddress", { address: watched, amount: "0.5", fee_rate: 5 }, regtest.funder.wallet);
      const paidBlock = await mine();
      const paidTx = (await rpc<NodeBlock>("getblock", [paidBlock, 3])).tx.find((tx) => tx.txid === paid)!;
      const paidOutput = paidTx.vout.find((output) => output.scriptPubKey.address === watched)!;
      const deposit = eventId(deposits.id, paid, `vout:${paidOutput.n}`, null, "in");
      const [found] = await listed(deposits.id, 1, "the payment listed");
      expect(found).to.deep.include({ id: deposit, type: "chain.activity" });
      expect(found!.data).to.deep.include({
        id: deposit,
        direction: "in",
        asset: "native",
        contract: null,
        amount: "50000000",
        from: paidTx.vin[0]!.prevout!.scriptPubKey.address!,
        to: watched,
        txHash: paid,
        logIndex: paidOutput.n,
        blockHash: paidBlock,
        confirmations: 1,
      });
      // Two confirmations: nothing until the next block.
      expect(await pull(confirmed.id)).to.deep.equal([]);
      await mine();
      const [late] = await listed(confirmed.id, 1, "the payment after its second confirmation");
      expect(late!.id).to.equal(eventId(confirmed.id, paid, `vout:${paidOutput.n}`, null, "in"));
      expect(late!.data).to.deep.include({ blockHash: paidBlock, confirmations: 2, amount: "50000000" });

      // The held wallet sends: an `out` of the coin it spent, and an `in` for the change paid back to it.
      const recipient = await rpc<string>("getnewaddress", [], regtest.funder.wallet);
      const sent = await api.call("POST", "/api/v1/transfers", {
        ...REGTEST,
        to: recipient,
        amount: "10000000",
        sender: watched,
        feeRate: 2,
      });
      expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
      const send = sent.body.transactionHash as string;
      const sendBlock = await mine();
      const sendTx = (await rpc<NodeBlock>("getblock", [sendBlock, 3])).tx.find((tx) => tx.txid === send)!;
      const change = sendTx.vout.find((output) => output.scriptPubKey.address === watched)!;
      const spend = eventId(deposits.id, send, "spend", null, "out");
      const changed = eventId(deposits.id, send, `vout:${change.n}`, null, "in");
      const afterSend = await listed(deposits.id, 3, "the send's out and its change's in");
      expect(afterSend.map((event) => event.id)).to.deep.equal([deposit, spend, changed]);
      expect(afterSend[1]!.data).to.deep.include({
        direction: "out",
        amount: "50000000",
        from: watched,
        to: recipient,
        txHash: send,
        logIndex: null,
        blockHash: sendBlock,
      });
      expect(afterSend[2]!.data).to.deep.include({
        direction: "in",
        amount: satoshis(change.value),
        from: watched,
        to: watched,
        logIndex: change.n,
        blockHash: sendBlock,
      });

      // The send's block is taken away: what was delivered from it is removed, under the same ids.
      await rpc("invalidateblock", [sendBlock]);
      const rewound = await listed(deposits.id, 5, "the removals of the send's events");
      expect(rewound.slice(3).map((event) => event.type)).to.deep.equal(["chain.activity.removed", "chain.activity.removed"]);
      expect(rewound.slice(3).map((event) => event.id)).to.have.members([spend, changed]);
      for (const removal of rewound.slice(3)) expect(removal.data.blockHash).to.equal(sendBlock);
      // The two-confirmation subscription had not delivered them: nothing to remove there.
      expect((await pull(confirmed.id)).map((event) => event.id)).to.deep.equal([late!.id]);

      // Another block in its place, without the send (another coinbase address: the same one would make the invalid
      // block again); then one that takes the send in again: delivered again under the same ids, with its new block.
      const miner = await rpc<string>("getnewaddress", [], regtest.funder.wallet);
      const { hash: emptyBlock } = await rpc<{ hash: string }>("generateblock", [miner, []]);
      expect((await rpc<NodeBlock>("getblock", [emptyBlock, 1])).tx).to.have.length(1);
      const againBlock = await mine(miner);
      expect((await rpc<{ tx: string[] }>("getblock", [againBlock, 1])).tx).to.include(send);
      const again = await listed(deposits.id, 7, "the send found again in its new block");
      expect(again.slice(5).map((event) => [event.type, event.id, event.data.blockHash])).to.deep.equal([
        ["chain.activity", spend, againBlock],
        ["chain.activity", changed, againBlock],
      ]);
      expect(new Set(again.map((event) => event.id))).to.deep.equal(new Set([deposit, spend, changed]));

      // The two-confirmation subscription: the send once, from its new block, at its second confirmation.
      await mine(miner);
      const twice = await listed(confirmed.id, 3, "the send after its second confirmation in its new block");
      expect(twice.map((event) => [event.type, event.data.direction, event.data.blockHash, event.data.confirmations])).to.deep.equal([
        ["chain.activity", "in", paidBlock, 2],
        ["chain.activity", "out", againBlock, 2],
        ["chain.activity", "in", againBlock, 2],
      ]);
      expect(twice.map((event) => event.id)).to.deep.equal([
        late!.id,
        eventId(confirmed.id, send, "spend", null, "out"),
        eventId(confirmed.id, send, `vout:${change.n}`, null, "in"),
      ]);

      // Made now with fromBlock at the payment's block: its backfill finds the same three, on the chain as it is.
      const paidHeight = (await rpc<NodeBlock>("getblock", [paidBlock, 1])).height;
      const backfilled = await subscribe({ address: watched, fromBlock: paidHeight });
      const history = await listed(backfilled.id, 3, "the backfill's events");
      expect(history.map((event) => [event.id, event.data.blockHash])).to.deep.equal([
        [eventId(backfilled.id, paid, `vout:${paidOutput.n}`, null, "in"), paidBlock],
        [eventId(backfilled.id, send, "spend", null, "out"), againBlock],
        [eventId(backfilled.id, send, `vout:${change.n}`, null, "in"), againBlock],
      ]);
      // The Esplora backend read the blocks through Esplora's routes, not the node.
      if (standIn !== undefined) {
        expect(standIn.requests.some((request) => /^GET \/block-height\/\d+$/.test(request))).to.equal(true);
        expect(standIn.requests.some((request) => /^GET \/block\/[0-9a-f]{64}\/txs\/0$/.test(request))).to.equal(true);
      }
    });
  });
}
