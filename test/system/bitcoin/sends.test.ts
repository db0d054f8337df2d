import { expect } from "chai";

import type { BitcoinBackend, BitcoinUtxo } from "../../../src/chains/bitcoin/backend.js";
import { localBitcoinSigner } from "../../../src/chains/bitcoin/bitcoin-signer.js";
import { BitcoindBackend } from "../../../src/chains/bitcoin/bitcoind.js";
import { parseBitcoindUrl } from "../../../src/chains/bitcoin/bitcoind-rpc.js";
import { broadcastOutcome } from "../../../src/chains/bitcoin/broadcast-refusals.js";
import { EsploraBackend } from "../../../src/chains/bitcoin/esplora.js";
import { type BitcoinSender, RBF_SEQUENCE, buildCancel, buildReplacement, buildSend } from "../../../src/chains/bitcoin/psbt-send.js";
import { createBitcoinKeyPair, type BitcoinAddressType } from "../../../src/chains/bitcoin/wallet-keys.js";
import { ErrorCode } from "../../../src/domain/errors.js";
import { startBitcoindEsplora } from "../../helpers/bitcoind-esplora.js";
import { useRegtestBitcoind } from "../../helpers/bitcoind.js";
import { expectServiceError } from "../../helpers/errors.js";

interface MempoolEntry {
  vsize: number;
  fees: { base: number };
  "bip125-replaceable": boolean;
}

interface DecodedTransaction {
  txid: string;
  vin: Array<{ txid: string; vout: number; sequence: number }>;
  vout: Array<{ value: number; n: number; scriptPubKey: { address?: string } }>;
}

const sat = (btc: number) => BigInt(Math.round(btc * 1e8));

describe("bitcoin sends from a held key, against a real bitcoind (regtest)", function () {
  const regtest = useRegtestBitcoind();
  const rpc = <T>(method: string, params?: unknown[] | Record<string, unknown>, wallet?: string) =>
    regtest.node.rpc<T>(method, params, wallet);
  const mine = (blocks = 1) => rpc<string[]>("generatetoaddress", [blocks, regtest.funder.address]);
  const fund = (address: string, satoshis: bigint) =>
    rpc<string>("sendtoaddress", { address, amount: (Number(satoshis) / 1e8).toFixed(8), fee_rate: 5 }, regtest.funder.wallet);
  const newRecipient = () => rpc<string>("getnewaddress", [], regtest.funder.wallet);
  const mempool = () => rpc<string[]>("getrawmempool");
  const decode = (hex: string) => rpc<DecodedTransaction>("decoderawtransaction", [hex]);

  const backends: Record<string, BitcoinBackend> = {};
  let standIn: Awaited<ReturnType<typeof startBitcoindEsplora>> | undefined;

  before(async function () {
    if (!regtest.available) this.skip();
    backends.bitcoind = new BitcoindBackend({ network: "regtest", connection: parseBitcoindUrl(regtest.node.url, "the test's node") });
    standIn = await startBitcoindEsplora(regtest.node.rpc);
    backends.esplora = new EsploraBackend({ baseUrl: standIn.url });
  });

  after(async function () {
    await backends.bitcoind?.close?.();
    await standIn?.close();
  });

  /** A fresh key of the service's, its coins paid by the funder and mined. */
  async function fundedSender(backend: BitcoinBackend, values: bigint[], addressType: BitcoinAddressType = "p2wpkh") {
    const keyPair = createBitcoinKeyPair("regtest", addressType);
    const sender: BitcoinSender = {
      network: "regtest",
      signer: localBitcoinSigner(keyPair.privateKey, "regtest"),
      addressType,
      address: keyPair.address,
      ...(addressType === "p2pkh" ? { previousTransaction: async (txid: string) => (await backend.transactionHex(txid))! } : {}),
    };
    for (const value of values) await fund(keyPair.address, value);
    await mine();
    return { sender, address: keyPair.address, privateKey: keyPair.privateKey };
  }

  // First, while the chain has seen no fee-paying transaction: regtest's estimatesmartfee has no data yet.
  it("with no fee estimate on a fresh regtest chain, both backends answer the 1 sat/vB floor", async function () {
    const { errors } = await rpc<{ errors?: string[] }>("estimatesmartfee", [6]);
    expect(errors?.join(" ")).to.match(/insufficient data/i);
    expect(await backends.bitcoind!.feeRate(6)).to.equal(1);
    expect(await backends.esplora!.feeRate(6)).to.equal(1);
  });

  for (const [name, label] of [
    ["bitcoind", "the bitcoind backend"],
    ["esplora", "the Esplora backend, on a stand-in Esplora answering from the same bitcoind"],
  ] as const) {
    describe(`through ${label}`, function () {
      const backend = () => backends[name]!;

      it("lists a funded P2WPKH key's coins, sends at the asked fee rate with RBF signalled, and counts confirmations", async function () {
        const { sender, address } = await fundedSender(backend(), [50_000_000n, 30_000_000n]);
        const coins = await backend().listUnspent(address);
        expect(coins.map((coin) => [coin.value, coin.confirmations]).sort()).to.deep.equal([
          [30_000_000n, 1],
          [50_000_000n, 1],
        ]);
        const recipient = await newRecipient();
        const send = await buildSend({ sender, coins, to: recipient, amount: 60_000_000n, feeRate: 7.5 });

        // The node's own view before and after the broadcast.
        const [accepted] = await rpc<Array<{ allowed: boolean; vsize: number; fees: { base: number } }>>("testmempoolaccept", [[send.hex]]);
        expect(accepted).to.deep.include({ allowed: true, vsize: send.vsize });
        expect(sat(accepted!.fees.base)).to.equal(send.fee);
        expect(await backend().broadcast(send.hex)).to.equal(send.txid);
        const entry = await rpc<MempoolEntry>("getmempoolentry", [send.txid]);
        expect(Number(sat(entry.fees.base)) / entry.vsize).to.be.at.least(7.5);
        expect(entry["bip125-replaceable"]).to.equal(true);
        const decoded = await decode(send.hex);
        expect(decoded.vin.map((input) => input.sequence)).to.deep.equal(send.inputs.map(() => RBF_SEQUENCE));
        expect(send.inputs).to.have.length(2);
        const paid = decoded.vout.find((output) => output.scriptPubKey.address === recipient);
        expect(sat(paid!.value)).to.equal(60_000_000n);
        const change = decoded.vout.find((output) => output.scriptPubKey.address === address);
        expect(sat(change!.value))
          .to.equal(send.change!.value)
          .and.equal(80_000_000n - 60_000_000n - send.fee);

        expect(await backend().transactionStatus(send.txid)).to.deep.equal({ state: "mempool" });
        // The spent coins are gone from the list, the change waits in the mempool.
        const pending = await backend().listUnspent(address);
        expect(pending.map(({ txid, vout, value, confirmations }) => ({ txid, vout, value, confirmations }))).to.deep.equal([
          { txid: send.txid, vout: send.change!.vout, value: send.change!.value, confirmations: 0 },
        ]);

        const [block] = await mine();
        expect(await backend().transactionStatus(send.txid)).to.deep.equal({
          state: "confirmed",
          blockHeight: await rpc<number>("getblockcount"),
          blockHash: block,
          confirmations: 1,
        });
        await mine(2);
        expect(await backend().transactionStatus(send.txid)).to.deep.include({ state: "confirmed", blockHash: block, confirmations: 3 });
        expect((await backend().listUnspent(address))[0]).to.deep.include({ txid: send.txid, confirmations: 3 });
        // A broadcast of what the chain already holds answers its txid: resending is safe.
        expect(await backend().broadcast(send.hex)).to.equal(send.txid);
      });

      it("replaces a send by a fee bump (RBF) that bitcoind accepts; the original leaves the mempool", async function () {
        const { sender, address } = await fundedSender(backend(), [10_000_000n]);
        const send = await buildSend({
          sender,
          coins: await backend().listUnspent(address),
          to: await newRecipient(),
          amount: 4_000_000n,
          feeRate: 2,
        });
        await backend().broadcast(send.hex);

        const bump = await buildReplacement({ sender, previous: send, feeRate: 12, coins: await backend().listUnspent(address) });
        expect(bump.inputs).to.deep.equal(send.inputs);
        expect(bump.payment).to.deep.include({ address: send.payment!.address, value: send.payment!.value });
        expect(bump.fee >= send.fee + BigInt(bump.vsize)).to.equal(true);
        expect(await backend().broadcast(bump.hex)).to.equal(bump.txid);

        const pool = await mempool();
        expect(pool).to.include(bump.txid).and.not.include(send.txid);
        const entry = await rpc<MempoolEntry>("getmempoolentry", [bump.txid]);
        expect(Number(sat(entry.fees.base)) / entry.vsize).to.be.at.least(12);
        expect(await backend().transactionStatus(send.txid)).to.deep.equal({ state: "unknown" });
        expect(await backend().transactionStatus(bump.txid)).to.deep.equal({ state: "mempool" });

        await mine();
        expect(await backend().transactionStatus(bump.txid)).to.deep.include({ state: "confirmed", confirmations: 1 });
        expect(await backend().transactionStatus(send.txid)).to.deep.equal({ state: "unknown" });
      });

      it("a replacement that does not outbid the original by the incremental relay fee is refused, typed final (fee-too-low)", async function () {
        const { sender, address } = await fundedSender(backend(), [10_000_000n]);
        const send = await buildSend({
          sender,
          coins: await backend().listUnspent(address),
          to: await newRecipient(),
          amount: 4_000_000n,
          feeRate: 3,
        });
        await backend().broadcast(send.hex);
        // Built as if the node's incremental relay fee were 0.001 sat/vB: a hair above the original, short of BIP 125 rule 4.
        const stingy = await buildReplacement({ sender, previous: send, feeRate: 3.2, incrementalRelayFeeRate: 0.001 });
        const refusal = await expectServiceError(backend().broadcast(stingy.hex), ErrorCode.TRANSACTION_REJECTED, undefined);
        expect(refusal.details).to.deep.include({ reason: "fee-too-low", retryable: false });
        expect(broadcastOutcome(refusal)).to.deep.equal({ kind: "final", reason: "fee-too-low" });
        expect(await mempool())
          .to.include(send.txid)
          .and.not.include(stingy.txid);
      });

      it("a fee bump the change cannot pay adds a confirmed coin", async function () {
        const { sender, address } = await fundedSender(backend(), [100_000n, 60_000n]);
        const coins = await backend().listUnspent(address);
        // Largest first spends the 100 000 sat coin alone, leaving a small change.
        const send = await buildSend({ sender, coins, to: await newRecipient(), amount: 98_000n, feeRate: 1 });
        expect(send.inputs.map((input) => input.value)).to.deep.equal([100_000n]);
        expect(send.change!.value < 2_000n).to.equal(true);
        await backend().broadcast(send.hex);

        const bump = await buildReplacement({ sender, previous: send, feeRate: 25, coins: await backend().listUnspent(address) });
        expect(bump.inputs.map((input) => input.value)).to.deep.equal([100_000n, 60_000n]);
        expect(bump.inputs[0]).to.deep.equal(send.inputs[0]);
        await backend().broadcast(bump.hex);
        expect(await mempool())
          .to.include(bump.txid)
          .and.not.include(send.txid);
        await mine();
        expect(await backend().transactionStatus(bump.txid)).to.deep.include({ state: "confirmed" });
      });

      it("a cancellation returns everything to the sender and evicts the send", async function () {
        const { sender, address } = await fundedSender(backend(), [5_000_000n]);
        const send = await buildSend({
          sender,
          coins: await backend().listUnspent(address),
          to: await newRecipient(),
          amount: 1_000_000n,
          feeRate: 2,
        });
        await backend().broadcast(send.hex);
        const cancel = await buildCancel({ sender, previous: send, feeRate: 6 });
        expect(cancel.payment).to.equal(undefined);
        expect(cancel.change).to.deep.include({ address, value: 5_000_000n - cancel.fee, vout: 0 });
        await backend().broadcast(cancel.hex);
        expect(await mempool())
          .to.include(cancel.txid)
          .and.not.include(send.txid);
        const decoded = await decode(cancel.hex);
        expect(decoded.vout.map((output) => output.scriptPubKey.address)).to.deep.equal([address]);
      });

      it("a reorganisation takes a confirmed send back to the mempool; replaced there, it becomes unknown", async function () {
        const { sender, address } = await fundedSender(backend(), [3_000_000n]);
        const send = await buildSend({
          sender,
          coins: await backend().listUnspent(address),
          to: await newRecipient(),
          amount: 1_000_000n,
          feeRate: 2,
        });
        await backend().broadcast(send.hex);
        const [block] = await mine();
        expect(await backend().transactionStatus(send.txid)).to.deep.include({ state: "confirmed", blockHash: block });

        await rpc("invalidateblock", [block]);
        expect(await mempool()).to.include(send.txid);
        expect(await backend().transactionStatus(send.txid)).to.deep.equal({ state: "mempool" });

        const cancel = await buildCancel({ sender, previous: send, feeRate: 5 });
        await backend().broadcast(cancel.hex);
        expect(await backend().transactionStatus(send.txid)).to.deep.equal({ state: "unknown" });
        const [replacementBlock] = await mine();
        expect(await backend().transactionStatus(cancel.txid)).to.deep.include({ state: "confirmed", blockHash: replacementBlock });
        expect(await backend().transactionStatus(send.txid)).to.deep.equal({ state: "unknown" });
      });

      for (const addressType of ["p2tr", "p2pkh"] as const) {
        it(`sends from a ${addressType} key: the node accepts it at the asked fee rate, and a fee bump replaces it`, async function () {
          const { sender, address } = await fundedSender(backend(), [2_000_000n, 1_500_000n], addressType);
          const coins = await backend().listUnspent(address);
          const send = await buildSend({ sender, coins, to: await newRecipient(), amount: 3_000_000n, feeRate: 4 });
          expect(send.inputs).to.have.length(2);
          await backend().broadcast(send.hex);
          const entry = await rpc<MempoolEntry>("getmempoolentry", [send.txid]);
          expect(entry.vsize).to.equal(send.vsize);
          expect(Number(sat(entry.fees.base)) / entry.vsize).to.be.at.least(4);
          const bump = await buildReplacement({ sender, previous: send, feeRate: 9 });
          await backend().broadcast(bump.hex);
          expect(await mempool())
            .to.include(bump.txid)
            .and.not.include(send.txid);
        });
      }

      it("refuses typed: funds short of amount + fee (needed and available), dust, an address of another network", async function () {
        const { sender, address, privateKey } = await fundedSender(backend(), [200_000n]);
        const coins: BitcoinUtxo[] = await backend().listUnspent(address);
        const to = await newRecipient();
        const short = await expectServiceError(
          buildSend({ sender, coins, to, amount: 199_990n, feeRate: 1 }),
          ErrorCode.INSUFFICIENT_FUNDS,
          "amount",
          [privateKey],
        );
        expect(short.details).to.deep.include({ available: "200000", needed: String(199_990n + BigInt(short.details!.fee as string)) });
        await expectServiceError(buildSend({ sender, coins, to, amount: 293n, feeRate: 1 }), ErrorCode.INVALID_ARGUMENT, "amount", [
          privateKey,
        ]);
        await expectServiceError(
          buildSend({ sender, coins, to: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", amount: 10_000n, feeRate: 1 }),
          ErrorCode.INVALID_ADDRESS,
          "to",
          [privateKey],
        );
        // The dust limit itself is fine.
        const atDust = await buildSend({ sender, coins, to, amount: 294n, feeRate: 1 });
        const [accepted] = await rpc<Array<{ allowed: boolean }>>("testmempoolaccept", [[atDust.hex]]);
        expect(accepted!.allowed).to.equal(true);
      });

      it("the node's own refusals are typed: below the relay minimum (fee-too-low), a spent input (inputs-spent)", async function () {
        const { sender, address } = await fundedSender(backend(), [1_000_000n]);
        const coins = await backend().listUnspent(address);
        const to = await newRecipient();
        const cheap = await buildSend({ sender, coins, to, amount: 100_000n, feeRate: 0.5 });
        const tooCheap = await expectServiceError(backend().broadcast(cheap.hex), ErrorCode.TRANSACTION_REJECTED, undefined);
        expect(tooCheap.details).to.deep.include({ reason: "fee-too-low", retryable: false });

        const send = await buildSend({ sender, coins, to, amount: 100_000n, feeRate: 2 });
        await backend().broadcast(send.hex);
        await mine();
        const doubleSpend = await buildSend({ sender, coins, to, amount: 200_000n, feeRate: 20 });
        const spent = await expectServiceError(backend().broadcast(doubleSpend.hex), ErrorCode.TRANSACTION_REJECTED, undefined);
        expect(spent.details).to.deep.include({ reason: "inputs-spent", retryable: false });
        expect(broadcastOutcome(spent)).to.deep.equal({ kind: "final", reason: "inputs-spent" });
      });

      it("reads the tip height and a transaction's hex; an unknown txid is unknown", async function () {
        expect(await backend().tipHeight()).to.equal(await rpc<number>("getblockcount"));
        const { address } = await fundedSender(backend(), [100_000n]);
        const [coin] = await backend().listUnspent(address);
        expect(await backend().transactionHex(coin!.txid)).to.equal(
          await rpc<string>("gettransaction", [coin!.txid], regtest.funder.wallet).then((tx: any) => tx.hex),
        );
        expect(await backend().transactionHex("00".repeat(32))).to.equal(undefined);
        expect(await backend().transactionStatus("00".repeat(32))).to.deep.equal({ state: "unknown" });
      });
    });
  }
});
