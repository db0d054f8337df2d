import { expect } from "chai";
import { Transaction, Wallet, toQuantity } from "ethers";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../src/api.js";
import type { NonceHealing } from "../../src/core/operations/nonce-healing.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { startLosingProxy, type LosingProxy } from "../helpers/json-rpc-servers.js";
import { transferToNewAddress, transitionReasons } from "../helpers/service.js";
import { until } from "../helpers/until.js";

// A node that loses a transaction from its pool yet still knows it: anvil, mining on send on a loaded machine, was seen
// here to answer such a transaction by hash, count the sender's next nonce as that transaction's own, and refuse the
// same bytes sent again as "transaction already imported" (docs/benchmarks.md). The next nonces then wait forever
// behind it. A real anvil (mining when told) holds the pool; a pass-through in front of it plays the lost transaction.

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
const BOUND_MS = 30_000;

describe("a transaction the node lost yet refuses again as already known (anvil, mining when told)", function () {
  let node: AnvilNode;
  let proxy: LosingProxy;
  let service: TokenService;
  const healings: NonceHealing[] = [];

  before(async function () {
    node = await startAnvil({ args: ["--no-mining"] });
    proxy = await startLosingProxy(node.url, (raw) => Transaction.from(raw).hash!);
    service = await createTokenService({
      hre,
      env: {},
      rpcUrls: { "ethereum/sepolia": proxy.url },
      tracker: { idlePollMs: 50 },
      onNonceHealing: (healing) => healings.push(healing),
    });
  });

  after(async function () {
    await service?.close();
    await proxy?.close();
    await node?.stop();
  });

  it("is replaced at once by the next step of its ladder (no block needed), and the sender's next transaction is mined after it", async function () {
    const sender = new Wallet(Wallet.createRandom().privateKey);
    await node.rpc("anvil_setBalance", [sender.address, toQuantity(10n ** 19n)]);
    const first = await transferToNewAddress(service, SEPOLIA, sender, "1");
    const second = await transferToNewAddress(service, SEPOLIA, sender, "2");
    const known = await node.rpc("eth_getTransactionByHash", [first.transactionHash]);
    expect(known, "in the node's pool").to.not.equal(null);
    // The node loses it: gone from its pool (its next nonce is the first's own again), still answered by hash.
    await node.rpc("anvil_dropTransaction", [first.transactionHash]);
    proxy.lose(first.transactionHash, known);
    expect(Number(await node.rpc("eth_getTransactionCount", [sender.address, "pending"]))).to.equal(first.nonce);

    await until(
      async () => (await service.operations.store.getOperation(first.id))?.transactionHash !== first.transactionHash,
      "the first replaced by a step of its ladder",
      BOUND_MS,
    );
    await node.rpc("evm_mine");
    const [mined, next] = await Promise.all([service.operations.wait(first.id, BOUND_MS), service.operations.wait(second.id, BOUND_MS)]);
    expect(mined.status, transitionReasons(mined).join("; ")).to.equal("mined");
    expect(mined.transactionHash).to.not.equal(first.transactionHash);
    expect(mined.transactions.find(({ transactionHash }) => transactionHash === mined.transactionHash)).to.deep.include({
      role: "replacement",
      rung: 1,
    });
    expect(
      transitionReasons(mined).some((reason) => reason.includes("the node lost the transaction and would not take it again")),
    ).to.equal(true);
    expect(next.status, transitionReasons(next).join("; ")).to.equal("mined");
    expect(next.blockNumber, "the same block").to.equal(mined.blockNumber);
    expect(healings.filter((healing) => healing.kind === "replaced-lost").map((healing) => healing.operationId)).to.deep.equal([first.id]);
  });
});
