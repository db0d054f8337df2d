import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

import type { NodeRpc } from "./bitcoind.js";

/** Esplora's targets of `/fee-estimates`. */
const FEE_TARGETS = [...Array.from({ length: 25 }, (_, index) => index + 1), 144, 504, 1008];

interface EsploraStatus {
  confirmed: boolean;
  block_height?: number;
  block_hash?: string;
}

/**
 * A stand-in for an Esplora server (no electrs can run here): a loopback HTTP server answering the Esplora REST routes
 * the backend uses from a real regtest bitcoind's own data, as electrs would index it:
 * - `GET /address/:address/utxo` from a watch-only wallet of its own (the address imported on first sight, with a
 *   rescan from genesis), mempool outputs included, outputs a mempool transaction spends left out;
 * - `POST /tx` through `sendrawtransaction`, a refusal answered `400 sendrawtransaction RPC error: {"code":…,"message":…}`;
 * - `GET /tx/:txid/status` and `/tx/:txid/hex` from the mempool, else a walk of the best chain's blocks (what an index
 *   answers, reorganisations included); an unknown transaction's status is `{"confirmed":false}`, as electrs answers;
 * - `GET /fee-estimates` from `estimatesmartfee` at Esplora's targets (empty on a fresh regtest chain, as electrs's);
 * - `GET /blocks/tip/height` and `/blocks/tip/hash`;
 * - `GET /block-height/:height`, `/block/:hash` and `/block/:hash/txs/:start` (pages of 25, each input with its
 *   `prevout`) from `getblockhash`, `getblockheader` and `getblock <hash> 3`; an unknown block is 404, as electrs answers.
 */
export async function startBitcoindEsplora(rpc: NodeRpc): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const wallet = `esplora-stand-in-${randomBytes(4).toString("hex")}`;
  await rpc("createwallet", { wallet_name: wallet, disable_private_keys: true, blank: true });
  const imported = new Set<string>();
  const requests: string[] = [];

  const bestChainBlockOf = async (txid: string): Promise<{ hash: string; height: number } | undefined> => {
    for (let height = await rpc<number>("getblockcount"); height >= 0; height--) {
      const hash = await rpc<string>("getblockhash", [height]);
      const block = await rpc<{ tx: string[] }>("getblock", [hash, 1]);
      if (block.tx.includes(txid)) return { hash, height };
    }
    return undefined;
  };
  const inMempool = async (txid: string) =>
    rpc("getmempoolentry", [txid]).then(
      () => true,
      () => false,
    );

  const utxos = async (address: string) => {
    if (!imported.has(address)) {
      const { descriptor } = await rpc<{ descriptor: string }>("getdescriptorinfo", [`addr(${address})`]);
      await rpc("importdescriptors", [[{ desc: descriptor, timestamp: 0 }]], wallet);
      imported.add(address);
    }
    await rpc("syncwithvalidationinterfacequeue");
    const unspent = await rpc<Array<{ txid: string; vout: number; amount: number; confirmations: number }>>(
      "listunspent",
      [0, 9_999_999, [address], true],
      wallet,
    );
    const tip = await rpc<number>("getblockcount");
    return Promise.all(
      unspent.map(async (output) => {
        const value = Math.round(output.amount * 1e8);
        if (output.confirmations === 0) return { txid: output.txid, vout: output.vout, value, status: { confirmed: false } };
        const height = tip - output.confirmations + 1;
        const hash = await rpc<string>("getblockhash", [height]);
        return { txid: output.txid, vout: output.vout, value, status: { confirmed: true, block_height: height, block_hash: hash } };
      }),
    );
  };

  const status = async (txid: string): Promise<EsploraStatus> => {
    if (await inMempool(txid)) return { confirmed: false };
    const block = await bestChainBlockOf(txid);
    return block ? { confirmed: true, block_height: block.height, block_hash: block.hash } : { confirmed: false };
  };

  const hex = async (txid: string): Promise<string | undefined> => {
    if (await inMempool(txid)) return rpc<string>("getrawtransaction", [txid, 0]);
    const block = await bestChainBlockOf(txid);
    return block ? rpc<string>("getrawtransaction", [txid, 0, block.hash]) : undefined;
  };

  const feeEstimates = async () => {
    const estimates: Record<string, number> = {};
    for (const target of FEE_TARGETS) {
      const { feerate } = await rpc<{ feerate?: number }>("estimatesmartfee", [target]);
      if (feerate !== undefined) estimates[String(target)] = feerate * 1e5;
    }
    return estimates;
  };

  const known = <T>(call: Promise<T>) => call.catch(() => undefined);
  const blockOf = async (hash: string) => {
    const header = await known(rpc<{ height: number; previousblockhash?: string; nTx: number }>("getblockheader", [hash, true]));
    return header && { id: hash, height: header.height, previousblockhash: header.previousblockhash ?? null, tx_count: header.nTx };
  };
  const esploraOutput = (output: { value: number; scriptPubKey: { address?: string } }) => ({
    ...(output.scriptPubKey.address !== undefined ? { scriptpubkey_address: output.scriptPubKey.address } : {}),
    value: Math.round(output.value * 1e8),
  });
  const blockTransactions = async (hash: string, start: number) => {
    type Output = { value: number; scriptPubKey: { address?: string } };
    const block = await known(
      rpc<{
        tx: Array<{ txid: string; vin: Array<{ coinbase?: string; txid?: string; vout?: number; prevout?: Output }>; vout: Output[] }>;
      }>("getblock", [hash, 3]),
    );
    if (block === undefined || start >= block.tx.length) return undefined;
    return block.tx.slice(start, start + 25).map((tx) => ({
      txid: tx.txid,
      vin: tx.vin.map((input) =>
        input.coinbase !== undefined
          ? { is_coinbase: true, prevout: null }
          : { txid: input.txid, vout: input.vout, is_coinbase: false, prevout: esploraOutput(input.prevout!) },
      ),
      vout: tx.vout.map(esploraOutput),
    }));
  };

  const body = (request: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      let text = "";
      request.on("data", (chunk) => (text += chunk));
      request.on("end", () => resolve(text));
      request.on("error", reject);
    });

  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? "";
    const json = (value: unknown) => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
    const text = (status: number, value: string) => response.writeHead(status, { "content-type": "text/plain" }).end(value);
    let match: RegExpExecArray | null;
    if (request.method === "POST" && path === "/tx") {
      try {
        return text(200, await rpc<string>("sendrawtransaction", [(await body(request)).trim()]));
      } catch (error) {
        const { message, rpcCode } = error as Error & { rpcCode?: number };
        const nodeMessage = message.replace(/^sendrawtransaction: /, "").replace(/ \(-?\d+\)$/, "");
        return text(400, `sendrawtransaction RPC error: ${JSON.stringify({ code: rpcCode, message: nodeMessage })}`);
      }
    }
    if (request.method !== "GET") return text(405, "Method Not Allowed");
    if (path === "/blocks/tip/height") return text(200, String(await rpc<number>("getblockcount")));
    if (path === "/fee-estimates") return json(await feeEstimates());
    if (path === "/blocks/tip/hash") return text(200, await rpc<string>("getbestblockhash"));
    if ((match = /^\/block-height\/(\d+)$/.exec(path))) {
      const hash = await known(rpc<string>("getblockhash", [Number(match[1])]));
      return hash === undefined ? text(404, "Block not found") : text(200, hash);
    }
    if ((match = /^\/block\/([0-9a-f]{64})$/.exec(path))) {
      const block = await blockOf(match[1]!);
      return block === undefined ? text(404, "Block not found") : json(block);
    }
    if ((match = /^\/block\/([0-9a-f]{64})\/txs\/(\d+)$/.exec(path))) {
      const page = await blockTransactions(match[1]!, Number(match[2]));
      return page === undefined ? text(404, "Block not found") : json(page);
    }
    if ((match = /^\/address\/([^/]+)\/utxo$/.exec(path))) return json(await utxos(decodeURIComponent(match[1]!)));
    if ((match = /^\/tx\/([0-9a-f]{64})\/status$/.exec(path))) return json(await status(match[1]!));
    if ((match = /^\/tx\/([0-9a-f]{64})\/hex$/.exec(path))) {
      const found = await hex(match[1]!);
      return found === undefined ? text(404, "Transaction not found") : text(200, found);
    }
    return text(404, "not found");
  };

  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    answer(request, response).catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
