import { type BitcoindRpc, RpcCode, isRpcError } from "./bitcoind-rpc.js";
import { sleep } from "./serial.js";
import { upstreamUnavailable } from "./upstream.js";

/** The node's wallets this service uses, each loaded (or created) once per process. */
export class NodeWallets {
  private readonly ready = new Map<string, Promise<void>>();

  constructor(private readonly rpc: BitcoindRpc) {}

  /** Loads the wallet, creating it the first time; tolerates another process doing the same. */
  ensure(name: string, options: { watchOnly: boolean }): Promise<void> {
    let ready = this.ready.get(name);
    if (ready === undefined) {
      ready = this.loadOrCreate(name, options.watchOnly);
      this.ready.set(name, ready);
      ready.catch(() => this.ready.delete(name));
    }
    return ready;
  }

  private async loadOrCreate(name: string, watchOnly: boolean): Promise<void> {
    if ((await this.rpc.call<string[]>("listwallets")).includes(name)) return;
    for (let attempt = 0; attempt < 10; attempt++) {
      try {
        await this.rpc.call("loadwallet", [name, true]);
        return;
      } catch (error) {
        if (isRpcError(error, RpcCode.WALLET_ALREADY_LOADED)) return;
        if (isRpcError(error, RpcCode.WALLET_ERROR) && /loading/i.test(error.rpcMessage)) {
          await sleep(200);
          continue;
        }
        if (!isRpcError(error, RpcCode.WALLET_NOT_FOUND)) throw error;
      }
      try {
        await this.rpc.call("createwallet", {
          wallet_name: name,
          disable_private_keys: watchOnly,
          blank: watchOnly,
          descriptors: true,
          load_on_startup: true,
        });
        return;
      } catch (error) {
        // Another process created it in between: load it on the next round.
        if (!(isRpcError(error, RpcCode.WALLET_ERROR) && /exists/i.test(error.rpcMessage))) throw error;
      }
    }
    throw upstreamUnavailable(this.rpc.upstream, `could not load or create the wallet "${name}"`);
  }
}
