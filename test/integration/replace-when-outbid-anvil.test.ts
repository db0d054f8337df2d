import { expect } from "chai";
import { toQuantity } from "ethers";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../src/api.js";
import type { OperationRecord } from "../../src/core/operations/types.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { startCountingProxy, type CountingProxy } from "../helpers/json-rpc-servers.js";
import { until } from "../helpers/until.js";

// A busy chain includes a sender's transaction after other senders' blocks: it waits in line, and blocks pass that did
// not include it. Those blocks are no sign that its fees fall short: the service replaces a transaction only when the
// head takes more than it pays (docs/operations.md, "Replaced after a few blocks"; decision 0053). Here anvil makes a
// block every 0.1 s and its block gas limit holds one launch, so a wave of launches from ten senders is mined one per
// block while its base fee falls (each block under half full); counted on the chain: one send per launch, each mined under
// its first hash.
// Then a base fee raised past what a launch pays, on a node mining when told: that one is replaced.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const SENDERS = 10;
/** Launches fired at once, each followed to `mined` before the next wave: three per sender, in line behind 29 others. */
const WAVE = 30;
const WAVES = 2;
const SETTLE_MS = 120_000;

describe("replacements only when outbid: ten senders in line on anvil, one launch per block (counting relay)", function () {
  let node: AnvilNode;
  let proxy: CountingProxy;
  let service: TokenService;
  const senders: Array<{ address: string; privateKey: string }> = [];

  const launch = (sender: { address: string; privateKey: string }, n: number) =>
    service.operations.launch({
      ...SEPOLIA,
      type: "ERC20",
      // One shape (four-digit names): every launch needs the same gas.
      token: { name: `Line ${String(n).padStart(4, "0")}`, symbol: `L${String(n).padStart(4, "0")}`, initialSupply: "1" },
      sender: sender.address,
      privateKey: sender.privateKey,
    });

  before(async function () {
    node = await startAnvil({ args: ["--block-time", "0.1"] });
    proxy = await startCountingProxy(node.url);
    // The ethereum default: replaced after 3 blocks, which most launches of a wave wait many times over.
    service = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/sepolia": proxy.url } });
    for (let index = 0; index < SENDERS; index++) {
      const sender = service.createWallet(SEPOLIA);
      await node.rpc("anvil_setBalance", [sender.address, toQuantity(10n ** 24n)]);
      senders.push(sender);
    }
    // A first launch of the shape, to size the block: it holds one launch (its gas used) and not the gas limit of another.
    const first = await service.operations.wait((await launch(senders[0]!, 9999)).id, SETTLE_MS);
    expect(first.status).to.equal("mined");
    const sent = (await node.rpc("eth_getTransactionByHash", [first.transactionHash])) as { gas: string };
    const receipt = (await node.rpc("eth_getTransactionReceipt", [first.transactionHash])) as { gasUsed: string };
    await node.rpc("evm_setBlockGasLimit", [toQuantity(BigInt(receipt.gasUsed) + BigInt(sent.gas) - 1n)]);
  });

  after(async function () {
    await service?.close();
    await proxy?.close();
    await node?.stop();
  });

  it(`${WAVES} waves of ${WAVE} launches in line: one send each, each mined under its first hash, none stuck`, async function () {
    const from = proxy.calls.length;
    const settled: OperationRecord[] = [];
    for (let wave = 0; wave < WAVES; wave++) {
      const records = await Promise.all(Array.from({ length: WAVE }, (_, index) => launch(senders[index % SENDERS]!, wave * WAVE + index)));
      settled.push(...(await Promise.all(records.map((record) => service.operations.wait(record.id, SETTLE_MS)))));
    }
    expect(settled.filter((record) => record.status !== "mined").map((record) => record.status)).to.deep.equal([]);
    const replaced = settled.flatMap((record) => record.transitions.filter((transition) => transition.reason?.startsWith("replaced by")));
    expect(
      replaced.map((transition) => transition.reason),
      "no launch replaced",
    ).to.deep.equal([]);
    expect(
      settled.filter((record) => record.stuck !== null).map((record) => record.stuck!.reason),
      "none stuck",
    ).to.deep.equal([]);
    // They did wait in line: a wave of 30 spread over at least 20 blocks (a block holds one launch; now and then anvil
    // fits a second when their gas limits differ), so most launches waited far more than the replace-after 3.
    const blocks = new Set(settled.map((record) => record.blockNumber));
    expect(blocks.size, "launches spread over many blocks").to.be.at.least(WAVES * 20);
    for (const record of settled) expect(record.transactionHash).to.equal(record.transactions[0]!.transactionHash);
    const sends = proxy.calls.slice(from).filter((call) => call.method === "eth_sendRawTransaction").length;
    expect(sends, "one send per launch").to.equal(WAVES * WAVE);
  });
});

describe("replacements when outbid: a launch the base fee overtook on anvil (mining when told)", function () {
  let node: AnvilNode;
  let service: TokenService;

  before(async function () {
    node = await startAnvil({ args: ["--no-mining"] });
    service = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/sepolia": node.url } });
  });

  after(async function () {
    await service?.close();
    await node?.stop();
  });

  it("is replaced after its blocks by the step that pays what the node asks, and mined under that step's hash", async function () {
    const sender = service.createWallet(SEPOLIA);
    await node.rpc("anvil_setBalance", [sender.address, toQuantity(10n ** 24n)]);
    const record = await service.operations.launch({
      ...SEPOLIA,
      type: "ERC20",
      token: { name: "Outbid", symbol: "OUT", initialSupply: "1" },
      sender: sender.address,
      privateKey: sender.privateKey,
    });
    const first = (await service.operations.store.getOperation(record.id))!.transactions[0]!;
    const overtaking = BigInt(first.maxFeePerGas!) + 1n;
    // Blocks whose base fee is above what the launch pays (none can include it), one at a time until it is replaced: its
    // replace-after blocks count from the head its first look saw, which a loaded machine may take after some of them.
    await until(
      async () => {
        if ((await service.operations.store.getOperation(record.id))?.transactionHash !== first.transactionHash) return true;
        await node.rpc("anvil_setNextBlockBaseFeePerGas", [toQuantity(overtaking)]);
        await node.rpc("evm_mine");
        return false;
      },
      "the launch replaced",
      SETTLE_MS,
      200,
    );
    await node.rpc("anvil_setNextBlockBaseFeePerGas", [toQuantity(overtaking)]);
    await node.rpc("evm_mine");
    const mined = await service.operations.wait(record.id, SETTLE_MS);
    expect(mined.status, mined.transitions.map((transition) => transition.reason).join("; ")).to.equal("mined");
    expect(mined.transactionHash, "mined as a replacement").to.not.equal(first.transactionHash);
    const step = mined.transactions.find((each) => each.transactionHash === mined.transactionHash)!;
    expect(BigInt(step.maxFeePerGas!) > overtaking, "the step pays more than the head takes").to.equal(true);
  });
});
