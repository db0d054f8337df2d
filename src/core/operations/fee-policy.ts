import { readFamilyVariable } from "../../config/environment.js";
import {
  defaultReplaceAfterBlocks,
  feeCapEnvironmentVariable,
  replaceAfterBlocksEnvironmentVariable,
  type NetworkInfo,
} from "../../domain/chains.js";
import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import { formatGwei, parseGwei } from "../../domain/fee-ladder.js";

export interface FeePolicyOptions {
  /** Fee ceilings in gwei, keyed "chain/network" (the Hardhat config's `tokenService.feeCaps`); the environment wins. */
  feeCaps?: Readonly<Record<string, string | number>>;
  /** Blocks a pending transaction waits before it is replaced, keyed "chain/network"; the environment wins. */
  replaceAfterBlocks?: Readonly<Record<string, number>>;
  env?: NodeJS.ProcessEnv;
}

/** A pair's fee ceiling, in wei, and where it was set (named in FEE_CAP_EXCEEDED). */
export interface FeeCap {
  wei: bigint;
  source: string;
}

type Pair = Pick<NetworkInfo, "chain" | "network">;

/**
 * What each pair lets its transactions pay, and how long a pending one waits before it is replaced: from
 * `TOKEN_SERVICE_FEE_CAP_<CHAIN>_<NETWORK>` and `TOKEN_SERVICE_REPLACE_AFTER_BLOCKS_<CHAIN>_<NETWORK>`, else the
 * configuration, else the defaults (no ceiling for a send; about 36 s of the chain's blocks). Read when a pair is first
 * used, as its endpoint is: a bad value fails that pair, naming it.
 */
export class FeePolicy {
  private readonly caps = new Map<string, FeeCap | undefined>();
  private readonly waits = new Map<string, number>();

  constructor(private readonly options: FeePolicyOptions = {}) {}

  capOf(pair: Pair): FeeCap | undefined {
    const key = `${pair.chain}/${pair.network}`;
    if (this.caps.has(key)) return this.caps.get(key);
    const variable = feeCapEnvironmentVariable(pair.chain, pair.network);
    const fromEnv = readFamilyVariable(this.options.env ?? process.env, "feeCap", variable);
    const configured = this.options.feeCaps?.[key];
    let cap: FeeCap | undefined;
    if (fromEnv !== undefined) cap = { wei: parseGwei(fromEnv)!, source: variable };
    else if (configured !== undefined) {
      const wei = parseGwei(String(configured));
      if (wei === undefined || wei === 0n)
        throw new Error(`tokenService.feeCaps.${pair.chain}.${pair.network} must be gwei above 0, not ${configured}`);
      cap = { wei, source: `tokenService.feeCaps.${pair.chain}.${pair.network}` };
    }
    this.caps.set(key, cap);
    return cap;
  }

  replaceAfterBlocksOf(pair: Pair): number {
    const key = `${pair.chain}/${pair.network}`;
    let blocks = this.waits.get(key);
    if (blocks === undefined) {
      const fromEnv = readFamilyVariable(
        this.options.env ?? process.env,
        "replaceAfterBlocks",
        replaceAfterBlocksEnvironmentVariable(pair.chain, pair.network),
      );
      blocks = fromEnv !== undefined ? Number(fromEnv) : (this.options.replaceAfterBlocks?.[key] ?? defaultReplaceAfterBlocks(pair.chain));
      this.waits.set(key, blocks);
    }
    return blocks;
  }

  /** Refuses fees over the pair's ceiling, before anything is signed. `what`: "the fee … needs now", for the message. */
  assertUnderCap(pair: Pair, maxFee: bigint, what: string): void {
    const cap = this.capOf(pair);
    if (cap === undefined || maxFee <= cap.wei) return;
    throw feeCapExceeded(pair, cap, maxFee, what);
  }
}

export function feeCapExceeded(pair: Pair, cap: FeeCap, needed: bigint, what: string): TokenServiceError {
  return new TokenServiceError(
    ErrorCode.FEE_CAP_EXCEEDED,
    `${what} ${formatGwei(needed)} gwei per gas, over ${pair.chain}/${pair.network}'s fee ceiling of ${formatGwei(cap.wei)} gwei (${cap.source}): nothing was signed or sent`,
    { details: { ceiling: cap.wei.toString(), ceilingGwei: formatGwei(cap.wei), needed: needed.toString(), source: cap.source } },
  );
}
