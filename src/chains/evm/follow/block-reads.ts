// The node reads a head follower makes, as plain JSON-RPC in batches: a block's header, a block's receipts
// (`eth_getBlockReceipts`), and receipts by hash for a node that does not answer that method.

/** A block as following the chain needs it: where it is, and what it follows (a reorg shows as another parent). */
export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  /** The block's base fee (wei): what a transaction's fees are set from; null on a chain without one (legacy gas prices). */
  baseFeePerGas: bigint | null;
}

/** A transaction's receipt as far as following a record needs it: where it was included and whether it succeeded. */
export interface ReceiptSummary {
  blockNumber: number;
  blockHash: string;
  /** 1 succeeded, 0 reverted (null on a pre-Byzantium chain). */
  status: number | null;
}

/** One JSON-RPC batch to the node, each call settling as the node answered it (see `EvmChain.requestAll`). */
export type RequestAll = (calls: ReadonlyArray<{ method: string; params: unknown[] }>) => Promise<Array<PromiseSettledResult<unknown>>>;

type RawHeader = { number?: string; hash?: string; parentHash?: string; baseFeePerGas?: string | null } | null;
type RawReceipt = { transactionHash?: string; blockNumber?: string | null; blockHash?: string | null; status?: string | null } | null;

const quantity = (value: number) => `0x${value.toString(16)}`;

export function headerOf(raw: unknown): BlockHeader | null {
  const block = raw as RawHeader;
  if (block === null || block === undefined || block.number == null || block.hash == null || block.parentHash == null) return null;
  return {
    number: Number(BigInt(block.number)),
    hash: block.hash.toLowerCase(),
    parentHash: block.parentHash.toLowerCase(),
    baseFeePerGas: block.baseFeePerGas == null ? null : BigInt(block.baseFeePerGas),
  };
}

/** A receipt without a block is none yet (as ethers reads it). */
export function summaryOf(raw: unknown): ReceiptSummary | null {
  const receipt = raw as RawReceipt;
  if (receipt === null || receipt === undefined || receipt.blockNumber == null || receipt.blockHash == null) return null;
  return {
    blockNumber: Number(BigInt(receipt.blockNumber)),
    blockHash: receipt.blockHash.toLowerCase(),
    status: receipt.status == null ? null : Number(BigInt(receipt.status)),
  };
}

export const latestHeaderCall = { method: "eth_getBlockByNumber", params: ["latest", false] };
export const headerCall = (number: number) => ({ method: "eth_getBlockByNumber", params: [quantity(number), false] });
export const blockReceiptsCall = (number: number) => ({ method: "eth_getBlockReceipts", params: [quantity(number)] });
export const receiptCall = (hash: string) => ({ method: "eth_getTransactionReceipt", params: [hash] });

/**
 * Whether a node refused a call as a method it does not have (JSON-RPC -32601, or its words for it): `eth_getBlockReceipts`
 * is newer than most nodes' other methods, and some providers leave it out.
 */
export function isMethodNotFound(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== null && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (code === -32601 || code === "UNSUPPORTED_OPERATION") return true;
    if (
      typeof message === "string" &&
      /method .*(not found|not supported|does not exist|not available)|unsupported method/i.test(message)
    ) {
      return true;
    }
    current = (current as { error?: unknown; info?: unknown }).error ?? (current as { info?: { error?: unknown } }).info?.error;
  }
  return false;
}
