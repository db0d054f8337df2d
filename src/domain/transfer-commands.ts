import { parseEvmAddress } from "./addresses.js";
import { parseAssetType, parseTokenStandard } from "./asset-types.js";
import { requireEvm, type ChainRegistry } from "./chains.js";
import type { EvmPair } from "./commands.js";
import { invalidArgument } from "./errors.js";
import type { Unsigned } from "./requests.js";
import type { ApproveRequest, TransferRequest } from "./transfer-requests.js";
import { parseUint256 } from "./units.js";
import { counterparty, positiveAmount, requiredTokenId } from "./write-fields.js";

// Transfers and approvals parsed once, where they enter the core (as commands.ts does launches and mints): every later
// step reads these fields, never the request's text again.

/** What a transfer moves. */
export type TransferParams =
  | { type: "NATIVE"; to: string; amount: bigint }
  | { type: "ERC20"; contractAddress: string; to: string; amount: bigint }
  | { type: "ERC721"; contractAddress: string; to: string; tokenId: bigint }
  | { type: "ERC1155"; contractAddress: string; to: string; tokenId: bigint; amount: bigint };

/** What an approval grants. */
export type ApproveParams =
  | { type: "ERC20"; contractAddress: string; spender: string; amount: bigint }
  | { type: "ERC721"; contractAddress: string; spender: string; tokenId: bigint }
  | { type: "ERC721" | "ERC1155"; contractAddress: string; spender: string; all: boolean };

export interface TransferCommand {
  pair: EvmPair;
  sender: string;
  params: TransferParams;
}

export interface ApproveCommand {
  pair: EvmPair;
  sender: string;
  params: ApproveParams;
}

function refuse(field: string, message: string): never {
  throw invalidArgument(field, message);
}

export function parseTransferCommand(request: Unsigned<TransferRequest>, chains: ChainRegistry): TransferCommand {
  const pair = requireEvm(chains.resolve(request.chain, request.network), "transfer");
  const type = parseAssetType(request.type);
  const sender = parseEvmAddress(request.sender, "sender");
  if (type === "NATIVE") {
    if (request.contractAddress !== undefined)
      refuse("contractAddress", `a NATIVE transfer moves ${pair.nativeSymbol} and takes no contractAddress`);
    if (request.tokenId !== undefined) refuse("tokenId", "tokenId applies to ERC721 and ERC1155 transfers only");
    const to = counterparty(request.to, "to", `it would burn the ${pair.nativeSymbol}`);
    return { pair, sender, params: { type, to, amount: positiveAmount(request.amount, `for a ${type} transfer`) } };
  }
  const contractAddress = parseEvmAddress(request.contractAddress, "contractAddress");
  const to = counterparty(request.to, "to", "tokens sent there are lost, and the token refuses it");
  if (type === "ERC20") {
    if (request.tokenId !== undefined) refuse("tokenId", "tokenId applies to ERC721 and ERC1155 transfers only");
    return { pair, sender, params: { type, contractAddress, to, amount: positiveAmount(request.amount, `for a ${type} transfer`) } };
  }
  if (type === "ERC721") {
    if (request.amount !== undefined) refuse("amount", "amount does not apply to an ERC721 transfer: it moves the one token tokenId");
    return { pair, sender, params: { type, contractAddress, to, tokenId: requiredTokenId(request.tokenId, `for an ${type} transfer`) } };
  }
  const tokenId = requiredTokenId(request.tokenId, `for an ${type} transfer`);
  return { pair, sender, params: { type, contractAddress, to, tokenId, amount: positiveAmount(request.amount, `for a ${type} transfer`) } };
}

export function parseApproveCommand(request: Unsigned<ApproveRequest>, chains: ChainRegistry): ApproveCommand {
  const pair = requireEvm(chains.resolve(request.chain, request.network), "approval");
  const type = parseTokenStandard(request.type);
  const sender = parseEvmAddress(request.sender, "sender");
  const contractAddress = parseEvmAddress(request.contractAddress, "contractAddress");
  const spender = counterparty(request.spender, "spender", "no one can spend as the zero address");
  const { amount, tokenId, all } = request;
  if (all !== undefined && typeof all !== "boolean") refuse("all", "all must be true or false");
  if (type === "ERC20") {
    if (tokenId !== undefined) refuse("tokenId", "tokenId applies to ERC721 approvals only");
    if (all !== undefined) refuse("all", "all applies to ERC721 and ERC1155 approvals only; an ERC20 approval is an amount");
    if (amount === undefined) refuse("amount", "amount is required for an ERC20 approval (smallest units; 0 revokes it)");
    return { pair, sender, params: { type, contractAddress, spender, amount: parseUint256(amount, "amount") } };
  }
  if (amount !== undefined)
    refuse("amount", `amount does not apply to an ${type} approval: give ${type === "ERC721" ? "tokenId or all" : "all"}`);
  if (type === "ERC1155") {
    if (tokenId !== undefined) refuse("tokenId", "an ERC1155 approval covers every id: give all, not tokenId");
    if (all === undefined) refuse("all", "all is required for an ERC1155 approval (true grants, false revokes)");
    return { pair, sender, params: { type, contractAddress, spender, all } };
  }
  if (tokenId !== undefined && all !== undefined) refuse("all", "give tokenId (one token) or all (every token), not both");
  if (tokenId !== undefined) return { pair, sender, params: { type, contractAddress, spender, tokenId: parseUint256(tokenId, "tokenId") } };
  if (all === undefined) refuse("tokenId", "an ERC721 approval needs tokenId (one token) or all (every token)");
  return { pair, sender, params: { type, contractAddress, spender, all } };
}
