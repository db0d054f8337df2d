import { expect } from "chai";
import { JsonRpcProvider, Wallet } from "ethers";
import hre from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import { eventually, startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" };

/** A launch's record, as GET /api/v1/operations lists it. */
async function record(server: RunningServer, id: string): Promise<any> {
  const page = await server.call("GET", "/api/v1/operations?limit=100");
  return page.body.items.find((item: { id: string }) => item.id === id);
}

describe("operation lifecycle on a live node (Hardhat's JSON-RPC node): re-broadcast, a nonce taken, reorg", function () {
  let node: JsonRpcServer;
  let rpc: JsonRpcProvider;
  let server: RunningServer;
  let sender: Wallet;

  before(async function () {
    node = await hre.network.createServer({ override: { chainId: 11155111 } } as never, "127.0.0.1", 0);
    const { port } = await node.listen();
    const url = `http://127.0.0.1:${port}`;
    rpc = new JsonRpcProvider(url, 11155111, { staticNetwork: true, cacheTimeout: -1 });
    server = await startServer({
      env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: url, TOKEN_SERVICE_SIMULATED_CHAINS: "off" },
      // The reorg below rewinds the node: no block at the height until the grace ends (a node behind looks the same).
      tracker: { dropAfterMs: 1_000, reorgWatchMs: 120_000, behindGraceMs: 2_000, idlePollMs: 100 },
    });
    sender = new Wallet(Wallet.createRandom().privateKey);
    await rpc.send("hardhat_setBalance", [sender.address, "0x56BC75E2D63100000"]);
  });

  after(async function () {
    await server?.stop();
    rpc?.destroy();
    await node?.close();
  });

  const launch = (name: string) =>
    server.call("POST", "/api/v1/tokens", {
      ...SEPOLIA,
      type: "ERC20",
      token: { name, symbol: name.slice(0, 4).toUpperCase(), initialSupply: "1" },
      sender: sender.address,
      privateKey: sender.privateKey,
    });

  it("re-broadcasts a pending transaction the node dropped from its pool, then records it mined", async function () {
    await rpc.send("evm_setAutomine", [false]);
    try {
      const launched = await launch("Dropped once");
      expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
      expect(await rpc.send("hardhat_dropTransaction", [launched.body.transactionHash])).to.equal(true);
      // Lost by the node or already sent again by the tracker: either way the service knows it as pending, never 404.
      const lookup = await server.call("GET", `/api/v1/transactions/${launched.body.transactionHash}?chain=ethereum&network=sepolia`);
      expect(lookup.status, JSON.stringify(lookup.body)).to.equal(200);
      expect(lookup.body.status).to.equal("pending");
      await eventually(
        () => record(server, launched.body.id),
        (item) => item.transitions.some((transition: { reason: string }) => transition.reason.startsWith("re-broadcast")),
        30_000,
      );
      await rpc.send("evm_mine", []);
      const mined = await eventually(
        () => record(server, launched.body.id),
        (item) => item.status === "mined",
        30_000,
      );
      expect(mined.blockNumber).to.be.a("number");
    } finally {
      await rpc.send("evm_setAutomine", [true]);
    }
  });

  it("fails a transaction at once (NONCE_TAKEN) once another transaction from its sender was mined at its nonce, logged and counted", async function () {
    await rpc.send("evm_setAutomine", [false]);
    let launched;
    try {
      launched = await launch("Replaced");
      expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
      // The sender replaces it (same nonce, higher fee), as a wallet's "speed up / cancel" does.
      const original = (await rpc.getTransaction(launched.body.transactionHash))!;
      const replacement = await sender.signTransaction({
        chainId: 11155111,
        nonce: launched.body.nonce,
        to: sender.address,
        value: 0n,
        gasLimit: 21_000n,
        type: 2,
        maxFeePerGas: (original.maxFeePerGas ?? 10n ** 10n) * 3n,
        maxPriorityFeePerGas: (original.maxPriorityFeePerGas ?? 10n ** 9n) * 3n,
      });
      await rpc.send("eth_sendRawTransaction", [replacement]);
      await rpc.send("evm_mine", []);
    } finally {
      await rpc.send("evm_setAutomine", [true]);
    }
    const failed = await eventually(
      () => record(server, launched.body.id),
      (item) => item.status === "failed",
      30_000,
    );
    // Settled by the look that missed it, not after the drop window: never sent again.
    expect(failed.error.code).to.equal("NONCE_TAKEN");
    expect(failed.transitions.map((transition: { status: string }) => transition.status)).to.deep.equal(["signed", "pending", "failed"]);
    expect(failed.transitions.at(-1).reason).to.match(new RegExp(`nonce ${launched.body.nonce} was taken by another transaction`));
    const lookup = await server.call("GET", `/api/v1/transactions/${launched.body.transactionHash}?chain=ethereum&network=sepolia`);
    expect(lookup.body.status).to.equal("failed");
    const metrics = await (await fetch(`${server.baseUrl}/metrics?apiKey=${TEST_API_KEY}`)).text();
    expect(metrics).to.include('token_service_nonce_healings_total{chain="ethereum",network="sepolia",kind="nonce-taken"} 1');
    const line = server.logs.lines.map((text) => JSON.parse(text)).find((entry) => entry.nonceHealing?.operationId === launched.body.id);
    expect(line).to.deep.include({ level: 40 });
    expect(line.nonceHealing).to.deep.include({ kind: "nonce-taken", nonce: launched.body.nonce, sender: sender.address });
    // The sender's next launch takes the next nonce and is mined.
    const next = await launch("After the replacement");
    expect(next.body.nonce).to.equal(launched.body.nonce + 1);
    await eventually(
      () => record(server, next.body.id),
      (item) => item.status === "mined",
      30_000,
    );
  });

  it("moves a mined launch back to pending when its block leaves the canonical chain, then mines it again", async function () {
    const snapshot = await rpc.send("evm_snapshot", []);
    const launched = await launch("Reorged");
    expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
    const mined = await eventually(
      () => record(server, launched.body.id),
      (item) => item.status === "mined",
      30_000,
    );
    expect(await rpc.send("evm_revert", [snapshot])).to.equal(true);
    const remined = await eventually(
      () => record(server, launched.body.id),
      (item) => item.status === "mined" && item.transitions.some((transition: { reason: string }) => transition.reason.startsWith("reorg")),
      60_000,
    );
    const statuses = remined.transitions.map((transition: { status: string }) => transition.status);
    expect(statuses).to.include.members(["signed", "pending", "mined"]);
    const reorg = remined.transitions.find((transition: { reason: string }) => transition.reason.startsWith("reorg"));
    expect(reorg.status).to.equal("pending");
    expect(reorg.reason).to.include(String(mined.blockNumber));
    const status = await server.call("GET", `/api/v1/transactions/${launched.body.transactionHash}?chain=ethereum&network=sepolia`);
    expect(status.body.status).to.equal("mined");
  });
});
