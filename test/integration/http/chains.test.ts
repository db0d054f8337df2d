import { expect } from "chai";

import { EnvironmentError } from "../../../src/config/environment.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";

/** A chain declared for a `serve` deployment without a Hardhat config change. */
const DECLARED = {
  acme_env: { nativeSymbol: "ACM", nativeDecimals: 12, networks: { mainnet: { chainId: 990101 }, devnet: { chainId: 990102 } } },
};

describe("HTTP: every chain the service serves, built in or declared in TOKEN_SERVICE_CHAINS", function () {
  let api: RunningServer;

  before(async function () {
    api = await startServer({ env: { TOKEN_SERVICE_CHAINS: JSON.stringify(DECLARED) } });
  });

  after(async function () {
    await api?.stop();
  });

  it("GET /api/v1/networks lists the new built-in pairs and the declared ones, simulated", async function () {
    const { status, body } = await api.call("GET", "/api/v1/networks");
    expect(status).to.equal(200);
    const pair = (chain: string, network: string) =>
      body.networks.find((entry: { chain: string; network: string }) => entry.chain === chain && entry.network === network);
    for (const [chain, network, chainId, symbol] of [
      ["base", "mainnet", 8453, "ETH"],
      ["base", "sepolia", 84532, "ETH"],
      ["arbitrum", "mainnet", 42161, "ETH"],
      ["arbitrum", "sepolia", 421614, "ETH"],
      ["optimism", "mainnet", 10, "ETH"],
      ["optimism", "sepolia", 11155420, "ETH"],
      ["polygon", "mainnet", 137, "POL"],
      ["polygon", "amoy", 80002, "POL"],
      ["avalanche", "mainnet", 43114, "AVAX"],
      ["avalanche", "fuji", 43113, "AVAX"],
    ] as const) {
      expect(pair(chain, network), `${chain}/${network}`).to.include({ chainId, nativeSymbol: symbol, simulated: true, backend: "edr" });
    }
    expect(pair("base", "sepolia").rollup).to.equal("op-stack");
    expect(pair("arbitrum", "mainnet").rollup).to.equal("arbitrum");
    expect(pair("acme_env", "devnet")).to.include({
      kind: "evm",
      chainId: 990102,
      nativeSymbol: "ACM",
      nativeDecimals: 12,
      simulated: true,
      declaredIn: "TOKEN_SERVICE_CHAINS",
    });
  });

  // Amounts in smallest units: acme_env's 12 decimals make 10 ACM (the faucet's default) 10^13 of them, short of a
  // deployment's gas at the simulated chain's prices; 10^19 is what 10 ETH are.
  for (const [chain, network, symbol, amount] of [
    ["base", "sepolia", "ETH", undefined],
    ["acme_env", "devnet", "ACM", "10000000000000000000"],
  ] as const) {
    it(`${chain}/${network}: wallet, faucet, launch (wait=mined) and balance through HTTP`, async function () {
      const wallet = await api.call("POST", "/api/v1/wallets", { chain, network });
      expect(wallet.status, JSON.stringify(wallet.body)).to.equal(200);
      expect(wallet.body).to.include({ chain, network });
      const funded = await api.call("POST", "/api/v1/faucet", {
        chain,
        network,
        address: wallet.body.address,
        ...(amount ? { amount } : {}),
      });
      expect(funded.status, JSON.stringify(funded.body)).to.equal(200);
      expect(funded.body.amount.balance).to.equal(amount ?? "10000000000000000000");
      const launch = await api.call("POST", `/api/v1/tokens?wait=mined`, {
        chain,
        network,
        type: "erc20",
        token: { name: "Gold", symbol: "GLD", initialSupply: "42" },
        sender: wallet.body.address,
        privateKey: wallet.body.privateKey,
      });
      expect(launch.status, JSON.stringify(launch.body)).to.equal(200);
      expect(launch.body).to.include({ status: "mined", chain, network });
      const read = await api.call(
        "GET",
        `/api/v1/wallets?chain=${chain}&network=${network}&address=${wallet.body.address}&erc20TokenContractAddresses=${launch.body.contractAddress}`,
      );
      expect(read.status).to.equal(200);
      expect(read.body.balances.GLD).to.include({ balance: "42" });
      expect(read.body.balances).to.have.property(symbol);
    });
  }

  it("an unknown chain is UNSUPPORTED_CHAIN listing the declared chains too", async function () {
    const { status, body } = await api.call("POST", "/api/v1/wallets", { chain: "solana", network: "mainnet" });
    expect(status).to.equal(400);
    expect(body.error).to.include({ code: "UNSUPPORTED_CHAIN", field: "chain" });
    expect(body.error.details.allowed).to.include.members(["base", "polygon", "avalanche", "acme_env"]);
  });

  it("/openapi.json, behind /docs, offers this service's chains and networks to pick from", async function () {
    const response = await fetch(`${api.baseUrl}/openapi.json`);
    const document = (await response.json()) as any;
    const body = document.paths["/api/v1/wallets"].post.requestBody.content["application/json"].schema;
    expect(body.properties.chain.enum).to.include.members(["ethereum", "base", "arbitrum", "optimism", "polygon", "avalanche", "acme_env"]);
    expect(body.properties.network.enum).to.include.members(["sepolia", "amoy", "fuji", "devnet"]);
    expect(body.properties.network.description).to.include("acme_env: mainnet, devnet");
    const query = document.paths["/api/v1/wallets"].get.parameters.find((parameter: { name: string }) => parameter.name === "chain");
    expect(query.schema.enum).to.include("acme_env");
    // Every variant of a launch's body (signed by the service, submitted, prepared) too.
    const launch = document.paths["/api/v1/tokens"].post.requestBody.content["application/json"].schema;
    for (const variant of launch.anyOf ?? launch.oneOf) expect(variant.properties.chain.enum).to.include("acme_env");
  });

  it("refuses to start on a bad TOKEN_SERVICE_CHAINS, naming the variable and the field", async function () {
    for (const [value, message] of [
      [
        '{"acme":{"nativeSymbol":"ACM","networks":{"mainnet":{"chainId":"990201"}}}}',
        'at acme.networks.mainnet.chainId: chainId must be a whole number, 1 or more (got "990201")',
      ],
      ['{"polygon":{"nativeSymbol":"POL","networks":{"mainnet":{"chainId":990202}}}}', "at polygon: polygon is built in"],
      ['{"acme":{"nativeSymbol":"ACM","networks":{"mainnet":{"chainId":8453}}}}', "chain id 8453 is already base/mainnet's"],
      ["{acme", "must be JSON"],
    ]) {
      const refused = await startServer({ env: { TOKEN_SERVICE_CHAINS: value! } }).then(
        async (server) => {
          await server.stop();
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(refused, value).to.be.instanceOf(EnvironmentError);
      expect((refused as EnvironmentError).variable).to.equal("TOKEN_SERVICE_CHAINS");
      expect((refused as Error).message).to.match(/^TOKEN_SERVICE_CHAINS /);
      expect((refused as Error).message).to.include(message!);
    }
  });
});
