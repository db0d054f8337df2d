import type { BitcoinTransactionStatus } from "./backend.js";
import { broadcastRefused, isAlreadyKnown } from "./broadcast-refusals.js";
import { type BitcoindRpc, RpcCode, isRpcError } from "./bitcoind-rpc.js";
import type { NodeWallets } from "./node-wallets.js";
import { btcPerKvbToSatPerVbyte, ownTxid, requireTxid } from "./transactions.js";
import { FEE_RATE_FLOOR } from "./tx-size.js";

/** Bitcoin Core's codes for a transaction it refuses (rpc/protocol.h). */
const REFUSAL_CODES: readonly number[] = [
  RpcCode.DESERIALIZATION_ERROR,
  RpcCode.VERIFY_ERROR,
  RpcCode.VERIFY_REJECTED,
  RpcCode.VERIFY_ALREADY_IN_CHAIN,
];

interface WalletTransaction {
  confirmations: number;
  blockhash?: string;
  hex?: string;
}

/** Lets the wallets take in the notifications the node already sent, so a wallet read reflects every accepted transaction and block. */
export async function settleNotifications(rpc: BitcoindRpc): Promise<void> {
  try {
    await rpc.call("syncwithvalidationinterfacequeue");
  } catch (error) {
    // A hidden RPC: a node without it only makes wallet reads lag by a moment.
    if (!isRpcError(error)) throw error;
  }
}

/**
 * Broadcast, tracking and fee reads of the bitcoind backend. Errors the node reports come out as BitcoindRpcError
 * (the backend explains them) except broadcast refusals, typed here.
 *
 * Without `-txindex` a node finds a mined transaction by txid only through a wallet: the watch-only wallet knows every
 * transaction paying to or spending from an address this backend watches, which includes every send from an address
 * whose coins it listed (listUnspent). A node with `-txindex` finds any.
 */
export class BitcoindTransactions {
  constructor(
    private readonly rpc: BitcoindRpc,
    private readonly wallets: NodeWallets,
    private readonly watchWallet: string,
  ) {}

  async broadcast(rawHex: string): Promise<string> {
    try {
      return await this.rpc.call<string>("sendrawtransaction", [rawHex]);
    } catch (error) {
      if (!isRpcError(error) || !REFUSAL_CODES.includes(error.rpcCode)) throw error;
      if (error.rpcCode === RpcCode.VERIFY_ALREADY_IN_CHAIN || isAlreadyKnown(error.rpcMessage)) return ownTxid(rawHex);
      throw broadcastRefused(this.rpc.upstream, error.rpcMessage, error.rpcCode);
    }
  }

  /** The mempool first, then the chain (through -txindex, else the watch wallet), each answer checked against the best chain. */
  async transactionStatus(txid: string): Promise<BitcoinTransactionStatus> {
    requireTxid(txid);
    if (await this.inMempool(txid)) return { state: "mempool" };
    const indexed = await this.indexedBlock(txid);
    const block = indexed ?? (await this.walletTransaction(txid))?.blockhash;
    if (block !== undefined) {
      const confirmed = await this.inBestChain(block);
      if (confirmed !== undefined) return { state: "confirmed", blockHash: block, ...confirmed };
    }
    // Mined or accepted again while the chain was asked: the mempool has the last word.
    return (await this.inMempool(txid)) ? { state: "mempool" } : { state: "unknown" };
  }

  async transactionHex(txid: string): Promise<string | undefined> {
    requireTxid(txid);
    try {
      return await this.rpc.call<string>("getrawtransaction", [txid, 0]);
    } catch (error) {
      if (!isRpcError(error, RpcCode.INVALID_ADDRESS_OR_KEY)) throw error;
    }
    return (await this.walletTransaction(txid))?.hex;
  }

  /**
   * `estimatesmartfee` in sat/vB, never below the node's mempool minimum nor FEE_RATE_FLOOR. A regtest node (and a
   * node that has not seen enough blocks) has no estimate ("Insufficient data or no feerate found"): it answers the
   * floor then.
   */
  async feeRate(targetBlocks: number): Promise<number> {
    const target = Math.min(Math.max(Math.trunc(targetBlocks), 1), 1008);
    const [estimate, mempool] = await Promise.all([
      this.rpc.call<{ feerate?: number }>("estimatesmartfee", [target]),
      this.rpc.call<{ mempoolminfee?: number }>("getmempoolinfo"),
    ]);
    const rates = [FEE_RATE_FLOOR];
    if (typeof estimate.feerate === "number" && estimate.feerate > 0) rates.push(btcPerKvbToSatPerVbyte(estimate.feerate));
    if (typeof mempool.mempoolminfee === "number") rates.push(btcPerKvbToSatPerVbyte(mempool.mempoolminfee));
    return Math.max(...rates);
  }

  tipHeight(): Promise<number> {
    return this.rpc.call<number>("getblockcount");
  }

  private async inMempool(txid: string): Promise<boolean> {
    try {
      await this.rpc.call("getmempoolentry", [txid]);
      return true;
    } catch (error) {
      if (isRpcError(error, RpcCode.INVALID_ADDRESS_OR_KEY)) return false;
      throw error;
    }
  }

  /** The block of a mined transaction through -txindex; undefined without the index or when it is not mined. */
  private async indexedBlock(txid: string): Promise<string | undefined> {
    try {
      const tx = await this.rpc.call<{ blockhash?: string }>("getrawtransaction", [txid, 1]);
      return tx.blockhash;
    } catch (error) {
      if (isRpcError(error, RpcCode.INVALID_ADDRESS_OR_KEY)) return undefined;
      throw error;
    }
  }

  private async walletTransaction(txid: string): Promise<WalletTransaction | undefined> {
    await this.wallets.ensure(this.watchWallet, { watchOnly: true });
    await settleNotifications(this.rpc);
    try {
      return await this.rpc.call<WalletTransaction>("gettransaction", [txid, true], { wallet: this.watchWallet });
    } catch (error) {
      if (isRpcError(error, RpcCode.INVALID_ADDRESS_OR_KEY)) return undefined;
      throw error;
    }
  }

  /** Height and depth of a block on the best chain; undefined for a block a reorganisation left behind. */
  private async inBestChain(blockHash: string): Promise<{ blockHeight: number; confirmations: number } | undefined> {
    try {
      const header = await this.rpc.call<{ height: number; confirmations: number }>("getblockheader", [blockHash, true]);
      return header.confirmations > 0 ? { blockHeight: header.height, confirmations: header.confirmations } : undefined;
    } catch (error) {
      if (isRpcError(error, RpcCode.INVALID_ADDRESS_OR_KEY)) return undefined;
      throw error;
    }
  }
}
