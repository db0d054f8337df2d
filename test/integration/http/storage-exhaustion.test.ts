import { expect } from "chai";

import { resolveNetwork } from "../../../src/domain/chains.js";
import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { smallDisk, type SmallDisk } from "../../helpers/tmpfs.js";

const PAIR = { chain: "ethereum", network: "sepolia" };

describe("serve with its data directory on a disk that fills up (a real tmpfs, the embedded store)", function () {
  let disk: SmallDisk;
  let api: RunningServer | undefined;

  before(async function () {
    disk = await smallDisk("16m");
  });

  after(async function () {
    await api?.stop({ keepData: true });
    await disk?.remove();
  });

  it("answers 503 STORAGE_UNAVAILABLE with Retry-After, says so in /health and /metrics, frees the key, recovers without a restart, and loses nothing it acknowledged", async function () {
    api = await startServer({ dataDir: disk.path });
    const wallet = (await api.call("POST", "/api/v1/wallets", PAIR)).body;
    expect((await api.call("POST", "/api/v1/faucet", { ...PAIR, address: wallet.address })).status).to.equal(200);
    const launch = (name: string, key: string) =>
      api!.call(
        "POST",
        "/api/v1/tokens",
        { ...PAIR, type: "ERC20", token: { name, symbol: "DISK" }, sender: wallet.address, privateKey: wallet.privateKey },
        { "Idempotency-Key": key },
      );
    const acknowledged = [(await launch("Before", "disk-before")).body];
    expect(acknowledged[0].status).to.equal("pending");

    disk.fill();
    const refused = await launch("During", "disk-during");
    expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
    expect(refused.body.error.code).to.equal("STORAGE_UNAVAILABLE");
    expect(Number(refused.headers.get("retry-after"))).to.be.greaterThan(0);
    const health = await eventually(
      () => api!.call("GET", "/health"),
      (answer) => answer.status === 503,
      10_000,
    );
    expect(health.body.backends.storage.ready).to.equal(false);
    // Readiness says why writes cannot be accepted.
    const readiness = await api.call("GET", "/health/ready");
    expect(readiness.status).to.equal(503);
    expect(
      readiness.body.reasons.some((reason: string) => reason.startsWith("storage: ")),
      JSON.stringify(readiness.body.reasons),
    ).to.equal(true);
    expect((await api.call("GET", "/metrics")).body).to.match(/^token_service_storage_ready 0$/m);
    expect(api.logs.text().match(/storage unavailable/g), "logged once").to.have.length(1);

    disk.unfill();
    const retried = await launch("During", "disk-during");
    expect(retried.status, `the key is free again: ${JSON.stringify(retried.body)}`).to.equal(200);
    acknowledged.push(retried.body);
    await eventually(
      () => api!.call("GET", "/health"),
      (answer) => answer.status === 200 && answer.body.backends.storage.ready === true,
      10_000,
    );
    for (const launched of acknowledged)
      await eventually(
        () => api!.call("GET", `/api/v1/operations/${launched.id}`),
        (answer) => answer.body.status === "mined",
        30_000,
      );

    await api.stop({ keepData: true });
    api = await startServer({ dataDir: disk.path });
    const chain = await api.server.service.evmChain(resolveNetwork(PAIR.chain, PAIR.network), "read");
    expect(await chain.provider.getTransactionCount(wallet.address), "two launches, none twice").to.equal(2);
    for (const launched of acknowledged) {
      expect(await chain.provider.getCode(launched.contractAddress), launched.contractAddress).to.not.equal("0x");
      expect((await api.call("GET", `/api/v1/operations/${launched.id}`)).body.status).to.equal("mined");
    }
  });
});

describe("a burst of launches while the data directory fills up, with the store on PostgreSQL (a real tmpfs under the journal)", function () {
  let disk: SmallDisk;
  let api: RunningServer | undefined;
  let schema: { url: string; drop(): Promise<void> };

  before(async function () {
    schema = await freshPostgresSchema(this, "hts_full_disk");
    disk = await smallDisk("16m");
  });

  after(async function () {
    await api?.stop({ keepData: true });
    await disk?.remove();
    await schema?.drop();
  });

  it("acknowledges only what it journaled: every 200/202 is on chain after a restart, every 503 is retried once with its key, none twice", async function () {
    api = await startServer({ dataDir: disk.path, databaseUrl: schema.url });
    const wallet = (await api.call("POST", "/api/v1/wallets", PAIR)).body;
    await api.call("POST", "/api/v1/faucet", { ...PAIR, address: wallet.address });
    const body = (index: number) => ({
      ...PAIR,
      type: "ERC20",
      token: { name: `Burst ${index}`, symbol: `BU${index}` },
      sender: wallet.address,
      privateKey: wallet.privateKey,
    });
    const launch = (index: number) => api!.call("POST", "/api/v1/tokens", body(index), { "Idempotency-Key": `burst-${index}` });
    const first = await Promise.all(Array.from({ length: 10 }, (_, index) => launch(index)));
    disk.fill();
    const during = await Promise.all(Array.from({ length: 10 }, (_, index) => launch(10 + index)));
    disk.unfill();
    const answers = [...first, ...during];
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).to.be.oneOf([200, 202, 503]);
    const refused = answers.flatMap((answer, index) => (answer.status === 503 ? [index] : []));
    expect(refused.length, "the full disk refused some of the burst").to.be.greaterThan(0);
    for (const index of refused) expect(answers[index]!.body.error.code).to.equal("STORAGE_UNAVAILABLE");
    // The refused ones, retried with their keys now that there is room, run (no key stays stuck).
    for (const index of refused) {
      const retried = await launch(index);
      expect(retried.status, JSON.stringify(retried.body)).to.be.oneOf([200, 202]);
      answers[index] = retried;
    }
    await api.stop({ keepData: true });
    api = await startServer({ dataDir: disk.path, databaseUrl: schema.url });
    const chain = await api.server.service.evmChain(resolveNetwork(PAIR.chain, PAIR.network), "read");
    expect(await chain.provider.getTransactionCount(wallet.address), "20 intents, 20 launches").to.equal(20);
    for (const answer of answers)
      expect(await chain.provider.getCode(answer.body.contractAddress), answer.body.contractAddress).to.not.equal("0x");
  });
});
