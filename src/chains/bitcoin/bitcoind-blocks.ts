import { btcToSatoshis } from "./amounts.js";
import { NO_PREVIOUS_BLOCK, type BitcoinBlockHeader, type BitcoinBlockTransaction, type BitcoinOutput } from "./backend.js";
import { type BitcoindRpc, RpcCode, isRpcError } from "./bitcoind-rpc.js";
import { upstreamUnavailable } from "./upstream.js";

// Block reads of the bitcoind backend, for chain notifications: the tip, a block's header by height, and a block's
// transactions with what each input spends. `getblock <hash> 3` (Bitcoin Core 23 and later) gives every input its
// `prevout` from the node's undo data: no -txindex is needed, and one call reads a whole block.

interface RawHeader {
  hash?: unknown;
  height?: unknown;
  previousblockhash?: unknown;
}

interface RawOutput {
  value?: unknown;
  n?: unknown;
  scriptPubKey?: { address?: unknown };
}

interface RawTransaction {
  txid?: unknown;
  vin?: Array<{ coinbase?: unknown; prevout?: RawOutput }>;
  vout?: RawOutput[];
}

const isHash = (value: unknown): value is string => typeof value === "string" && /^[0-9a-f]{64}$/.test(value);

export class BitcoindBlocks {
  constructor(private readonly rpc: BitcoindRpc) {}

  /** `getbestblockhash`, then that block's header: a height and a hash that agree. */
  async tip(): Promise<{ height: number; hash: string }> {
    const hash = await this.rpc.call<string>("getbestblockhash");
    const header = this.header(await this.rpc.call<RawHeader>("getblockheader", [hash, true]));
    return { height: header.height, hash: header.hash };
  }

  async blockHeader(height: number): Promise<BitcoinBlockHeader | undefined> {
    let hash: string;
    try {
      hash = await this.rpc.call<string>("getblockhash", [height]);
    } catch (error) {
      // "Block height out of range": above the tip.
      if (isRpcError(error, RpcCode.INVALID_PARAMETER)) return undefined;
      throw error;
    }
    try {
      return this.header(await this.rpc.call<RawHeader>("getblockheader", [hash, true]));
    } catch (error) {
      // Gone between the two calls: the caller asks again.
      if (isRpcError(error, RpcCode.INVALID_ADDRESS_OR_KEY)) return undefined;
      throw error;
    }
  }

  async blockTransactions(hash: string): Promise<BitcoinBlockTransaction[]> {
    const block = await this.rpc.call<{ tx?: RawTransaction[] }>("getblock", [hash, 3]);
    if (!Array.isArray(block?.tx)) throw upstreamUnavailable(this.rpc.upstream, "answered getblock (verbosity 3) without its transactions");
    return block.tx.map((tx) => {
      if (!isHash(tx.txid) || !Array.isArray(tx.vin) || !Array.isArray(tx.vout)) {
        throw upstreamUnavailable(this.rpc.upstream, "answered getblock (verbosity 3) with a transaction without txid, vin or vout");
      }
      return {
        txid: tx.txid,
        inputs: tx.vin.map((input) => {
          if (input.coinbase !== undefined) return null;
          if (input.prevout === undefined) {
            throw upstreamUnavailable(
              this.rpc.upstream,
              "answered getblock (verbosity 3) without the inputs' prevout: chain notifications need Bitcoin Core 23 or later",
            );
          }
          return this.output(input.prevout);
        }),
        outputs: tx.vout.map((output, index) => ({ ...this.output(output), vout: typeof output.n === "number" ? output.n : index })),
      };
    });
  }

  private header(raw: RawHeader): BitcoinBlockHeader {
    if (!isHash(raw?.hash) || typeof raw.height !== "number") {
      throw upstreamUnavailable(this.rpc.upstream, "answered getblockheader without hash or height");
    }
    return { height: raw.height, hash: raw.hash, previousHash: isHash(raw.previousblockhash) ? raw.previousblockhash : NO_PREVIOUS_BLOCK };
  }

  private output(raw: RawOutput): BitcoinOutput {
    const address = raw.scriptPubKey?.address;
    return { address: typeof address === "string" ? address : null, value: btcToSatoshis(raw.value) };
  }
}
