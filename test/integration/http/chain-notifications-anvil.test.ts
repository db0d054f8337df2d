import { expect } from "chai";
import { Contract, JsonRpcProvider, Wallet, parseEther } from "ethers";

import { createTokenServiceClient, type ChainEventPage } from "../../../src/client/index.js";
import { ANVIL_ACCOUNT, startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { TEST_API_KEY, startServer, type RunningServer } from "../../helpers/http-server.js";
import { until } from "../../helpers/until.js";
import { WebhookReceiver } from "../../helpers/webhook-receiver.js";

// Chain notifications (docs/notifications.md) on anvil, a node no one here wrote: value sent to a watched address with
// ethers directly, not through the service, is found, delivered to the API key's webhook and listed for pulling under
// the same ids; a contract's events are decoded and wait for their confirmations; a reorg made with evm_snapshot and
// evm_revert, with other blocks mined in its place, removes what was delivered from the blocks it took.

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const ERC20_ABI = ["function transfer(address to, uint256 value) returns (bool)"];

interface Pulled {
  id: string;
  type: string;
  data: {
    id: string;
    type: string;
    direction?: string;
    asset?: string;
    amount?: string;
    tokenId?: string;
    txHash: string;
    blockHash: string;
    confirmations: number;
    args?: Record<string, unknown>;
  };
}

describe("chain notifications on anvil: deposits, contract events and a reorg, by webhook and by pull", function () {
  this.timeout(180_000);
  let node: AnvilNode;
  let api: RunningServer;
  let receiver: WebhookReceiver;
  let funder: Wallet;

  before(async function () {
    node = await startAnvil();
    receiver = new WebhookReceiver();
    const hookUrl = await receiver.listen();
    api = await startServer({
      env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url, TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" },
    });
    const webhook = await api.call("POST", "/api/v1/webhooks", {
      url: hookUrl,
      events: ["chain.activity", "chain.event", "chain.activity.removed", "chain.event.removed"],
    });
    expect(webhook.status, JSON.stringify(webhook.body)).to.equal(201);
    funder = new Wallet(
      ANVIL_ACCOUNT.privateKey,
      new JsonRpcProvider(node.url, undefined, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 }),
    );
  });

  after(async function () {
    await api?.stop();
    await receiver?.close();
    await node?.stop();
  });

  const pull = async (id: string): Promise<Pulled[]> => {
    const items: Pulled[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await api.call("GET", `/api/v1/subscriptions/${id}/events?limit=2${after ? `&after=${encodeURIComponent(after)}` : ""}`);
      expect(page.status, JSON.stringify(page.body)).to.equal(200);
      items.push(...(page.body.items as Pulled[]));
      if (page.body.items.length === 0) return items;
      after = page.body.nextCursor;
    }
  };
  const subscribe = async (body: Record<string, unknown>) => {
    const created = await api.call("POST", "/api/v1/subscriptions", { ...SEPOLIA, ...body });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body as { id: string; startBlock: number };
  };
  const hooked = (subscriptionId: string) =>
    receiver.received.filter((event) => (event.json.data as { subscriptionId?: string }).subscriptionId === subscriptionId);

  it("finds a deposit of native currency and of an ERC-20 token sent by anyone, delivers and lists it under one id", async function () {
    const watched = Wallet.createRandom().address;
    const launched = await api.call("POST", "/api/v1/tokens?wait=mined", {
      ...SEPOLIA,
      type: "ERC20",
      token: { name: "Watched", symbol: "WCH", initialSupply: "1000000" },
      sender: ANVIL_ACCOUNT.address,
      privateKey: ANVIL_ACCOUNT.privateKey,
    });
    expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
    const token = launched.body.contractAddress as string;
    const deposits = await subscribe({ address: watched });
    const events = await subscribe({
      contract: token,
      events: ["Transfer(address indexed from, address indexed to, uint256 value)"],
      confirmations: 2,
    });

    const native = await (await funder.sendTransaction({ to: watched, value: parseEther("1.5") })).wait();
    const erc20 = await (await new Contract(token, ERC20_ABI, funder).getFunction("transfer")(watched, 250n)).wait();

    await until(async () => (await pull(deposits.id)).length === 2, "both deposits listed", 30_000);
    const listed = await pull(deposits.id);
    expect(listed.map((event) => [event.type, event.data.direction, event.data.asset, event.data.amount, event.data.txHash])).to.deep.equal(
      [
        ["chain.activity", "in", "native", parseEther("1.5").toString(), native!.hash.toLowerCase()],
        ["chain.activity", "in", "erc20", "250", erc20!.hash.toLowerCase()],
      ],
    );
    await until(async () => hooked(deposits.id).length === 2, "both deposits delivered", 30_000);
    expect(
      hooked(deposits.id)
        .map((event) => event.json.data.id)
        .sort(),
    ).to.deep.equal(listed.map((event) => event.id).sort());
    expect(receiver.undocumented, "every delivery matches /openapi.json").to.deep.equal([]);
    // The typed client reads the same page.
    const client = createTokenServiceClient({ baseUrl: api.baseUrl, apiKey: TEST_API_KEY });
    const typed = await client.GET("/api/v1/subscriptions/{id}/events", { params: { path: { id: deposits.id } } });
    const page: ChainEventPage | undefined = typed.data;
    expect(page?.items.map((event) => event.data.id)).to.deep.equal(listed.map((event) => event.data.id));

    // The token's Transfer waits for its second confirmation: one more block brings it, decoded by name.
    expect((await pull(events.id)).length).to.equal(0);
    await node.rpc("evm_mine");
    await until(async () => (await pull(events.id)).length === 1, "the Transfer event after two confirmations", 30_000);
    const [transfer] = await pull(events.id);
    expect(transfer!.data).to.deep.include({ type: "chain.event", confirmations: 2, txHash: erc20!.hash.toLowerCase() });
    expect(transfer!.data.args).to.deep.equal({ from: ANVIL_ACCOUNT.address, to: watched, value: "250" });

    // A backfill over more than 32 blocks asks the node for the watched address's transfers only: the same deposit.
    await node.rpc("anvil_mine", ["0x28"]);
    const backfilled = await subscribe({ address: watched, assets: ["erc20", "erc1155"], fromBlock: 1 });
    await until(async () => (await pull(backfilled.id)).length === 1, "the ERC-20 deposit backfilled", 30_000);
    const [again] = await pull(backfilled.id);
    expect(again!.data).to.deep.include({ direction: "in", asset: "erc20", amount: "250", txHash: erc20!.hash.toLowerCase() });
  });

  it("removes, under the same id, a deposit whose block a reorg took away, and finds nothing more in the blocks that replaced it", async function () {
    const watched = Wallet.createRandom().address;
    const deposits = await subscribe({ address: watched, assets: ["native"] });
    const snapshot = await node.rpc("evm_snapshot");
    const sent = await (await funder.sendTransaction({ to: watched, value: 12345n })).wait();
    await until(async () => hooked(deposits.id).length === 1, "the deposit delivered", 30_000);
    const [delivered] = await pull(deposits.id);
    expect(delivered!.data.txHash).to.equal(sent!.hash.toLowerCase());

    // Another branch: the deposit's block and the one after are replaced by empty blocks (one more than were taken away).
    await node.rpc("evm_revert", [snapshot]);
    await node.rpc("anvil_dropAllTransactions");
    await node.rpc("evm_mine");
    await node.rpc("evm_mine");
    await until(async () => (await pull(deposits.id)).length === 2, "the removal listed", 30_000);
    const [found, removed] = await pull(deposits.id);
    expect(found!.type).to.equal("chain.activity");
    expect(removed).to.deep.include({ id: found!.id, type: "chain.activity.removed" });
    expect(removed!.data.blockHash, "the removal names the block that was taken").to.equal(found!.data.blockHash);
    await until(async () => hooked(deposits.id).length === 2, "the removal delivered", 30_000);
    expect(hooked(deposits.id).map((event) => [event.json.type, event.json.data.id])).to.deep.equal([
      ["chain.activity", found!.id],
      ["chain.activity.removed", found!.id],
    ]);
  });

  it("finds ERC-721 and ERC-1155 tokens reaching an address: one event per id of a TransferBatch", async function () {
    const watched = Wallet.createRandom().address;
    const key = { sender: ANVIL_ACCOUNT.address, privateKey: ANVIL_ACCOUNT.privateKey };
    const launch = async (type: string, token: Record<string, unknown>) => {
      const launched = await api.call("POST", "/api/v1/tokens?wait=mined", { ...SEPOLIA, type, token, ...key });
      expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
      return launched.body.contractAddress as string;
    };
    const art = await launch("ERC721", { name: "Art", symbol: "ART", uri: "ipfs://base/" });
    const items = await launch("ERC1155", { name: "Items", uri: "https://example.com/items/{id}.json" });
    const deposits = await subscribe({ address: watched, assets: ["erc721", "erc1155"] });
    const mint = async (body: Record<string, unknown>) => {
      const minted = await api.call("POST", "/api/v1/tokens/mint?wait=mined", { ...SEPOLIA, ...body, to: watched, ...key });
      expect(minted.status, JSON.stringify(minted.body)).to.equal(200);
      return (minted.body.transactionHash as string).toLowerCase();
    };
    const nft = await mint({ type: "ERC721", contractAddress: art });
    const batch = await mint({ type: "ERC1155", contractAddress: items, tokenIds: ["1", "2"], amounts: ["10", "20"] });
    // Native value the subscription does not ask for: not listed.
    await (await funder.sendTransaction({ to: watched, value: 1n })).wait();

    await until(async () => (await pull(deposits.id)).length === 3, "the mints listed", 30_000);
    const listed = await pull(deposits.id);
    expect(
      listed.map((event) => [event.data.asset, event.data.txHash, event.data.tokenId ?? null, event.data.amount ?? null]),
    ).to.deep.equal([
      ["erc721", nft, listed[0]!.data.tokenId, null],
      ["erc1155", batch, "1", "10"],
      ["erc1155", batch, "2", "20"],
    ]);
    expect(listed[0]!.data.tokenId, "the minted id").to.match(/^\d+$/);
    expect(new Set(listed.map((event) => event.id)).size).to.equal(3);
  });

  it("answers 404 to another API key's subscription id and to ids that are not ids, and 400 naming the field", async function () {
    expect((await api.call("GET", "/api/v1/subscriptions/00000000-0000-4000-8000-000000000000")).status).to.equal(404);
    expect((await api.call("GET", "/api/v1/subscriptions/not-an-id/events")).status).to.equal(404);
    const both = await api.call("POST", "/api/v1/subscriptions", {
      ...SEPOLIA,
      address: ANVIL_ACCOUNT.address,
      contract: ANVIL_ACCOUNT.address,
    });
    expect(both.status).to.equal(400);
    expect(both.body.error.field).to.equal("contract");
    const listed = await api.call("GET", "/api/v1/subscriptions?limit=100");
    expect(listed.status).to.equal(200);
    expect(listed.body.items.length).to.be.at.least(3);
  });
});
