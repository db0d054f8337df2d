import path from "node:path";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import { readApiKeyVariable } from "../../config/environment.js";
import type { ChainFaultView } from "../../domain/faults.js";
import { dataDirectoryHolder } from "../../store/data-directory.js";
import { pluginError } from "./support/plugin-error.js";
import { printJson } from "./support/run.js";

interface Args {
  chain?: string;
  chainNetwork?: string;
  fault?: string;
  multiplier?: string;
  baseFeePerGas?: string;
  blocks?: string;
  seconds?: string;
  rate?: string;
  calls?: string;
  errors?: string;
  list?: boolean;
  clear?: boolean;
  id?: string;
  url?: string;
  dataDir?: string;
  apiKeyEnv?: string;
  json?: boolean;
}

/** What the service answered: a fault, a list of them, or an error. */
interface Answer {
  status: number;
  body: ChainFaultView & {
    faults?: ChainFaultView[];
    cleared?: ChainFaultView[];
    error?: { code?: string; message?: string; field?: string };
  };
}

/** How long the service has to answer: a reorg or a drop acts before it answers, in well under this. */
const REQUEST_TIMEOUT_MS = 30_000;

/** The service's request fields as the options a task user typed. */
const OPTIONS: Record<string, string> = {
  network: "--chain-network",
  chain: "--chain",
  baseFeePerGas: "--base-fee-per-gas",
  id: "--id",
};

const optionOf = (field: string) => OPTIONS[field] ?? `--${field.replace(/\[\d+\]$/, "")}`;

/** A number as typed; anything else goes as typed, for the service to refuse naming the field. */
function numeric(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
}

/**
 * A task runs in a process of its own, and a simulated chain lives in the process that runs it: the only chain worth
 * disturbing is the one `serve` runs, so this task is a client of its HTTP API (POST, GET or DELETE
 * /api/v1/chains/{chain}/{network}/faults), found through the data directory it holds.
 */
export default async function chainFault(args: Args, hre: HardhatRuntimeEnvironment): Promise<void> {
  if (args.chain === undefined || args.chainNetwork === undefined) {
    throw pluginError(
      "INVALID_ARGUMENT (--chain, --chain-network): name the simulated pair, e.g. --chain ethereum --chain-network sepolia",
    );
  }
  const actions = [args.fault !== undefined, args.list === true, args.clear === true].filter(Boolean).length;
  if (actions !== 1) throw pluginError("INVALID_ARGUMENT (--fault): give one of --fault <kind>, --list or --clear");
  if (args.id !== undefined && !args.clear) throw pluginError("INVALID_ARGUMENT (--id): --id names the fault --clear ends");
  const base = serviceUrl(args, hre);
  const url = `${base}/api/v1/chains/${encodeURIComponent(args.chain)}/${encodeURIComponent(args.chainNetwork)}/faults`;
  const headers: Record<string, string> = {};
  if (args.apiKeyEnv !== undefined) {
    const key = readApiKeyVariable(process.env, args.apiKeyEnv);
    if (!key) throw pluginError(`INVALID_ARGUMENT (--api-key-env): the environment variable ${args.apiKeyEnv} has no value`);
    headers["x-api-key"] = key;
  }
  let answer: Answer;
  if (args.list) answer = await call(url, "GET", headers);
  else if (args.clear) answer = await call(args.id === undefined ? url : `${url}/${encodeURIComponent(args.id)}`, "DELETE", headers);
  else {
    const body = Object.fromEntries(
      Object.entries({
        fault: args.fault,
        multiplier: numeric(args.multiplier),
        baseFeePerGas: args.baseFeePerGas,
        blocks: numeric(args.blocks),
        seconds: numeric(args.seconds),
        rate: numeric(args.rate),
        calls: numeric(args.calls),
        errors: args.errors?.split(",").map((kind) => kind.trim()),
      }).filter(([, value]) => value !== undefined),
    );
    answer = await call(url, "POST", { ...headers, "content-type": "application/json" }, JSON.stringify(body));
  }
  if (answer.status >= 400) {
    const error = answer.body.error;
    if (args.json) printJson(answer.body);
    const hint = answer.status === 401 ? ` (pass --api-key-env NAME, NAME holding an API key of ${base})` : "";
    throw pluginError(
      `${error?.code ?? `HTTP ${answer.status}`}${error?.field ? ` (${optionOf(error.field)})` : ""}: ${error?.message ?? "the service refused the call"}${hint}`,
    );
  }
  if (args.json) return printJson(answer.body);
  const pair = `${args.chain}/${args.chainNetwork}`;
  if (args.list) {
    const faults = answer.body.faults ?? [];
    if (faults.length === 0) return void console.log(`No active fault on ${pair} (${base})`);
    console.log(`Active faults on ${pair} (${base}):`);
    for (const fault of faults) console.log(`  ${describe(fault)}`);
    return;
  }
  if (args.clear) {
    const cleared = answer.body.cleared ?? [];
    console.log(cleared.length === 0 ? `No active fault on ${pair}: nothing to clear` : `Cleared on ${pair}:`);
    for (const fault of cleared) console.log(`  ${describe(fault)}`);
    return;
  }
  console.log(`${pair} (${base}): ${describe(answer.body)}`);
}

/** Where `serve` answers: --url, else the URL the `serve` holding the data directory wrote beside its lock. */
function serviceUrl(args: Args, hre: HardhatRuntimeEnvironment): string {
  if (args.url !== undefined) return args.url.replace(/\/+$/, "");
  const directory = args.dataDir ? path.resolve(args.dataDir) : hre.config.tokenService.dataDir;
  const holder = dataDirectoryHolder(directory);
  if (holder?.url === undefined) {
    throw pluginError(
      `no \`npx hardhat serve\` holds ${directory}: start one with TOKEN_SERVICE_CHAIN_FAULTS=on (faults disturb the chain it runs), or pass --url`,
    );
  }
  return holder.url;
}

async function call(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw pluginError(`no answer from the service at ${new URL(url).origin} (${cause}): is \`npx hardhat serve\` running there?`);
  }
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as Answer["body"] };
  } catch {
    throw pluginError(`the service at ${new URL(url).origin} answered ${response.status} without JSON: is it a token service?`);
  }
}

/** One line: the fault, its state, what is left of it and what it did. */
export function describe(fault: ChainFaultView): string {
  const request = fault.request;
  const effect = fault.effect;
  let what: string;
  switch (fault.fault) {
    case "fee-spike":
      what = `base fee ${String(effect.baseFeePerGas)} wei (was ${String(effect.baseFeeBefore)}) for ${request.blocks} blocks`;
      break;
    case "stall":
    case "drop": {
      const length =
        request.blocks !== undefined ? `${request.blocks} blocks` : request.seconds !== undefined ? `${request.seconds} s` : undefined;
      if (fault.fault === "stall") what = `nothing mined for ${length}`;
      else what = length === undefined ? "what waited is forgotten" : `nothing mined for ${length}, then what waits is forgotten`;
      if (Array.isArray(effect.forgotten) && effect.forgotten.length > 0) what += `; forgot ${effect.forgotten.join(", ")}`;
      break;
    }
    case "reorg":
      what = `blocks ${String(effect.replacedFrom)}–${String(effect.oldHead)} replaced (head ${String(effect.head)}); ${String(effect.reincluded)} of ${String(effect.transactions)} transactions mined again`;
      break;
    case "rpc-errors":
      what = `${Math.round((request.rate ?? 0) * 100)} % of node calls fail (${(request.errors ?? []).join(", ")})${request.calls ? ` for ${request.calls} calls` : request.seconds ? ` for ${request.seconds} s` : " until cleared"}`;
      break;
  }
  const left = fault.remaining
    ? `, ${Object.entries(fault.remaining)
        .map(([unit, value]) => `${value} ${unit}`)
        .join(", ")} left`
    : "";
  const state = fault.status === "active" ? `active${left}` : `ended (${fault.endReason})`;
  return `${fault.fault} ${fault.id}: ${what}; ${state}`;
}
