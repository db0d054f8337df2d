import { expect } from "chai";
import { JsonRpcProvider, Wallet, toQuantity } from "ethers";

import { startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";
import { startCountingProxy, type CountingProxy } from "../../helpers/json-rpc-servers.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";

// On a live chain a send counts its sender's nonce and funds itself between two reads of the node (send-reads.ts). These
// check that the count never costs a launch: across two replicas on one PostgreSQL, after the key sent a transaction
// outside the service, and when the sender's funds change behind the count. Counted on anvil, not in the answers.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const ROUNDS = 10;

const launchBody = (signer: { address: string; privateKey: string }, label: string) => ({
  ...SEPOLIA,
  type: "ERC20",
  token: { name: `Counted ${label}`, symbol: "CNT" },
  sender: signer.address,
  privateKey: signer.privateKey,
});

describe("a live chain's sends count the sender's nonce and funds (anvil)", function () {
  this.timeout(120_000);
  let node: AnvilNode;
  let proxy: CountingProxy;
  let replicas: RunningServer[] = [];
  let dropSchema: (() => Promise<void>) | undefined;

  before(async function () {
    node = await startAnvil();
    proxy = await startCountingProxy(node.url);
    const schema = await freshPostgresSchema(this, "hts_counted_nonces");
    dropSchema = schema.drop;
    const env = { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: proxy.url, TOKEN_SERVICE_SIMULATED_CHAINS: "off" };
    replicas = [await startServer({ databaseUrl: schema.url, env }), await startServer({ databaseUrl: schema.url, env })];
  });

  after(async function () {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await dropSchema?.();
    await proxy?.close();
    await node?.stop();
  });

  const fund = (address: string, wei: bigint) => node.rpc("anvil_setBalance", [address, toQuantity(wei)]);
  const sentOnChain = async (address: string) => Number(await node.rpc("eth_getTransactionCount", [address, "latest"]));

  it("two replicas on one PostgreSQL take turns with one sender: every launch mined once, in nonce order", async function () {
    const signer = new Wallet(Wallet.createRandom().privateKey);
    await fund(signer.address, 10n ** 20n);
    for (let round = 0; round < ROUNDS; round++) {
      const replica = replicas[round % 2]!;
      const answer = await replica.call("POST", "/api/v1/tokens?wait=mined", launchBody(signer, `${round}`));
      expect(answer.status, `round ${round}: ${JSON.stringify(answer.body)}`).to.equal(200);
      expect(answer.body).to.include({ status: "mined", nonce: round });
    }
    expect(await sentOnChain(signer.address)).to.equal(ROUNDS);
  });

  it("after the key sent a transaction outside the service, the next launch takes the nonce after it", async function () {
    const signer = new Wallet(Wallet.createRandom().privateKey);
    await fund(signer.address, 10n ** 20n);
    const [replica] = replicas as [RunningServer];
    expect((await replica.call("POST", "/api/v1/tokens?wait=mined", launchBody(signer, "before"))).body.status).to.equal("mined");

    // The same key, used by another tool straight at the node.
    const outside = signer.connect(new JsonRpcProvider(node.url, undefined, { staticNetwork: true }));
    await (await outside.sendTransaction({ to: signer.address, value: 0n })).wait();
    outside.provider!.destroy();

    const next = await replica.call("POST", "/api/v1/tokens?wait=mined", launchBody(signer, "after"));
    expect(next.status, JSON.stringify(next.body)).to.equal(200);
    expect(next.body).to.include({ status: "mined", nonce: 2 });
    expect(await sentOnChain(signer.address)).to.equal(3);
  });

  it("funds taken or given behind the count: refused with nothing sent when short, mined once paid", async function () {
    const signer = new Wallet(Wallet.createRandom().privateKey);
    await fund(signer.address, 10n ** 20n);
    const [replica] = replicas as [RunningServer];
    expect((await replica.call("POST", "/api/v1/tokens?wait=mined", launchBody(signer, "rich"))).body.status).to.equal("mined");

    // The balance drops behind the count (as a spend from elsewhere would): the launch is refused and nothing is sent.
    await fund(signer.address, 1n);
    const short = await replica.call("POST", "/api/v1/tokens?wait=mined", launchBody(signer, "short"));
    expect(short.body.error?.code, JSON.stringify(short.body)).to.equal("INSUFFICIENT_FUNDS");
    expect(await sentOnChain(signer.address)).to.equal(1);

    // Paid again: the next launch sees it.
    await fund(signer.address, 10n ** 20n);
    const paid = await replica.call("POST", "/api/v1/tokens?wait=mined", launchBody(signer, "paid"));
    expect(paid.status, JSON.stringify(paid.body)).to.equal(200);
    expect(paid.body).to.include({ status: "mined", nonce: 1 });
    expect(await sentOnChain(signer.address)).to.equal(2);
  });
});
