import { NO_PREVIOUS_BLOCK, type BitcoinBlockTransaction, type BitcoinOutput } from "./backend.js";

// The shapes of Esplora's block answers, for chain notifications: `GET /block/:hash` (a block's height, previous hash
// and transaction count) and `GET /block/:hash/txs/:start` (a page of 25 transactions, each input with its `prevout`).
// Pure: an answer that is not of that shape names what is missing, and the backend turns it into UPSTREAM_UNAVAILABLE.

/** Esplora's page size for `/block/:hash/txs/:start`. */
export const ESPLORA_BLOCK_PAGE = 25;

export interface EsploraBlock {
  height: number;
  previousHash: string;
  txCount: number;
}

interface RawOutput {
  scriptpubkey_address?: unknown;
  value?: unknown;
}

const isHash = (value: unknown): value is string => typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
const isCount = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** `GET /block/:hash`: the block, or what is wrong with the answer. */
export function parseEsploraBlock(answer: unknown, hash: string): EsploraBlock | string {
  const block = answer as { id?: unknown; height?: unknown; previousblockhash?: unknown; tx_count?: unknown } | null;
  if (typeof block !== "object" || block === null || block.id !== hash) return "a block without its id";
  if (!isCount(block.height) || !isCount(block.tx_count) || block.tx_count === 0) return "a block without height or tx_count";
  if (block.previousblockhash !== null && !isHash(block.previousblockhash) && block.height > 0) return "a block without previousblockhash";
  return {
    height: block.height,
    previousHash: isHash(block.previousblockhash) ? block.previousblockhash : NO_PREVIOUS_BLOCK,
    txCount: block.tx_count,
  };
}

/** `GET /block/:hash/txs/:start`: the page's transactions, or what is wrong with the answer. */
export function parseEsploraTransactions(answer: unknown): BitcoinBlockTransaction[] | string {
  if (!Array.isArray(answer)) return "a page of a block's transactions that is not a list";
  const transactions: BitcoinBlockTransaction[] = [];
  for (const raw of answer as Array<{ txid?: unknown; vin?: unknown; vout?: unknown }>) {
    if (!isHash(raw?.txid) || !Array.isArray(raw.vin) || !Array.isArray(raw.vout)) return "a transaction without txid, vin or vout";
    const inputs: Array<BitcoinOutput | null> = [];
    for (const input of raw.vin as Array<{ is_coinbase?: unknown; prevout?: RawOutput | null }>) {
      if (input?.is_coinbase === true) inputs.push(null);
      else if (typeof input?.prevout !== "object" || input.prevout === null) return "an input without its prevout";
      else {
        const spent = output(input.prevout);
        if (spent === undefined) return "an input's prevout without a value";
        inputs.push(spent);
      }
    }
    const outputs: BitcoinBlockTransaction["outputs"] = [];
    for (const [vout, paidOutput] of (raw.vout as RawOutput[]).entries()) {
      const paid = output(paidOutput);
      if (paid === undefined) return "an output without a value";
      outputs.push({ ...paid, vout });
    }
    transactions.push({ txid: raw.txid, inputs, outputs });
  }
  return transactions;
}

function output(raw: RawOutput | null | undefined): BitcoinOutput | undefined {
  if (!isCount(raw?.value)) return undefined;
  return { address: typeof raw.scriptpubkey_address === "string" ? raw.scriptpubkey_address : null, value: BigInt(raw.value) };
}
