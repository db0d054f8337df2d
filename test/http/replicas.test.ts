import { expect } from "chai";
import hre from "hardhat";
import type { JsonRpcServer } from "hardhat/types/network";

import { freshPostgresSchema } from "../helpers/postgres-schema.js";
import { eventually, startServer, type RunningServer } from "../helpers/http-server.js";

describe("HTTP service — two replicas on one PostgreSQL and one live node", function () {
  let node: JsonRpcServer;
  let replicas: RunningServer[] = [];
  let dropSchema: () => Promise<void>;

  before(async function () {
    // A real JSON-RPC node over HTTP with Sepolia's chain id: to the replicas it is a live network.
    node = await hre.network.createServer({ override: { chainId: 11155111 } } as never, "127.0.0.1", 0);
    const { port } = await node.listen();
    const schema = await freshPostgresSchema("hts_replicas");
    dropSchema = schema.drop;
    const env = { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: `http://127.0.0.1:${port}` };
    replicas = [await startServer({ databaseUrl: schema.url, env }), await startServer({ databaseUrl: schema.url, env })];
  });

  after(async function () {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await node?.close();
    await dropSchema?.();
  });

  it("20 concurrent launches from one sender, split across both replicas, give 20 mined contracts and no error", async function () {
    const [first, second] = replicas as [RunningServer, RunningServer];
    const { body: wallet } = await first.call("POST", "/api/v1/wallets", { chain: "ethereum", network: "sepolia" });
    const faucet = await first.call("POST", "/api/v1/faucet", { chain: "ethereum", network: "sepolia", address: wallet.address });
    expect(faucet.body.error.code).to.equal("LIVE_NETWORK_FAUCET");
    const provider = (await first.server.service.evmChain(first.server.service.networks().find((pair) => pair.network === "sepolia")!, "test")).provider as import("ethers").JsonRpcProvider;
    await provider.send("hardhat_setBalance", [wallet.address, "0x56BC75E2D63100000"]);

    const launches = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
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
    expect(addresses.size).to.equal(20);
    expect(launches.every((launch) => launch.body.simulated === false)).to.equal(true);

    for (const launch of launches) {
      const mined = await eventually(
        () => second.call("GET", `/api/v1/transactions/${launch.body.transactionHash}?chain=ethereum&network=sepolia`),
        (response) => response.body.status !== "pending",
      );
      expect(mined.body.status).to.equal("mined");
    }
    const balances = await first.call(
      "GET",
      `/api/v1/wallets?chain=ethereum&network=sepolia&address=${wallet.address}&erc20TokenContractAddresses=${[...addresses].join(",")}`,
    );
    expect(Object.keys(balances.body.balances)).to.have.length(21);
  });
});
