import { parseEvmAddress } from "./addresses.js";
import { requireEvm, type ChainRegistry } from "./chains.js";
import type { EvmPair } from "./commands.js";
import { invalidArgument } from "./errors.js";
import type { MintRecipientRequest, MintRequest, Unsigned } from "./requests.js";
import { parseTokenType, type TokenType } from "./token-params.js";
import { parseUint256 } from "./units.js";
import { parseMintUri } from "./uris.js";
import { counterparty, positiveAmount } from "./write-fields.js";

// A mint parsed once, where it enters the core (as commands.ts does launches): one recipient, several ERC1155 ids to
// one holder (the collection's mintBatch), or several recipients in one transaction (the token's airdrop).

/**
 * At most this many recipients in one batch mint (and ERC1155 ids in one mintBatch). The heaviest batch decides it: an
 * ERC721 with every option minting to fresh holders with URIs of their own needs about 190,000 gas a recipient, so 50
 * use 57 % of the 16,777,216 gas one transaction may use since EIP-7825, leaving room for longer URIs
 * (docs/decisions/0039-batch-mint.md has the measurements).
 */
export const MAX_MINT_RECIPIENTS = 50;

/** One recipient of a batch mint, by kind. */
export type Erc20MintRecipient = { to: string; amount: bigint };
export type Erc721MintRecipient = { to: string; tokenId?: bigint; uri?: string };
export type Erc1155MintRecipient = { to: string; tokenId: bigint; amount: bigint };

/** Several recipients, one transaction: all are minted or none is. */
export type BatchMintParams =
  | { type: "ERC20"; contractAddress: string; recipients: Erc20MintRecipient[] }
  | { type: "ERC721"; contractAddress: string; recipients: Erc721MintRecipient[] }
  | { type: "ERC1155"; contractAddress: string; recipients: Erc1155MintRecipient[] };

/** What a mint calls. */
export type MintParams =
  | { type: "ERC20"; contractAddress: string; to: string; amount: bigint }
  | { type: "ERC721"; contractAddress: string; to: string; tokenId?: bigint; uri?: string }
  | { type: "ERC1155"; contractAddress: string; to: string; tokenId: bigint; amount: bigint }
  /** Several ids of a collection to one holder: its mintBatch. */
  | { type: "ERC1155"; contractAddress: string; to: string; tokenIds: bigint[]; amounts: bigint[] }
  | BatchMintParams;

export interface MintCommand {
  pair: EvmPair;
  sender: string;
  params: MintParams;
}

export const isBatchMint = (params: MintParams): params is BatchMintParams => "recipients" in params;

function refuse(field: string, message: string): never {
  throw invalidArgument(field, message);
}

/** A holder to mint to: not the zero address, which every token here refuses (ERC20InvalidReceiver, …). */
const recipient = (value: unknown, field: string) => counterparty(value, field, "the token refuses to mint there");

/** A token's own URI: absolute with a known scheme, or relative to the token's base URI (uris.ts). */
const uriOf = (value: unknown, field: string): string | undefined => parseMintUri(value, field);

/** Fields given that this form of mint does not take: the first one found is refused, by name. */
function refuseGiven(request: Record<string, unknown>, fields: readonly string[], why: string): void {
  const given = fields.find((field) => request[field] !== undefined);
  if (given !== undefined) refuse(given, `${given} ${why}`);
}

function boundedList(value: unknown, field: string, what: string): unknown[] {
  if (!Array.isArray(value)) refuse(field, `${field} must be an array of ${what}`);
  if (value.length === 0) refuse(field, `${field} must name at least one ${what.replace(/s$/, "")}`);
  if (value.length > MAX_MINT_RECIPIENTS) {
    refuse(field, `${field} names ${value.length} ${what}: at most ${MAX_MINT_RECIPIENTS} are minted in one transaction; split the batch`);
  }
  return value;
}

const RECIPIENT_FIELDS: Record<TokenType, readonly string[]> = {
  ERC20: ["to", "amount"],
  ERC721: ["to", "tokenId", "uri"],
  ERC1155: ["to", "tokenId", "amount"],
};

function recipientObject(value: unknown, at: string, type: TokenType): MintRecipientRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value)) refuse(at, `${at} must be an object: { "to": "0x…", … }`);
  const allowed = RECIPIENT_FIELDS[type];
  const unknown = Object.keys(value).find((key) => !allowed.includes(key));
  if (unknown !== undefined)
    refuse(`${at}.${unknown}`, `${at}.${unknown} does not apply to an ${type} mint; a recipient has ${allowed.join(", ")}`);
  return value as MintRecipientRequest;
}

function parseRecipients(type: TokenType, contractAddress: string, list: unknown[]): BatchMintParams {
  const items = list.map((value, index) => ({ at: `recipients[${index}]`, item: recipientObject(value, `recipients[${index}]`, type) }));
  if (type === "ERC20") {
    const recipients = items.map(({ at, item }) => ({
      to: recipient(item.to, `${at}.to`),
      amount: positiveAmount(item.amount, "for each recipient of an ERC20 mint", `${at}.amount`),
    }));
    return { type, contractAddress, recipients };
  }
  if (type === "ERC1155") {
    const recipients = items.map(({ at, item }) => {
      if (item.tokenId === undefined) refuse(`${at}.tokenId`, `${at}.tokenId is required: which id of the collection to mint`);
      return {
        to: recipient(item.to, `${at}.to`),
        tokenId: parseUint256(item.tokenId, `${at}.tokenId`),
        amount: positiveAmount(item.amount, "for each recipient of an ERC1155 mint", `${at}.amount`),
      };
    });
    return { type, contractAddress, recipients };
  }
  // One call takes chosen ids for all recipients or for none (airdropWithIds or airdrop).
  const withIds = items[0]!.item.tokenId !== undefined;
  const seen = new Map<bigint, string>();
  const recipients = items.map(({ at, item }) => {
    const to = recipient(item.to, `${at}.to`);
    const uri = uriOf(item.uri, `${at}.uri`);
    if ((item.tokenId !== undefined) !== withIds) {
      refuse(`${at}.tokenId`, `give tokenId for every recipient or for none (recipients[0] ${withIds ? "has one" : "has none"})`);
    }
    if (!withIds) return { to, ...(uri !== undefined ? { uri } : {}) };
    const tokenId = parseUint256(item.tokenId, `${at}.tokenId`);
    const first = seen.get(tokenId);
    if (first !== undefined) refuse(`${at}.tokenId`, `${at}.tokenId ${tokenId} is ${first}.tokenId too: an ERC721 id is minted once`);
    seen.set(tokenId, at);
    return { to, tokenId, ...(uri !== undefined ? { uri } : {}) };
  });
  return { type, contractAddress, recipients };
}

function parseErc1155Ids(request: Unsigned<MintRequest>, contractAddress: string, to: string): MintParams {
  refuseGiven(
    request as Record<string, unknown>,
    ["tokenId", "amount"],
    "does not apply with tokenIds: amounts[i] of tokenIds[i] are minted",
  );
  const ids = boundedList(request.tokenIds, "tokenIds", "token ids");
  if (request.amounts === undefined) refuse("amounts", "amounts is required with tokenIds: how many of each id, in the same order");
  if (!Array.isArray(request.amounts) || request.amounts.length !== ids.length) {
    refuse("amounts", `amounts must be an array with one amount per id of tokenIds (${ids.length})`);
  }
  const amounts = request.amounts;
  return {
    type: "ERC1155",
    contractAddress,
    to,
    tokenIds: ids.map((id, index) => parseUint256(id, `tokenIds[${index}]`)),
    amounts: amounts.map((amount, index) => positiveAmount(amount, "for each id of an ERC1155 mint", `amounts[${index}]`)),
  };
}

export function parseMintCommand(request: Unsigned<MintRequest>, chains: ChainRegistry): MintCommand {
  const pair = requireEvm(chains.resolve(request.chain, request.network), "mint");
  const type = parseTokenType(request.type);
  const contractAddress = parseEvmAddress(request.contractAddress, "contractAddress");
  const sender = parseEvmAddress(request.sender, "sender");
  const fields = request as Record<string, unknown>;
  if (request.recipients !== undefined) {
    refuseGiven(
      fields,
      ["to", "amount", "tokenId", "uri", "tokenIds", "amounts"],
      "does not apply with recipients: each recipient names its own to and what it receives",
    );
    return { pair, sender, params: parseRecipients(type, contractAddress, boundedList(request.recipients, "recipients", "recipients")) };
  }
  const to = recipient(request.to, "to");
  if (type !== "ERC1155") refuseGiven(fields, ["tokenIds", "amounts"], "applies to ERC1155 mints only (several ids to one holder)");
  if (type === "ERC20") {
    refuseGiven(fields, ["tokenId", "uri"], "applies to ERC721 and ERC1155 mints only");
    return { pair, sender, params: { type, contractAddress, to, amount: positiveAmount(request.amount, "for an ERC20 mint") } };
  }
  if (type === "ERC1155") {
    refuseGiven(fields, ["uri"], "does not apply to an ERC1155 mint: the collection has one URI for every id, set at launch");
    if (request.tokenIds !== undefined || request.amounts !== undefined) {
      if (request.tokenIds === undefined) refuse("tokenIds", "tokenIds is required with amounts: which ids to mint, in the same order");
      return { pair, sender, params: parseErc1155Ids(request, contractAddress, to) };
    }
    if (request.tokenId === undefined) refuse("tokenId", "tokenId is required for an ERC1155 mint: which id of the collection");
    const tokenId = parseUint256(request.tokenId, "tokenId");
    return {
      pair,
      sender,
      params: { type, contractAddress, to, tokenId, amount: positiveAmount(request.amount, "for an ERC1155 mint") },
    };
  }
  refuseGiven(fields, ["amount"], "applies to ERC20 and ERC1155 mints only; an ERC721 mint creates one token");
  const uri = uriOf(request.uri, "uri");
  return {
    pair,
    sender,
    params: {
      type,
      contractAddress,
      to,
      ...(request.tokenId !== undefined ? { tokenId: parseUint256(request.tokenId, "tokenId") } : {}),
      ...(uri !== undefined ? { uri } : {}),
    },
  };
}

/** A mint's parameters as its record keeps them (and an idempotent retry after a crash answers them): numbers as strings. */
export function mintFields(params: MintParams): Record<string, unknown> {
  if (isBatchMint(params)) {
    return {
      contractAddress: params.contractAddress,
      recipients: params.recipients.map((item) => ({
        to: item.to,
        ...("tokenId" in item && item.tokenId !== undefined ? { tokenId: item.tokenId.toString() } : {}),
        ...("amount" in item ? { amount: item.amount.toString() } : {}),
        ...("uri" in item && item.uri !== undefined ? { uri: item.uri } : {}),
      })),
    };
  }
  if ("tokenIds" in params) {
    return {
      contractAddress: params.contractAddress,
      to: params.to,
      tokenIds: params.tokenIds.map(String),
      amounts: params.amounts.map(String),
    };
  }
  return {
    contractAddress: params.contractAddress,
    to: params.to,
    ...("tokenId" in params && params.tokenId !== undefined ? { tokenId: params.tokenId.toString() } : {}),
    ...("amount" in params ? { amount: params.amount.toString() } : {}),
    ...("uri" in params && params.uri !== undefined ? { uri: params.uri } : {}),
  };
}
