import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { JsonRpcProvider, Wallet, toQuantity } from "ethers";

import { ANVIL_ACCOUNT, startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { startServe, type ServeProcess } from "../../helpers/serve-process.js";
import { until } from "../../helpers/until.js";

// Chain notifications (docs/notifications.md) across a crash: a `serve` on PostgreSQL is killed with SIGKILL in the
// middle of a subscription's backfill over 3,000 anvil blocks (six ranges of 500); a second `serve` on the same database takes the scan
// over once the dead one's lease runs out, and resumes the backfill from its durable cursor. Every deposit is listed
// exactly once, under the id a rescan gives it, and the deposits made while no process ran are found too.

const API_KEY = "notifications-crash-key-0123456789";
const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const DEPOSITS = 10;
const BLOCKS_BETWEEN = 300;

interface Pulled {
  id: string;
  type: string;
  data: { id: string; txHash: string; amount: string };
}

describe("chain notifications: kill -9 of the scanning serve mid-backfill, another takes over (anvil, PostgreSQL)", function () {
  this.timeout(300_000);
  let node: AnvilNode;
  let dataDir: string;
  let drop = async () => {};
  let env: Record<string, string>;
  const serves: ServeProcess[] = [];

  before(async function () {
    node = await startAnvil();
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-notify-crash-"));
    const schema = await freshPostgresSchema(this, "hts_notify_crash");
    drop = schema.drop;
    env = { DATABASE_URL: schema.url, TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: node.url, TOKEN_SERVICE_SIMULATED_CHAINS: "off" };
  });

  after(async function () {
    for (const serve of serves) await serve.crash().catch(() => undefined);
    await node?.stop();
    await drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const pull = async (serve: ServeProcess, id: string): Promise<Pulled[]> => {
    const items: Pulled[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await serve.call(
        "GET",
        `/api/v1/subscriptions/${id}/events?limit=100${after ? `&after=${encodeURIComponent(after)}` : ""}`,
      );
      expect(page.status, JSON.stringify(page.body)).to.equal(200);
      items.push(...(page.body.items as Pulled[]));
      if (page.body.items.length < 100) return items;
      after = page.body.nextCursor;
    }
  };

  it("two serves on one database scan the chain once: each deposit listed once, whichever replica answers", async function () {
    const [first, second] = [await startServe({ dataDir, apiKey: API_KEY, env }), await startServe({ dataDir, apiKey: API_KEY, env })];
    serves.push(first, second);
    const watched = Wallet.createRandom().address;
    const created = await first.call("POST", "/api/v1/subscriptions", { ...SEPOLIA, address: watched, assets: ["native"] });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const funder = new Wallet(
      ANVIL_ACCOUNT.privateKey,
      new JsonRpcProvider(node.url, undefined, { staticNetwork: true, cacheTimeout: -1 }),
    );
    const sent: string[] = [];
    for (let index = 0; index < 5; index++) {
      const { hash } = await funder.sendTransaction({ to: watched, value: BigInt(index + 1) });
      sent.push(hash.toLowerCase());
      await until(async () => (await node.rpc("eth_getTransactionReceipt", [hash])) !== null, "the deposit mined", 30_000, 20);
    }
    await until(async () => (await pull(second, created.body.id)).length >= sent.length, "every deposit listed", 60_000, 100);
    for (const serve of [first, second]) {
      const listed = await pull(serve, created.body.id);
      expect(listed.map((event) => event.data.txHash).sort(), "each deposit once").to.deep.equal([...sent].sort());
    }
  });

  it("resumes the backfill from its cursor after a kill -9, and lists every deposit exactly once", async function () {
    // The replicas before stop cleanly (their scan leases let go): the serve started here is the only one scanning.
    for (const serve of serves.splice(0)) await serve.stop();
    const watched = Wallet.createRandom().address;
    const funder = new Wallet(
      ANVIL_ACCOUNT.privateKey,
      new JsonRpcProvider(node.url, undefined, { staticNetwork: true, cacheTimeout: -1 }),
    );
    const deposits: string[] = [];
    const firstBlock = Number(await node.rpc("eth_blockNumber")) + 1;
    // Mined as sent (anvil's automine); its receipt read straight from the node, not with ethers' wait(), which would walk
    // every block anvil_mine made.
    const deposit = async (value: bigint) => {
      const { hash } = await funder.sendTransaction({ to: watched, value });
      await until(async () => (await node.rpc("eth_getTransactionReceipt", [hash])) !== null, "the deposit mined", 30_000, 20);
      deposits.push(hash.toLowerCase());
    };
    for (let index = 0; index < DEPOSITS; index++) {
      await deposit(BigInt(index + 1));
      await node.rpc("anvil_mine", [toQuantity(BLOCKS_BETWEEN)]);
    }

    const first = await startServe({ dataDir, apiKey: API_KEY, env });
    serves.push(first);
    // A subscription from now on makes the pair's scan start at the head; the second one backfills below it.
    const other = Wallet.createRandom().address;
    const now = await first.call("POST", "/api/v1/subscriptions", { ...SEPOLIA, address: other });
    expect(now.status, JSON.stringify(now.body)).to.equal(201);
    // Its first event shows the scan has committed a range: its cursor stands above the deposits.
    const { hash } = await funder.sendTransaction({ to: other, value: 1n });
    await until(
      async () => (await pull(first, now.body.id)).some((event) => event.data.txHash === hash.toLowerCase()),
      "the scan under way",
    );
    const created = await first.call("POST", "/api/v1/subscriptions", {
      ...SEPOLIA,
      address: watched,
      assets: ["native"],
      fromBlock: firstBlock,
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.id as string;
    expect(created.body.backfillNext, "a backfill below the scan's cursor").to.equal(firstBlock);

    // Killed once the backfill has made progress and before it is done.
    let seenAt: number | null = null;
    await until(
      async () => {
        const subscription = (await first.call("GET", `/api/v1/subscriptions/${id}`)).body as { backfillNext: number | null };
        seenAt = subscription.backfillNext;
        return seenAt === null || seenAt > firstBlock;
      },
      "the backfill under way",
      120_000,
      20,
    );
    await first.crash();
    expect(seenAt, "the backfill was under way, not done, when the process died").to.not.equal(null);
    const listedBefore = (await pull(await readerOf(), id)).length;
    expect(listedBefore, "part of the deposits found before the crash").to.be.below(DEPOSITS);

    // Deposits while no process runs are found by the next one.
    for (let index = 0; index < 2; index++) await deposit(1000n + BigInt(index));

    const second = serves.at(-1)!;
    await until(async () => (await pull(second, id)).length === deposits.length, "every deposit listed by the second serve", 120_000, 200);
    const listed = await pull(second, id);
    expect(listed.every((event) => event.type === "chain.activity")).to.equal(true);
    expect(listed.map((event) => event.data.txHash).sort()).to.deep.equal([...deposits].sort());
    expect(new Set(listed.map((event) => event.id)).size, "one id per deposit, none twice").to.equal(deposits.length);
    const subscription = (await second.call("GET", `/api/v1/subscriptions/${id}`)).body as { backfillNext: number | null };
    expect(subscription.backfillNext, "the backfill done").to.equal(null);

    /** A second serve on the same database: it reads the feed, and takes the scan over once the dead one's lease ends. */
    async function readerOf(): Promise<ServeProcess> {
      // No simulated chain: the data directory is not claimed, and the dead process's holds nothing.
      const serve = await startServe({ dataDir, apiKey: API_KEY, env });
      serves.push(serve);
      return serve;
    }
  });
});
