import { expect } from "chai";
import { Transaction, toQuantity } from "ethers";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../src/api.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { until } from "../helpers/until.js";

// A held wallet's transactions have nothing signed ahead: the service signs a replacement when one is needed (the
// head takes more than the transaction pays), and a speed-up or cancel asked for (docs/custody.md). On anvil mining
// when told, read back from the node.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const SETTLE_MS = 60_000;

describe("held wallets sign their replacements when they are needed (anvil, mining when told)", function () {
  this.timeout(120_000);
  let node: AnvilNode;
  let service: TokenService;
  let sender: string;

  const launch = (name: string) =>
    service.operations.launch({ ...SEPOLIA, type: "ERC20", token: { name, symbol: "HLD", initialSupply: "1" }, sender });
  const recordOf = async (id: string) => (await service.operations.store.getOperation(id))!;

  before(async function () {
    node = await startAnvil({ args: ["--no-mining"] });
    service = await createTokenService({
      hre,
      env: { TOKEN_SERVICE_KEYSTORE_PASSPHRASE: "a passphrase for the test keystore" },
      rpcUrls: { "ethereum/sepolia": node.url },
    });
    sender = (await service.custody.create("operator", SEPOLIA.chain, SEPOLIA.network)).address;
    await node.rpc("anvil_setBalance", [sender, toQuantity(10n ** 22n)]);
  });

  after(async function () {
    await service?.close();
    await node?.stop();
  });

  it("signs nothing ahead, and replaces a launch the base fee overtook with one signed then; it is mined under that hash", async function () {
    const sent = await launch("Outbid");
    const first = await recordOf(sent.id);
    expect(
      first.transactions.map((transaction) => transaction.role),
      "nothing signed ahead",
    ).to.deep.equal(["original"]);
    const overtaking = BigInt(first.transactions[0]!.maxFeePerGas!) + 1n;
    // Blocks whose base fee is above what the launch pays, one at a time until the service replaces it: its replace-after
    // blocks count from the head its first look saw, which a loaded machine may take after some of them.
    await until(
      async () => {
        if ((await recordOf(sent.id)).transactionHash !== first.transactionHash) return true;
        await node.rpc("anvil_setNextBlockBaseFeePerGas", [toQuantity(overtaking)]);
        await node.rpc("evm_mine");
        return false;
      },
      "the launch replaced",
      SETTLE_MS,
      200,
    );
    const replaced = await recordOf(sent.id);
    expect(replaced.stuck, "no stuck notice: it was replaced").to.equal(null);
    const step = replaced.transactions.find((transaction) => transaction.transactionHash === replaced.transactionHash)!;
    expect(step.role).to.equal("replacement");
    expect(BigInt(step.maxFeePerGas!) > overtaking, "the replacement pays more than the head takes").to.equal(true);
    await node.rpc("anvil_setNextBlockBaseFeePerGas", [toQuantity(overtaking)]);
    await node.rpc("evm_mine");
    const mined = await service.operations.wait(sent.id, SETTLE_MS);
    expect(mined).to.include({ status: "mined", transactionHash: replaced.transactionHash });
    const onChain = Transaction.from((await node.rpc("eth_getRawTransactionByHash", [replaced.transactionHash])) as string);
    expect(onChain.from, "signed by the held wallet").to.equal(sender);
  });

  it("speeds up and cancels on request with transactions signed then (sent, not prepared)", async function () {
    const sped = await launch("Sped");
    const fast = await service.speedUp(sped.id);
    expect(fast, "the service signs it").to.have.property("sent");
    const cancelled = await launch("Cancelled");
    const cancel = await service.operations.cancel(cancelled.id);
    expect(cancel).to.have.property("sent");
    await node.rpc("evm_mine");
    expect((await service.operations.wait(sped.id, SETTLE_MS)).status).to.equal("mined");
    expect((await service.operations.wait(cancelled.id, SETTLE_MS)).status).to.equal("cancelled");
  });
});
