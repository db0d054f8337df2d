import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { parseAssetType, type AssetType } from "../../domain/asset-types.js";
import type { TokenService } from "../../core/token-service.js";
import { parseDecimalUnits } from "../../domain/units.js";
import { resolveSigner, signerSource } from "./support/private-key.js";
import { TASK_WAIT_MS, chainLabel, printJson, printWarnings, withService, type TaskPair } from "./support/run.js";
import { withSpinner } from "./support/spinner.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  type?: string;
  contract?: string;
  to?: string;
  amount?: string;
  tokenId?: string;
  sender?: string;
  privateKeyEnv?: string;
  from?: string;
  /** Refused: see refusePrivateKeyOption. */
  privateKey?: string;
  noWait?: boolean;
  json?: boolean;
}

/** The type as typed, or undefined for the core to name a bad --type. */
function typeOf(type: string | undefined): AssetType | undefined {
  try {
    return parseAssetType(type ?? "native");
  } catch {
    return undefined;
  }
}

/**
 * --amount as a person types it: whole ETH (or BNB) for native, whole tokens at the token's decimals for ERC20; an
 * ERC1155 amount is a count, as the standard has no decimals. What does not apply goes to the core as typed, which
 * refuses it with its own message.
 */
async function smallestUnits(
  service: TokenService,
  pair: TaskPair,
  type: AssetType | undefined,
  args: Args,
): Promise<{ amount?: string; unit?: string }> {
  if (args.amount === undefined) return {};
  if (type === "NATIVE") {
    const info = service.chains.resolve(pair.chain, pair.network);
    return { amount: parseDecimalUnits(args.amount, info.nativeDecimals, "amount").toString(), unit: info.nativeSymbol };
  }
  if (type === "ERC20") {
    const token = await service.getTokenInfo({ ...pair, contractAddress: args.contract ?? "" });
    return { amount: parseDecimalUnits(args.amount, token.decimals ?? 18, "amount").toString(), unit: token.symbol ?? "" };
  }
  return { amount: args.amount };
}

export default async function tokenTransfer(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, { ...args, recordsOperations: true }, async (service, pair) => {
    const { sender, privateKey } = await resolveSigner(hre, signerSource(args));
    const type = typeOf(args.type);
    const { amount, unit } = await smallestUnits(service, pair, type, args);
    const sent = await service.operations.transfer({
      ...pair,
      type: args.type ?? "native",
      ...(args.contract !== undefined ? { contractAddress: args.contract } : {}),
      to: args.to ?? "",
      ...(amount !== undefined ? { amount } : {}),
      ...(args.tokenId !== undefined ? { tokenId: args.tokenId } : {}),
      sender,
      ...(privateKey !== undefined ? { privateKey } : {}),
    });
    const result = args.noWait
      ? sent
      : await withSpinner(`waiting for ${sent.transactionHash} to be mined`, () => service.operations.settle(sent, TASK_WAIT_MS));
    if (args.json) return printJson(result);
    printWarnings(result);
    const what =
      result.type === "ERC721"
        ? `token #${result.tokenId} of ${result.contractAddress}`
        : result.type === "ERC1155"
          ? `${args.amount} of token #${result.tokenId} of ${result.contractAddress}`
          : result.type === "ERC20"
            ? `${args.amount} ${unit} (${result.contractAddress})`
            : `${args.amount} ${unit}`;
    console.log(`Sent ${what} from ${result.sender} to ${result.to} on ${chainLabel(result, service)}`);
    console.log(`  transactionHash  ${result.transactionHash}`);
    console.log(`  status           ${result.status}${result.blockNumber !== null ? ` (block ${result.blockNumber})` : ""}`);
  });
}
