import { expect } from "chai";
import { Wallet, type JsonRpcProvider } from "ethers";
import hre from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";

const PREPARES = 10;
const pair = { chain: "ethereum", network: "sepolia" };

describe("local signing across two replicas on one PostgreSQL and one live node", function () {
  let node: JsonRpcServer;
  let replicas: RunningServer[] = [];
  let dropSchema: () => Promise<void>;

  before(async function () {
    node = await hre.network.createServer({ override: { chainId: 11155111 } } as never, "127.0.0.1", 0);
    const { port } = await node.listen();
    const schema = await freshPostgresSchema(this, "hts_signing_replicas");
    dropSchema = schema.drop;
    const env = { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: `http://127.0.0.1:${port}`, TOKEN_SERVICE_SIMULATED_CHAINS: "off" };
    replicas = [await startServer({ databaseUrl: schema.url, env }), await startServer({ databaseUrl: schema.url, env })];
  });

  after(async function () {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await node?.close();
    await dropSchema?.();
  });

  it("concurrent prepares on both replicas reserve distinct nonces, a key-in-body launch takes the next, and each submit is accepted by either replica", async function () {
    this.timeout(120_000);
    const [first, second] = replicas as [RunningServer, RunningServer];
    const signer = Wallet.createRandom();
    const provider = (
      await first.server.service.evmChain(
        first.server.service.networks().find((p) => p.network === "sepolia")!,
        "test",
      )
    ).provider as JsonRpcProvider;
    await provider.send("hardhat_setBalance", [signer.address, "0x56BC75E2D63100000"]);
    const body = (index: number) => ({
      ...pair,
      type: "ERC20",
      token: { name: `Signed ${index}`, symbol: `S${index}` },
      sender: signer.address,
    });

    const prepared = await Promise.all(
      Array.from({ length: PREPARES }, (_, index) => (index % 2 === 0 ? first : second).call("POST", "/api/v1/tokens", body(index))),
    );
    for (const answer of prepared) expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    const nonces = prepared.map((answer) => answer.body.unsignedTransaction.nonce as number);
    expect([...nonces].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: PREPARES }, (_, index) => index));

    const withKey = await second.call("POST", "/api/v1/tokens", { ...body(PREPARES), privateKey: signer.privateKey });
    // Hardhat's node automines and so refuses a nonce above the reserved ones: recorded, sent by the tracker once they are used.
    expect(withKey.status, JSON.stringify(withKey.body)).to.equal(202);
    expect(withKey.body).to.include({ status: "signed", nonce: PREPARES });

    // In nonce order, each submitted to the replica that did not prepare it.
    const order = nonces.map((nonce, index) => ({ nonce, index })).sort((a, b) => a.nonce - b.nonce);
    for (const { index } of order) {
      const submitted = await (index % 2 === 0 ? second : first).call("POST", "/api/v1/tokens", {
        ...body(index),
        signedTransaction: await signer.signTransaction(prepared[index]!.body.unsignedTransaction),
      });
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(200);
      expect(submitted.body.contractAddress).to.equal(prepared[index]!.body.contractAddress);
    }
    const records = await eventually(
      () => first.call("GET", "/api/v1/operations?limit=100"),
      (page) => page.body.items.length === PREPARES + 1 && page.body.items.every((item: { status: string }) => item.status === "mined"),
      60_000,
    );
    expect(new Set(records.body.items.map((item: { nonce: number }) => item.nonce)).size).to.equal(PREPARES + 1);
  });
});
