import { expect } from "chai";
import { Wallet, toQuantity } from "ethers";

import { startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { startServer, type RunningServer } from "../../helpers/http-server.js";
import { freshPostgresSchema } from "../../helpers/postgres-schema.js";
import { until } from "../../helpers/until.js";

// No sender stranded by a prepare it abandons: the writes a key-in-body sender makes above a nonce reserved for a prepared
// transaction carry a zero-value transfer to itself signed at that nonce, sent once the reservation expires unused. On
// an automining simulated chain, anvil mining on send and anvil with 1 s blocks, a prepare is abandoned and 20 writes
// follow it; all are mined within the reservation's TTL plus 10 s, none dropped, and the abandoned submit is refused.

const pair = { chain: "ethereum", network: "sepolia" };
const TTL_SECONDS = 3;
const WRITES = 20;

interface Chain {
  name: string;
  /** What the server is started with for the chain, and how a new sender gets its funds. */
  start(): Promise<{
    options: Parameters<typeof startServer>[0];
    fund(api: RunningServer, address: string): Promise<void>;
    stop(): Promise<void>;
  }>;
}

const faucet = async (api: RunningServer, address: string) => {
  const funded = await api.call("POST", "/api/v1/faucet", { ...pair, address });
  expect(funded.status, JSON.stringify(funded.body)).to.equal(200);
};

const anvil = (name: string, args: string[]): Chain => ({
  name,
  async start() {
    const node: AnvilNode = await startAnvil({ args });
    return {
      options: { rpcUrls: { "ethereum/sepolia": node.url } },
      fund: async (_api, address) => void (await node.rpc("anvil_setBalance", [address, toQuantity(10n ** 19n)])),
      stop: () => node.stop(),
    };
  },
});

const CHAINS: Chain[] = [
  { name: "a simulated chain mining on send", start: async () => ({ options: {}, fund: faucet, stop: async () => undefined }) },
  anvil("anvil mining on send", []),
  anvil("anvil with 1 s blocks", ["--block-time", "1"]),
];

for (const chain of CHAINS) {
  describe(`no sender stranded by an abandoned prepare — ${chain.name}`, function () {
    let api: RunningServer;
    let stopChain: () => Promise<void>;
    let fund: (api: RunningServer, address: string) => Promise<void>;

    before(async function () {
      const started = await chain.start();
      stopChain = started.stop;
      fund = started.fund;
      api = await startServer({ ...started.options, env: { TOKEN_SERVICE_PREPARED_TTL_SECONDS: String(TTL_SECONDS) } });
    });

    after(async function () {
      await api?.stop();
      await stopChain?.();
    });

    it(`prepare, abandon, then ${WRITES} wait=mined key-in-body writes: all mined within the TTL plus 10 s, the gap filled`, async function () {
      const signer = new Wallet(Wallet.createRandom().privateKey);
      await fund(api, signer.address);
      const body = {
        ...pair,
        type: "SERVICE_ERC20",
        token: { name: "Gold", symbol: "GLD", initialSupply: "1000" },
        sender: signer.address,
      };
      const prepared = await api.call("POST", "/api/v1/tokens", body);
      expect(prepared.status, JSON.stringify(prepared.body)).to.equal(200);
      const reserved = prepared.body.unsignedTransaction.nonce as number;
      const deadline = Date.parse(prepared.body.expiresAt) + 10_000;

      const transfer = () =>
        api.call("POST", "/api/v1/transfers?wait=mined", {
          ...pair,
          type: "NATIVE",
          to: Wallet.createRandom().address,
          amount: "1",
          sender: signer.address,
          privateKey: signer.privateKey,
        });
      const settled: Array<PromiseSettledResult<Awaited<ReturnType<typeof transfer>>>> = [];
      for (let index = 0; index < WRITES; index++) {
        transfer().then(
          (value) => void settled.push({ status: "fulfilled", value }),
          (reason: unknown) => void settled.push({ status: "rejected", reason }),
        );
      }
      await until(() => settled.length === WRITES, `${WRITES} wait=mined writes answered (${settled.length} were)`, deadline - Date.now());
      const answers = settled.map((each) => {
        if (each.status === "rejected") throw each.reason;
        return each.value;
      });
      for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answers.map((answer) => answer.body.status)).to.deep.equal(Array(WRITES).fill("mined"));
      const nonces = answers.map((answer) => answer.body.nonce as number).sort((a, b) => a - b);
      expect(nonces).to.deep.equal(Array.from({ length: WRITES }, (_, index) => reserved + 1 + index));

      // The reserved nonce was taken by the zero-value transfer to the sender signed ahead, reported once.
      const filled = api.logs.lines.filter((line) => line.includes('"gap-filled"') && line.includes(signer.address));
      expect(filled, api.logs.text().slice(-4000)).to.have.length(1);
      const records = await Promise.all(answers.map((answer) => api.server.store.getOperation(answer.body.id as string)));
      expect(records.map((record) => record?.status)).to.deep.equal(Array(WRITES).fill("mined"));

      // The abandoned prepare, signed late and submitted: its nonce is used, a clear 409.
      const late = await api.call("POST", "/api/v1/tokens", {
        ...body,
        signedTransaction: await signer.signTransaction(prepared.body.unsignedTransaction),
      });
      expect(late.status, JSON.stringify(late.body)).to.equal(409);
      expect(late.body.error).to.include({ code: "NONCE_TAKEN", field: "signedTransaction" });
      expect(late.body.error.details).to.include({ nonce: reserved, expiresAt: prepared.body.expiresAt });
      expect(late.body.error.message).to.match(/expired at .*zero-value transfer/);
    });
  });
}

describe("no sender stranded: a drop window shorter than the reservation's TTL drops nothing behind it", function () {
  let api: RunningServer;

  before(async function () {
    // The drop window runs out long before the reservation: the writes above it are refused by the chain mining on send
    // ("nonce too high") all that while, and are waiting, not missing.
    api = await startServer({ tracker: { dropAfterMs: 500 }, env: { TOKEN_SERVICE_PREPARED_TTL_SECONDS: String(TTL_SECONDS) } });
  });

  after(async function () {
    await api?.stop();
  });

  it("the writes above a live reservation wait for it, and are mined once its filler took the nonce", async function () {
    const signer = new Wallet(Wallet.createRandom().privateKey);
    await faucet(api, signer.address);
    const body = { ...pair, type: "SERVICE_ERC20", token: { name: "Gold", symbol: "GLD", initialSupply: "1000" }, sender: signer.address };
    const prepared = await api.call("POST", "/api/v1/tokens", body);
    expect(prepared.status, JSON.stringify(prepared.body)).to.equal(200);
    const writes = await Promise.all(
      Array.from({ length: 3 }, () =>
        api.call("POST", "/api/v1/transfers", {
          ...pair,
          type: "NATIVE",
          to: Wallet.createRandom().address,
          amount: "1",
          sender: signer.address,
          privateKey: signer.privateKey,
        }),
      ),
    );
    for (const write of writes) expect(write.body.status, JSON.stringify(write.body)).to.equal("signed");
    const ids = writes.map((write) => write.body.id as string);
    const statuses = () => Promise.all(ids.map(async (id) => (await api.server.store.getOperation(id))?.status));
    const deadline = Date.parse(prepared.body.expiresAt) + 10_000;
    await until(
      async () => (await statuses()).every((status) => status !== "signed" && status !== "pending"),
      "the writes final",
      deadline - Date.now(),
    );
    expect(await statuses()).to.deep.equal(["mined", "mined", "mined"]);
  });
});

describe("no sender stranded: two replicas on one PostgreSQL fill the abandoned nonce once", function () {
  let node: AnvilNode;
  let schema: { url: string; drop(): Promise<void> };
  let replicas: RunningServer[] = [];

  before(async function () {
    node = await startAnvil({ args: ["--block-time", "1"] });
    schema = await freshPostgresSchema(this, "hts_stranded");
    const options = {
      rpcUrls: { "ethereum/sepolia": node.url },
      databaseUrl: schema.url,
      env: { TOKEN_SERVICE_PREPARED_TTL_SECONDS: String(TTL_SECONDS), TOKEN_SERVICE_SIMULATED_CHAINS: "off" },
    };
    replicas = [await startServer(options), await startServer(options)];
  });

  after(async function () {
    for (const replica of replicas) await replica.stop();
    await schema?.drop();
    await node?.stop();
  });

  it(`a prepare on one, ${WRITES} wait=mined writes spread over both: all mined within the TTL plus 10 s, the nonce filled once`, async function () {
    const signer = new Wallet(Wallet.createRandom().privateKey);
    await node.rpc("anvil_setBalance", [signer.address, toQuantity(10n ** 19n)]);
    const prepared = await replicas[0]!.call("POST", "/api/v1/tokens", {
      ...pair,
      type: "SERVICE_ERC20",
      token: { name: "Gold", symbol: "GLD", initialSupply: "1000" },
      sender: signer.address,
    });
    expect(prepared.status, JSON.stringify(prepared.body)).to.equal(200);
    const reserved = prepared.body.unsignedTransaction.nonce as number;
    const deadline = Date.parse(prepared.body.expiresAt) + 10_000;
    const answers: Array<{ status: number; body: any }> = [];
    for (let index = 0; index < WRITES; index++) {
      void replicas[index % 2]!.call("POST", "/api/v1/transfers?wait=mined", {
        ...pair,
        type: "NATIVE",
        to: Wallet.createRandom().address,
        amount: "1",
        sender: signer.address,
        privateKey: signer.privateKey,
      }).then(
        (answer) => void answers.push(answer),
        (error: unknown) => void answers.push({ status: 0, body: String(error) }),
      );
    }
    await until(() => answers.length === WRITES, `${WRITES} writes answered (${answers.length} were)`, deadline - Date.now());
    expect(answers.map((answer) => `${answer.status} ${answer.body.status}`)).to.deep.equal(Array(WRITES).fill("200 mined"));
    expect(answers.map((answer) => answer.body.nonce as number).sort((a, b) => a - b)).to.deep.equal(
      Array.from({ length: WRITES }, (_, index) => reserved + 1 + index),
    );
    expect(Number(await node.rpc("eth_getTransactionCount", [signer.address, "latest"]))).to.equal(reserved + 1 + WRITES);
    const reports = (kind: string) =>
      replicas.flatMap((replica) => replica.logs.lines).filter((line) => line.includes(`"${kind}"`) && line.includes(signer.address));
    expect(reports("gap-filled"), "filled by one replica").to.have.length(1);
    expect(reports("gap-unfilled"), "never reported unfilled").to.have.length(0);
  });
});
