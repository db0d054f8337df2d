import { expect } from "chai";
import { Wallet, toQuantity } from "ethers";

import { startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { startFaultyRelay, type FaultyRelay } from "../../helpers/faulty-relay.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";
import { allRecords } from "../../helpers/records.js";

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;

/**
 * A submit the node refused told the caller nothing was done: the same signed bytes, submitted again once the node takes
 * them, are sent as a new operation. Counted on the chain: the sender's nonce moves once, and the record that failed
 * stays failed.
 */
describe("a signed transaction refused before any node held it can be submitted again (anvil)", function () {
  this.timeout(120_000);
  let node: AnvilNode;
  let relay: FaultyRelay;
  let api: RunningServer;

  before(async function () {
    node = await startAnvil();
    relay = await startFaultyRelay(node.url);
    api = await startServer({ env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: relay.url } });
  });

  after(async function () {
    await api?.stop();
    await relay?.close();
    await node?.stop();
  });

  it("answers the refusal, then sends the same bytes once, and refuses a third submit as already submitted", async function () {
    const signer = Wallet.createRandom();
    await node.rpc("anvil_setBalance", [signer.address, toQuantity(10n ** 20n)]);
    const body = { ...SEPOLIA, type: "ERC20", token: { name: "Again", symbol: "AGN" }, sender: signer.address };
    const prepared = await api.call("POST", "/api/v1/tokens", body);
    expect(prepared.status, JSON.stringify(prepared.body)).to.equal(200);
    const signedTransaction = await signer.signTransaction(prepared.body.unsignedTransaction);

    relay.setFault(() => ({
      refuseCall: (call) => (call.method === "eth_sendRawTransaction" ? "insufficient funds for gas * price + value" : undefined),
    }));
    const refused = await api.call("POST", "/api/v1/tokens", { ...body, signedTransaction });
    expect(refused.status, JSON.stringify(refused.body)).to.be.within(400, 499);
    expect(relay.faults, "the relay refused the broadcast").to.be.greaterThan(0);
    const records = (await allRecords(api))!;
    expect(
      records.map((record) => record.status),
      "the refused submit's record",
    ).to.deep.equal(["failed"]);
    const failed = records[0]!;

    relay.setFault(() => "forward");
    const again = await api.call("POST", "/api/v1/tokens?wait=mined", { ...body, signedTransaction });
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body.status).to.equal("mined");
    expect(again.body.id, "a new operation").to.not.equal(failed.id);
    expect(again.body.contractAddress).to.equal(prepared.body.contractAddress);

    const third = await api.call("POST", "/api/v1/tokens", { ...body, signedTransaction });
    expect(third.status, JSON.stringify(third.body)).to.equal(409);
    expect(third.body.error).to.include({ code: "ALREADY_SUBMITTED" });
    expect(third.body.error.details.operationId).to.equal(again.body.id);

    // On the chain: one transaction from the sender. The hash names the operation that sent it; the refused one stays failed.
    expect(Number(await node.rpc("eth_getTransactionCount", [signer.address, "latest"]))).to.equal(1);
    const byHash = await api.call("GET", `/api/v1/operations/${again.body.transactionHash}`);
    expect(byHash.body.id).to.equal(again.body.id);
    expect((await api.call("GET", `/api/v1/operations/${failed.id}`)).body.status).to.equal("failed");
  });
});
