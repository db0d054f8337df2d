import { rm } from "node:fs/promises";

import { expect } from "chai";
import { Wallet, toQuantity } from "ethers";
import hre from "hardhat";

import {
  TokenServiceClientError,
  cancelOperation,
  createTokenServiceClient,
  launchToken,
  speedUp,
  waitForOperation,
} from "../../../src/client/index.js";
import { startAnvil } from "../../helpers/anvil.js";
import { rpc } from "../../helpers/json-rpc-servers.js";
import { TEST_API_KEY, eventually, startServer, type RunningServer } from "../../helpers/http-server.js";
import { WebhookReceiver } from "../../helpers/webhook-receiver.js";

// Stuck transactions on real nodes that mine only when told (anvil --no-mining; Hardhat's node with automine off): the
// test raises the next block's base fee over a launch's max fee and mines, and the service, over HTTP, replaces the
// launch after 2 blocks, says it is stuck at the top of its ladder, cancels it, and follows whichever hash is mined.

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
const QUERY = "chain=ethereum&network=sepolia";

const FAST_DELIVERY = {
  TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  TOKEN_SERVICE_WEBHOOK_TIMEOUT_SECONDS: "0.5",
  TOKEN_SERVICE_WEBHOOK_FIRST_RETRY_SECONDS: "0.1",
  TOKEN_SERVICE_WEBHOOK_POLL_SECONDS: "0.1",
};

/** A node that mines only when told, with the calls the tests make of it. */
interface TestNode {
  url: string;
  call(method: string, params?: unknown[]): Promise<unknown>;
  /** Mines one block, its base fee `baseFee` wei when given. */
  mine(baseFee?: bigint): Promise<void>;
  stop(): Promise<void>;
}

async function anvilNode(): Promise<TestNode> {
  const anvil = await startAnvil({ args: ["--no-mining"] });
  return {
    url: anvil.url,
    call: (method, params = []) => anvil.rpc(method, params),
    async mine(baseFee) {
      if (baseFee !== undefined) await anvil.rpc("anvil_setNextBlockBaseFeePerGas", [toQuantity(baseFee)]);
      await anvil.rpc("evm_mine", []);
    },
    stop: () => anvil.stop(),
  };
}

async function hardhatNode(): Promise<TestNode> {
  const server = await hre.network.createServer({ override: { chainId: 11155111 } } as never, "127.0.0.1", 0);
  const { port } = await server.listen();
  const url = `http://127.0.0.1:${port}`;
  await rpc(url, "evm_setAutomine", [false]);
  return {
    url,
    call: (method, params = []) => rpc(url, method, params),
    async mine(baseFee) {
      if (baseFee !== undefined) await rpc(url, "hardhat_setNextBlockBaseFeePerGas", [toQuantity(baseFee)]);
      await rpc(url, "evm_mine", []);
    },
    stop: () => server.close(),
  };
}

/** The service in front of `node`, replacing after 2 blocks, delivering webhooks at once; on `dataDir` when given. */
function serviceFor(node: TestNode, options: { dataDir?: string; env?: Record<string, string> } = {}): Promise<RunningServer> {
  return startServer({
    env: {
      TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url,
      TOKEN_SERVICE_SIMULATED_CHAINS: "off",
      TOKEN_SERVICE_REPLACE_AFTER_BLOCKS_ETHEREUM_SEPOLIA: "2",
      ...FAST_DELIVERY,
      ...options.env,
    },
    tracker: { idlePollMs: 100 },
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
  });
}

async function fundedSender(node: TestNode): Promise<Wallet> {
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  // anvil takes Hardhat's name for it too.
  await node.call("hardhat_setBalance", [wallet.address, toQuantity(10n ** 20n)]);
  return wallet;
}

const launchBody = (sender: Wallet, name: string) => ({
  ...SEPOLIA,
  type: "ERC20",
  token: { name, symbol: "STK", initialSupply: "1" },
  sender: sender.address,
  privateKey: sender.privateKey,
});

/** A launch the node holds unmined, seen pending by the tracker (its replace-after blocks count from there). */
async function pendingLaunch(server: RunningServer, sender: Wallet, name: string) {
  const launched = await server.call("POST", "/api/v1/tokens", launchBody(sender, name));
  expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
  const pending = await eventually(
    () => operation(server, launched.body.id),
    (record) => record.status === "pending",
  );
  const firstMaxFee = BigInt(pending.transactions[0].maxFeePerGas);
  return {
    id: launched.body.id as string,
    hash: launched.body.transactionHash as string,
    contractAddress: launched.body.contractAddress as string,
    firstMaxFee,
  };
}

async function operation(server: RunningServer, id: string): Promise<any> {
  const answer = await server.call("GET", `/api/v1/operations/${id}`);
  expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
  return answer.body;
}

/** Mines a block at `baseFee` until `done` holds of the operation (each block is what the tracker waits for). */
async function mineUntil(node: TestNode, server: RunningServer, id: string, baseFee: bigint, done: (record: any) => boolean): Promise<any> {
  return eventually(
    async () => {
      const record = await operation(server, id);
      if (!done(record)) await node.mine(baseFee);
      return record;
    },
    done,
    60_000,
    250,
  );
}

for (const variant of [
  { name: "anvil --no-mining", start: anvilNode },
  { name: "Hardhat's node, automine off", start: hardhatNode },
]) {
  describe(`a launch overtaken by a base-fee rise (${variant.name})`, function () {
    this.timeout(120_000);
    let node: TestNode;
    let server: RunningServer;

    before(async function () {
      node = await variant.start();
      server = await serviceFor(node);
    });

    after(async function () {
      await server?.stop();
      await node?.stop();
    });

    it("is replaced after its replace-after blocks, and mined under the replacement's hash; its first hash answers replacedBy", async function () {
      const sender = await fundedSender(node);
      const launch = await pendingLaunch(server, sender, "Overtaken");
      const spiked = launch.firstMaxFee * 2n;
      const replaced = await mineUntil(node, server, launch.id, spiked, (record) => record.transactionHash !== launch.hash);
      expect(replaced.status).to.equal("pending");
      expect(replaced.transactions.map((transaction: { role: string }) => transaction.role)).to.deep.equal(["original", "replacement"]);
      expect(BigInt(replaced.transactions[1].maxFeePerGas) >= spiked, "the replacement pays the risen base fee").to.equal(true);
      await node.mine(spiked);
      const mined = await eventually(
        () => operation(server, launch.id),
        (record) => record.status === "mined",
      );
      expect(mined.transactionHash).to.equal(replaced.transactionHash);
      const first = await server.call("GET", `/api/v1/transactions/${launch.hash}?${QUERY}`);
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body).to.include({ status: "dropped", replaced: true, replacedBy: mined.transactionHash });
      const last = await server.call("GET", `/api/v1/transactions/${mined.transactionHash}?${QUERY}`);
      expect(last.body).to.include({ status: "mined", contractAddress: launch.contractAddress });
      expect((await server.call("GET", `/api/v1/operations/${launch.hash}`)).body.id, "found by its first hash").to.equal(launch.id);
    });
  });
}

describe("stuck, cancelled, raced, sped up by its caller, and across a restart (anvil --no-mining, real HTTP service)", function () {
  this.timeout(180_000);
  let node: TestNode;
  let server: RunningServer;
  const receivers: WebhookReceiver[] = [];

  before(async function () {
    node = await anvilNode();
    server = await serviceFor(node);
  });

  after(async function () {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await server?.stop();
    await node?.stop();
  });

  async function subscribed(events: string[]): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receivers.push(receiver);
    await receiver.listen();
    const created = await server.call("POST", "/api/v1/webhooks", { url: receiver.url(), events });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return receiver;
  }

  it("stays pending at the ceiling and says so once (operation.stuck), then is mined when the base fee falls", async function () {
    const receiver = await subscribed(["operation.stuck"]);
    const sender = await fundedSender(node);
    const launch = await pendingLaunch(server, sender, "Ceiling");
    const high = launch.firstMaxFee * 100n;
    const stuck = await mineUntil(node, server, launch.id, high, (record) => record.stuck !== null);
    expect(stuck.status).to.equal("pending");
    expect(stuck.stuck.transactionHash).to.equal(stuck.transactionHash);
    // anvil drops a transaction the base fee overtook from its pool, and refuses the ladder's top step as too cheap.
    expect(stuck.stuck.reason).to.match(/the ladder's last replacement is sent|the node refused the replacement 0x[0-9a-f]{64}: /);
    await eventually(
      async () => receiver.received.filter((event) => event.json.id !== undefined && event.json.type === "operation.stuck").length,
      (count) => count >= 1,
    );
    // Five more blocks at that fee, looked at by the tracker: no second notice, nothing more sent.
    for (let block = 0; block < 5; block++) await node.mine(high);
    const looked = Date.now();
    const after = await eventually(
      () => operation(server, launch.id),
      (record) => Date.parse(record.updatedAt) > looked,
    );
    expect(after.stuck).to.deep.equal(stuck.stuck);
    expect(after.transitions).to.have.length(stuck.transitions.length);
    const stuckEvents = receiver.received.filter((event) => event.json.type === "operation.stuck");
    expect(stuckEvents).to.have.length(1);
    expect(stuckEvents[0]!.json.data).to.deep.include({ id: launch.id, status: "pending" });

    // The base fee falls: the transaction it waits on (sent again where the node had dropped it) is mined.
    const mined = await mineUntil(node, server, launch.id, 1n, (record) => record.status === "mined");
    expect(mined.transactionHash).to.equal(stuck.transactionHash);
  });

  it("cancels a launch: the zero-value transfer lands, the operation ends cancelled (operation.cancelled), no contract", async function () {
    const receiver = await subscribed(["operation.cancelled"]);
    const sender = await fundedSender(node);
    const launch = await pendingLaunch(server, sender, "Cancelled");
    // A rate in sat/vB is Bitcoin's: named and refused here, before anything is sent.
    const satoshis = await server.call("POST", `/api/v1/operations/${launch.id}/cancel`, { feeRate: 5 });
    expect(satoshis.status).to.equal(400);
    expect(satoshis.body.error).to.include({ code: "INVALID_ARGUMENT", field: "feeRate" });
    const cancel = await server.call("POST", `/api/v1/operations/${launch.id}/cancel`, {});
    expect(cancel.status, JSON.stringify(cancel.body)).to.equal(200);
    const cancelHash = cancel.body.transactionHash;
    expect(cancel.body.transactions.at(-1)).to.include({ role: "cancel", transactionHash: cancelHash });
    await node.mine();
    const cancelled = await eventually(
      () => operation(server, launch.id),
      (record) => record.status === "cancelled",
    );
    expect(cancelled).to.include({ transactionHash: cancelHash, error: null });
    expect(await node.call("eth_getCode", [launch.contractAddress, "latest"])).to.equal("0x");
    await eventually(
      async () => receiver.received.filter((event) => event.json.type === "operation.cancelled"),
      (events) => events.length === 1,
    );
    const first = await server.call("GET", `/api/v1/transactions/${launch.hash}?${QUERY}`);
    expect(first.body).to.include({ status: "dropped", replaced: true, replacedBy: cancelHash });
    const again = await server.call("POST", `/api/v1/operations/${launch.id}/speed-up`, {});
    expect(again.status).to.equal(409);
    expect(again.body.error).to.include({ code: "OPERATION_FINAL" });
  });

  it("ends mined when the original wins the race against its cancel", async function () {
    const sender = await fundedSender(node);
    const launch = await pendingLaunch(server, sender, "Raced");
    const raw = (await node.call("eth_getRawTransactionByHash", [launch.hash])) as string;
    const cancel = await server.call("POST", `/api/v1/operations/${launch.id}/cancel`, {});
    expect(cancel.status, JSON.stringify(cancel.body)).to.equal(200);
    // Another node's block had the original first: the cancel leaves this node's pool, the original is mined.
    expect(await node.call("anvil_dropTransaction", [cancel.body.transactionHash])).to.not.equal(false);
    // (The tracker may have sent it again first, from a look it took before the cancel was written: the same bytes.)
    await node.call("eth_sendRawTransaction", [raw]).catch((error: unknown) => {
      if (!/already (imported|known)/.test(String(error))) throw error;
    });
    await node.mine();
    const mined = await eventually(
      () => operation(server, launch.id),
      (record) => record.status === "mined",
    );
    expect(mined.transactionHash).to.equal(launch.hash);
    expect(await node.call("eth_getCode", [launch.contractAddress, "latest"])).to.not.equal("0x");
    const lost = await server.call("GET", `/api/v1/transactions/${cancel.body.transactionHash}?${QUERY}`);
    expect(lost.body).to.include({ status: "dropped", replaced: true, replacedBy: launch.hash });
  });

  it("speeds up a caller-signed launch through the typed client: prepare, sign here, submit", async function () {
    const client = createTokenServiceClient({ baseUrl: server.baseUrl, apiKey: TEST_API_KEY });
    const signer = await fundedSender(node);
    const launched = await launchToken(
      client,
      { ...SEPOLIA, type: "ERC20", token: { name: "Mine", symbol: "MNE", initialSupply: "1" } },
      signer,
    );
    await eventually(
      () => operation(server, launched.id),
      (record) => record.status === "pending",
    );
    const unsigned = await speedUp(client, launched.id).then(
      () => expect.fail("a caller-signed launch needs its signer"),
      (error: Error) => error,
    );
    expect(unsigned.message).to.contain(`give a signer for ${signer.address}`);
    const sped = await speedUp(client, launched.transactionHash, signer);
    expect(sped.transactionHash).to.not.equal(launched.transactionHash);
    expect(sped.transactions.map(({ role }) => role)).to.deep.equal(["original", "replacement"]);
    await node.mine();
    const mined = await waitForOperation(client, launched.id, { timeoutMs: 30_000 });
    expect(mined).to.include({ status: "mined", transactionHash: sped.transactionHash });
    const final = await cancelOperation(client, launched.id, signer).then(
      () => expect.fail("a mined operation cannot be cancelled"),
      (error: unknown) => error,
    );
    expect(final).to.be.instanceOf(TokenServiceClientError);
    expect(final).to.include({ status: 409, code: "OPERATION_FINAL" });
  });

  it("refuses a send over the pair's fee ceiling before signing (422 FEE_CAP_EXCEEDED naming it)", async function () {
    const capped = await serviceFor(node, { env: { TOKEN_SERVICE_FEE_CAP_ETHEREUM_SEPOLIA: "0.5" } });
    try {
      const sender = await fundedSender(node);
      const refused = await capped.call("POST", "/api/v1/tokens", launchBody(sender, "Capped"));
      expect(refused.status, JSON.stringify(refused.body)).to.equal(422);
      expect(refused.body.error).to.include({ code: "FEE_CAP_EXCEEDED" });
      expect(refused.body.error.message).to.contain(
        "over ethereum/sepolia's fee ceiling of 0.5 gwei (TOKEN_SERVICE_FEE_CAP_ETHEREUM_SEPOLIA)",
      );
      expect(refused.body.error.details).to.include({ ceiling: "500000000", ceilingGwei: "0.5" });
      expect(await node.call("eth_getTransactionCount", [sender.address, "pending"])).to.equal("0x0");
    } finally {
      await capped.stop();
    }
  });

  it("keeps the ladder across a restart: the next process replaces the launch from its stored steps", async function () {
    const sender = await fundedSender(node);
    const launch = await pendingLaunch(server, sender, "Restarted");
    const { dataDir } = server;
    await server.stop({ keepData: true });
    server = await serviceFor(node, { dataDir });
    after(() => rm(dataDir, { recursive: true, force: true }));
    const spiked = launch.firstMaxFee * 2n;
    const replaced = await mineUntil(node, server, launch.id, spiked, (record) => record.transactionHash !== launch.hash);
    expect(replaced.transactions[1]).to.include({ role: "replacement" });
    await node.mine(spiked);
    const mined = await eventually(
      () => operation(server, launch.id),
      (record) => record.status === "mined",
    );
    expect(mined.transactionHash).to.equal(replaced.transactionHash);
  });
});
