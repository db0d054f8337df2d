import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import hre from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import type { EvmChain } from "../../src/chains/evm/chain.js";
import { CanonicalBlocks } from "../../src/core/operations/canonical-blocks.js";

/** A provider that counts what it asks the node, by JSON-RPC method. */
class CountingProvider extends JsonRpcProvider {
  readonly calls = new Map<string, number>();
  override send(method: string, params: unknown[] | Record<string, unknown>): Promise<unknown> {
    this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
    return super.send(method, params);
  }
}

describe("reorg watch: canonical block hashes asked once per head (Hardhat's JSON-RPC node)", function () {
  let node: JsonRpcServer;
  let provider: CountingProvider;
  let chain: EvmChain;

  let beforeBlock1: string;
  let mined: { hash: string | null; timestamp: number };

  before(async function () {
    node = await hre.network.createServer({ override: { chainId: 11155111 } } as never, "127.0.0.1", 0);
    const { port } = await node.listen();
    provider = new CountingProvider(`http://127.0.0.1:${port}`, 11155111, { staticNetwork: true, cacheTimeout: -1, batchMaxCount: 1 });
    beforeBlock1 = (await provider.send("evm_snapshot", [])) as string;
    await provider.send("evm_mine", []);
    mined = (await provider.getBlock(1))!;
    chain = { info: { chain: "ethereum", network: "sepolia" }, pollingIntervalMs: 60_000, provider } as unknown as EvmChain;
  });

  after(async function () {
    provider?.destroy();
    await node?.close();
  });

  const blockReads = () => provider.calls.get("eth_getBlockByNumber") ?? 0;

  it("answers many records of one block with one block read, and only the head while the head stays", async function () {
    const blocks = new CanonicalBlocks();
    provider.calls.clear();
    const hashes = await Promise.all(Array.from({ length: 20 }, () => blocks.hashAt(chain, 1)));
    expect(new Set(hashes)).to.deep.equal(new Set([mined.hash]));
    expect(blockReads(), "the head once, block 1 once").to.equal(2);

    // Every look re-reads the head (polling interval 0); an unchanged head keeps the heights already read.
    const eager = { ...chain, pollingIntervalMs: 0 } as EvmChain;
    provider.calls.clear();
    expect(await blocks.hashAt(eager, 1)).to.equal(mined.hash);
    expect(blockReads(), "the head only").to.equal(1);
  });

  it("sees another block at the same height once the head moved: a reorg", async function () {
    const blocks = new CanonicalBlocks();
    const eager = { ...chain, pollingIntervalMs: 0 } as EvmChain;
    expect(await blocks.hashAt(eager, 1)).to.equal(mined.hash);
    expect(await provider.send("evm_revert", [beforeBlock1])).to.equal(true);
    await provider.send("evm_setNextBlockTimestamp", [mined.timestamp + 1_000]);
    await provider.send("hardhat_mine", ["0x2"]);
    const replaced = await blocks.hashAt(eager, 1);
    expect(replaced).to.be.a("string").and.not.equal(mined.hash);
    expect(await blocks.hashAt(eager, 7), "no block at that height").to.equal(null);
  });
});
