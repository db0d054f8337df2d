import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "chai";
import { Transaction, Wallet } from "ethers";

import { closedPort } from "../../helpers/service.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";
import { WebhookReceiver } from "../../helpers/webhook-receiver.js";

// Each fault is made through the HTTP API of a real service on simulated EDR chains, and seen from outside as a client
// sees it: plain fetch against the HTTP API, ethers (a client no one here wrote) to sign what the service prepares.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const FAULTS = "/api/v1/chains/ethereum/sepolia/faults";
const FAULTS_ON = { TOKEN_SERVICE_CHAIN_FAULTS: "on", TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" };

type Transition = { status: string; at: string; reason: string };

async function fundedWallet(server: RunningServer): Promise<Wallet> {
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const funded = await server.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: wallet.address, amount: "100000000000000000000" });
  expect(funded.status, JSON.stringify(funded.body)).to.equal(200);
  return wallet;
}

function launch(server: RunningServer, sender: Wallet, name: string, query = "") {
  return server.call("POST", `/api/v1/tokens${query}`, {
    ...SEPOLIA,
    type: "ERC20",
    token: { name, symbol: name.slice(0, 4).toUpperCase(), initialSupply: "1" },
    sender: sender.address,
    privateKey: sender.privateKey,
  });
}

const operation = async (server: RunningServer, id: string) => (await server.call("GET", `/api/v1/operations/${id}`)).body;

const transaction = async (server: RunningServer, hash: string) =>
  (await server.call("GET", `/api/v1/transactions/${hash}?chain=ethereum&network=sepolia`)).body;

/** The base fee the service's fee estimate read from the latest block: a prepared type-2 transaction's (maxFee − tip) / 2. */
async function quotedBaseFee(server: RunningServer, sender: Wallet): Promise<{ baseFee: bigint; prepared: any }> {
  const prepared = await server.call("POST", "/api/v1/tokens", {
    ...SEPOLIA,
    type: "ERC20",
    token: { name: "Quote", symbol: "QTE" },
    sender: sender.address,
  });
  expect(prepared.status, JSON.stringify(prepared.body)).to.equal(200);
  const { maxFeePerGas, maxPriorityFeePerGas } = prepared.body.unsignedTransaction;
  return { baseFee: (BigInt(maxFeePerGas) - BigInt(maxPriorityFeePerGas)) / 2n, prepared: prepared.body };
}

describe("chain faults: off unless TOKEN_SERVICE_CHAIN_FAULTS=on", function () {
  let server: RunningServer;

  before(async function () {
    server = await startServer();
  });

  after(async function () {
    await server?.stop();
  });

  it("answers 404 CHAIN_FAULTS_OFF to every faults route, and the chain behaves", async function () {
    for (const [method, url, body] of [
      ["POST", FAULTS, { fault: "stall", seconds: 5 }],
      ["GET", FAULTS, undefined],
      ["DELETE", FAULTS, undefined],
      ["DELETE", `${FAULTS}/0d7f4c3e-0000-4000-8000-000000000000`, undefined],
    ] as const) {
      const answer = await server.call(method, url, body);
      expect(answer.status, `${method} ${url}`).to.equal(404);
      expect(answer.body.error.code).to.equal("CHAIN_FAULTS_OFF");
      expect(answer.body.error.message).to.include("TOKEN_SERVICE_CHAIN_FAULTS=on");
    }
    const sender = await fundedWallet(server);
    const launched = await launch(server, sender, "Unfaulted", "?wait=mined");
    expect(launched.body.status).to.equal("mined");
  });
});

describe("chain faults on a simulated chain that mines on send (real HTTP service, EDR)", function () {
  let server: RunningServer;
  let receiver: WebhookReceiver;
  let sender: Wallet;

  before(async function () {
    receiver = new WebhookReceiver();
    await receiver.listen();
    server = await startServer({
      env: { ...FAULTS_ON, TOKEN_SERVICE_RPC_ETHEREUM_MAINNET: `http://127.0.0.1:${await closedPort()}` },
      requestTimeoutMs: 1_000,
      tracker: { idlePollMs: 50 },
    });
    sender = await fundedWallet(server);
  });

  afterEach(async function () {
    // No fault outlives its test.
    if (server !== undefined) await server.call("DELETE", FAULTS);
  });

  after(async function () {
    await server?.stop();
    await receiver?.close();
  });

  it("refuses faults on a live pair (409 LIVE_NETWORK_FAULTS) and on Bitcoin, and names the bad field of a request", async function () {
    const live = await server.call("POST", "/api/v1/chains/ethereum/mainnet/faults", { fault: "stall", seconds: 1 });
    expect(live.status).to.equal(409);
    expect(live.body.error).to.include({ code: "LIVE_NETWORK_FAULTS", field: "network" });
    expect((await server.call("GET", "/api/v1/chains/ethereum/mainnet/faults")).body.error.code).to.equal("LIVE_NETWORK_FAULTS");
    const bitcoin = await server.call("POST", "/api/v1/chains/bitcoin/regtest/faults", { fault: "stall", seconds: 1 });
    expect(bitcoin.status).to.equal(400);
    expect(bitcoin.body.error.code).to.equal("UNSUPPORTED_OPERATION");
    const cases: Array<[unknown, string, RegExp]> = [
      [{ fault: "meteor" }, "fault", /unknown fault "meteor"; one of: fee-spike, stall, drop, reorg, rpc-errors/],
      [{}, "fault", /fault is required/],
      [{ fault: "fee-spike", multiplier: 3 }, "blocks", /blocks is required/],
      [{ fault: "fee-spike", multiplier: "3", blocks: 2 }, "multiplier", /must be a number/],
      [{ fault: "fee-spike", multiplier: 3, baseFeePerGas: "1", blocks: 2 }, "baseFeePerGas", /not both/],
      [{ fault: "stall", blocks: 3 }, "blocks", /mines a block for each transaction.*give its length in seconds/],
      [{ fault: "stall" }, "seconds", /needs its length/],
      [{ fault: "reorg", blocks: 65 }, "blocks", /from 1 to 64/],
      [{ fault: "reorg", blocks: 1, seconds: 2 }, "seconds", /unknown field seconds for a reorg fault/],
      [{ fault: "rpc-errors", rate: 2 }, "rate", /from 0 to 1/],
      [{ fault: "rpc-errors", rate: 0.5, errors: ["418"] }, "errors[0]", /unknown error "418"/],
      [[1, 2], "body", /JSON object/],
    ];
    for (const [body, field, message] of cases) {
      const answer = await server.call("POST", FAULTS, body);
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      expect(answer.body.error.code, JSON.stringify(body)).to.equal("INVALID_ARGUMENT");
      expect(answer.body.error.field, JSON.stringify(body)).to.equal(field);
      expect(answer.body.error.message, JSON.stringify(body)).to.match(message);
    }
    const missing = await server.call("DELETE", `${FAULTS}/0d7f4c3e-0000-4000-8000-000000000000`);
    expect(missing.status).to.equal(404);
    expect(missing.body.error.code).to.equal("CHAIN_FAULT_NOT_FOUND");
  });

  it("fee-spike: the base fee of new blocks rises by the multiplier for the given blocks, then comes back", async function () {
    // Quotes reserve nonces: they come from a wallet that never sends, and the signed launch from one of its own.
    const quoter = await fundedWallet(server);
    const local = await fundedWallet(server);
    const before = await quotedBaseFee(server, quoter);
    const spike = await server.call("POST", FAULTS, { fault: "fee-spike", multiplier: 3, blocks: 3 });
    expect(spike.status, JSON.stringify(spike.body)).to.equal(201);
    expect(spike.body).to.deep.include({ fault: "fee-spike", status: "active", remaining: { blocks: 2 } });
    expect(BigInt(spike.body.effect.baseFeePerGas)).to.equal(before.baseFee * 3n);
    // Its first block was mined at once: the fee the service quotes now reads the spiked base fee.
    expect((await quotedBaseFee(server, quoter)).baseFee).to.equal(before.baseFee * 3n);
    const during = await quotedBaseFee(server, local);
    expect(during.baseFee).to.equal(before.baseFee * 3n);
    // A client signs the prepared launch (ethers) at the spiked fee and submits it: the node takes it at that fee.
    const signed = await local.signTransaction(during.prepared.unsignedTransaction);
    const submitted = await server.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC20",
      token: { name: "Quote", symbol: "QTE" },
      sender: local.address,
      signedTransaction: signed,
    });
    expect(submitted.body.status, JSON.stringify(await operation(server, submitted.body.id))).to.equal("mined");
    expect(Transaction.from(signed).maxFeePerGas! > before.baseFee * 6n).to.equal(true);
    expect((await server.call("GET", FAULTS)).body.faults.map((fault: { id: string }) => fault.id)).to.deep.equal([spike.body.id]);
    // Block 3 of 3, then one at the base fee from before.
    expect((await launch(server, sender, "Spiked", "?wait=mined")).body.status).to.equal("mined");
    expect((await server.call("GET", FAULTS)).body.faults).to.deep.equal([]);
    expect((await launch(server, sender, "After", "?wait=mined")).body.status).to.equal("mined");
    expect((await quotedBaseFee(server, quoter)).baseFee).to.equal(before.baseFee);
  });

  it("stall: a launch stays pending while the chain mines nothing, and is mined once the stall ends", async function () {
    const stall = await server.call("POST", FAULTS, { fault: "stall", seconds: 2 });
    expect(stall.status, JSON.stringify(stall.body)).to.equal(201);
    const launched = await launch(server, sender, "Stalled");
    expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
    expect(launched.body.status).to.equal("pending");
    // The node has it (the service's record is pending), in no block.
    expect(await transaction(server, launched.body.transactionHash)).to.include({ status: "pending", blockNumber: null });
    expect((await server.call("GET", FAULTS)).body.faults[0]).to.deep.include({ fault: "stall", status: "active" });
    const mined = await eventually(
      () => operation(server, launched.body.id),
      (record) => record.status === "mined",
      30_000,
    );
    const minedAt = Date.parse(mined.transitions.find((transition: Transition) => transition.status === "mined").at);
    expect(minedAt - Date.parse(stall.body.startedAt), "mined after the 2 s stall").to.be.at.least(1_900);
    expect((await server.call("GET", FAULTS)).body.faults).to.deep.equal([]);
  });

  it("DELETE ends a stall at once: what it held is mined", async function () {
    const stall = await server.call("POST", FAULTS, { fault: "stall", seconds: 600 });
    const launched = await launch(server, sender, "Released");
    expect(launched.body.status).to.equal("pending");
    const cleared = await server.call("DELETE", `${FAULTS}/${stall.body.id}`);
    expect(cleared.status, JSON.stringify(cleared.body)).to.equal(200);
    expect(cleared.body.cleared[0]).to.deep.include({ id: stall.body.id, status: "ended", endReason: "cleared" });
    expect(cleared.body.cleared[0].effect.held).to.equal(1);
    await eventually(
      () => operation(server, launched.body.id),
      (record) => record.status === "mined",
      10_000,
    );
  });

  it("drop: the node forgets the pending launch, the service sends it again, and its record ends mined", async function () {
    const drop = await server.call("POST", FAULTS, { fault: "drop", seconds: 1 });
    expect(drop.status, JSON.stringify(drop.body)).to.equal(201);
    const launched = await launch(server, sender, "Dropped");
    expect(launched.body.status).to.equal("pending");
    const mined = await eventually(
      () => operation(server, launched.body.id),
      (record) => record.status === "mined",
      30_000,
    );
    const reasons = mined.transitions.map((transition: Transition) => transition.reason);
    expect(
      reasons.some((reason: string) => reason.startsWith("re-broadcast: the node no longer knew it")),
      reasons.join("; "),
    ).to.equal(true);
    expect(await transaction(server, launched.body.transactionHash)).to.include({ status: "mined" });
    const journal = await readFile(path.join(server.dataDir, "chains", "ethereum-sepolia.jsonl"), "utf8");
    const forgets = journal
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.op === "forget");
    expect(forgets.flatMap((entry) => entry.transactions)).to.include(launched.body.transactionHash);
  });

  it("drop without a length forgets what a stall holds, at once", async function () {
    await server.call("POST", FAULTS, { fault: "stall", seconds: 600 });
    const launched = await launch(server, sender, "Stalled then dropped");
    const drop = await server.call("POST", FAULTS, { fault: "drop" });
    expect(drop.status, JSON.stringify(drop.body)).to.equal(201);
    expect(drop.body).to.deep.include({ status: "ended", endReason: "done" });
    expect(drop.body.effect.forgotten).to.deep.equal([launched.body.transactionHash]);
    // Still stalled: the service's re-broadcast waits in the pool, and is mined once the stall is cleared.
    await eventually(
      () => operation(server, launched.body.id),
      (record) => record.transitions.some((transition: Transition) => transition.reason.startsWith("re-broadcast")),
      10_000,
    );
    await server.call("DELETE", FAULTS);
    await eventually(
      () => operation(server, launched.body.id),
      (record) => record.status === "mined",
      10_000,
    );
  });

  it("reorg: a mined launch goes back to pending (operation.reorged) and is mined again in the new fork", async function () {
    const webhook = await server.call("POST", "/api/v1/webhooks", {
      url: receiver.url(),
      events: ["operation.reorged", "operation.mined"],
    });
    expect(webhook.status, JSON.stringify(webhook.body)).to.equal(201);
    const launched = await launch(server, sender, "Reorged", "?wait=mined");
    expect(launched.body.status).to.equal("mined");
    const before = await operation(server, launched.body.id);
    const reorg = await server.call("POST", FAULTS, { fault: "reorg", blocks: 1 });
    expect(reorg.status, JSON.stringify(reorg.body)).to.equal(201);
    expect(reorg.body).to.deep.include({ fault: "reorg", status: "ended" });
    expect(reorg.body.effect).to.deep.include({
      replacedFrom: before.blockNumber,
      oldHead: before.blockNumber,
      reincluded: 1,
      forgotten: [],
    });
    const after = await eventually(
      () => operation(server, launched.body.id),
      (record) => record.status === "mined" && record.transitions.some((transition: Transition) => transition.reason.startsWith("reorg")),
      30_000,
    );
    const statuses = after.transitions.map((transition: Transition) => transition.status);
    expect(statuses.slice(-2)).to.deep.equal(["pending", "mined"]);
    expect(after.transitions.at(-2).reason).to.include(`block ${before.blockNumber}`);
    expect(after.blockHash).to.not.equal(before.blockHash);
    // On a chain mining on send, the fork puts it at the height it had, in another block.
    expect(after.blockNumber).to.equal(before.blockNumber);
    expect(await transaction(server, launched.body.transactionHash)).to.include({ status: "mined", blockNumber: after.blockNumber });
    const events = await eventually(
      async () => receiver.received.filter((event) => event.json.data.id === launched.body.id).map((event) => event.json.type),
      (types) => types.includes("operation.reorged") && types.lastIndexOf("operation.mined") > types.indexOf("operation.reorged"),
      30_000,
    );
    expect(events[0]).to.equal("operation.mined");
  });

  it("reorg: refused deeper than the blocks the chain kept, and while a stall holds it", async function () {
    const deep = await server.call("POST", FAULTS, { fault: "reorg", blocks: 64 });
    expect(deep.status).to.equal(400);
    expect(deep.body.error.field).to.equal("blocks");
    expect(deep.body.error.details.maxBlocks).to.be.a("number");
    await server.call("POST", FAULTS, { fault: "stall", seconds: 600 });
    const held = await server.call("POST", FAULTS, { fault: "reorg", blocks: 1 });
    expect(held.status).to.equal(409);
    expect(held.body.error.code).to.equal("CHAIN_FAULT_CONFLICT");
  });

  it("rpc-errors: a share of the node calls fail; the service answers 502/504 as clean JSON, never 500, and heals", async function () {
    // Each read of another address: equal reads at one chain state share one answer, and would not ask the node again.
    const read = () => server.call("GET", `/api/v1/wallets?chain=ethereum&network=sepolia&address=${Wallet.createRandom().address}`);
    const all = await server.call("POST", FAULTS, { fault: "rpc-errors", rate: 1, calls: 3, errors: ["429", "503"] });
    expect(all.status, JSON.stringify(all.body)).to.equal(201);
    const refused = await read();
    expect(refused.status).to.equal(502);
    expect(refused.body.error.code).to.equal("UPSTREAM_UNAVAILABLE");
    const half = await server.call("POST", FAULTS, { fault: "rpc-errors", rate: 0.5, errors: ["429", "503"] });
    expect(half.body.status).to.equal("active");
    const statuses: number[] = [];
    for (let index = 0; index < 40; index++) {
      const answer = await read();
      expect(answer.body, `read ${index}`).to.be.an("object");
      if (answer.status !== 200) expect(answer.body.error.code).to.equal("UPSTREAM_UNAVAILABLE");
      statuses.push(answer.status);
    }
    expect(new Set(statuses)).to.deep.equal(new Set([200, 502]));
    const listed = (await server.call("GET", FAULTS)).body.faults;
    expect(listed.map((fault: { id: string }) => fault.id)).to.deep.equal([half.body.id]);
    expect(listed[0].effect.calls).to.be.at.least(40);
    // A launch under failing calls: answered (never a 500), and its record ends mined once the node behaves.
    const launched = await launch(server, sender, "Through errors");
    // Never a 422: a gas estimate or a preflight call the node did not answer is no revert.
    expect(launched.status, JSON.stringify(launched.body)).to.be.oneOf([200, 202, 502]);
    await server.call("DELETE", FAULTS);
    if (launched.status !== 502) {
      await eventually(
        () => operation(server, launched.body.id),
        (record) => record.status === "mined",
        30_000,
      );
    }
    expect((await read()).status).to.equal(200);
  });

  it("rpc-errors: a call that times out answers 504 UPSTREAM_TIMEOUT after the node request timeout", async function () {
    await server.call("POST", FAULTS, { fault: "rpc-errors", rate: 1, calls: 1, errors: ["timeout"] });
    const started = Date.now();
    const answer = await server.call("GET", `/api/v1/wallets?chain=ethereum&network=sepolia&address=${sender.address}`);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(504);
    expect(answer.body.error.code).to.equal("UPSTREAM_TIMEOUT");
    expect(Date.now() - started).to.be.at.least(900);
  });
});

describe("chain faults and a restart: the journal rebuilds the chain its clients last saw (mining on send)", function () {
  let server: RunningServer;
  let dataDir: string;

  after(async function () {
    await server?.stop();
  });

  it("brings back every transaction at its height, every balance to the wei, after a spike, a stall, a drop and a reorg", async function () {
    server = await startServer({ env: FAULTS_ON, tracker: { idlePollMs: 50 } });
    dataDir = server.dataDir;
    const sender = await fundedWallet(server);
    const launched: Array<{ id: string; transactionHash: string; contractAddress: string }> = [];
    const mined = async (name: string) => {
      const answer = await launch(server, sender, name);
      expect(answer.status, JSON.stringify(answer.body)).to.be.oneOf([200, 202]);
      launched.push(answer.body);
      return answer.body;
    };
    const settled = (body: { id: string }) =>
      eventually(
        () => operation(server, body.id),
        (record) => record.status === "mined",
        30_000,
      );
    await settled(await mined("Before"));
    expect((await server.call("POST", FAULTS, { fault: "fee-spike", baseFeePerGas: "50000000000", blocks: 3 })).status).to.equal(201);
    await settled(await mined("Spiked one"));
    await settled(await mined("Spiked two"));
    await settled(await mined("After the spike"));
    expect((await server.call("POST", FAULTS, { fault: "stall", seconds: 1 })).status).to.equal(201);
    const stalled = [await mined("Stalled one"), await mined("Stalled two")];
    for (const body of stalled) await settled(body);
    expect((await server.call("POST", FAULTS, { fault: "drop", seconds: 1 })).status).to.equal(201);
    await settled(await mined("Dropped"));
    const late = [await mined("Late one"), await mined("Late two")];
    for (const body of late) await settled(body);
    // A faucet grant after the blocks a reorg replaces: it outlives the reorg.
    const granted = Wallet.createRandom().address;
    await server.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: granted, amount: "1234" });
    const reorg = await server.call("POST", FAULTS, { fault: "reorg", blocks: 2 });
    expect(reorg.status, JSON.stringify(reorg.body)).to.equal(201);
    expect(reorg.body.effect).to.deep.include({ transactions: 2, reincluded: 2, forgotten: [] });
    for (const body of late) {
      await eventually(
        () => operation(server, body.id),
        (record) => record.status === "mined" && record.transitions.some((transition: Transition) => transition.reason.startsWith("reorg")),
        30_000,
      );
    }

    const seen = async () => ({
      blocks: await Promise.all(launched.map(async (body) => (await transaction(server, body.transactionHash)).blockNumber)),
      statuses: await Promise.all(launched.map(async (body) => (await transaction(server, body.transactionHash)).status)),
      sender: (await server.call("GET", `/api/v1/wallets?chain=ethereum&network=sepolia&address=${sender.address}`)).body.balances.ETH,
      granted: (await server.call("GET", `/api/v1/wallets?chain=ethereum&network=sepolia&address=${granted}`)).body.balances.ETH,
      tokens: await Promise.all(
        launched.map(
          async (body) =>
            (
              await server.call(
                "GET",
                `/api/v1/tokens/address=${sender.address}/balance?chain=ethereum&network=sepolia&tokenAddress=${body.contractAddress}&type=ERC20`,
              )
            ).body.balance,
        ),
      ),
    });
    const last = await seen();
    expect(last.statuses.every((status) => status === "mined")).to.equal(true);
    expect(new Set(last.blocks).size, "one transaction a block").to.equal(launched.length);
    expect(last.granted.balance).to.equal("1234");
    expect(last.tokens.every((balance) => balance === "1")).to.equal(true);

    const journal = (await readFile(path.join(dataDir, "chains", "ethereum-sepolia.jsonl"), "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(journal.filter((entry) => entry.op === "forget")).to.have.length(2);
    expect(journal.filter((entry) => entry.op === "mine")).to.have.length(1);
    expect(journal.filter((entry) => entry.baseFee === "0xba43b7400")).to.have.length(3);

    await server.stop({ keepData: true });
    // Faults off now: a restart ends them, and the chain is rebuilt from the journal alone.
    server = await startServer({ dataDir, tracker: { idlePollMs: 50 } });
    expect(await seen()).to.deep.equal(last);
    const records = await Promise.all(launched.map((body) => operation(server, body.id)));
    expect(records.map((record) => record.status)).to.deep.equal(launched.map(() => "mined"));
    expect(records.map((record) => record.blockNumber)).to.deep.equal(last.blocks);
    // The sender's next nonce follows on: a new launch is mined.
    expect((await launch(server, sender, "After the restart", "?wait=mined")).body.status).to.equal("mined");
  });
});

describe("chain faults on a simulated chain with a block time (the service mines every second)", function () {
  let server: RunningServer;
  let sender: Wallet;

  before(async function () {
    server = await startServer({ env: FAULTS_ON, blockTimeSeconds: 1, tracker: { idlePollMs: 50 } });
    sender = await fundedWallet(server);
  });

  after(async function () {
    await server?.stop();
  });

  it("stall in blocks: the chain skips that many blocks, then mines what waited", async function () {
    const stall = await server.call("POST", FAULTS, { fault: "stall", blocks: 2 });
    expect(stall.status, JSON.stringify(stall.body)).to.equal(201);
    expect(stall.body.remaining).to.deep.equal({ blocks: 2 });
    const launched = await launch(server, sender, "Timed stall");
    expect(launched.body.status).to.equal("pending");
    const mined = await eventually(
      () => operation(server, launched.body.id),
      (record) => record.status === "mined",
      30_000,
    );
    const minedAt = Date.parse(mined.transitions.find((transition: Transition) => transition.status === "mined").at);
    expect(minedAt - Date.parse(stall.body.startedAt), "two blocks of a second skipped").to.be.at.least(1_900);
    const ended = await eventually(
      async () => (await server.call("GET", FAULTS)).body.faults,
      (faults) => faults.length === 0,
      10_000,
    );
    expect(ended).to.deep.equal([]);
  });

  it("fee-spike: the blocks it mines carry the spiked base fee while it lasts", async function () {
    const quoter = await fundedWallet(server);
    const spike = await server.call("POST", FAULTS, { fault: "fee-spike", multiplier: 4, blocks: 3 });
    expect(spike.status, JSON.stringify(spike.body)).to.equal(201);
    const baseline = BigInt(spike.body.effect.baseFeeBefore);
    expect((await quotedBaseFee(server, quoter)).baseFee).to.equal(baseline * 4n);
    await eventually(
      async () => (await server.call("GET", FAULTS)).body.faults,
      (faults) => faults.length === 0,
      15_000,
    );
    const after = await eventually(
      () => quotedBaseFee(server, quoter),
      (quote) => quote.baseFee !== baseline * 4n,
      15_000,
    );
    expect(after.baseFee < baseline * 4n).to.equal(true);
  });
});
