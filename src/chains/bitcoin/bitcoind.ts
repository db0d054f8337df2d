import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { bitcoinBalance, btcToSatoshis } from "./amounts.js";
import type {
  BitcoinBackend,
  BitcoinBalance,
  BitcoinBlockHeader,
  BitcoinBlockTransaction,
  BitcoinTransactionStatus,
  BitcoinUtxo,
} from "./backend.js";
import { BitcoindBlocks } from "./bitcoind-blocks.js";
import { BitcoindRpc, RpcCode, isRpcError, type BitcoindConnection } from "./bitcoind-rpc.js";
import { BitcoindTransactions, settleNotifications } from "./bitcoind-transactions.js";
import { NodeWallets } from "./node-wallets.js";
import { RegtestFaucet } from "./regtest-faucet.js";
import { Serial, sleep } from "./serial.js";
import { upstreamLabel, upstreamUnavailable } from "./upstream.js";

/** Watch-only descriptor wallet holding every address whose balance was asked. */
export const WATCH_WALLET = "token-service-watch";

/** What `getblockchaininfo.chain` says for each network name. testnet is testnet4; a testnet3 node is accepted (same addresses). */
const NODE_CHAINS: Record<string, string[]> = {
  mainnet: ["main"],
  testnet: ["testnet4", "test"],
  signet: ["signet"],
  regtest: ["regtest"],
};

export const DEFAULT_IMPORT_TIMEOUT_MS = 20 * 60_000;

export interface BitcoindBackendOptions {
  network: string;
  connection: BitcoindConnection;
  /** Bound of one ordinary call, and of how long a balance read waits for a first-time import. */
  timeoutMs?: number;
  /** Bound of the calls that scan: the UTXO-set scan and the wallet rescan of a first-time import. */
  importTimeoutMs?: number;
}

interface Unspent {
  txid: string;
  vout: number;
  amount: number;
  confirmations: number;
  scriptPubKey?: string;
}

interface WalletTransaction {
  txid: string;
  confirmations: number;
  in_mempool?: boolean;
}

interface ChainCoinSpent {
  address: string;
  satoshis: bigint;
}

/**
 * Balances from Bitcoin Core over JSON-RPC, through a watch-only descriptor
 * wallet: an address is imported (`addr(...)`) the first time it is read, then
 * every read is a `listunspent` that sees mempool and confirmed outputs alike.
 *
 * The first import decides how far back the wallet must rescan with one
 * `scantxoutset` (the UTXO set knows the height of every unspent output):
 * nothing unspent → import as of now (the mempool is scanned too); otherwise
 * rescan from the block of the oldest unspent output. Later reads are cheap.
 */
export class BitcoindBackend implements BitcoinBackend {
  readonly kind = "bitcoind" as const;
  readonly endpoint: string;
  readonly fund?: (address: string, amount: bigint) => Promise<{ transactionHash: string }>;
  private readonly rpc: BitcoindRpc;
  private readonly network: string;
  private readonly timeoutMs: number;
  private readonly importTimeoutMs: number;
  private readonly wallets: NodeWallets;
  private readonly transactions: BitcoindTransactions;
  private readonly blocks: BitcoindBlocks;
  private readonly watched = new Map<string, Promise<void>>();
  /** scantxoutset runs one at a time node-wide and a wallet rescans one import at a time. */
  private readonly imports = new Serial();
  /** Inputs of pending wallet transactions that spend confirmed coins, by txid (a mempool transaction's inputs never change). */
  private readonly pendingSpends = new Map<string, ChainCoinSpent[]>();
  private chainChecked: Promise<void> | undefined;

  constructor(options: BitcoindBackendOptions) {
    this.network = options.network;
    this.endpoint = options.connection.endpoint;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.importTimeoutMs = options.importTimeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS;
    this.rpc = new BitcoindRpc(options.connection, this.timeoutMs);
    this.wallets = new NodeWallets(this.rpc);
    this.transactions = new BitcoindTransactions(this.rpc, this.wallets, WATCH_WALLET);
    this.blocks = new BitcoindBlocks(this.rpc);
    if (options.network === "regtest") {
      const faucet = new RegtestFaucet(this.rpc, this.wallets);
      this.fund = async (address, amount) => {
        try {
          await this.checkChain();
          return await faucet.fund(address, amount);
        } catch (error) {
          throw this.explain(error);
        }
      };
    }
  }

  async getBalance(address: string): Promise<BitcoinBalance> {
    try {
      const unspent = await this.unspent(address);
      let confirmed = 0n;
      let pending = 0n;
      for (const output of unspent) {
        if (output.confirmations > 0) confirmed += btcToSatoshis(output.amount);
        else if (output.confirmations === 0) pending += btcToSatoshis(output.amount);
      }
      // listunspent already drops coins that a mempool transaction spends; the chain still holds them.
      const spentByPending = await this.confirmedCoinsSpentInMempool(address);
      return bitcoinBalance(confirmed + spentByPending, pending - spentByPending);
    } catch (error) {
      throw this.explain(error);
    }
  }

  /** The watch wallet's view: mempool outputs included (confirmations 0), outputs a mempool transaction spends left out. */
  async listUnspent(address: string): Promise<BitcoinUtxo[]> {
    try {
      const unspent = await this.unspent(address);
      return unspent
        .filter((output) => output.confirmations >= 0)
        .map((output) => ({
          txid: output.txid,
          vout: output.vout,
          value: btcToSatoshis(output.amount),
          confirmations: output.confirmations,
          ...(output.scriptPubKey !== undefined ? { scriptPubKey: output.scriptPubKey } : {}),
        }));
    } catch (error) {
      throw this.explain(error);
    }
  }

  broadcast(rawHex: string): Promise<string> {
    return this.checked(() => this.transactions.broadcast(rawHex));
  }

  transactionStatus(txid: string): Promise<BitcoinTransactionStatus> {
    return this.checked(() => this.transactions.transactionStatus(txid));
  }

  transactionHex(txid: string): Promise<string | undefined> {
    return this.checked(() => this.transactions.transactionHex(txid));
  }

  feeRate(targetBlocks: number): Promise<number> {
    return this.checked(() => this.transactions.feeRate(targetBlocks));
  }

  tipHeight(): Promise<number> {
    return this.checked(() => this.transactions.tipHeight());
  }

  tip(): Promise<{ height: number; hash: string }> {
    return this.checked(() => this.blocks.tip());
  }

  blockHeader(height: number): Promise<BitcoinBlockHeader | undefined> {
    return this.checked(() => this.blocks.blockHeader(height));
  }

  blockTransactions(hash: string): Promise<BitcoinBlockTransaction[]> {
    return this.checked(() => this.blocks.blockTransactions(hash));
  }

  async ping(): Promise<void> {
    try {
      await this.checkChain();
    } catch (error) {
      throw this.explain(error);
    }
  }

  async close(): Promise<void> {
    this.rpc.close();
  }

  /** A call after the chain check, its failures explained. */
  private async checked<T>(call: () => Promise<T>): Promise<T> {
    try {
      await this.checkChain();
      return await call();
    } catch (error) {
      throw this.explain(error);
    }
  }

  /** Every output the watch wallet holds for the address, imported first if it is new. */
  private async unspent(address: string): Promise<Unspent[]> {
    await this.checkChain();
    await this.watchWithin(address);
    await settleNotifications(this.rpc);
    return this.rpc.call<Unspent[]>("listunspent", [0, 9_999_999, [address], true], { wallet: WATCH_WALLET });
  }

  /** The node must serve the network it is configured for. */
  private checkChain(): Promise<void> {
    this.chainChecked ??= (async () => {
      const info = await this.rpc.call<{ chain: string }>("getblockchaininfo");
      const expected = NODE_CHAINS[this.network] ?? [];
      if (!expected.includes(info.chain)) {
        throw new TokenServiceError(
          ErrorCode.CHAIN_ID_MISMATCH,
          `${upstreamLabel(this.rpc.upstream)} serves chain "${info.chain}", not bitcoin ${this.network} (expected ${expected.join(" or ")})`,
          { field: "network", details: { backend: "bitcoind", endpoint: this.endpoint, nodeChain: info.chain } },
        );
      }
    })();
    this.chainChecked.catch(() => (this.chainChecked = undefined));
    return this.chainChecked;
  }

  /** Waits for the address's import at most one ordinary timeout; the import goes on and a retry picks it up. */
  private async watchWithin(address: string): Promise<void> {
    let pending = this.watched.get(address);
    if (pending === undefined) {
      pending = this.imports.run(() => this.importAddress(address));
      this.watched.set(address, pending);
      pending.catch(() => this.watched.delete(address));
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new TokenServiceError(
              ErrorCode.UPSTREAM_TIMEOUT,
              `${upstreamLabel(this.rpc.upstream)} is still importing this address (a first read scans the UTXO set, minutes on mainnet, one scan at a time); retry shortly`,
              { details: { backend: "bitcoind", endpoint: this.endpoint, timeoutMs: this.timeoutMs } },
            ),
          ),
        this.timeoutMs,
      );
    });
    try {
      await Promise.race([pending, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async importAddress(address: string): Promise<void> {
    await this.wallets.ensure(WATCH_WALLET, { watchOnly: true });
    const info = await this.rpc.call<{ ismine?: boolean; iswatchonly?: boolean }>("getaddressinfo", [address], { wallet: WATCH_WALLET });
    if (info.ismine || info.iswatchonly) return;
    const timestamp = await this.rescanStart(address);
    const { descriptor } = await this.rpc.call<{ descriptor: string }>("getdescriptorinfo", [`addr(${address})`]);
    const [result] = await this.whileBusy(
      () =>
        this.rpc.call<Array<{ success: boolean; error?: { message?: string } }>>(
          "importdescriptors",
          [[{ desc: descriptor, timestamp, label: "token-service" }]],
          { wallet: WATCH_WALLET, timeoutMs: this.importTimeoutMs },
        ),
      (error) => isRpcError(error, RpcCode.WALLET_ERROR) && /rescan/i.test(error.rpcMessage),
    );
    if (!result?.success) {
      throw upstreamUnavailable(this.rpc.upstream, `could not watch the address: ${result?.error?.message ?? "importdescriptors failed"}`);
    }
  }

  /** "now" for an address with nothing unspent on chain, else the time of the block holding its oldest unspent output. */
  private async rescanStart(address: string): Promise<number | "now"> {
    const scan = await this.whileBusy(
      () =>
        this.rpc.call<{ success: boolean; unspents: Array<{ height: number }> }>("scantxoutset", ["start", [`addr(${address})`]], {
          timeoutMs: this.importTimeoutMs,
        }),
      (error) => isRpcError(error, RpcCode.INVALID_PARAMETER, RpcCode.MISC_ERROR) && /in progress/i.test(error.rpcMessage),
    );
    if (!scan.success) throw upstreamUnavailable(this.rpc.upstream, "aborted the UTXO-set scan for the address");
    if (scan.unspents.length === 0) return "now";
    const oldest = Math.min(...scan.unspents.map((output) => output.height));
    const hash = await this.rpc.call<string>("getblockhash", [oldest]);
    const header = await this.rpc.call<{ time: number }>("getblockheader", [hash]);
    return header.time;
  }

  /** Retries a call that another process's scan or rescan keeps busy, up to the import timeout. */
  private async whileBusy<T>(call: () => Promise<T>, isBusy: (error: unknown) => boolean): Promise<T> {
    const deadline = Date.now() + this.importTimeoutMs;
    for (;;) {
      try {
        return await call();
      } catch (error) {
        if (!isBusy(error) || Date.now() > deadline) throw error;
        await sleep(500);
      }
    }
  }

  private async confirmedCoinsSpentInMempool(address: string): Promise<bigint> {
    const tip = await this.rpc.call<string>("getbestblockhash");
    const since = await this.rpc.call<{ transactions: WalletTransaction[] }>("listsinceblock", [tip, 1, true], { wallet: WATCH_WALLET });
    const pendingTxids = new Set(since.transactions.filter((tx) => tx.confirmations === 0 && tx.in_mempool !== false).map((tx) => tx.txid));
    for (const txid of this.pendingSpends.keys()) if (!pendingTxids.has(txid)) this.pendingSpends.delete(txid);
    let total = 0n;
    for (const txid of pendingTxids) {
      let spends = this.pendingSpends.get(txid);
      if (spends === undefined) {
        spends = await this.chainCoinsSpentBy(txid);
        if (spends === undefined) continue;
        this.pendingSpends.set(txid, spends);
      }
      for (const spend of spends) if (spend.address === address) total += spend.satoshis;
    }
    return total;
  }

  /** The confirmed coins a mempool transaction spends; undefined once it left the mempool. */
  private async chainCoinsSpentBy(txid: string): Promise<ChainCoinSpent[] | undefined> {
    let tx: { vin: Array<{ txid?: string; vout?: number }> };
    try {
      tx = await this.rpc.call("getrawtransaction", [txid, true]);
    } catch (error) {
      if (isRpcError(error, RpcCode.INVALID_ADDRESS_OR_KEY)) return undefined;
      throw error;
    }
    const spends: ChainCoinSpent[] = [];
    for (const input of tx.vin) {
      if (input.txid === undefined || input.vout === undefined) continue;
      const coin = await this.rpc.call<{ value: number; scriptPubKey: { address?: string } } | null>("gettxout", [
        input.txid,
        input.vout,
        false,
      ]);
      if (coin?.scriptPubKey.address) spends.push({ address: coin.scriptPubKey.address, satoshis: btcToSatoshis(coin.value) });
    }
    return spends;
  }

  /** Client-facing form of any failure: typed errors pass, node errors name the call, a disabled wallet says so. */
  private explain(error: unknown): TokenServiceError {
    if (isRpcError(error, RpcCode.METHOD_NOT_FOUND)) {
      return upstreamUnavailable(
        this.rpc.upstream,
        `does not offer ${error.method}: the bitcoind backend needs a node with its wallet enabled (no -disablewallet), Bitcoin Core 24 or later`,
        { method: error.method },
        error,
      );
    }
    return this.rpc.unexpected(error);
  }
}
