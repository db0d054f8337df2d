import { parseEvmAddress } from "../../domain/addresses.js";
import { parseBitcoinAddress } from "../../chains/bitcoin/addresses.js";
import { requireEvm, resolveNetwork, type NetworkInfo } from "../../domain/chains.js";
import { ErrorCode, TokenServiceError, invalidArgument } from "../../domain/errors.js";
import { requireBitcoinBackend, type BitcoinBackends } from "../../chains/bitcoin/backend.js";
import type { EvmChain, EvmNetworkInfo } from "../../chains/evm/chain.js";
import type { EvmChains } from "../../chains/evm/chains-registry.js";
import {
  launchToken,
  prepareLaunch,
  type LaunchHooks,
  type LaunchParams,
  type LaunchResult,
  type Signing,
} from "../../chains/evm/write/launch.js";
import { mintToken, prepareMint, type MintParams, type MintResult } from "../../chains/evm/write/mint.js";
import type { BroadcastHooks } from "../../chains/evm/write/send-transaction.js";
import type { SenderLock } from "../../chains/evm/sender-lock.js";
import { assertKeyDerivesSender } from "../../domain/keys.js";
import { parseErc20Params, parseErc721Params, parseTokenType } from "../../domain/token-params.js";
import { amountPair, parseUint256 } from "../../domain/units.js";
import type {
  FaucetHooks,
  FaucetRequest,
  FaucetResult,
  LaunchRequest,
  MintRequest,
  PrepareHooks,
  PreparedTransactionResult,
  SigningFields,
  Unsigned,
} from "../../domain/requests.js";

function liveNetworkFaucet(info: NetworkInfo, advice: string): TokenServiceError {
  return new TokenServiceError(
    ErrorCode.LIVE_NETWORK_FAUCET,
    `${info.chain}/${info.network} is a live network: the faucet only serves simulated chains and bitcoin regtest; ${advice}`,
    { field: "network" },
  );
}

/**
 * The chain side of every write: parse the request, sign (or check the caller's signature) and send, with hooks for
 * the recorder. Not public: every door writes through `Operations`, which records each write before it is broadcast.
 */
export class ChainWrites {
  constructor(
    private readonly evm: EvmChains,
    private readonly lock: SenderLock,
    private readonly bitcoin: BitcoinBackends,
  ) {}

  /** Validates everything before any network call, then deploys; resolves once the node accepted the transaction. */
  async launchToken(request: LaunchRequest, hooks: LaunchHooks = {}): Promise<LaunchResult> {
    const { info, sender, params } = this.launchPlan(request);
    const signing = this.signing(request, sender);
    const chain = await this.evmChain(info, "token launch");
    return launchToken(chain, this.lock, sender, signing, params, hooks);
  }

  /** The deployment `launchToken` would send, for the sender to sign, with its nonce reserved through `hooks`. */
  async prepareLaunch(request: Unsigned<LaunchRequest>, hooks: PrepareHooks): Promise<PreparedTransactionResult> {
    const { info, sender, params } = this.launchPlan(request);
    const chain = await this.evmChain(info, "token launch");
    const prepared = await prepareLaunch(chain, this.lock, sender, params, hooks);
    return { chain: info.chain, network: info.network, type: params.type, sender, ...prepared };
  }

  async mintToken(request: MintRequest, hooks: BroadcastHooks = {}): Promise<MintResult> {
    const { info, sender, params } = this.mintPlan(request);
    const signing = this.signing(request, sender);
    const chain = await this.evmChain(info, "mint");
    return mintToken(chain, this.lock, sender, signing, params, hooks);
  }

  /** The mint `mintToken` would send, for the sender to sign, with its nonce reserved through `hooks`. */
  async prepareMint(request: Unsigned<MintRequest>, hooks: PrepareHooks): Promise<PreparedTransactionResult> {
    const { info, sender, params } = this.mintPlan(request);
    const chain = await this.evmChain(info, "mint");
    const prepared = await prepareMint(chain, this.lock, sender, params, hooks);
    return { chain: info.chain, network: info.network, type: params.type, sender, ...prepared };
  }

  private launchPlan(request: Unsigned<LaunchRequest>): { info: EvmNetworkInfo; sender: string; params: LaunchParams } {
    const info = requireEvm(resolveNetwork(request.chain, request.network), "token launch");
    const type = parseTokenType(request.type);
    const sender = parseEvmAddress(request.sender, "sender");
    const params: LaunchParams =
      type === "ERC20" ? { type, token: parseErc20Params(request.token, sender) } : { type, token: parseErc721Params(request.token) };
    return { info, sender, params };
  }

  private mintPlan(request: Unsigned<MintRequest>): { info: EvmNetworkInfo; sender: string; params: MintParams } {
    const info = requireEvm(resolveNetwork(request.chain, request.network), "mint");
    const type = parseTokenType(request.type);
    const contractAddress = parseEvmAddress(request.contractAddress, "contractAddress");
    const to = parseEvmAddress(request.to, "to");
    const sender = parseEvmAddress(request.sender, "sender");
    let params: MintParams;
    if (type === "ERC20") {
      if (request.tokenId !== undefined || request.uri !== undefined) {
        throw invalidArgument(request.tokenId !== undefined ? "tokenId" : "uri", "tokenId and uri apply to ERC721 mints only");
      }
      if (request.amount === undefined)
        throw invalidArgument("amount", "amount is required for an ERC20 mint (smallest units, decimal string)");
      params = { type, contractAddress, to, amount: parseUint256(request.amount, "amount") };
    } else {
      if (request.amount !== undefined)
        throw invalidArgument("amount", "amount applies to ERC20 mints only; an ERC721 mint creates one token");
      if (request.uri !== undefined && typeof request.uri !== "string") throw invalidArgument("uri", "uri must be a string");
      params = {
        type,
        contractAddress,
        to,
        ...(request.tokenId !== undefined ? { tokenId: parseUint256(request.tokenId, "tokenId") } : {}),
        ...(request.uri ? { uri: request.uri } : {}),
      };
    }
    return { info, sender, params };
  }

  /** The caller's key (checked to derive the sender), or the transaction the caller signed (checked when sent). */
  private signing(request: SigningFields, sender: string): Signing {
    if (request.signedTransaction !== undefined) {
      if (request.privateKey !== undefined)
        throw invalidArgument("signedTransaction", "give privateKey or signedTransaction, not both (a signed transaction needs no key)");
      return { signedTransaction: request.signedTransaction };
    }
    return { privateKey: assertKeyDerivesSender(request.privateKey, sender) };
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
