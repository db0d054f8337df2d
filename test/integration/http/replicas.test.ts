import { expect } from "chai";
import type { JsonRpcProvider } from "ethers";
import hre from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";

const LAUNCHES = 100;

describe("HTTP service — two replicas on one PostgreSQL and one live node", function () {
  let node: JsonRpcServer;
  let replicas: RunningServer[] = [];
  let dropSchema: () => Promise<void>;
  let schemaUrl: string;

  before(async function () {
    // A real JSON-RPC node over HTTP with Sepolia's chain id: to the replicas it is a live network.
    node = await hre.network.createServer({ override: { chainId: 11155111 } } as never, "127.0.0.1", 0);
    const { port } = await node.listen();
    const schema = await freshPostgresSchema(this, "hts_replicas");
    dropSchema = schema.drop;
    schemaUrl = schema.url;
    // Replicas share every chain they serve: sepolia through the node, the other pairs not at all.
    const env = { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: `http://127.0.0.1:${port}`, TOKEN_SERVICE_SIMULATED_CHAINS: "off" };
    replicas = [await startServer({ databaseUrl: schema.url, env }), await startServer({ databaseUrl: schema.url, env })];
  });

  after(async function () {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await node?.close();
    await dropSchema?.();
  });

  it("100 concurrent launches from one sender, split across both replicas, give 100 mined contracts with distinct nonces, each replica answering for the other's", async function () {
    this.timeout(300_000);
    const [first, second] = replicas as [RunningServer, RunningServer];
    const { body: wallet } = await first.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "sepolia" });
    const faucet = await first.call("POST", "/api/v1/faucet", { chain: "ethereum", network: "sepolia", address: wallet.address });
    expect(faucet.body.error.code).to.equal("LIVE_NETWORK_FAUCET");
    const provider = (
      await first.server.service.evmChain(
        first.server.service.networks().find((pair) => pair.network === "sepolia")!,
        "test",
      )
    ).provider as JsonRpcProvider;
    await provider.send("hardhat_setBalance", [wallet.address, "0x56BC75E2D63100000"]);

    const launches = await Promise.all(
      Array.from({ length: LAUNCHES }, (_, index) =>
        (index % 2 === 0 ? first : second).call("POST", "/api/v1/tokens", {
          chain: "ethereum",
          network: "sepolia",
          type: "ERC20",
          token: { name: `Replica ${index}`, symbol: `R${index}`, initialSupply: String(index + 1) },
          sender: wallet.address,
          privateKey: wallet.privateKey,
        }),
      ),
    );
    for (const launch of launches) expect(launch.status, JSON.stringify(launch.body)).to.equal(200);
    const addresses = new Set(launches.map((launch) => launch.body.contractAddress));
    expect(addresses.size).to.equal(LAUNCHES);
    expect(new Set(launches.map((launch) => launch.body.nonce)).size, "distinct nonces").to.equal(LAUNCHES);
    expect(launches.every((launch) => launch.body.simulated === false)).to.equal(true);

    for (const [index, launch] of launches.entries()) {
      // Each replica answers for the transactions the other one sent.
      const other = index % 2 === 0 ? second : first;
      const mined = await eventually(
        () => other.call("GET", `/api/v1/transactions/${launch.body.transactionHash}?chain=ethereum&network=sepolia`),
        (response) => response.body.status !== "pending",
      );
      expect(mined.body.status).to.equal("mined");
    }
    const records = await eventually(
      () => first.call("GET", "/api/v1/operations?limit=100"),
      (response) =>
        response.body.items
          .filter((item: { kind: string }) => item.kind === "launch")
          .every((item: { status: string }) => item.status === "mined"),
    );
    expect(records.body.items.filter((item: { kind: string }) => item.kind === "launch")).to.have.length(LAUNCHES);
    const balances = await first.call(
      "GET",
      `/api/v1/wallets?chain=ethereum&network=sepolia&address=${wallet.address}&erc20TokenContractAddresses=${[...addresses].join(",")}`,
    );
    expect(balances.status, JSON.stringify(balances.body)).to.equal(400);
    const some = [...addresses].slice(0, 50);
    const read = await first.call(
      "GET",
      `/api/v1/wallets?chain=ethereum&network=sepolia&address=${wallet.address}&erc20TokenContractAddresses=${some.join(",")}`,
    );
    expect(Object.keys(read.body.balances)).to.have.length(51);
  });

  it("refuses to start a replica that would serve private simulated chains beside another, naming the pairs and the variables", async function () {
    let refusal: unknown;
    const [first] = replicas as [RunningServer];
    // The first replica runs with simulated chains off; this one, with them on, takes the claim, then a third is refused.
    const withChains = await startServer({ databaseUrl: schemaUrl, env: {} });
    try {
      await startServer({ databaseUrl: schemaUrl, env: {} }).catch((error: unknown) => (refusal = error));
    } finally {
      await withChains.stop();
    }
    expect(first).to.not.equal(undefined);
    const message = (refusal as Error)?.message ?? "";
    expect(message)
      .to.include("ethereum/sepolia")
      .and.to.include("TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA")
      .and.to.include("npx hardhat node --chain-id");
    expect(message).to.include("TOKEN_SERVICE_SIMULATED_CHAINS=off");
  });
});
