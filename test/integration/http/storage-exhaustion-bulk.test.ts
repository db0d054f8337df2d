import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { expect } from "chai";
import { Wallet, type TransactionRequest } from "ethers";
import pg from "pg";

import { resolveNetwork } from "../../../src/domain/chains.js";
import { toErrorResponse } from "../../../src/http/middleware/errors.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";
import { ownPostgres } from "../../helpers/own-postgres.js";
import { smallDisk, type SmallDisk } from "../../helpers/tmpfs.js";
import { WebhookReceiver } from "../../helpers/webhook-receiver.js";

const PAIR = { chain: "ethereum", network: "sepolia" };
const FAUCET_WEI = "12345";
const ENV = { TOKEN_SERVICE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" };
/** The room left on the disk before each round: the rounds run out of it at different points of different requests. */
const ROOMS_KIB = [512, 256, 128, 96, 64, 48, 32, 24, 16, 12, 8, 4, 0, 64, 16, 0];

interface Answer {
  status: number;
  body: any;
  headers?: Headers | Record<string, string>;
}

const retryAfter = (answer: Answer) =>
  Number(answer.headers instanceof Headers ? answer.headers.get("retry-after") : answer.headers?.["Retry-After"]);

/** One request of the bulk: what it was, how it was answered, and how to send it again (the same body and key). */
interface Attempt {
  kind: string;
  label: string;
  answer: Answer;
  again: () => Promise<Answer>;
}

/** Where the store lives, and what fills up. */
interface Variant {
  name: string;
  diskSize: string;
  /** The data directory and the database's URL (none: the embedded store) for a disk that fills up. */
  setUp(disk: SmallDisk): Promise<{ dataDir: string; databaseUrl?: string; tearDown(): Promise<void> }>;
  /** Codes a refusal may carry: a PostgreSQL server that panics on its full disk is unreachable for a while. */
  codes: string[];
  /** Kinds of request the full disk refuses some of, at least (PostgreSQL's small tables keep room in their pages). */
  refusing: string[];
}

/** The store's rows, read while the service is stopped (`$1` parameters). */
type ReadRows = (query: string, parameters?: string[]) => Promise<Array<Record<string, any>>>;

const embedded: Variant & { rowsOf(disk: SmallDisk): ReadRows } = {
  name: "the embedded store in the data directory, on the disk",
  diskSize: "24m",
  setUp: async (disk) => ({ dataDir: disk.path, tearDown: async () => undefined }),
  rowsOf:
    (disk) =>
    async (query, parameters = []) => {
      const db = new DatabaseSync(path.join(disk.path, "store.sqlite"), { readOnly: true });
      try {
        return db.prepare(query.replace(/\$\d+/g, "?")).all(...parameters) as Array<Record<string, any>>;
      } finally {
        db.close();
      }
    },
  codes: ["STORAGE_UNAVAILABLE"],
  refusing: ["launch", "webhook", "apikey"],
};

const postgres: Variant = {
  name: "a PostgreSQL server whose cluster is on the disk (the journals elsewhere)",
  diskSize: "96m",
  async setUp(disk) {
    const server = await ownPostgres({ under: disk.path, initdbArgs: ["--wal-segsize=1"] });
    const dataDir = await mkdtemp(path.join(tmpdir(), "hts-bulk-"));
    return {
      dataDir,
      databaseUrl: server.url,
      async tearDown() {
        server.remove();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  },
  codes: ["STORAGE_UNAVAILABLE", "SERVICE_UNAVAILABLE"],
  refusing: ["launch", "prepare"],
};

async function postgresRows(url: string, query: string, parameters: string[] = []): Promise<Array<Record<string, any>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(query, parameters)).rows;
  } finally {
    await client.end();
  }
}

for (const variant of [embedded, postgres])
  describe(`a bulk of every kind of request while a disk fills up at varied points (a real tmpfs): ${variant.name}`, function () {
    this.timeout(300_000);
    let disk: SmallDisk;
    let api: RunningServer | undefined;
    let setup: Awaited<ReturnType<Variant["setUp"]>> | undefined;
    const receiver = new WebhookReceiver("ok", { checkEvents: false });

    before(async function () {
      disk = await smallDisk(variant.diskSize);
      setup = await variant.setUp(disk);
      await receiver.listen();
    });

    after(async function () {
      await api?.stop({ keepData: true });
      await setup?.tearDown();
      await disk?.remove();
      await receiver.close();
    });

    it("answers every request 2xx or 503 with the documented code, never 500; a 503 leaves nothing behind; every acknowledged write survives a restart; writes run again once there is room", async function () {
      const serve = () =>
        startServer({
          dataDir: setup!.dataDir,
          env: ENV,
          ...(setup!.databaseUrl !== undefined ? { databaseUrl: setup!.databaseUrl } : {}),
        });
      const readRows: ReadRows =
        setup!.databaseUrl === undefined
          ? embedded.rowsOf(disk)
          : (query, parameters) => postgresRows(setup!.databaseUrl!, query, parameters);
      api = await serve();
      const call = async (method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Answer> => {
        try {
          return await api!.call(method, url, body, headers);
        } catch (error) {
          // An answer /openapi.json does not document (a 500 among them) is a finding, with what it said.
          return { status: -1, body: { error: { code: "UNDOCUMENTED", message: String(error) } } };
        }
      };
      const storeCall = async (work: () => Promise<unknown>): Promise<Answer> => {
        try {
          return { status: 200, body: await work() };
        } catch (error) {
          // What the HTTP service would answer for it (the store call apikey:create makes raises the same error).
          return toErrorResponse(error);
        }
      };

      const signer = Wallet.createRandom();
      const preparer = Wallet.createRandom();
      const setupIds: string[] = [];
      for (const address of [signer.address, preparer.address]) {
        const funded = await call("POST", "/api/v1/faucet", { ...PAIR, address, amount: "1000000000000000000000" });
        expect(funded.status).to.equal(200);
        setupIds.push(funded.body.id);
      }
      const keyed = { sender: signer.address, privateKey: signer.privateKey };
      const art = await call("POST", "/api/v1/tokens?wait=mined", {
        ...PAIR,
        type: "ERC721",
        token: { name: "Art", symbol: "ART" },
        ...keyed,
      });
      expect(art.body.status, JSON.stringify(art.body)).to.equal("mined");
      setupIds.push(art.body.id);
      // Subscribed: every state change of this key's records queues an event in the same transaction (the outbox).
      expect((await call("POST", "/api/v1/webhooks", { url: receiver.url(), events: ["operation.mined"] })).status).to.equal(201);

      const attempts: Attempt[] = [];
      const preparedNonces: number[] = [];
      const write = (kind: string, label: string, url: string, body: Record<string, unknown>) => {
        const send = () => call("POST", url, body, { "Idempotency-Key": `${kind}-${label}` });
        return send().then((answer) => attempts.push({ kind, label, answer, again: send }));
      };
      const prepareAndSubmit = async (label: string) => {
        const body = { ...PAIR, type: "ERC20", token: { name: `Prepared ${label}`, symbol: "PRE" }, sender: preparer.address };
        const prepared = await call("POST", "/api/v1/tokens", body);
        attempts.push({ kind: "prepare", label, answer: prepared, again: () => call("POST", "/api/v1/tokens", body) });
        if (prepared.status !== 200) return;
        preparedNonces.push(prepared.body.unsignedTransaction.nonce);
        const signedTransaction = await preparer.signTransaction(prepared.body.unsignedTransaction as TransactionRequest);
        const submit = () => call("POST", "/api/v1/tokens", { ...body, signedTransaction });
        attempts.push({ kind: "submit", label, answer: await submit(), again: submit });
      };
      const createApiKey = (label: string) => {
        const send = () => storeCall(() => api!.server.store.createApiKey(`bulk ${label}`));
        return send().then((answer) => attempts.push({ kind: "apikey", label, answer, again: send }));
      };
      const simple = (kind: string, label: string, send: () => Promise<Answer>) =>
        send().then((answer) => attempts.push({ kind, label, answer, again: send }));

      for (const [round, room] of ROOMS_KIB.entries()) {
        disk.fillLeaving(room * 1024);
        const acknowledged = attempts.find((attempt) => attempt.kind === "launch" && attempt.answer.status === 200);
        await Promise.all([
          ...[0, 1].map((index) =>
            write("launch", `${round}.${index}`, "/api/v1/tokens", {
              ...PAIR,
              type: "ERC20",
              token: { name: `Bulk ${round}.${index}`, symbol: "BLK" },
              ...keyed,
            }),
          ),
          write("mint", `${round}`, "/api/v1/tokens/mint", {
            ...PAIR,
            type: "ERC721",
            contractAddress: art.body.contractAddress,
            to: Wallet.createRandom().address,
            ...keyed,
          }),
          write("transfer", `${round}`, "/api/v1/transfers", {
            ...PAIR,
            type: "NATIVE",
            to: Wallet.createRandom().address,
            amount: String(1000 + round),
            ...keyed,
          }),
          prepareAndSubmit(`${round}`),
          write("faucet", `${round}`, "/api/v1/faucet", { ...PAIR, address: Wallet.createRandom().address, amount: FAUCET_WEI }),
          simple("webhook", `${round}`, () =>
            call("POST", "/api/v1/webhooks", { url: `${receiver.url()}?round=${round}`, events: ["operation.failed"] }),
          ),
          createApiKey(`${round}`),
          simple("wallet", `${round}`, () => call("POST", "/api/v1/wallets", PAIR)),
          simple("list", `${round}`, () => call("GET", "/api/v1/operations?limit=5")),
          ...(acknowledged === undefined
            ? []
            : [simple("read", `${round}`, () => call("GET", `/api/v1/operations/${acknowledged.answer.body.id}`))]),
        ]);
      }
      disk.unfill();

      const describeAttempt = (attempt: Attempt) =>
        `${attempt.kind} ${attempt.label}: ${attempt.answer.status} ${JSON.stringify(attempt.answer.body)}`;
      const refused = attempts.filter((attempt) => attempt.answer.status === 503);
      const wrong = attempts.filter(
        (attempt) =>
          !(attempt.answer.status >= 200 && attempt.answer.status < 300) &&
          !(attempt.answer.status === 503 && variant.codes.includes(attempt.answer.body.error?.code) && retryAfter(attempt.answer) > 0),
      );
      expect(
        wrong.length,
        `answers other than 2xx or 503 ${variant.codes.join(" or ")}:\n${wrong.map(describeAttempt).join("\n")}`,
      ).to.equal(0);
      expect(refused.length, "the disk filled up during the bulk").to.be.greaterThan(5);
      const refusedKinds = new Set(refused.map((attempt) => attempt.kind));
      for (const kind of variant.refusing) expect(refusedKinds, `some ${kind} refused`).to.include(kind);

      // Room again: the service says so by itself, and every refused write, sent again with its key, runs.
      await eventually(
        () => api!.call("GET", "/health"),
        (answer) => answer.status === 200 && answer.body.backends.storage.ready === true,
        10_000,
      );
      for (const attempt of refused.filter((each) => each.kind !== "prepare")) {
        // A key whose release the full disk refused is freed by the service's next try (409 IN_PROGRESS says retry).
        const again = await eventually(
          () => attempt.again(),
          (answer) => answer.body.error?.code !== "IDEMPOTENCY_IN_PROGRESS",
          10_000,
        );
        expect(again.status, `${attempt.kind} ${attempt.label} again: ${JSON.stringify(again.body)}`).to.be.within(200, 299);
        attempt.answer = again;
      }
      const accepted = (kind: string) => attempts.filter((attempt) => attempt.kind === kind && attempt.answer.status < 300);
      const sends = ["launch", "mint", "transfer", "submit"].flatMap((kind) => accepted(kind));
      const sendIds = sends.map((attempt) => attempt.answer.body.id as string);
      for (const id of sendIds)
        await eventually(
          () => api!.call("GET", `/api/v1/operations/${id}`),
          (answer) => answer.body.status === "mined",
          60_000,
        );
      // The outbox: each mined record's event was queued with its change, and is delivered.
      await eventually(
        async () => new Set(receiver.received.filter((event) => event.json.type === "operation.mined").map((event) => event.json.data.id)),
        (delivered) => sendIds.every((id) => delivered.has(id)),
        60_000,
      );

      await api.stop({ keepData: true });
      // What a refused request left: nothing live. Its record, where one was written before the refusal, is `failed`; no
      // reservation but the acknowledged prepares'; no key twice.
      const rows = await readRows("select id, status, error from operations");
      const live = rows.filter((row) => row.status !== "failed");
      const acknowledgedIds = [...setupIds, ...sendIds, ...accepted("faucet").map((attempt) => attempt.answer.body.id as string)];
      expect(live.map((row) => row.id).sort(), "every record not failed is an acknowledged one").to.deep.equal(acknowledgedIds.sort());
      for (const row of rows.filter((each) => each.status === "failed")) {
        const error = typeof row.error === "string" ? JSON.parse(row.error) : row.error;
        expect(variant.codes, `failed record ${row.id}: ${JSON.stringify(error)}`).to.include(error?.code);
      }
      const reserved = await readRows("select nonce from nonce_reservations where sender = $1", [preparer.address]);
      expect(
        reserved.map((row) => Number(row.nonce)).sort((a, b) => a - b),
        "reservations: the acknowledged prepares'",
      ).to.deep.equal([...preparedNonces].sort((a, b) => a - b));
      const labels = await readRows("select label from api_keys where label like 'bulk %'");
      expect(labels.map((row) => row.label).sort(), "api keys: each once").to.deep.equal(
        accepted("apikey")
          .map((attempt) => `bulk ${attempt.label}`)
          .sort(),
      );
      const hooks = await readRows("select url from webhooks where url like '%round=%'");
      expect(hooks.map((row) => row.url).sort(), "webhooks: each once").to.deep.equal(
        accepted("webhook")
          .map((attempt) => `${receiver.url()}?round=${attempt.label}`)
          .sort(),
      );

      // A restart finds everything it acknowledged, and the chain holds each send once.
      api = await serve();
      for (const id of sendIds) expect((await api.call("GET", `/api/v1/operations/${id}`)).body.status, id).to.equal("mined");
      for (const attempt of accepted("webhook"))
        expect((await api.call("GET", `/api/v1/webhooks/${attempt.answer.body.id}`)).status, attempt.label).to.equal(200);
      for (const attempt of accepted("apikey"))
        expect(await api.server.store.verifyApiKey(attempt.answer.body.key), attempt.label).to.equal(attempt.answer.body.id);
      const chain = await api.server.service.evmChain(resolveNetwork(PAIR.chain, PAIR.network), "read");
      const signerSends = 1 + accepted("launch").length + accepted("mint").length + accepted("transfer").length;
      expect(await chain.provider.getTransactionCount(signer.address), "the key's sends, each once").to.equal(signerSends);
      expect(await chain.provider.getTransactionCount(preparer.address), "the submits, each once").to.equal(accepted("submit").length);
      for (const attempt of accepted("faucet"))
        expect(String(await chain.provider.getBalance(attempt.answer.body.address)), `faucet ${attempt.label}: granted once`).to.equal(
          FAUCET_WEI,
        );
      for (const attempt of accepted("launch"))
        expect(await chain.provider.getCode(attempt.answer.body.contractAddress), attempt.label).to.not.equal("0x");
    });
  });
