import { parseEvmAddress } from "../../domain/addresses.js";
import { parseBitcoinAddress } from "../../chains/bitcoin/addresses.js";
import { requireEvm, resolveNetwork, type NetworkInfo } from "../../domain/chains.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "../../domain/errors.js";
import { requireBitcoinBackend, type BitcoinBackends } from "../../chains/bitcoin/backend.js";
import type { EvmChain } from "../../chains/evm/chain.js";
import type { EvmChains } from "../../chains/evm/chains-registry.js";
import { launchToken, prepareLaunch, type LaunchHooks, type LaunchResult } from "../../chains/evm/write/launch.js";
import { mintToken, prepareMint, type MintResult } from "../../chains/evm/write/mint.js";
import type { LaunchCommand, MintCommand, Signing } from "../../domain/commands.js";
import type { BroadcastHooks } from "../../chains/evm/write/send-transaction.js";
import type { SenderLock } from "../../chains/evm/sender-lock.js";
import { amountPair, parseUint256 } from "../../domain/units.js";
import type { FaucetHooks, FaucetRequest, FaucetResult, PrepareHooks, PreparedTransactionResult } from "../../domain/requests.js";

function liveNetworkFaucet(info: NetworkInfo, advice: string): TokenServiceError {
  return new TokenServiceError(
    ErrorCode.LIVE_NETWORK_FAUCET,
    `${info.chain}/${info.network} is a live network: the faucet only serves simulated chains and bitcoin regtest; ${advice}`,
    { field: "network" },
  );
}

/**
 * The chain side of every write: sign a parsed command (or check the caller's signature) and send it, with hooks for
 * the recorder. Not public: every door writes through `Operations`, which records each write before it is broadcast.
 */
export class ChainWrites {
  constructor(
    private readonly evm: EvmChains,
    private readonly lock: SenderLock,
    private readonly bitcoin: BitcoinBackends,
  ) {}

  /** Deploys a parsed launch; resolves once the node accepted the transaction. */
  async launchToken(command: LaunchCommand, signing: Signing, hooks: LaunchHooks = {}): Promise<LaunchResult> {
    const chain = await this.evmChain(command.pair, "token launch");
    return launchToken(chain, this.lock, command.sender, signing, command.params, hooks);
  }

  /** The deployment `launchToken` would send, for the sender to sign, with its nonce reserved through `hooks`. */
  async prepareLaunch(command: LaunchCommand, hooks: PrepareHooks): Promise<PreparedTransactionResult> {
    const { pair, sender, params } = command;
    const prepared = await prepareLaunch(await this.evmChain(pair, "token launch"), this.lock, sender, params, hooks);
    return { chain: pair.chain, network: pair.network, type: params.type, sender, ...prepared };
  }

  /** Sends a parsed mint; resolves once the node accepted the transaction. */
  async mintToken(command: MintCommand, signing: Signing, hooks: BroadcastHooks = {}): Promise<MintResult> {
    const chain = await this.evmChain(command.pair, "mint");
    return mintToken(chain, this.lock, command.sender, signing, command.params, hooks);
  }

  /** The mint `mintToken` would send, for the sender to sign, with its nonce reserved through `hooks`. */
  async prepareMint(command: MintCommand, hooks: PrepareHooks): Promise<PreparedTransactionResult> {
    const { pair, sender, params } = command;
    const prepared = await prepareMint(await this.evmChain(pair, "mint"), this.lock, sender, params, hooks);
    return { chain: pair.chain, network: pair.network, type: params.type, sender, ...prepared };
  }

  /**
   * `hooks.beforeGrant` runs once the request is checked, before a simulated chain's balance changes (the place to
   * write a durable record); `hooks.grantId` names the grant in the chain's journal, so a record can be settled later.
   */
  async faucet(request: FaucetRequest, hooks: FaucetHooks = {}): Promise<FaucetResult> {
    const info = resolveNetwork(request.chain, request.network);
    const defaultAmount = 10n * 10n ** BigInt(info.nativeDecimals);
    const amount = request.amount === undefined || request.amount === "" ? defaultAmount : parseUint256(request.amount, "amount");
    if (amount === 0n) throw invalidArgument("amount", "amount must be greater than 0");
    if (info.kind === "bitcoin") {
      const address = parseBitcoinAddress(request.address, info.network, "address");
      if (info.network !== "regtest") throw liveNetworkFaucet(info, "fund the address with a real transfer");
      const backend = requireBitcoinBackend(this.bitcoin, info.network);
      if (backend.fund === undefined) throw liveNetworkFaucet(info, "the regtest faucet needs a bitcoind backend");
      const { transactionHash } = await backend.fund(address, amount);
      const balance = await backend.getBalance(address);
      return {
        chain: info.chain,
        network: info.network,
        address,
        amount: amountPair(amount, info.nativeDecimals),
        balance,
        simulated: false,
        transactionHash,
      };
    }
    const address = parseEvmAddress(request.address, "address");
    // Checked before connecting: a live node that is down should still get the faucet's answer.
    if (!this.evm.isSimulated(info)) throw liveNetworkFaucet(info, "fund the address with a real transfer");
    const chain = await this.evmChain(requireEvm(info, "faucet"), "faucet");
    if (chain.fund === undefined) throw liveNetworkFaucet(info, "fund the address with a real transfer");
    const fund = chain.fund.bind(chain);
    // Read and raised under one lock, so that two grants to one address cannot both pass the check.
    const balance = await this.lock.withLock(`faucet:${chain.info.chainId}:${address.toLowerCase()}`, async () => {
      const current = await chain.provider.getBalance(address);
      const room = (1n << 256n) - 1n - current;
      if (amount > room) {
        throw invalidArgument("amount", `a balance is a uint256: ${address} holds ${current} and can receive at most ${room} more`, {
          available: room.toString(),
        });
      }
      await hooks.beforeGrant?.({ chain: info.chain, network: info.network, address, amount: amount.toString() });
      return fund(address, amount, hooks.grantId);
    });
    return {
      chain: info.chain,
      network: info.network,
      address,
      amount: amountPair(amount, info.nativeDecimals),
      balance: amountPair(balance, info.nativeDecimals),
      simulated: chain.simulated,
    };
  }

  /** Whether a pair is simulated in this process (no endpoint configured for it). */
  isSimulated(info: NetworkInfo): boolean {
    return this.evm.isSimulated(info);
  }

  /** Opens (or reuses) the chain connection for a pair. */
  evmChain(info: NetworkInfo, operation: string): Promise<EvmChain> {
    return this.evm.get(requireEvm(info, operation));
  }
}
