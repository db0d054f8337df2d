import { createServer, type Server } from "node:http";

import { expect } from "chai";

import { EsploraBackend } from "../../../src/chains/bitcoin/esplora.js";
import { bitcoinLibraries } from "../../../src/chains/bitcoin/libraries.js";
import { ErrorCode } from "../../../src/domain/errors.js";
import { expectServiceError } from "../../helpers/errors.js";

const TXID = "a".repeat(64);
const BLOCK = "0".repeat(16) + "b".repeat(48);
const ADDRESS = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";

/** Answers per "METHOD path", as mempool.space and electrs word them; anything else is a 500. */
class ScriptedEsplora {
  readonly requests: Array<{ route: string; body: string }> = [];
  routes = new Map<string, { status: number; body: string }>();
  private server: Server | undefined;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        const route = `${request.method} ${request.url}`;
        this.requests.push({ route, body });
        const answer = this.routes.get(route) ?? { status: 500, body: "unscripted" };
        response.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/api`;
  }

  answer(route: string, status: number, body: unknown): void {
    this.routes.set(route, { status, body: typeof body === "string" ? body : JSON.stringify(body) });
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe("bitcoin sends through Esplora (scripted answers on a local HTTP server)", function () {
  const esplora = new ScriptedEsplora();
  let backend: EsploraBackend;

  before(async function () {
    await esplora.start();
    backend = new EsploraBackend({ baseUrl: esplora.url, timeoutMs: 2_000 });
  });
  after(() => esplora.stop());
  beforeEach(function () {
    esplora.routes.clear();
    esplora.requests.length = 0;
  });

  it("lists an address's coins with confirmations counted from the tip; a mempool coin has 0", async function () {
    esplora.answer(`GET /api/address/${ADDRESS}/utxo`, 200, [
      { txid: TXID, vout: 1, value: 125_000, status: { confirmed: true, block_height: 100, block_hash: BLOCK, block_time: 1 } },
      { txid: "c".repeat(64), vout: 0, value: 5_000, status: { confirmed: false } },
    ]);
    esplora.answer("GET /api/blocks/tip/height", 200, "104");
    expect(await backend.listUnspent(ADDRESS)).to.deep.equal([
      { txid: TXID, vout: 1, value: 125_000n, confirmations: 5 },
      { txid: "c".repeat(64), vout: 0, value: 5_000n, confirmations: 0 },
    ]);
  });

  it("refuses a utxo list it cannot read or that is over electrs's cap as UPSTREAM_UNAVAILABLE, an address Esplora rejects as INVALID_ADDRESS", async function () {
    esplora.answer(`GET /api/address/${ADDRESS}/utxo`, 200, [{ txid: TXID, vout: 0, value: 1.5, status: { confirmed: false } }]);
    esplora.answer("GET /api/blocks/tip/height", 200, "104");
    await expectServiceError(backend.listUnspent(ADDRESS), ErrorCode.UPSTREAM_UNAVAILABLE, undefined);
    esplora.answer(`GET /api/address/${ADDRESS}/utxo`, 400, "Invalid Bitcoin address");
    await expectServiceError(backend.listUnspent(ADDRESS), ErrorCode.INVALID_ADDRESS, "address");
    // electrs's cap on one listing is no fault of the address.
    esplora.answer(
      `GET /api/address/${ADDRESS}/utxo`,
      400,
      "Too many unspent transaction outputs (>500). Contact support to raise limits.",
    );
    const capped = await expectServiceError(backend.listUnspent(ADDRESS), ErrorCode.UPSTREAM_UNAVAILABLE, undefined);
    expect(capped.message).to.match(/will not list that much/);
  });

  it("broadcasts with POST /tx, the hex as the body, and answers Esplora's txid", async function () {
    esplora.answer("POST /api/tx", 200, TXID);
    expect(await backend.broadcast("0200")).to.equal(TXID);
    expect(esplora.requests[0]).to.deep.equal({ route: "POST /api/tx", body: "0200" });
  });

  it("types the node's refusal Esplora passes on, and treats 'already in the chain' as success with the transaction's own txid", async function () {
    esplora.answer("POST /api/tx", 400, 'sendrawtransaction RPC error: {"code":-26,"message":"min relay fee not met, 110 < 141"}');
    const refused = await expectServiceError(backend.broadcast("0200"), ErrorCode.TRANSACTION_REJECTED, undefined);
    expect(refused.details).to.deep.include({
      reason: "fee-too-low",
      retryable: false,
      rpcCode: -26,
      nodeMessage: "min relay fee not met, 110 < 141",
    });

    const { lib } = bitcoinLibraries();
    const tx = new lib.Transaction();
    tx.addInput(Buffer.alloc(32, 7), 0);
    tx.addOutput(Buffer.from("0014751e76e8199196d454941c45d1b3a323f1433bd6", "hex"), 1_000n);
    esplora.answer("POST /api/tx", 400, 'sendrawtransaction RPC error: {"code":-27,"message":"Transaction outputs already in utxo set"}');
    expect(await backend.broadcast(tx.toHex())).to.equal(tx.getId());

    esplora.answer("POST /api/tx", 503, "Service Unavailable");
    await expectServiceError(backend.broadcast("0200"), ErrorCode.UPSTREAM_UNAVAILABLE, undefined);
  });

  it("tells confirmed, mempool and unknown apart: Esplora answers {confirmed:false} for both of the latter", async function () {
    esplora.answer(`GET /api/tx/${TXID}/status`, 200, { confirmed: true, block_height: 100, block_hash: BLOCK, block_time: 1 });
    esplora.answer("GET /api/blocks/tip/height", 200, "102");
    expect(await backend.transactionStatus(TXID)).to.deep.equal({
      state: "confirmed",
      blockHeight: 100,
      blockHash: BLOCK,
      confirmations: 3,
    });

    esplora.answer(`GET /api/tx/${TXID}/status`, 200, { confirmed: false });
    esplora.answer(`GET /api/tx/${TXID}/hex`, 200, "0200");
    expect(await backend.transactionStatus(TXID)).to.deep.equal({ state: "mempool" });
    esplora.answer(`GET /api/tx/${TXID}/hex`, 404, "Transaction not found");
    expect(await backend.transactionStatus(TXID)).to.deep.equal({ state: "unknown" });
    expect(await backend.transactionHex(TXID)).to.equal(undefined);
    await expectServiceError(backend.transactionStatus("not-a-txid"), ErrorCode.INVALID_ARGUMENT, "txid");
  });

  it("picks the estimate of the largest target within the one asked, never below the 1 sat/vB floor, the floor with no estimate", async function () {
    // mempool.space's shape: targets 1 to 25, 144, 504, 1008.
    const estimates: Record<string, number> = { "144": 2.016, "504": 1.003, "1008": 0.5 };
    for (let target = 1; target <= 25; target++) estimates[String(target)] = 30 - target;
    esplora.answer("GET /api/fee-estimates", 200, estimates);
    expect(await backend.feeRate(1)).to.equal(29);
    expect(await backend.feeRate(6)).to.equal(24);
    expect(await backend.feeRate(100)).to.equal(5);
    expect(await backend.feeRate(144)).to.equal(2.016);
    expect(await backend.feeRate(2000)).to.equal(1);
    esplora.answer("GET /api/fee-estimates", 200, { "3": 4.1234567 });
    expect(await backend.feeRate(1)).to.equal(4.124);
    esplora.answer("GET /api/fee-estimates", 200, {});
    expect(await backend.feeRate(6)).to.equal(1);
  });
});
