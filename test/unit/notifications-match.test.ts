import { expect } from "chai";
import { Interface, Wallet, id as keccakId } from "ethers";

import { eventsOf, eventId, type ScannedBlock, type WatchedSubscription } from "../../src/core/notifications/match.js";
import { movementsOf, TRANSFER_TOPICS, type ChainLog } from "../../src/core/notifications/transfer-logs.js";
import { parseSubscriptionSpec } from "../../src/domain/subscriptions.js";

// Chain notifications' pure core (issue 30): a subscription's request parsed once, a block's logs and native transfers
// matched against subscriptions. Logs are encoded here with ethers' ABI encoder, as a token's emit would encode them.

const ERC20 = new Interface(["event Transfer(address indexed from, address indexed to, uint256 value)"]);
const ERC721 = new Interface(["event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)"]);
const ERC1155 = new Interface([
  "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
  "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
]);
const CUSTOM = new Interface(["event Priced(uint256 indexed round, address indexed feed, int256 price, string note)"]);

const alice = Wallet.createRandom().address;
const bob = Wallet.createRandom().address;
const token = Wallet.createRandom().address;
const nft = Wallet.createRandom().address;
const multi = Wallet.createRandom().address;
const oracle = Wallet.createRandom().address;
const TX = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

function log(abi: Interface, address: string, name: string, args: unknown[], txHash: string, logIndex: number): ChainLog {
  const { topics, data } = abi.encodeEventLog(name, args);
  return { address, topics, data, transactionHash: txHash, logIndex };
}

describe("chain notifications: subscription requests", function () {
  it("takes an address with every asset by default, in a fixed order, and checksums it", function () {
    const spec = parseSubscriptionSpec({ address: alice.toLowerCase(), assets: ["ERC721", "native"] }, "evm");
    expect(spec).to.deep.equal({
      target: { kind: "address", address: alice, assets: ["native", "erc721"] },
      confirmations: 1,
      fromBlock: null,
    });
    expect(parseSubscriptionSpec({ address: alice }, "evm").target).to.deep.include({ assets: ["native", "erc20", "erc721", "erc1155"] });
  });

  it("takes a contract with event signatures, plain or naming indexed parameters, each with its topic", function () {
    const spec = parseSubscriptionSpec(
      {
        contract: token,
        events: ["Transfer(address,address,uint256)", "Approval(address indexed owner, address indexed spender, uint256 value)"],
        confirmations: 0,
        fromBlock: 12,
      },
      "evm",
    );
    expect(spec.confirmations).to.equal(0);
    expect(spec.fromBlock).to.equal(12);
    const events = spec.target.kind === "contract" ? spec.target.events! : [];
    expect(events.map((event) => event.topic)).to.deep.equal([
      keccakId("Transfer(address,address,uint256)"),
      keccakId("Approval(address,address,uint256)"),
    ]);
    expect(events[0]!.fragment).to.equal(null);
    expect(events[1]!.fragment).to.match(/indexed owner/);
  });

  for (const [body, field] of [
    [{}, "address"],
    [{ address: alice, contract: token }, "contract"],
    [{ address: alice, assets: ["erc777"] }, "assets[0]"],
    [{ address: alice, assets: [] }, "assets"],
    [{ address: alice, events: ["Transfer(address,address,uint256)"] }, "events"],
    [{ contract: token, assets: ["erc20"] }, "assets"],
    [{ contract: token, events: ["not a signature("] }, "events[0]"],
    [{ contract: token, events: [] }, "events"],
    [{ address: alice, confirmations: -1 }, "confirmations"],
    [{ address: alice, confirmations: 1.5 }, "confirmations"],
    [{ address: alice, fromBlock: "12" }, "fromBlock"],
    [{ address: "0x1234" }, "address"],
  ] as const) {
    it(`refuses ${JSON.stringify(body)} naming ${field}`, function () {
      expect(() => parseSubscriptionSpec(body as Record<string, unknown>, "evm"))
        .to.throw()
        .with.property("field", field);
    });
  }

  it("on Bitcoin takes an address of its network only, its one asset its currency", function () {
    const bitcoinAddress = (value: unknown) => String(value);
    expect(parseSubscriptionSpec({ address: "bcrt1qexample" }, "bitcoin", bitcoinAddress).target).to.deep.equal({
      kind: "address",
      address: "bcrt1qexample",
      assets: ["native"],
    });
    expect(() => parseSubscriptionSpec({ contract: token }, "bitcoin", bitcoinAddress))
      .to.throw()
      .with.property("field", "contract");
    expect(() => parseSubscriptionSpec({ address: "x", assets: ["erc20"] }, "bitcoin", bitcoinAddress))
      .to.throw()
      .with.property("field", "assets");
  });
});

describe("chain notifications: token movements a log records", function () {
  it("reads ERC-20, ERC-721 and ERC-1155 single and batch transfers", function () {
    expect(movementsOf(log(ERC20, token, "Transfer", [alice, bob, 5n], TX(1), 0))).to.deep.equal([
      { asset: "erc20", contract: token, from: alice, to: bob, amount: "5", tokenId: null, batchIndex: null },
    ]);
    expect(movementsOf(log(ERC721, nft, "Transfer", [alice, bob, 7n], TX(1), 1))).to.deep.equal([
      { asset: "erc721", contract: nft, from: alice, to: bob, amount: null, tokenId: "7", batchIndex: null },
    ]);
    expect(movementsOf(log(ERC1155, multi, "TransferSingle", [alice, alice, bob, 3n, 40n], TX(1), 2))).to.deep.equal([
      { asset: "erc1155", contract: multi, from: alice, to: bob, amount: "40", tokenId: "3", batchIndex: null },
    ]);
    const batch = movementsOf(log(ERC1155, multi, "TransferBatch", [alice, alice, bob, [1n, 2n], [10n, 20n]], TX(1), 3));
    expect(batch.map((movement) => [movement.tokenId, movement.amount, movement.batchIndex])).to.deep.equal([
      ["1", "10", 0],
      ["2", "20", 1],
    ]);
  });

  it("records none for a transfer topic over another layout, or another event", function () {
    const twoTopics: ChainLog = {
      address: token,
      topics: [TRANSFER_TOPICS.transfer, TX(9)],
      data: "0x",
      transactionHash: TX(1),
      logIndex: 0,
    };
    expect(movementsOf(twoTopics)).to.deep.equal([]);
    const shortData = { ...log(ERC20, token, "Transfer", [alice, bob, 5n], TX(1), 0), data: "0x1234" };
    expect(movementsOf(shortData)).to.deep.equal([]);
    expect(movementsOf(log(CUSTOM, oracle, "Priced", [1n, alice, -5n, "x"], TX(1), 0))).to.deep.equal([]);
  });

  it("reads each word as ethers' ABI decoder does, and refuses what it refuses, over 600 hostile layouts", function () {
    // The fixed layouts are read word by word (transfer-logs.ts): held to ethers' own decoder, log by log.
    const reference = (entry: ChainLog) => {
      // A topic that is no 32-byte word (no node answers one) makes the log none.
      if (entry.topics.some((word) => word.length !== 66)) return [];
      const topic = entry.topics[0];
      const [abi, asset] =
        topic === TRANSFER_TOPICS.transfer ? (entry.topics.length === 4 ? [ERC721, "erc721"] : [ERC20, "erc20"]) : [ERC1155, "erc1155"];
      try {
        const parsed = abi.parseLog({ topics: [...entry.topics], data: entry.data });
        if (parsed === null || parsed.name === "TransferBatch") return "skip";
        if (asset === "erc721" && entry.data !== "0x") return [];
        if (asset === "erc20" && entry.topics.length !== 3) return [];
        const [from, to] = asset === "erc1155" ? [parsed.args[1], parsed.args[2]] : [parsed.args[0], parsed.args[1]];
        const amount = asset === "erc721" ? null : String(parsed.args[asset === "erc1155" ? 4 : 2]);
        const tokenId = asset === "erc20" ? null : String(parsed.args[asset === "erc1155" ? 3 : 2]);
        return [{ asset, contract: token, from, to, amount, tokenId, batchIndex: null }];
      } catch {
        return [];
      }
    };
    const words = [
      () => `0x${"00".repeat(12)}${alice.slice(2).toLowerCase()}`,
      () => `0x${"ff".repeat(12)}${bob.slice(2)}`,
      () => `0x01${"00".repeat(11)}${bob.slice(2)}`,
      () => TX(Math.floor(Math.random() * 1e9)),
      () => `0x${"ff".repeat(32)}`,
      () => "0x1234",
    ];
    const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)]!;
    const datas = [
      () => "0x",
      () => TX(5),
      () => `${TX(5)}${TX(6).slice(2)}`,
      () => `${TX(5)}${TX(6).slice(2)}${TX(7).slice(2)}`,
      () => "0x1234",
    ];
    let compared = 0;
    for (let round = 0; round < 600; round++) {
      const topic = pick([TRANSFER_TOPICS.transfer, TRANSFER_TOPICS.transferSingle]);
      const count = pick([3, 4, 4]);
      const entry: ChainLog = {
        address: token,
        topics: [topic, ...Array.from({ length: count - 1 }, () => pick(words)())],
        data: pick(datas)(),
        transactionHash: TX(1),
        logIndex: 0,
      };
      const expected = reference(entry);
      if (expected === "skip") continue;
      expect(movementsOf(entry), JSON.stringify(entry)).to.deep.equal(expected);
      compared++;
    }
    expect(compared).to.be.greaterThan(300);
  });
});

describe("chain notifications: a block matched against subscriptions", function () {
  const watchAlice: WatchedSubscription = {
    id: "sub-alice",
    target: { kind: "address", address: alice, assets: ["native", "erc20", "erc721", "erc1155"] },
  };
  const aliceTokensOnly: WatchedSubscription = { id: "sub-alice-20", target: { kind: "address", address: alice, assets: ["erc20"] } };
  const block: ScannedBlock = {
    chain: "ethereum",
    network: "local",
    number: 100,
    hash: TX(1000),
    transfers: [
      { transactionHash: TX(1), from: bob, to: alice, value: "1000" },
      { transactionHash: TX(2), from: alice, to: alice, value: "1" },
      { transactionHash: TX(3), from: bob, to: alice, value: "0" },
      { transactionHash: TX(4), from: alice, to: null, value: "9" },
    ],
    logs: [
      log(ERC1155, multi, "TransferBatch", [bob, bob, alice, [1n, 2n], [1n, 1n]], TX(6), 2),
      log(ERC20, token, "Transfer", [alice, bob, 5n], TX(5), 0),
      log(ERC721, nft, "Transfer", [bob, bob, 7n], TX(5), 1),
      log(CUSTOM, oracle, "Priced", [4n, alice, -5n, "fresh"], TX(7), 3),
    ],
  };

  it("finds value in and out of a watched address, a transfer to itself as both, none of zero value", function () {
    const events = eventsOf(block, [watchAlice]);
    expect(events.map((event) => [event.txHash, event.type === "chain.activity" ? `${event.direction}:${event.asset}` : ""])).to.deep.equal(
      [
        [TX(1), "in:native"],
        [TX(2), "out:native"],
        [TX(2), "in:native"],
        [TX(5), "out:erc20"],
        [TX(6), "in:erc1155"],
        [TX(6), "in:erc1155"],
      ],
    );
    expect(new Set(events.map((event) => event.id)).size, "every id distinct").to.equal(events.length);
    expect(events[0]).to.deep.include({
      subscriptionId: "sub-alice",
      logIndex: null,
      blockNumber: 100,
      blockHash: TX(1000),
      amount: "1000",
      contract: null,
    });
    expect(events.slice(-2).map((event) => (event.type === "chain.activity" ? event.tokenId : ""))).to.deep.equal(["1", "2"]);
  });

  it("finds only the assets a subscription asks for, and the same ids on a second look", function () {
    const first = eventsOf(block, [watchAlice, aliceTokensOnly]);
    const tokensOnly = first.filter((event) => event.subscriptionId === "sub-alice-20");
    expect(tokensOnly.map((event) => event.txHash)).to.deep.equal([TX(5)]);
    expect(eventsOf(block, [watchAlice, aliceTokensOnly]).map((event) => event.id)).to.deep.equal(first.map((event) => event.id));
    expect(tokensOnly[0]!.id).to.equal(eventId("sub-alice-20", TX(5), "0", null, "out"));
  });

  it("decodes a watched contract's subscribed events, plain or full signature, and passes every event raw when none is named", function () {
    const plain = parseSubscriptionSpec({ contract: oracle, events: ["Priced(uint256,address,int256,string)"] }, "evm").target;
    const full = parseSubscriptionSpec(
      { contract: oracle, events: ["Priced(uint256 indexed round, address indexed feed, int256 price, string note)"] },
      "evm",
    ).target;
    const every = parseSubscriptionSpec({ contract: oracle }, "evm").target;
    const [byPosition] = eventsOf(block, [{ id: "plain", target: plain }]);
    expect(byPosition).to.deep.include({ type: "chain.event", event: "Priced(uint256,address,int256,string)", logIndex: 3 });
    expect(byPosition!.type === "chain.event" && byPosition!.args).to.deep.equal({ 0: "4", 1: alice, 2: "-5", 3: "fresh" });
    const [byName] = eventsOf(block, [{ id: "full", target: full }]);
    expect(byName!.type === "chain.event" && byName!.args).to.deep.equal({ round: "4", feed: alice, price: "-5", note: "fresh" });
    const [raw] = eventsOf(block, [{ id: "every", target: every }]);
    expect(raw).to.deep.include({ event: null, args: null });
    expect(raw!.type === "chain.event" && raw!.topics[0]).to.equal(CUSTOM.getEvent("Priced")!.topicHash);
    const other = parseSubscriptionSpec({ contract: oracle, events: ["Other(uint256)"] }, "evm").target;
    expect(eventsOf(block, [{ id: "other", target: other }])).to.deep.equal([]);
  });
});
