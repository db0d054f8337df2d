import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { invalidArgument } from "../../domain/errors.js";
import { parseDecimalUnits } from "../../domain/units.js";
import { resolveSigner, signerSource } from "./support/private-key.js";
import { TASK_WAIT_MS, chainLabel, printJson, printWarnings, withService } from "./support/run.js";
import { withSpinner } from "./support/spinner.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  type?: string;
  name?: string;
  symbol?: string;
  uri?: string;
  decimals?: string;
  initialSupply?: string;
  totalSupply?: string;
  minter?: string;
  account?: string;
  authority?: string;
  options?: string;
  salt?: string;
  sender?: string;
  privateKeyEnv?: string;
  from?: string;
  /** Refused: see refusePrivateKeyOption. */
  privateKey?: string;
  noWait?: boolean;
  json?: boolean;
}

/** Supplies are typed in whole tokens at the token's decimals (default 18); the core takes smallest units. */
function smallestUnits(value: string | undefined, decimals: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const places = decimals === undefined ? 18 : Number(decimals);
  // A bad --decimals is the core's to refuse, with its own message; the supply is then passed as typed.
  if (!Number.isInteger(places) || places < 0 || places > 255) return value;
  return parseDecimalUnits(value, places, field).toString();
}

/**
 * `--options`: a JSON object as the HTTP body takes it, or the shell-friendly "burnable,permit,access=ownable,
 * royalty=0x…:250". The core checks the result like any request's options.
 */
export function parseOptionsArgument(text: string): Record<string, unknown> {
  if (text.trim().startsWith("{")) {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw invalidArgument("options", "--options is not valid JSON");
    }
  }
  const options: Record<string, unknown> = {};
  for (const item of text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [key, value] = item.split("=", 2) as [string, string | undefined];
    if (value === undefined) options[key] = true;
    else if (key === "royalty") {
      const [receiver, basisPoints] = value.split(":", 2);
      options.royalty = {
        receiver,
        basisPoints: basisPoints !== undefined && /^\d+$/.test(basisPoints) ? Number(basisPoints) : basisPoints,
      };
    } else options[key] = value;
  }
  return options;
}

function tokenFields(args: Args): Record<string, unknown> {
  const fields: Record<string, string | undefined> = {
    name: args.name,
    symbol: args.symbol,
    uri: args.uri,
    decimals: args.decimals,
    initialSupply: smallestUnits(args.initialSupply, args.decimals, "initialSupply"),
    totalSupply: smallestUnits(args.totalSupply, args.decimals, "totalSupply"),
    minter: args.minter,
    account: args.account,
    authority: args.authority,
  };
  const given = Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return args.options === undefined ? given : { ...given, options: parseOptionsArgument(args.options) };
}

export default async function tokenLaunch(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  await withService(hre, { ...args, recordsOperations: true }, async (service, pair) => {
    const { sender, privateKey } = await resolveSigner(hre, signerSource(args));
    const launched = await service.operations.launch({
      ...pair,
      type: args.type ?? "",
      token: tokenFields(args),
      ...(args.salt !== undefined ? { salt: args.salt } : {}),
      sender,
      ...(privateKey !== undefined ? { privateKey } : {}),
    });
    const result = args.noWait
      ? launched
      : await withSpinner(`waiting for ${launched.transactionHash} to be mined`, () => service.operations.settle(launched, TASK_WAIT_MS));
    if (args.json) return printJson(result);
    printWarnings(result);
    console.log(
      `${result.type} ${args.symbol ?? args.name ?? ""} ${args.noWait ? "launch sent" : result.status === "mined" ? "launched" : `launch ${result.status}`} on ${chainLabel(result, service)}`,
    );
    console.log(`  contractAddress  ${result.contractAddress}`);
    console.log(`  transactionHash  ${result.transactionHash}`);
    console.log(`  status           ${result.status}${result.blockNumber != null ? ` (block ${result.blockNumber})` : ""}`);
  });
}
