import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Wallet } from "ethers";
import pg from "pg";

import { createTokenServiceClient, launchToken, mintToken, waitForOperation } from "../../../src/client/index.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { startServe, type ServeProcess } from "../../helpers/serve-process.js";
import { startTcpRelay, type TcpRelay } from "../../helpers/tcp-relay.js";

const API_KEY = "custody-key-0123456789";
const pair = { chain: "ethereum", network: "sepolia" } as const;

/** Every spelling of the key a leak could take: hex with and without 0x, either case, and its raw 32 bytes. */
function keyForms(privateKey: string): { text: string[]; bytes: Buffer } {
  const bare = privateKey.slice(2).toLowerCase();
  return { text: [bare, `0x${bare}`, bare.toUpperCase()], bytes: Buffer.from(bare, "hex") };
}

function expectNoKey(where: string, content: Buffer | string, privateKey: string): void {
  const forms = keyForms(privateKey);
  const buffer = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  const text = buffer.toString("latin1").toLowerCase();
  for (const form of forms.text) expect(text.includes(form.toLowerCase()), `${where} holds the private key`).to.equal(false);
  expect(buffer.includes(forms.bytes), `${where} holds the private key's raw bytes`).to.equal(false);
}

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

/** Every row of every table in the schema, as text. */
async function allRows(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
    );
    let dump = "";
    for (const { name } of tables.rows) {
      const rows = await client.query(`select * from "${name}"`);
      dump += `${name}: ${JSON.stringify(rows.rows)}\n`;
    }
    return dump;
  } finally {
    await client.end();
  }
}

for (const variant of ["embedded SQLite", "PostgreSQL"] as const) {
  describe(`keys never leave the caller: the client flow through a recording proxy to a real \`serve\` — ${variant}`, function () {
    let dataDir: string;
    let serve: ServeProcess | undefined;
    let relay: TcpRelay | undefined;
    let database: { url: string; drop(): Promise<void> } | undefined;
    const sent: Buffer[] = [];

    before(async function () {
      dataDir = await mkdtemp(path.join(tmpdir(), "hts-custody-"));
      if (variant === "PostgreSQL") database = await freshPostgresSchema(this, "hts_custody");
      serve = await startServe({
        dataDir,
        apiKey: API_KEY,
        env: { LOG_LEVEL: "trace", ...(database ? { DATABASE_URL: database.url } : {}) },
      });
      const target = new URL(serve.baseUrl);
      relay = await startTcpRelay({ host: target.hostname, port: Number(target.port) }, { recordRequests: (chunk) => sent.push(chunk) });
    });

    after(async function () {
      await relay?.close();
      await serve?.crash().catch(() => undefined);
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it("launches, mints and waits with a fresh key; no request, log line, file or row holds that key", async function () {
      const wallet = Wallet.createRandom();
      const client = createTokenServiceClient({ baseUrl: `http://127.0.0.1:${relay!.port}`, apiKey: API_KEY });
      const funded = await client.POST("/api/v1/faucet", { body: { ...pair, address: wallet.address } });
      expect(funded.response.status).to.equal(200);
      const launched = await launchToken(
        client,
        { ...pair, type: "SERVICE_ERC20", token: { name: "Custody", symbol: "CST", initialSupply: "7" } },
        wallet,
      );
      expect((await waitForOperation(client, launched.id, { timeoutMs: 60_000 })).status).to.equal("mined");
      const minted = await mintToken(
        client,
        { ...pair, type: "ERC20", contractAddress: launched.contractAddress, to: wallet.address, amount: "3" },
        wallet,
        { wait: "mined" },
      );
      expect(minted.status).to.equal("mined");
      // A control: a key sent in the body the document's way is seen by the recording (so the check below can fail).
      const control = Wallet.createRandom();
      await client.POST("/api/v1/faucet", { body: { ...pair, address: control.address } });
      const keyInBody = await client.POST("/api/v1/tokens", {
        body: {
          ...pair,
          type: "ERC20",
          token: { name: "Control", symbol: "CTL" },
          sender: control.address,
          privateKey: control.privateKey,
        },
      });
      expect(keyInBody.response.status).to.equal(200);
      // Shut down cleanly, so that everything it would write is written (the embedded store's log included).
      const running = serve!;
      serve = undefined;
      expect(await running.stop()).to.equal(0);

      const requests = Buffer.concat(sent);
      // The recording saw the flow: the signed transactions went through it, with the sender's address.
      expect(requests.toString("latin1")).to.include('"signedTransaction":"0x').and.to.include(wallet.address);
      expectNoKey("the requests the proxy relayed", requests, wallet.privateKey);
      expect(() => expectNoKey("the requests the proxy relayed", requests, control.privateKey)).to.throw(/holds the private key/);

      const logged = running.output();
      expect(logged).to.include("listening on");
      expectNoKey("the service's stdout and stderr", logged, wallet.privateKey);

      const files = await filesUnder(dataDir);
      for (const file of files) expectNoKey(file, await readFile(file), wallet.privateKey);
      if (variant === "embedded SQLite") {
        const store = await readFile(path.join(dataDir, "store.sqlite"));
        // The record is there (its sender), the key is not.
        expect(store.toString("latin1")).to.include(wallet.address);
      } else {
        const rows = await allRows(database!.url);
        expect(rows.toLowerCase()).to.include(launched.transactionHash.toLowerCase());
        expectNoKey("the PostgreSQL rows", rows, wallet.privateKey);
      }
    });
  });
}
