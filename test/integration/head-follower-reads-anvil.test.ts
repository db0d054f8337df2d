import { expect } from "chai";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../src/api.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { startCountingProxy, type CountingProxy } from "../helpers/json-rpc-servers.js";

// A live chain's head follower reads a block's header once, however many records ask for it at once (records mined in
// one block look in the same tracker pass): counted through a relay in front of anvil.

describe("a live chain's head follower reads a height once, for any number of concurrent asks (anvil)", function () {
  let node: AnvilNode;
  let proxy: CountingProxy;
  let service: TokenService;

  before(async function () {
    node = await startAnvil();
    proxy = await startCountingProxy(node.url);
    service = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/sepolia": proxy.url } });
    // Far below the head: its hash is not known from the head's parent.
    for (let block = 0; block < 10; block++) await node.rpc("evm_mine");
  });

  after(async function () {
    await service?.close();
    await proxy?.close();
    await node?.stop();
  });

  it("answers ten concurrent asks for one height, and later ones, with one header read", async function () {
    const chain = await service.evm.get(service.chains.resolve("ethereum", "sepolia") as never);
    const follower = chain.follower!;
    const from = proxy.calls.length;
    const hashes = await Promise.all(Array.from({ length: 10 }, () => follower.hashAt(2)));
    expect(new Set(hashes).size).to.equal(1);
    expect(await follower.hashAt(2)).to.equal(hashes[0]);
    const expected = ((await node.rpc("eth_getBlockByNumber", ["0x2", false])) as { hash: string }).hash;
    expect(hashes[0]).to.equal(expected);
    const reads = proxy.calls.slice(from).filter((call) => call.method === "eth_getBlockByNumber" && call.params[0] === "0x2");
    expect(reads, "one read of block 2").to.have.lengthOf(1);
  });
});
