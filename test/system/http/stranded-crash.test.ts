import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { Wallet, toQuantity } from "ethers";

import { startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { startServe, type ServeProcess } from "../../helpers/serve-process.js";
import { until } from "../../helpers/until.js";

// The filler a key-in-body write signs for the reservation below it is kept in the store before the write is recorded:
// a serve killed (-9) right after the writes were answered, restarted on the same data, still fills the abandoned nonce
// once its reservation expired, and the writes above it are mined. The chain is anvil, which outlives the crash.

const API_KEY = "stranded-crash-key-0123456789";
const pair = { chain: "ethereum", network: "sepolia" };
const WRITES = 5;
/** The dead process's records are its own until their leases run out (at most SIGNED_GRACE_MS, 15 s), then 10 s. */
const AFTER_RESTART_MS = 25_000;

describe("no sender stranded across a kill -9: the filler signed ahead is durable", function () {
  let node: AnvilNode;
  let dataDir: string;
  let serve: ServeProcess | undefined;

  before(async function () {
    node = await startAnvil();
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-stranded-"));
  });

  after(async function () {
    await serve?.stop();
    await node?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = () =>
    startServe({
      dataDir,
      apiKey: API_KEY,
      env: {
        TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url,
        TOKEN_SERVICE_PREPARED_TTL_SECONDS: "3",
        TOKEN_SERVICE_LEASE_SECONDS: "3",
      },
    });

  it("prepare, abandon, writes answered, kill -9, restart: the abandoned nonce is filled from the store and the writes are mined", async function () {
    const signer = new Wallet(Wallet.createRandom().privateKey);
    await node.rpc("anvil_setBalance", [signer.address, toQuantity(10n ** 19n)]);
    serve = await start();
    const prepared = await serve.call("POST", "/api/v1/tokens", {
      ...pair,
      type: "SERVICE_ERC20",
      token: { name: "Gold", symbol: "GLD", initialSupply: "1000" },
      sender: signer.address,
    });
    expect(prepared.status, JSON.stringify(prepared.body)).to.equal(200);
    const reserved = prepared.body.unsignedTransaction.nonce as number;
    const writes: Array<{ id: string; nonce: number }> = [];
    for (let index = 0; index < WRITES; index++) {
      const write = await serve.call("POST", "/api/v1/transfers", {
        ...pair,
        type: "NATIVE",
        to: Wallet.createRandom().address,
        amount: "1",
        sender: signer.address,
        privateKey: signer.privateKey,
      });
      expect(write.status, JSON.stringify(write.body)).to.equal(200);
      writes.push(write.body as { id: string; nonce: number });
    }
    expect(writes.map((write) => write.nonce)).to.deep.equal(Array.from({ length: WRITES }, (_, index) => reserved + 1 + index));
    await serve.crash();
    // Nothing has used the reserved nonce: the writes wait above it in the node's pool.
    expect(Number(await node.rpc("eth_getTransactionCount", [signer.address, "latest"]))).to.equal(reserved);

    serve = await start();
    const restarted = serve;
    const statuses = () =>
      Promise.all(writes.map(async (write) => (await restarted.call("GET", `/api/v1/operations/${write.id}`)).body.status));
    await until(
      async () => (await statuses()).every((status) => status === "mined"),
      "the writes mined after the restart",
      AFTER_RESTART_MS,
      200,
    );
    expect(Number(await node.rpc("eth_getTransactionCount", [signer.address, "latest"]))).to.equal(reserved + 1 + WRITES);
    expect(restarted.output()).to.match(/gap-filled/);
  });
});
