import { parseEvmAddress } from "../domain/addresses.js";
import { parseBitcoinAddress } from "../chains/bitcoin/addresses.js";
import { requireEvm, type ChainRegistry, type NetworkInfo } from "../domain/chains.js";
import { invalidArgument } from "../domain/errors.js";
import { requireBitcoinBackend, type BitcoinBackends } from "../chains/bitcoin/backend.js";
import { readBalances, readErc1155Balances, readErc721Balance } from "../chains/evm/read/balances.js";
import { readAllowance, readOwnedTokenIds, readTokenInfo } from "../chains/evm/read/token-info.js";
import { parseTokenStandard } from "../domain/asset-types.js";
import { decodeOwnedTokensCursor, encodeOwnedTokensCursor } from "../domain/owned-tokens-cursor.js";
import type {
  AllowanceRequest,
  AllowanceResult,
  OwnedTokensRequest,
  OwnedTokensResult,
  TokenInfoRequest,
  TokenInfoResult,
} from "../domain/transfer-requests.js";
import type { EvmChain } from "../chains/evm/chain.js";
import type { EvmChains } from "../chains/evm/chains-registry.js";
import { SharedChainReads } from "../chains/evm/read/read-memo.js";
import { parseTokenType } from "../domain/token-params.js";
import { parseUint256 } from "../domain/units.js";
import {
  MAX_ERC1155_IDS_PER_READ,
  MAX_ERC20_CONTRACTS_PER_READ,
  type BalanceEntry,
  type BalancesRequest,
  type BalancesResult,
  type TokenBalanceRequest,
  type TokenBalanceResult,
} from "../domain/requests.js";

// The reads of balances and tokens the core answers (native and ERC20 balances, a token balance, an allowance, a
// token's info, the ids an owner holds): each request checked, then read from the pair's chain or Bitcoin backend.

const DEFAULT_OWNED_TOKENS_PAGE = 100;
const MAX_OWNED_TOKENS_PAGE = 1000;

/** An ERC1155 read's ids: a list, comma-separated strings, or both; each id once, in the order first asked. */
function parseTokenIds(value: TokenBalanceRequest["tokenId"]): bigint[] {
  const given: Array<string | number> = Array.isArray(value) ? value : value === undefined ? [] : [value];
  const parts = given.flatMap((part): Array<string | number> =>
    typeof part === "string" ? part.split(",").map((text) => text.trim()) : [part],
  );
  const ids = [...new Set(parts.filter((part) => part !== "").map((part) => parseUint256(part, "tokenId")))];
  if (ids.length === 0) throw invalidArgument("tokenId", "tokenId is required for an erc1155 read: one id or several (1,2,3)");
  if (ids.length > MAX_ERC1155_IDS_PER_READ) {
    throw invalidArgument("tokenId", `at most ${MAX_ERC1155_IDS_PER_READ} ids per read (got ${ids.length})`);
  }
  return ids;
}

/** Answers are frozen: one may be given to every equal read at one chain state, and no caller may change what others see. */
function frozenBalances(result: BalancesResult): BalancesResult {
  for (const entry of Object.values(result.balances)) Object.freeze(entry);
  Object.freeze(result.balances);
  return Object.freeze(result);
}

export class TokenReads {
  /** By pair ("ethereum/sepolia"), once a read opened a chain that names its state. */
  private readonly sharedBalanceReads = new Map<string, SharedChainReads<BalancesResult>>();

  constructor(
    private readonly chains: ChainRegistry,
    private readonly evm: EvmChains,
    private readonly bitcoin: BitcoinBackends,
  ) {}

  /** Opens (or reuses) the chain connection for a pair. */
  private evmChain(info: NetworkInfo, operation: string): Promise<EvmChain> {
    return this.evm.get(requireEvm(info, operation));
  }

  async getBalances(request: BalancesRequest): Promise<BalancesResult> {
    const info = this.chains.resolve(request.chain, request.network);
    const shared = this.sharedBalanceReads.get(`${info.chain}/${info.network}`);
    const contracts = request.erc20TokenContractAddresses ?? [];
    // Reads compare by their addresses as given (===): equal inputs, equal verdicts, a refusal included. A differently
    // written address is another read, with the same answer.
    if (shared !== undefined && typeof request.address === "string" && Array.isArray(contracts)) {
      return shared.read(request.address, contracts, () => this.readBalances(info, request).then(frozenBalances));
    }
    return this.readBalances(info, request).then(frozenBalances);
  }

  private async readBalances(info: NetworkInfo, request: BalancesRequest): Promise<BalancesResult> {
    const contracts = request.erc20TokenContractAddresses ?? [];
    if (info.kind === "bitcoin") {
      const address = parseBitcoinAddress(request.address, info.network, "address");
      if (contracts.length > 0)
        throw invalidArgument("erc20TokenContractAddresses", "erc20TokenContractAddresses applies to EVM chains only");
      const balance = await requireBitcoinBackend(this.bitcoin, info.network).getBalance(address);
      return { chain: info.chain, network: info.network, address, simulated: false, balances: { [info.nativeSymbol]: balance } };
    }
    const address = parseEvmAddress(request.address, "address");
    if (contracts.length > MAX_ERC20_CONTRACTS_PER_READ) {
      throw invalidArgument(
        "erc20TokenContractAddresses",
        `at most ${MAX_ERC20_CONTRACTS_PER_READ} contracts per read (got ${contracts.length})`,
      );
    }
    const tokenAddresses = [...new Set(contracts.map((value, index) => parseEvmAddress(value, `erc20TokenContractAddresses[${index}]`)))];
    const chain = await this.evmChain(info, "balance read");
    const pair = `${info.chain}/${info.network}`;
    if (!this.sharedBalanceReads.has(pair)) {
      const shared = SharedChainReads.of<BalancesResult>(chain);
      if (shared !== undefined) this.sharedBalanceReads.set(pair, shared);
    }
    const { native, tokens } = await readBalances(chain, address, tokenAddresses);
    const balances: Record<string, BalanceEntry> = { [info.nativeSymbol]: native };
    const symbolCounts = new Map<string, number>();
    for (const token of tokens) symbolCounts.set(token.symbol, (symbolCounts.get(token.symbol) ?? 0) + 1);
    for (const token of tokens) {
      // Two tokens sharing a symbol (or one named like the native currency) are keyed by contract address instead.
      const key = symbolCounts.get(token.symbol) === 1 && token.symbol !== info.nativeSymbol ? token.symbol : token.contractAddress;
      balances[key] = {
        balance: token.balance,
        uiBalance: token.uiBalance,
        contractAddress: token.contractAddress,
        decimals: token.decimals,
        symbol: token.symbol,
      };
    }
    return { chain: info.chain, network: info.network, address, simulated: chain.simulated, balances };
  }

  async getTokenBalance(request: TokenBalanceRequest): Promise<TokenBalanceResult> {
    const info = requireEvm(this.chains.resolve(request.chain, request.network), "token balance read");
    const address = parseEvmAddress(request.address, "address");
    const tokenAddress = parseEvmAddress(request.tokenAddress, "tokenAddress");
    const type = parseTokenType(request.type);
    if (type !== "ERC1155" && request.tokenId !== undefined) throw invalidArgument("tokenId", "tokenId applies to erc1155 reads only");
    const tokenIds = type === "ERC1155" ? parseTokenIds(request.tokenId) : [];
    const chain = await this.evmChain(info, "token balance read");
    const base = { chain: info.chain, network: info.network, address, tokenAddress, simulated: chain.simulated };
    if (type === "ERC1155") return { ...base, type: "erc1155", ...(await readErc1155Balances(chain, address, tokenAddress, tokenIds)) };
    if (type === "ERC721") {
      const balance = await readErc721Balance(chain, address, tokenAddress);
      return { ...base, type: "erc721", ...balance };
    }
    const {
      tokens: [token],
    } = await readBalances(chain, address, [tokenAddress], "tokenAddress");
    return {
      ...base,
      type: "erc20",
      balance: token!.balance,
      uiBalance: token!.uiBalance,
      decimals: token!.decimals,
      symbol: token!.symbol,
    };
  }

  async getAllowance(request: AllowanceRequest): Promise<AllowanceResult> {
    const info = requireEvm(this.chains.resolve(request.chain, request.network), "allowance read");
    const type = parseTokenStandard(request.type);
    const contractAddress = parseEvmAddress(request.contractAddress, "contractAddress");
    const owner = parseEvmAddress(request.owner, "owner");
    const spender = parseEvmAddress(request.spender, "spender");
    let tokenId: bigint | undefined;
    if (request.tokenId !== undefined) {
      if (type !== "ERC721") throw invalidArgument("tokenId", "tokenId applies to ERC721 allowances only");
      tokenId = parseUint256(request.tokenId, "tokenId");
    }
    const chain = await this.evmChain(info, "allowance read");
    const allowance = await readAllowance(chain, { type, contractAddress, owner, spender, ...(tokenId !== undefined ? { tokenId } : {}) });
    return { chain: info.chain, network: info.network, type, contractAddress, owner, spender, ...allowance, simulated: chain.simulated };
  }

  async getTokenInfo(request: TokenInfoRequest): Promise<TokenInfoResult> {
    const info = requireEvm(this.chains.resolve(request.chain, request.network), "token read");
    const contractAddress = parseEvmAddress(request.contractAddress, "contractAddress");
    const chain = await this.evmChain(info, "token read");
    const token = await readTokenInfo(chain, contractAddress);
    return { chain: info.chain, network: info.network, contractAddress, ...token, simulated: chain.simulated };
  }

  async listOwnedTokens(request: OwnedTokensRequest): Promise<OwnedTokensResult> {
    const info = requireEvm(this.chains.resolve(request.chain, request.network), "token read");
    const contractAddress = parseEvmAddress(request.contractAddress, "contractAddress");
    const owner = parseEvmAddress(request.owner, "owner");
    const after = request.cursor === undefined || request.cursor === "" ? undefined : decodeOwnedTokensCursor(request.cursor);
    const limit = request.limit ?? DEFAULT_OWNED_TOKENS_PAGE;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_OWNED_TOKENS_PAGE)
      throw invalidArgument("limit", `limit must be an integer from 1 to ${MAX_OWNED_TOKENS_PAGE}`);
    const fromBlock = request.fromBlock ?? 0;
    if (!Number.isSafeInteger(fromBlock) || fromBlock < 0)
      throw invalidArgument("fromBlock", "fromBlock must be a block number (0 or more)");
    const chain = await this.evmChain(info, "token read");
    const owned = await readOwnedTokenIds(chain, contractAddress, owner, fromBlock);
    const first = after === undefined ? 0 : owned.tokenIds.findIndex((id) => id > after);
    const start = first === -1 ? owned.tokenIds.length : first;
    const page = owned.tokenIds.slice(start, start + limit);
    return {
      chain: info.chain,
      network: info.network,
      contractAddress,
      owner,
      type: owned.type,
      balance: owned.balance.toString(),
      tokenIds: page.map(String),
      ...(owned.amounts ? { amounts: owned.amounts.slice(start, start + limit).map(String) } : {}),
      nextCursor: start + limit < owned.tokenIds.length ? encodeOwnedTokensCursor(page[page.length - 1]!) : null,
      source: owned.source,
      simulated: chain.simulated,
    };
  }
}
