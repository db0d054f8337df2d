import type { ApproveParams, TransferParams } from "../../../domain/transfer-commands.js";
import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";
import { amountPair } from "../../../domain/units.js";
import type { EvmChain } from "../chain.js";
import { translateProviderError } from "../provider-errors.js";
import { requireTokenStandard } from "../read/token-info.js";
import { nodeOf, view } from "../read/view-call.js";
import { erc1155Standard, erc20Standard, erc721Standard } from "../standard-abi.js";

/** The call a transfer makes (a NATIVE transfer is a value transfer, with no data). */
export function transferData(sender: string, params: TransferParams): string {
  switch (params.type) {
    case "NATIVE":
      return "0x";
    case "ERC20":
      return erc20Standard.encodeFunctionData("transfer", [params.to, params.amount]);
    case "ERC721":
      return erc721Standard.encodeFunctionData("safeTransferFrom(address,address,uint256)", [sender, params.to, params.tokenId]);
    case "ERC1155":
      return erc1155Standard.encodeFunctionData("safeTransferFrom", [sender, params.to, params.tokenId, params.amount, "0x"]);
  }
}

/** The call an approval makes. */
export function approveData(params: ApproveParams): string {
  if ("all" in params) {
    const iface = params.type === "ERC721" ? erc721Standard : erc1155Standard;
    return iface.encodeFunctionData("setApprovalForAll", [params.spender, params.all]);
  }
  if (params.type === "ERC20") return erc20Standard.encodeFunctionData("approve", [params.spender, params.amount]);
  return erc721Standard.encodeFunctionData("approve", [params.spender, params.tokenId]);
}

export function notOwner(message: string, reason: string, details: Record<string, unknown> = {}): TokenServiceError {
  return new TokenServiceError(ErrorCode.NOT_TOKEN_OWNER, message, { field: "tokenId", details: { reason, ...details } });
}

/** The owner of an ERC721 token, or NOT_TOKEN_OWNER when it does not exist. */
export async function erc721Owner(chain: EvmChain, contract: string, tokenId: bigint): Promise<string> {
  const owner = await view<string>(chain, contract, erc721Standard, "ownerOf", [tokenId]);
  if (owner === undefined) throw notOwner(`token id ${tokenId} does not exist on ${contract}`, "ERC721NonexistentToken");
  return owner;
}

/** The sender holds `amount` of an ERC20, or INSUFFICIENT_TOKEN_BALANCE says it cannot `verb` ("transfer", "burn") that much. */
export async function requireErc20Balance(chain: EvmChain, sender: string, contract: string, amount: bigint, verb: string): Promise<void> {
  const balance = (await view<bigint>(chain, contract, erc20Standard, "balanceOf", [sender])) ?? 0n;
  if (balance >= amount) return;
  throw new TokenServiceError(
    ErrorCode.INSUFFICIENT_TOKEN_BALANCE,
    `${sender} holds ${balance} of ${contract} (smallest units) and cannot ${verb} ${amount}: the token would revert with ERC20InsufficientBalance`,
    { field: "amount", details: { reason: "ERC20InsufficientBalance", balance: balance.toString(), needed: amount.toString() } },
  );
}

/** As requireErc20Balance, for one ERC1155 id: holding none of it is NOT_TOKEN_OWNER. */
export async function requireErc1155Balance(
  chain: EvmChain,
  sender: string,
  contract: string,
  tokenId: bigint,
  amount: bigint,
  verb: string,
): Promise<void> {
  const balance = (await view<bigint>(chain, contract, erc1155Standard, "balanceOf", [sender, tokenId])) ?? 0n;
  if (balance === 0n) throw notOwner(`${sender} holds none of token id ${tokenId} of ${contract}`, "ERC1155InsufficientBalance");
  if (balance < amount) {
    throw new TokenServiceError(
      ErrorCode.INSUFFICIENT_TOKEN_BALANCE,
      `${sender} holds ${balance} of token id ${tokenId} of ${contract} and cannot ${verb} ${amount}: the token would revert with ERC1155InsufficientBalance`,
      { field: "amount", details: { reason: "ERC1155InsufficientBalance", balance: balance.toString(), needed: amount.toString() } },
    );
  }
}

/**
 * What the chain would refuse, checked before anything is signed, where a cheap read says it clearly: a balance too
 * small, a token id the sender does not hold, an address that is not such a token. Other reverts (a paused token, a
 * recipient contract that refuses tokens) are the node's estimate's to find.
 */
export async function preflightTransfer(chain: EvmChain, sender: string, params: TransferParams): Promise<void> {
  if (params.type === "NATIVE") {
    let balance: bigint;
    try {
      balance = await chain.provider.getBalance(sender, "pending");
    } catch (error) {
      throw translateProviderError(error, nodeOf(chain));
    }
    if (balance >= params.amount) return;
    const { nativeDecimals: decimals, nativeSymbol: symbol } = chain.info;
    throw new TokenServiceError(
      ErrorCode.INSUFFICIENT_FUNDS,
      `sender ${sender} holds ${amountPair(balance, decimals).uiBalance} ${symbol} and cannot send ${amountPair(params.amount, decimals).uiBalance} ${symbol}, fees aside`,
      { field: "amount", details: { needed: params.amount.toString(), available: balance.toString(), symbol } },
    );
  }
  await requireTokenStandard(chain, params.contractAddress, params.type);
  if (params.type === "ERC20") return requireErc20Balance(chain, sender, params.contractAddress, params.amount, "transfer");
  if (params.type === "ERC721") {
    const owner = await erc721Owner(chain, params.contractAddress, params.tokenId);
    if (owner.toLowerCase() !== sender.toLowerCase()) {
      throw notOwner(
        `${sender} does not own token id ${params.tokenId} of ${params.contractAddress} (${owner} does)`,
        "ERC721IncorrectOwner",
        {
          owner,
        },
      );
    }
    return;
  }
  await requireErc1155Balance(chain, sender, params.contractAddress, params.tokenId, params.amount, "transfer");
}

/** As preflightTransfer, for an approval: the token is one of its type, and an ERC721 token approval is the holder's to give. */
export async function preflightApprove(chain: EvmChain, sender: string, params: ApproveParams): Promise<void> {
  await requireTokenStandard(chain, params.contractAddress, params.type);
  if (params.type !== "ERC721" || !("tokenId" in params)) return;
  const owner = await erc721Owner(chain, params.contractAddress, params.tokenId);
  if (owner.toLowerCase() === sender.toLowerCase()) return;
  // An operator of the owner may approve for it.
  if ((await view<boolean>(chain, params.contractAddress, erc721Standard, "isApprovedForAll", [owner, sender])) === true) return;
  throw notOwner(
    `${sender} neither owns token id ${params.tokenId} of ${params.contractAddress} (${owner} does) nor operates for its owner: the token would revert with ERC721InvalidApprover`,
    "ERC721InvalidApprover",
    { owner },
  );
}
