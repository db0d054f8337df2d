import { expect } from "chai";
import { Wallet, type JsonRpcProvider } from "ethers";
import hre from "hardhat";
import pg from "pg";
import type { JsonRpcServer } from "hardhat/types/network";

import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";

// Held wallets across two replicas on one PostgreSQL and one live node (Hardhat's node): one keystore, made once for both;
// a wallet made on one replica signs on the other; concurrent writes split across both take distinct nonces and are all
// mined; a daily limit is shared, so the two together never send past it (counted on the chain).

const SEPOLIA = { chain: "ethereum", network: "sepolia" } as const;
const PASSPHRASE = "the replicas' shared keystore passphrase";
const WRITES = 40;
const ETH = 10n ** 18n;

describe("held wallets on two replicas sharing one PostgreSQL and one live node", function () {
  this.timeout(300_000);
  let node: JsonRpcServer;
  let replicas: RunningServer[] = [];
  let dropSchema: () => Promise<void>;
  let schemaUrl: string;

  before(async function () {
    node = await hre.network.createServer({ override: { chainId: 11155111 } } as never, "127.0.0.1", 0);
    const { port } = await node.listen();
    const schema = await freshPostgresSchema(this, "hts_held_replicas");
    dropSchema = schema.drop;
    schemaUrl = schema.url;
    const env = {
      TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: `http://127.0.0.1:${port}`,
      TOKEN_SERVICE_SIMULATED_CHAINS: "off",
      TOKEN_SERVICE_KEYSTORE_PASSPHRASE: PASSPHRASE,
    };
    replicas = await Promise.all([startServer({ databaseUrl: schema.url, env }), startServer({ databaseUrl: schema.url, env })]);
  });

  after(async function () {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await node?.close();
    await dropSchema?.();
  });

  it("sign for one held wallet without a nonce clash, and share its daily limit", async function () {
    const [first, second] = replicas as [RunningServer, RunningServer];
    // Both make a wallet at once: one keystore comes of it (the second replica opens the one the first made, or the reverse).
    const [a, b] = await Promise.all(
      [first, second].map((replica) => replica.call("POST", "/api/v1/wallets", { ...SEPOLIA, custody: "service" })),
    );
    expect([a!.status, b!.status]).to.deep.equal([201, 201]);
    expect(a!.body.address).to.not.equal(b!.body.address);
    const sender = a!.body.address as string;
    const provider = (await first.server.service.evm.get(first.server.service.chains.resolve("ethereum", "sepolia") as never))
      .provider as JsonRpcProvider;
    await provider.send("hardhat_setBalance", [sender, "0x56BC75E2D63100000"]);

    const recipient = Wallet.createRandom().address;
    const writes = await Promise.all(
      Array.from({ length: WRITES }, (_, index) =>
        (index % 2 === 0 ? first : second).call("POST", "/api/v1/transfers?wait=mined", {
          ...SEPOLIA,
          type: "NATIVE",
          to: recipient,
          amount: String(index + 1),
          sender,
        }),
      ),
    );
    for (const write of writes) expect(write.status, JSON.stringify(write.body)).to.equal(200);
    expect(new Set(writes.map((write) => write.body.nonce)).size, "distinct nonces").to.equal(WRITES);
    expect(writes.every((write) => write.body.status === "mined")).to.equal(true);
    expect(await provider.getTransactionCount(sender, "latest"), "the chain's count").to.equal(WRITES);

    // A daily limit of 5 ETH, and 10 transfers of 1 ETH split across both replicas at once: 5 go through, 5 are refused.
    const limited = await first.call("PUT", `/api/v1/wallets/${sender}/policy`, { maxValuePerDay: (5n * ETH).toString() });
    expect(limited.status).to.equal(200);
    const before = await provider.getBalance(recipient);
    const capped = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        (index % 2 === 0 ? first : second).call("POST", "/api/v1/transfers?wait=mined", {
          ...SEPOLIA,
          type: "NATIVE",
          to: recipient,
          amount: ETH.toString(),
          sender,
        }),
      ),
    );
    const statuses = capped.map((answer) => answer.status).sort();
    expect(statuses, JSON.stringify(capped.map((answer) => answer.body.error?.code ?? answer.body.status))).to.deep.equal([
      200, 200, 200, 200, 200, 403, 403, 403, 403, 403,
    ]);
    expect(capped.filter((answer) => answer.status === 403).every((answer) => answer.body.error.field === "maxValuePerDay")).to.equal(true);
    expect((await provider.getBalance(recipient)) - before, "the chain received five").to.equal(5n * ETH);
  });

  it("keeps an imported key in no row of the shared database, in any encoding", async function () {
    const [, second] = replicas as [RunningServer, RunningServer];
    const key = Wallet.createRandom();
    expect((await second.call("POST", "/api/v1/wallets/import", { ...SEPOLIA, privateKey: key.privateKey })).status).to.equal(201);
    const raw = Buffer.from(key.privateKey.slice(2), "hex");
    const encodings = [key.privateKey.slice(2), key.privateKey.slice(2).toUpperCase(), raw.toString("base64"), raw.toString("base64url")];
    const client = new pg.Client({ connectionString: schemaUrl });
    await client.connect();
    try {
      const tables = await client.query<{ table_name: string }>(
        "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
      );
      expect(tables.rows.map((row) => row.table_name)).to.include.members(["held_wallets", "keystore"]);
      let rows = 0;
      for (const { table_name: table } of tables.rows) {
        const dump = await client.query<{ row: string }>(`select row_to_json(t)::text as row from "${table}" t`);
        rows += dump.rowCount ?? 0;
        for (const { row } of dump.rows) {
          for (const encoding of encodings) expect(row.includes(encoding), `a row of ${table} holds the key`).to.equal(false);
          // bytea columns come out as \x hex: the raw bytes in hex are covered by the first encoding.
        }
      }
      expect(rows, "the database holds rows").to.be.greaterThan(0);
    } finally {
      await client.end();
    }
  });
});
