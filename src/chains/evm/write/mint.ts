import type { TransactionReceipt } from "ethers";

import { ErrorCode, TokenServiceError } from "../../../domain/errors.js";
import type { EvmChain } from "../chain.js";
import { isUnansweredCall, translateProviderError } from "../provider-errors.js";
import { ERC721_INTERFACE_ID, MINTER_ROLE, erc20Interface, erc721Interface } from "../token-abi.js";

import type { MintParams } from "../../../domain/commands.js";

export type { MintParams } from "../../../domain/commands.js";

async function read(chain: EvmChain, to: string, data: string): Promise<string> {
  try {
    return await chain.provider.call({ to, data });
  } catch (error) {
    // A call that reverted answers as `call` does; one the node never judged (a rate limit, an outage) is no answer.
    if ((error as { code?: string }).code === "CALL_EXCEPTION" && !isUnansweredCall(error)) return "0x";
    throw translateProviderError(error, `the ${chain.info.chain}/${chain.info.network} node`);
  }
}

const isTrue = (data: string) => data.length >= 66 && BigInt(data.slice(0, 66)) === 1n;

/** Checks what the chain would refuse, so the caller gets a typed error instead of a reverted transaction. */
export async function preflightMint(chain: EvmChain, sender: string, params: MintParams): Promise<void> {
  const iface = params.type === "ERC20" ? erc20Interface : erc721Interface;
  const [code, isMinter, isErc721] = await Promise.all([
    chain.provider.getCode(params.contractAddress).catch((error) => Promise.reject(translateProviderError(error, "the node"))),
    read(chain, params.contractAddress, iface.encodeFunctionData("hasRole", [MINTER_ROLE, sender])),
    read(chain, params.contractAddress, erc721Interface.encodeFunctionData("supportsInterface", [ERC721_INTERFACE_ID])),
  ]);
  if (code === "0x" || (params.type === "ERC721") !== isTrue(isErc721)) {
    throw new TokenServiceError(ErrorCode.NOT_A_TOKEN_CONTRACT, `${params.contractAddress} is not an ${params.type} token contract`, {
      field: "contractAddress",
    });
  }
  if (!isTrue(isMinter)) {
    throw new TokenServiceError(ErrorCode.NOT_A_MINTER, `${sender} does not hold the minter role on ${params.contractAddress}`, {
      field: "sender",
    });
  }
  if (params.type === "ERC20") {
    const [supplyData, capData] = await Promise.all([
      read(chain, params.contractAddress, erc20Interface.encodeFunctionData("totalSupply", [])),
      read(chain, params.contractAddress, erc20Interface.encodeFunctionData("cap", [])),
    ]);
    if (supplyData !== "0x" && capData !== "0x") {
      const supply = BigInt(supplyData);
      const cap = BigInt(capData);
      if (supply + params.amount > cap) {
        throw new TokenServiceError(
          ErrorCode.CAP_EXCEEDED,
          `minting ${params.amount} would exceed the supply cap ${cap} (supply now ${supply})`,
          {
            field: "amount",
            details: { cap: cap.toString(), totalSupply: supply.toString(), mintable: (cap - supply).toString() },
          },
        );
      }
    }
  } else if (params.tokenId !== undefined) {
    const owner = await read(chain, params.contractAddress, erc721Interface.encodeFunctionData("ownerOf", [params.tokenId]));
    if (owner !== "0x") {
      throw new TokenServiceError(ErrorCode.TOKEN_ID_TAKEN, `token id ${params.tokenId} already exists on ${params.contractAddress}`, {
        field: "tokenId",
      });
    }
  }
}

export function mintData(params: MintParams): string {
  if (params.type === "ERC20") return erc20Interface.encodeFunctionData("mint", [params.to, params.amount]);
  if (params.tokenId !== undefined) return erc721Interface.encodeFunctionData("mintWithId", [params.to, params.tokenId, params.uri ?? ""]);
  if (params.uri) return erc721Interface.encodeFunctionData("mint(address,string)", [params.to, params.uri]);
  return erc721Interface.encodeFunctionData("mint(address)", [params.to]);
}

/** The id an ERC721 mint produced, read from its Transfer event. */
export function mintedTokenId(receipt: TransactionReceipt, contractAddress: string): string | undefined {
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== contractAddress.toLowerCase()) continue;
    const parsed = erc721Interface.parseLog(log);
    if (parsed?.name === "Transfer" && BigInt(parsed.args[0]) === 0n) return (parsed.args[2] as bigint).toString();
  }
  return undefined;
}
