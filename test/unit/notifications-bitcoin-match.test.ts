import { expect } from "chai";

import {
  addressKey,
  bitcoinEventsOf,
  type BitcoinTransaction,
  type ScannedBitcoinBlock,
} from "../../src/core/notifications/bitcoin-match.js";
import { eventId, type WatchedSubscription } from "../../src/core/notifications/match.js";

// Bitcoin address subscriptions' pure core (issue 30): a block's transactions matched against the subscriptions of its
// network. Value reaches an address as an output paying it (`in`, one per output) and leaves it as a transaction
// spending its coins (`out`, one per transaction: the sum of its coins that the transaction spends).

const ALICE = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";
const BOB = "bcrt1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qzf4jry";
const CAROL = "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn";
const TX = (n: number) => n.toString(16).padStart(64, "0");

const watch = (id: string, address: string): WatchedSubscription => ({ id, target: { kind: "address", address, assets: ["native"] } });
const block = (transactions: BitcoinTransaction[]): ScannedBitcoinBlock => ({
  kind: "bitcoin",
  chain: "bitcoin",
  network: "regtest",
  number: 120,
  hash: "ab".repeat(32),
  transactions,
});
const coin = (address: string | null, value: bigint) => ({ address, value });
const paid = (vout: number, address: string | null, value: bigint) => ({ vout, address, value });

describe("chain notifications: a Bitcoin block matched against address subscriptions", function () {
  it("finds a coinbase's and a payment's outputs to a watched address as `in`, one per output, from the first input's address", function () {
    const events = bitcoinEventsOf(
      block([
        { txid: TX(1), inputs: [null], outputs: [paid(0, ALICE, 5_000_000_000n), paid(1, null, 0n)] },
        {
          txid: TX(2),
          inputs: [coin(BOB, 70_000n), coin(CAROL, 40_000n)],
          outputs: [paid(0, ALICE, 30_000n), paid(1, BOB, 60_000n), paid(2, ALICE, 15_000n)],
        },
      ]),
      [watch("s1", ALICE)],
    );
    expect(
      events.map((event) => [event.id, event.direction, event.txHash, event.logIndex, event.from, event.to, event.amount]),
    ).to.deep.equal([
      [eventId("s1", TX(1), "vout:0", null, "in"), "in", TX(1), 0, "", ALICE, "5000000000"],
      [eventId("s1", TX(2), "vout:0", null, "in"), "in", TX(2), 0, BOB, ALICE, "30000"],
      [eventId("s1", TX(2), "vout:2", null, "in"), "in", TX(2), 2, BOB, ALICE, "15000"],
    ]);
    expect(events[0]).to.deep.include({
      type: "chain.activity",
      subscriptionId: "s1",
      chain: "bitcoin",
      network: "regtest",
      blockNumber: 120,
      blockHash: "ab".repeat(32),
      asset: "native",
      contract: null,
      tokenId: null,
    });
  });

  it("finds a spend of a watched address's coins as one `out` of their sum, before the `in` of its change", function () {
    const events = bitcoinEventsOf(
      block([
        {
          txid: TX(3),
          inputs: [coin(BOB, 5_000n), coin(ALICE, 70_000n), coin(ALICE, 40_000n)],
          outputs: [paid(0, null, 0n), paid(1, ALICE, 20_000n), paid(2, CAROL, 94_000n)],
        },
      ]),
      [watch("s1", ALICE), watch("s2", CAROL)],
    );
    expect(
      events.map((event) => [event.subscriptionId, event.direction, event.logIndex, event.from, event.to, event.amount]),
    ).to.deep.equal([
      // What left the watched address's coins, whatever came back; `to` the first output paying someone else.
      ["s1", "out", null, ALICE, CAROL, "110000"],
      ["s1", "in", 1, BOB, ALICE, "20000"],
      ["s2", "in", 2, BOB, CAROL, "94000"],
    ]);
    expect(events[0]!.id).to.equal(eventId("s1", TX(3), "spend", null, "out"));
  });

  it("names the watched address as `to` of a spend that pays only itself (a consolidation)", function () {
    const events = bitcoinEventsOf(
      block([{ txid: TX(4), inputs: [coin(ALICE, 10_000n), coin(ALICE, 20_000n)], outputs: [paid(0, ALICE, 29_000n)] }]),
      [watch("s1", ALICE)],
    );
    expect(events.map((event) => [event.direction, event.from, event.to, event.amount])).to.deep.equal([
      ["out", ALICE, ALICE, "30000"],
      ["in", ALICE, ALICE, "29000"],
    ]);
  });

  it("matches bech32 addresses whatever their case, base58 ones exactly, and gives the same ids on a second look", function () {
    const scanned = block([{ txid: TX(5), inputs: [coin(BOB, 9_000n)], outputs: [paid(0, ALICE, 1_000n), paid(1, CAROL, 2_000n)] }]);
    const subscriptions = [watch("upper", ALICE.toUpperCase()), watch("lower-base58", CAROL.toLowerCase())];
    const events = bitcoinEventsOf(scanned, subscriptions);
    expect(events.map((event) => [event.subscriptionId, event.to])).to.deep.equal([["upper", ALICE]]);
    expect(bitcoinEventsOf(scanned, subscriptions)).to.deep.equal(events);
    expect(addressKey(ALICE.toUpperCase())).to.equal(ALICE);
    expect(addressKey(CAROL)).to.equal(CAROL);
  });

  it("finds nothing for a contract subscription or an address no output pays and no input spends", function () {
    const scanned = block([{ txid: TX(6), inputs: [coin(BOB, 9_000n)], outputs: [paid(0, BOB, 8_000n)] }]);
    expect(bitcoinEventsOf(scanned, [watch("s1", ALICE)])).to.deep.equal([]);
    expect(bitcoinEventsOf(scanned, [{ id: "c", target: { kind: "contract", contract: BOB, events: null } }])).to.deep.equal([]);
  });
});
