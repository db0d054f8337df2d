import { expect } from "chai";
import { JsonRpcProvider, Wallet, parseEther, type AbstractProvider } from "ethers";

import { resolveNetwork } from "../../src/domain/chains.js";
import { startAnvil, type AnvilNode } from "./anvil.js";
import { eventually, startServer, type RunningServer } from "./http-server.js";
import { storeVariants } from "./postgres-schema.js";
import { WebhookReceiver, type ReceivedEvent } from "./webhook-receiver.js";

// The services the HTTP write tests run against: on the simulated chain with each store (embedded SQLite, PostgreSQL),
// and on anvil, a live node over JSON-RPC; each with the node to read back from without the service.

const SEPOLIA = { chain: "ethereum", network: "sepolia" };
/** Hardhat's (and anvil's) tenth default account: funds the wallets on anvil, never a sender of the service. */
const ANVIL_FUNDER_KEY = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";

export interface Setup {
  api: RunningServer;
  /** The node, read without the service. */
  node: AbstractProvider;
  /** A new key holding `ether` ETH (the service never sees it unless a test sends it). */
  funded(ether: string): Promise<Wallet>;
  close(): Promise<void>;
}

async function simulated(databaseUrl: string | undefined): Promise<Setup> {
  const api = await startServer({
    env: { TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", TOKEN_SERVICE_WEBHOOK_POLL_SECONDS: "0.1" },
    ...(databaseUrl ? { databaseUrl } : {}),
  });
  const chain = await api.server.service.evmChain(resolveNetwork("ethereum", "sepolia"), "test");
  return {
    api,
    node: chain.provider,
    async funded(ether) {
      const wallet = Wallet.createRandom();
      const grant = await api.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: wallet.address, amount: parseEther(ether).toString() });
      expect(grant.status, JSON.stringify(grant.body)).to.equal(200);
      return new Wallet(wallet.privateKey);
    },
    close: () => api.stop(),
  };
}

async function onAnvil(): Promise<Setup> {
  const anvil: AnvilNode = await startAnvil({ chainId: 11155111 });
  const api = await startServer({ rpcUrls: { "ethereum/sepolia": anvil.url } });
  const node = new JsonRpcProvider(anvil.url, 11155111, { staticNetwork: true, cacheTimeout: -1 });
  const funder = new Wallet(ANVIL_FUNDER_KEY, node);
  return {
    api,
    node,
    async funded(ether) {
      const wallet = Wallet.createRandom();
      await (await funder.sendTransaction({ to: wallet.address, value: parseEther(ether) })).wait();
      return new Wallet(wallet.privateKey);
    },
    async close() {
      await api.stop();
      node.destroy();
      await anvil.stop();
    },
  };
}

/** The setups, each store's databases named after `prefix`. */
export const httpWriteSetups = (prefix: string): Array<{ name: string; start(context: Mocha.Context): Promise<Setup> }> => [
  ...storeVariants(prefix).map((store) => ({
    name: `simulated chain, ${store.name}`,
    async start(context: Mocha.Context) {
      const database = await store.database(context);
      const setup = await simulated(database.url);
      return { ...setup, close: () => setup.close().then(() => database.drop()) };
    },
  })),
  { name: "anvil (a live node), embedded SQLite", start: () => onAnvil() },
];

/**
 * The operation.pending and operation.mined events a webhook subscribed for them receives of the write `send` makes
 * (which must answer 200), in the order received; the subscription is deleted after.
 */
export async function webhookEventsOf(api: RunningServer, send: () => Promise<{ status: number; body: any }>): Promise<ReceivedEvent[]> {
  const receiver = new WebhookReceiver();
  await receiver.listen();
  try {
    const created = await api.call("POST", "/api/v1/webhooks", { url: receiver.url(), events: ["operation.pending", "operation.mined"] });
    expect(created.status).to.equal(201);
    const sent = await send();
    expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
    const events = await eventually(
      async () => receiver.received.filter((event) => event.json.data.id === sent.body.id),
      (found) => found.some((event) => event.json.type === "operation.mined"),
    );
    await api.call("DELETE", `/api/v1/webhooks/${created.body.id}`);
    return events;
  } finally {
    await receiver.close();
  }
}
