import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

import { eventually, startServer, type RunningServer } from "../../helpers/http-server.js";
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
