import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { parseTokenStandard } from "../../domain/asset-types.js";
import { parseDecimalUnits } from "../../domain/units.js";
import { runSignedWrite, type SignerOptions } from "./support/signed-write.js";

interface Args extends SignerOptions {
  type?: string;
  contract?: string;
  amount?: string;
  tokenId?: string;
}

/** ERC20 or not: an ERC20 --amount is whole tokens at its decimals; anything else goes to the core as typed. */
function isErc20(type: string | undefined): boolean {
  try {
    return parseTokenStandard(type) === "ERC20";
  } catch {
    return false; // the core names the bad --type
  }
}

export default async function tokenBurn(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  let symbol = "";
  await runSignedWrite(
    hre,
    args,
    async (service, pair, signer) => {
      let amount = args.amount;
      if (amount !== undefined && isErc20(args.type)) {
        const token = await service.getTokenInfo({ ...pair, contractAddress: args.contract ?? "" });
        amount = parseDecimalUnits(amount, token.decimals ?? 18, "amount").toString();
        symbol = token.symbol ?? "";
      }
      return service.burn({
        ...pair,
        type: args.type ?? "",
        contractAddress: args.contract ?? "",
        ...(amount !== undefined ? { amount } : {}),
        ...(args.tokenId !== undefined ? { tokenId: args.tokenId } : {}),
        ...signer,
      });
    },
    (result) => {
      const what =
        result.type === "ERC721"
          ? `token #${result.tokenId}`
          : result.type === "ERC1155"
            ? `${args.amount} of token #${result.tokenId}`
            : `${args.amount} ${symbol}`;
      return `Burned ${what} of ${result.contractAddress} held by ${result.sender}`;
    },
  );
}
