import { createServer } from "node:http";

import { expect } from "chai";
import { toQuantity } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import type { EvmChain } from "../../src/chains/evm/chain.js";
import { EndpointPool } from "../../src/chains/evm/endpoint-pool.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { expectServiceError } from "../helpers/errors.js";
import { startFaultyRelay, type FaultyRelay } from "../helpers/faulty-relay.js";
import { startServer, TEST_API_KEY } from "../helpers/http-server.js";
import { expectOperationMined, type Pair } from "../helpers/service.js";
import { startTcpRelay, type TcpRelay } from "../helpers/tcp-relay.js";

const SEPOLIA: Pair = { chain: "ethereum", network: "sepolia" };
const SEPOLIA_INFO = resolveNetwork("ethereum", "sepolia") as Parameters<TokenService["evm"]["get"]>[0];

/** Polls `check` until it holds, or fails after `ms`. */
async function eventually(check: () => Promise<boolean> | boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("live endpoints with failover (anvil nodes, relays that fail)", function () {
  this.timeout(120_000);
  let node: AnvilNode;
  /** A node on another chain (Ethereum mainnet's id) where sepolia is configured. */
  let mainnetNode: AnvilNode;
  const services: TokenService[] = [];

  before(async function () {
    [node, mainnetNode] = await Promise.all([startAnvil({ chainId: 11155111 }), startAnvil({ chainId: 1 })]);
  });

  after(async function () {
    await Promise.all(services.map((service) => service.close()));
    await Promise.all([node?.stop(), mainnetNode?.stop()]);
  });

  /** A service whose ethereum/sepolia goes through `endpoints`, in that order. */
  async function serviceOver(endpoints: string[], env: NodeJS.ProcessEnv = {}): Promise<TokenService> {
    const service = await createTokenService({ hre, env, requestTimeoutMs: 5_000, rpcUrls: { "ethereum/sepolia": endpoints } });
    services.push(service);
    return service;
  }

  /** A new wallet with 100 ETH on the node, nonce 0. */
  async function fundedSender(service: TokenService): Promise<{ address: string; privateKey: string }> {
    const wallet = service.createWallet(SEPOLIA);
    await node.rpc("anvil_setBalance", [wallet.address, toQuantity(10n ** 20n)]);
    return wallet;
  }

  const nonceOnNode = async (address: string) => Number(BigInt((await node.rpc("eth_getTransactionCount", [address, "latest"])) as string));

  function launch(service: TokenService, sender: { address: string; privateKey: string }, index: number) {
    return service.launch({
      ...SEPOLIA,
      type: "erc20",
      token: { name: `Failover ${index}`, symbol: `FO${index}`, initialSupply: "1000" },
      sender: sender.address,
      privateKey: sender.privateKey,
    });
  }

  async function statusesOf(service: TokenService) {
    const chain: EvmChain = await service.evm.get(SEPOLIA_INFO);
    return chain.endpointStatuses!();
  }

  describe("a first endpoint that drops (a TCP relay cut mid-test)", function () {
    let relay: TcpRelay;
    let relayed = 0;

    before(async function () {
      relay = await startTcpRelay({ host: "127.0.0.1", port: node.port }, { recordRequests: () => void relayed++ });
    });

    after(async function () {
      await relay?.close();
    });

    it("keeps launching and reading through the second, skips the first while it cools down, and returns to it after", async function () {
      const service = await serviceOver([`http://127.0.0.1:${relay.port}`, node.url], {
        TOKEN_SERVICE_ENDPOINT_FAILURE_THRESHOLD: "2",
        TOKEN_SERVICE_ENDPOINT_COOLDOWN_SECONDS: "1",
      });
      const sender = await fundedSender(service);
      const first = await launch(service, sender, 0);
      await expectOperationMined(service, first);
      expect(relayed, "the first endpoint serves while it is up").to.be.greaterThan(0);
      // Both chain ids were checked on connecting.
      expect((await statusesOf(service)).map((status) => status.state)).to.deep.equal(["up", "up"]);

      await relay.cut();
      const during = await Promise.all([0, 1, 2].map((index) => launch(service, sender, index + 1)));
      const balances = await service.getBalances({
        ...SEPOLIA,
        address: sender.address,
        erc20TokenContractAddresses: [first.contractAddress],
      });
      expect(balances.balances.FO0!.balance).to.equal("1000");
      for (const launched of during) await expectOperationMined(service, launched);
      const [cut, backup] = await statusesOf(service);
      expect(cut!.state).to.equal("down");
      expect(cut!.detail).to.match(/refusing connections|dropped the connection/);
      expect(cut!.failovers).to.be.at.least(1);
      expect(backup!.state).to.equal("up");
      // Four launches, four nonces: none was sent twice, none lost.
      expect(await nonceOnNode(sender.address)).to.equal(4);

      await relay.restore();
      const before = relayed;
      // After its cool-down the first endpoint is tried again (half-open), and serves again once it answers.
      await eventually(async () => {
        await service.getBalances({ ...SEPOLIA, address: sender.address });
        return relayed > before && (await statusesOf(service))[0]!.state === "up";
      }, "the first endpoint is back in use");
      await expectOperationMined(service, await launch(service, sender, 4));
      expect(await nonceOnNode(sender.address)).to.equal(5);
    });
  });

  describe("a relay that answers 429 and 503 for a share of calls", function () {
    let flaky: FaultyRelay;

    before(async function () {
      // Two of every three requests: alternately 429 and 503; the third reaches the node.
      flaky = await startFaultyRelay(node.url, (_methods, index) => (index % 3 === 2 ? "forward" : index % 2 === 0 ? 429 : 503));
    });

    after(async function () {
      await flaky?.close();
    });

    it("launches and reads all succeed, each launch one transaction, the failovers counted", async function () {
      const service = await serviceOver([flaky.url, node.url], { TOKEN_SERVICE_ENDPOINT_FAILURE_THRESHOLD: "1000" });
      const sender = await fundedSender(service);
      const launches = await Promise.all([0, 1, 2, 3, 4].map((index) => launch(service, sender, index)));
      const reads = await Promise.all(launches.map(() => service.getBalances({ ...SEPOLIA, address: sender.address })));
      for (const read of reads) expect(read.simulated).to.equal(false);
      for (const launched of launches) await expectOperationMined(service, launched);
      expect(flaky.faults, "the relay failed some calls").to.be.greaterThan(3);
      expect(await nonceOnNode(sender.address)).to.equal(5);
      for (const launched of launches) {
        const receipt = (await node.rpc("eth_getTransactionReceipt", [launched.transactionHash])) as { status: string };
        expect(receipt.status).to.equal("0x1");
      }
      const [first] = await statusesOf(service);
      expect(first!.failovers).to.be.at.least(3);
      expect(first!.failures).to.be.at.least(3);
    });
  });

  /**
   * Nethermind's words for anvil's refusals, relayed in their place: Nethermind does not run here, so a relay rewords
   * what the real node said, as Nethermind's AcceptTxResult names the same refusals.
   */
  const NETHERMIND_WORDING = {
    reword: (message: string) =>
      message
        .replace(/^.*nonce too low.*$/i, "OldNonce, Current nonce: 1, nonce of rejected tx: 0")
        .replace(/^.*already (imported|known).*$/i, "AlreadyKnown"),
  };

  for (const wording of ["anvil's own words", "Nethermind's words (a relay rewords anvil's)"]) {
    describe(`a broadcast whose answer is lost after the node took it; the next endpoint refuses the echo in ${wording}`, function () {
      let losing: FaultyRelay;
      let reworded: FaultyRelay | undefined;
      let next: string;

      before(async function () {
        losing = await startFaultyRelay(node.url, (methods) => (methods.includes("eth_sendRawTransaction") ? "lose-answer" : "forward"));
        if (wording.startsWith("Nethermind")) reworded = await startFaultyRelay(node.url, () => NETHERMIND_WORDING);
        next = reworded?.url ?? node.url;
      });

      after(async function () {
        await Promise.all([losing?.close(), reworded?.close()]);
      });

      it("sends the same bytes to the next endpoint: 'nonce too low' for a mined one with that hash is success, one transaction", async function () {
        const service = await serviceOver([losing.url, next]);
        const sender = await fundedSender(service);
        const launched = await launch(service, sender, 0);
        // Accepted, not left for the tracker to find out: the second endpoint's refusal was the first one's echo.
        expect(launched.status).to.equal("pending");
        const record = await expectOperationMined(service, launched);
        expect(losing.faults, "the first endpoint took the broadcast and lost its answer").to.be.at.least(1);
        expect(record.transactionHash).to.equal(launched.transactionHash);
        expect(await nonceOnNode(sender.address), "one transaction").to.equal(1);
        const receipt = (await node.rpc("eth_getTransactionReceipt", [launched.transactionHash])) as { status: string };
        expect(receipt.status).to.equal("0x1");
      });

      it("on a node that pools before it mines, 'already imported' from the next endpoint is success too", async function () {
        const service = await serviceOver([losing.url, next]);
        const sender = await fundedSender(service);
        await node.rpc("evm_setAutomine", [false]);
        try {
          const launched = await launch(service, sender, 0);
          expect(launched.status).to.equal("pending");
          const pool = (await node.rpc("txpool_content", [])) as { pending: Record<string, Record<string, { hash: string }>> };
          const pooled = Object.entries(pool.pending).find(([address]) => address.toLowerCase() === sender.address.toLowerCase());
          expect(Object.values(pooled![1]).map((transaction) => transaction.hash)).to.deep.equal([launched.transactionHash]);
          await node.rpc("evm_mine", []);
          await expectOperationMined(service, launched);
        } finally {
          await node.rpc("evm_setAutomine", [true]);
        }
        expect(await nonceOnNode(sender.address), "one transaction").to.equal(1);
      });
    });
  }

  describe("an endpoint on another chain", function () {
    it("is never used: requests go to the next one, and its state names the chain it serves", async function () {
      const wrong = await startFaultyRelay(mainnetNode.url);
      try {
        const service = await serviceOver([wrong.url, node.url]);
        const sender = await fundedSender(service);
        const launched = await launch(service, sender, 0);
        await expectOperationMined(service, launched);
        expect(
          wrong.requests.flat().filter((method) => method !== "eth_chainId"),
          "only asked its chain id",
        ).to.deep.equal([]);
        const [refused, used] = await statusesOf(service);
        expect(refused).to.deep.include({ state: "wrong-chain", detail: "serves chain id 1, expected 11155111" });
        expect(used!.state).to.equal("up");
      } finally {
        await wrong.close();
      }
    });

    it("when every endpoint is on another chain: CHAIN_ID_MISMATCH naming each", async function () {
      const other = await startAnvil({ chainId: 5 });
      try {
        const service = await serviceOver([mainnetNode.url, other.url]);
        const error = await expectServiceError(
          service.getBalances({ ...SEPOLIA, address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" }),
          ErrorCode.CHAIN_ID_MISMATCH,
          "network",
        );
        expect(error.details).to.deep.equal({
          expectedChainId: 11155111,
          reportedChainId: 1,
          endpoints: { [`127.0.0.1:${mainnetNode.port}`]: 1, [`127.0.0.1:${other.port}`]: 5 },
        });
      } finally {
        await other.stop();
      }
    });
  });

  describe("the circuit breaker, on an injected clock", function () {
    it("skips an endpoint that failed N times in a row until its cool-down ends, then tries it once (half-open)", async function () {
      let now = 1_000_000;
      let relayed = 0;
      const relay = await startTcpRelay({ host: "127.0.0.1", port: node.port }, { recordRequests: () => void relayed++ });
      const pool = new EndpointPool("ethereum/sepolia", 11155111, [`http://127.0.0.1:${relay.port}`, node.url], {
        requestTimeoutMs: 5_000,
        policy: { failureThreshold: 2, cooldownMs: 10_000 },
        now: () => now,
      });
      const blockNumber = async () => {
        const [answer] = await pool.send({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] });
        expect(answer).to.have.property("result");
      };
      try {
        await pool.verify();
        await blockNumber();
        expect(pool.statuses().map((status) => status.state)).to.deep.equal(["up", "up"]);
        await relay.cut();
        await blockNumber();
        await blockNumber();
        expect(pool.statuses()[0]).to.include({ state: "down", failures: 2, failovers: 2 });
        // Open: requests go straight to the second endpoint, the first is not even tried.
        for (let index = 0; index < 5; index++) await blockNumber();
        expect(pool.statuses()[0]).to.include({ state: "down", failures: 2, failovers: 2 });

        now += 10_000;
        expect(pool.statuses()[0]!.state).to.equal("half-open");
        // The trial fails (still cut): open again at once, for another cool-down.
        await blockNumber();
        expect(pool.statuses()[0]).to.include({ state: "down", failures: 3 });

        await relay.restore();
        now += 10_000;
        const before = relayed;
        await blockNumber();
        expect(relayed, "the trial reached the first endpoint (its chain id checked, then the request)").to.be.greaterThan(before);
        expect(pool.statuses()[0]!.state).to.equal("up");
      } finally {
        await relay.close();
      }
    });
  });

  describe("one endpoint", function () {
    it("is asked once more after a backoff when it answers 429 (as ethers' own retry did), not after a timeout", async function () {
      const limited = await startFaultyRelay(node.url, (_methods, index) => (index === 1 ? 429 : "forward"));
      const pool = new EndpointPool("ethereum/sepolia", 11155111, [limited.url], { requestTimeoutMs: 5_000 });
      try {
        await pool.verify();
        const [answer] = await pool.send({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] });
        expect(answer).to.have.property("result");
        expect(limited.requests.map((methods) => methods[0])).to.deep.equal(["eth_chainId", "eth_blockNumber", "eth_blockNumber"]);
        expect(pool.statuses()[0]).to.include({ state: "up", failures: 1, failovers: 0 });
      } finally {
        await limited.close();
      }
      // A node that never answers: one wait of the request timeout, not two.
      let asked = 0;
      const silent = createServer(() => void asked++);
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
      try {
        const stuck = new EndpointPool("ethereum/sepolia", 11155111, [url], { requestTimeoutMs: 200 });
        const error = await stuck.send({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }).catch((caught: unknown) => caught);
        expect((error as { code?: string }).code).to.equal("TIMEOUT");
        expect(asked, "asked once (its chain id), not again after the timeout").to.equal(1);
      } finally {
        silent.closeAllConnections();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      }
    });
  });

  describe("over HTTP: /health and /metrics", function () {
    it("show each endpoint's state by host, never its path or key; keyless /health only says ready", async function () {
      const keyed = await startFaultyRelay(node.url);
      const dead = await startFaultyRelay(node.url, () => 503);
      const api = await startServer({
        env: { TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: `${keyed.url}/v2/SECRETKEY123,${dead.url},${mainnetNode.url},${node.url}` },
      });
      try {
        const health = await api.call("GET", "/health");
        expect(health.status).to.equal(200);
        const sepolia = health.body.backends["ethereum/sepolia"];
        expect(sepolia.ready).to.equal(true);
        const host = (url: string) => new URL(url).host;
        expect(sepolia.endpoints.map((endpoint: { endpoint: string; state: string }) => [endpoint.endpoint, endpoint.state])).to.deep.equal(
          [
            [host(keyed.url), "up"],
            [host(dead.url), "failing"],
            [host(mainnetNode.url), "wrong-chain"],
            [host(node.url), "up"],
          ],
        );
        expect(sepolia.endpoints[0].block).to.be.a("number");
        expect(sepolia.endpoints[1].detail).to.include("answered HTTP 503");
        expect(sepolia.endpoints[2].detail).to.equal("serves chain id 1, expected 11155111");
        expect(JSON.stringify(health.body)).not.to.include("SECRETKEY123");

        const keyless = await fetch(`${api.baseUrl}/health`).then((response) => response.json());
        expect(keyless.backends["ethereum/sepolia"]).to.deep.equal({ ready: true });

        const metrics = await (await fetch(`${api.baseUrl}/metrics?apiKey=${TEST_API_KEY}`)).text();
        expect(metrics).to.include(`token_service_rpc_endpoint_up{pair="ethereum/sepolia",endpoint="${host(keyed.url)}"} 1`);
        expect(metrics).to.include(`token_service_rpc_endpoint_up{pair="ethereum/sepolia",endpoint="${host(dead.url)}"} 0`);
        expect(metrics).to.include(
          `token_service_rpc_endpoint_state{pair="ethereum/sepolia",endpoint="${host(mainnetNode.url)}",state="wrong-chain"} 1`,
        );
        expect(metrics).to.match(
          new RegExp(`token_service_rpc_endpoint_failures_total\\{pair="ethereum/sepolia",endpoint="${host(dead.url)}"\\} [1-9]`),
        );
        expect(metrics).not.to.include("SECRETKEY123");
        expect(metrics).not.to.include("/v2/");

        // The first endpoint fails from now on: a launch moves on to the next that serves the chain, and it is counted.
        keyed.setFault(() => 503);
        const { body: wallet } = await api.call("POST", "/api/v1/wallets", SEPOLIA);
        await node.rpc("anvil_setBalance", [wallet.address, toQuantity(10n ** 20n)]);
        const launched = await api.call("POST", "/api/v1/tokens", {
          ...SEPOLIA,
          type: "ERC20",
          token: { name: "Through", symbol: "THR" },
          sender: wallet.address,
          privateKey: wallet.privateKey,
        });
        expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
        const after = await (await fetch(`${api.baseUrl}/metrics?apiKey=${TEST_API_KEY}`)).text();
        expect(after).to.match(
          new RegExp(`token_service_rpc_failovers_total\\{pair="ethereum/sepolia",endpoint="${host(keyed.url)}"\\} [1-9]`),
        );
      } finally {
        await api.stop();
        await keyed.close();
        await dead.close();
      }
    });
  });
});
