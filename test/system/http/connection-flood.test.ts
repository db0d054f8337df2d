import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { ANVIL_ACCOUNT, startAnvil, type AnvilNode } from "../../helpers/anvil.js";
import { eventually, startServer, TEST_API_KEY, type RunningServer } from "../../helpers/http-server.js";
import { settledRecords } from "../../helpers/records.js";
import { startServe, type ServeProcess } from "../../helpers/serve-process.js";

const API_KEY = "flood-test-key-0123456789";
const PAIR = { chain: "ethereum", network: "sepolia" };

/** What each flooding connection was answered, if anything. */
const received = new WeakMap<Socket, string>();

/** Opens `count` idle TCP connections from `localAddress`; answers them as they stand once all settled. */
async function flood(url: string, localAddress: string, count: number): Promise<Socket[]> {
  const { hostname, port } = new URL(url);
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve) => {
          const socket = connect({ host: hostname, port: Number(port), localAddress });
          socket.on("error", () => undefined);
          socket.on("data", (chunk: Buffer) => received.set(socket, (received.get(socket) ?? "") + chunk.toString("utf8")));
          socket.once("connect", () => resolve(socket));
          socket.once("close", () => resolve(socket));
        }),
    ),
  );
}

describe("serve under a file-descriptor limit (prlimit) and a flood of idle keyless connections", function () {
  let dataDir: string;
  let serve: ServeProcess | undefined;
  let sockets: Socket[] = [];

  before(async function () {
    if (process.platform !== "linux") throw new Error("this test lowers a process's descriptor limit with prlimit (Linux)");
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-flood-"));
  });

  after(async function () {
    for (const socket of sockets) socket.destroy();
    await serve?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("keeps the descriptors its store and journal need: every launch is acknowledged, mined, and back after a restart", async function () {
    serve = await startServe({ dataDir, apiKey: API_KEY, env: { TOKEN_SERVICE_MAX_CONNECTIONS_PER_CLIENT: "20" } });
    execFileSync("prlimit", ["--pid", String(serve.pid), "--nofile=256:256"]);
    expect(execFileSync("prlimit", ["--pid", String(serve.pid), "--nofile", "--noheadings", "--raw"]).toString()).to.match(/256\s+256/);

    // 600 idle connections from one address (127.0.0.2), more than the process may hold descriptors.
    sockets = await flood(serve.baseUrl, "127.0.0.2", 600);
    const open = await eventually(
      async () => sockets.filter((socket) => !socket.destroyed && socket.readyState === "open").length,
      (count) => count <= 20,
      10_000,
    );
    expect(open, "connections the flooding address keeps").to.be.at.most(20);
    const answered = sockets.map((socket) => received.get(socket) ?? "").filter((text) => text.startsWith("HTTP/1.1 429"));
    expect(answered.length, "the connections past the limit are told why").to.be.greaterThan(0);
    expect(answered[0]).to.include('"code":"TOO_MANY_CONNECTIONS"').and.to.include("Retry-After: 1");

    const wallet = (await serve.call("POST", "/api/v1/wallets", PAIR)).body;
    expect((await serve.call("POST", "/api/v1/faucet", { ...PAIR, address: wallet.address })).status).to.equal(200);
    const launches = [];
    for (let index = 0; index < 8; index++) {
      const launched = await serve.call("POST", "/api/v1/tokens?wait=mined", {
        ...PAIR,
        type: "ERC20",
        token: { name: `Flood ${index}`, symbol: `FL${index}` },
        sender: wallet.address,
        privateKey: wallet.privateKey,
      });
      expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
      expect(launched.body.status).to.equal("mined");
      launches.push(launched.body);
    }
    expect(serve.output()).to.not.match(/EMFILE|ENFILE|too many open files/i);
    for (const socket of sockets) socket.destroy();
    sockets = [];

    expect(await serve.stop()).to.equal(0);
    serve = await startServe({ dataDir, apiKey: API_KEY });
    for (const launched of launches) {
      const status = await serve.call("GET", `/api/v1/transactions/${launched.transactionHash}?chain=ethereum&network=sepolia`);
      expect(status.body, launched.contractAddress).to.include({ status: "mined", contractAddress: launched.contractAddress });
    }
  });
});

describe("serve's connection bound across client addresses", function () {
  let api: RunningServer | undefined;
  const sockets: Socket[] = [];

  after(async function () {
    for (const socket of sockets) socket.destroy();
    await api?.stop();
  });

  it("keeps at most TOKEN_SERVICE_MAX_CONNECTIONS open, whichever addresses they come from", async function () {
    api = await startServer({ env: { TOKEN_SERVICE_MAX_CONNECTIONS: "30", TOKEN_SERVICE_MAX_CONNECTIONS_PER_CLIENT: "20" } });
    for (const address of ["127.0.0.3", "127.0.0.4", "127.0.0.5"]) sockets.push(...(await flood(api.baseUrl, address, 20)));
    const open = await eventually(
      async () => sockets.filter((socket) => !socket.destroyed && socket.readyState === "open").length,
      (count) => count <= 30,
      10_000,
    );
    expect(open).to.be.within(20, 30);
  });
});

/** One POST on a connection of its own (no agent, no keep-alive), as a client opening one connection per request does. */
function postOnItsOwnConnection(baseUrl: string, urlPath: string, body: unknown): Promise<{ status: number; body: any }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${baseUrl}${urlPath}`,
      {
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), "x-api-key": TEST_API_KEY },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

describe("serve's per-client connection bound, counted on the chain (anvil)", function () {
  let anvil: AnvilNode | undefined;
  let api: RunningServer | undefined;

  after(async function () {
    await api?.stop();
    await anvil?.stop();
  });

  it("acts on no request of a connection it answers 429: launches on the chain = launches answered 2xx", async function () {
    this.timeout(120_000);
    anvil = await startAnvil({ chainId: 11155111 });
    api = await startServer({ rpcUrls: { "ethereum/sepolia": anvil.url }, env: { TOKEN_SERVICE_MAX_CONNECTIONS_PER_CLIENT: "16" } });
    const sender = ANVIL_ACCOUNT;
    const before = Number(await anvil.rpc("eth_getTransactionCount", [sender.address, "pending"]));

    // 120 launches at once from one address, each on a connection of its own: far more than the 16 it may hold.
    const answers = await Promise.all(
      Array.from({ length: 120 }, (_, index) =>
        postOnItsOwnConnection(api!.baseUrl, "/api/v1/tokens", {
          ...PAIR,
          type: "ERC20",
          token: { name: `Bound ${index}`, symbol: `BD${index}` },
          sender: sender.address,
          privateKey: sender.privateKey,
        }),
      ),
    );
    const accepted = answers.filter((answer) => answer.status >= 200 && answer.status < 300).length;
    const refused = answers.filter((answer) => answer.status === 429);
    const others = answers.filter((answer) => answer.status !== 429 && (answer.status < 200 || answer.status >= 300));
    expect(others, "every answer is a launch or a refusal").to.deep.equal([]);
    expect(refused.length, "connections past the bound were refused").to.be.greaterThan(0);
    for (const answer of refused) expect(answer.body.error.code).to.equal("TOO_MANY_CONNECTIONS");

    // What the node holds: one transaction from the sender per launch answered 2xx, not one more.
    const sent = await eventually(
      async () => Number(await anvil!.rpc("eth_getTransactionCount", [sender.address, "pending"])) - before,
      (count) => count >= accepted,
      30_000,
    );
    expect(sent, `${accepted} launches answered 2xx, ${refused.length} answered 429`).to.equal(accepted);
    // And what the service recorded, once every launch it took is final: a record per launch answered 2xx.
    const records = await settledRecords(api, eventually);
    expect(records.length).to.equal(accepted);
    expect(Number(await anvil.rpc("eth_getTransactionCount", [sender.address, "pending"])) - before).to.equal(accepted);
  });
});
