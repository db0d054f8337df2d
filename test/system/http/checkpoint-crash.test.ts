import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { startServe, type ServeProcess } from "../../helpers/serve-process.js";

const API_KEY = "checkpoint-crash-key-0123456789";
const PAIR = { chain: "ethereum", network: "sepolia" };
const CHECKPOINT_LOG = "wrote a simulated chain's checkpoint";
/** Launches made before the kill, at most: enough for several checkpoints every two entries. */
const MOST_LAUNCHES = 30;

describe("kill -9 of serve while its simulated chain writes checkpoints (every 2 journal entries)", function () {
  let dataDir: string;
  let serve: ServeProcess | undefined;

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-checkpoint-crash-"));
  });

  after(async function () {
    await serve?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("restarts from the last checkpoint and the journal after it with every launch it acknowledged", async function () {
    this.timeout(300_000);
    const env = { TOKEN_SERVICE_CHAIN_CHECKPOINT_ENTRIES: "2" };
    serve = await startServe({ dataDir, apiKey: API_KEY, env });
    const wallet = (await serve.call("POST", "/api/v1/wallets", PAIR)).body;
    expect((await serve.call("POST", "/api/v1/faucet", { ...PAIR, address: wallet.address })).status).to.equal(200);
    const launch = (index: number) =>
      serve!.call("POST", "/api/v1/tokens?wait=mined", {
        ...PAIR,
        type: "ERC20",
        token: { name: `Checkpointed ${index}`, symbol: `CK${index}`, initialSupply: String(index + 1) },
        sender: wallet.address,
        privateKey: wallet.privateKey,
      });

    const acknowledged: Array<{ address: string; supply: string }> = [];
    const checkpointsLogged = () => serve!.output().split(CHECKPOINT_LOG).length - 1;
    while (acknowledged.length < MOST_LAUNCHES && !(acknowledged.length >= 6 && checkpointsLogged() >= 3)) {
      const index = acknowledged.length;
      const answer = await launch(index);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      acknowledged.push({ address: answer.body.contractAddress, supply: String(index + 1) });
    }
    expect(checkpointsLogged(), "checkpoints were written before the kill").to.be.at.least(3);
    // More launches in flight, each a checkpoint's worth of entries: the kill lands among journal writes and checkpoints.
    const inFlight = Array.from({ length: 4 }, (_, offset) => launch(acknowledged.length + offset).catch(() => undefined));
    await new Promise((resolve) => setImmediate(resolve));
    await serve.crash();
    await Promise.all(inFlight);

    serve = await startServe({ dataDir, apiKey: API_KEY, env });
    for (const token of acknowledged) {
      const read = await serve.call(
        "GET",
        `/api/v1/tokens/address=${wallet.address}/balance?chain=ethereum&network=sepolia&tokenAddress=${token.address}&type=ERC20`,
      );
      expect(read.status, JSON.stringify(read.body)).to.equal(200);
      expect(read.body.balance, token.address).to.equal(token.supply);
    }
    // The chain goes on from there: the sender's next nonce is free, a launch is mined.
    const after = await launch(1_000);
    expect(after.status, JSON.stringify(after.body)).to.equal(200);
  });
});
