import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";

import { keccak256, toQuantity } from "ethers";

import { replaceFile, syncDirectory } from "./durable-file.js";

/** One account as a checkpoint keeps it: what a fresh chain needs to hold it again. */
export interface CheckpointAccount {
  nonce: string;
  balance: string;
  /** keccak256 of its code, a key of `ChainCheckpoint.codes`; absent for an account without code. */
  codeHash?: string;
  /** Its non-zero storage slots, slot → value, both 0x-prefixed 32-byte hex. */
  storage?: Record<string, string>;
}

/**
 * A simulated chain's state at one block, written beside its journal so that a start replays only the entries after
 * it. Blocks below `height` are not kept: a restored chain has empty blocks there, its state in the genesis.
 */
export interface ChainCheckpoint {
  version: 1;
  /** Written as the first line of the journal that follows it: how a start tells a rotated journal from an old one. */
  id: string;
  chainId: number;
  height: number;
  /** The base fee the block after `height` had (or would have) as a hex quantity. */
  nextBaseFee: string;
  /** Bytes of the journal (as it was before this checkpoint) that the state covers. */
  journalOffset: number;
  /** How many journal entries the chain's history holds up to here, this checkpoint's and those before it. */
  entriesCovered: number;
  /** The named faucet grants made up to here. */
  grants: string[];
  /** Every account with a nonce, a balance, code or storage, by lower-case address. */
  accounts: Record<string, CheckpointAccount>;
  /** Contract code by its keccak256: thousands of tokens share a handful of codes. */
  codes: Record<string, string>;
}

export function checkpointPathOf(journalPath: string): string {
  return `${journalPath}.checkpoint.json`;
}

export function newCheckpointId(): string {
  return randomUUID();
}

const HEX = /^0x[0-9a-fA-F]*$/;

function isCheckpoint(value: unknown): value is ChainCheckpoint {
  const checkpoint = value as Partial<ChainCheckpoint> | null;
  return (
    checkpoint !== null &&
    typeof checkpoint === "object" &&
    checkpoint.version === 1 &&
    typeof checkpoint.id === "string" &&
    Number.isSafeInteger(checkpoint.height) &&
    checkpoint.height! >= 0 &&
    Number.isSafeInteger(checkpoint.journalOffset) &&
    checkpoint.journalOffset! >= 0 &&
    Number.isSafeInteger(checkpoint.entriesCovered) &&
    typeof checkpoint.nextBaseFee === "string" &&
    HEX.test(checkpoint.nextBaseFee) &&
    Array.isArray(checkpoint.grants) &&
    typeof checkpoint.accounts === "object" &&
    checkpoint.accounts !== null &&
    typeof checkpoint.codes === "object" &&
    checkpoint.codes !== null
  );
}

/** Reads the checkpoint; undefined when there is none. One that cannot be read whole is an error: the journal it covered is gone. */
export async function readCheckpoint(file: string): Promise<ChainCheckpoint | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  // Written whole and renamed into place: a file here is complete unless something other than the service changed it.
  const parsed: unknown = JSON.parse(text);
  if (!isCheckpoint(parsed)) throw new Error(`${path.basename(file)} is not a simulated chain checkpoint (version 1)`);
  return parsed;
}

/**
 * Writes the checkpoint beside the old one, synced, then renamed over it and the directory synced: a kill or a full
 * disk at any point leaves the previous checkpoint whole. A failed write removes its temporary file and throws.
 */
export async function writeCheckpoint(file: string, checkpoint: ChainCheckpoint): Promise<void> {
  await replaceFile(file, JSON.stringify(checkpoint));
  await syncDirectory(path.dirname(file));
}

/** A chain's state as accounts, the shape a fresh EDR chain takes it in (see SimulatedGenesis). */
export function genesisAccounts(checkpoint: ChainCheckpoint): Array<{
  address: string;
  balance: bigint;
  nonce: bigint;
  code?: string;
  storage?: Array<[slot: string, value: string]>;
}> {
  return Object.entries(checkpoint.accounts).map(([address, account]) => ({
    address,
    balance: BigInt(account.balance),
    nonce: BigInt(account.nonce),
    ...(account.codeHash !== undefined ? { code: checkpoint.codes[account.codeHash]! } : {}),
    ...(account.storage !== undefined ? { storage: Object.entries(account.storage) } : {}),
  }));
}

/** The node a capture reads: historical reads at a fixed block, and transaction traces. */
type Node = (method: string, params: unknown[]) => Promise<unknown>;

interface TracedAccount {
  balance?: string;
  nonce?: number | string;
  code?: string;
  storage?: Record<string, string>;
}

interface PrestateDiff {
  pre?: Record<string, TracedAccount>;
  post?: Record<string, TracedAccount>;
}

const ZERO_WORD = /^0x0*$/;
/** Blocks, and then their transactions' traces, asked at once when a checkpoint reads what changed. */
const CAPTURE_BATCH = 100;
const word = (hex: string) => `0x${BigInt(hex).toString(16).padStart(64, "0")}`;

/**
 * Brings `state` (the state at the previous checkpoint, `fromHeight`) to block `toHeight`. Each transaction of the
 * blocks between is traced with EDR's prestate tracer in diff mode, whose `post` holds the values it changed (a slot in
 * `pre` but not in `post` became zero); these are applied in order. What no trace shows is read at `toHeight`:
 * `alsoTouched` (faucet grants set balances outside transactions), each block's fee recipient, and an account a trace
 * names that the state did not hold yet but that existed before (a genesis account). Reads name the block, so blocks
 * mined meanwhile change nothing. Applying the same diffs again (a retry after a failed write) gives the same state.
 */
export async function captureState(
  node: Node,
  state: { accounts: Record<string, CheckpointAccount>; codes: Record<string, string> },
  fromHeight: number,
  toHeight: number,
  alsoTouched: Iterable<string>,
): Promise<void> {
  const reread = new Map<string, Set<string>>();
  const readAgain = (address: string) => {
    const key = address.toLowerCase();
    let slots = reread.get(key);
    if (slots === undefined) reread.set(key, (slots = new Set()));
    return slots;
  };
  for (const address of alsoTouched) readAgain(address);
  const setCode = (account: CheckpointAccount, code: string) => {
    if (code === "0x") return void delete account.codeHash;
    const codeHash = keccak256(code);
    state.codes[codeHash] ??= code;
    account.codeHash = codeHash;
  };
  /** Applies one transaction's diff, in chain order. */
  const apply = (diff: PrestateDiff) => {
    const pre = diff.pre ?? {};
    const post = diff.post ?? {};
    for (const [address, before] of Object.entries(pre)) {
      const key = address.toLowerCase();
      const after = post[address];
      // Held before this transaction but not known here (a genesis account), or gone after it: read whole at the end.
      if (reread.has(key) || state.accounts[key] === undefined || after === undefined) {
        const slots = readAgain(key);
        for (const slot of Object.keys(before.storage ?? {})) slots.add(slot);
        continue;
      }
      for (const slot of Object.keys(before.storage ?? {})) {
        if (after.storage?.[slot] === undefined) delete state.accounts[key].storage?.[word(slot)];
      }
    }
    for (const [address, after] of Object.entries(post)) {
      const key = address.toLowerCase();
      if (reread.has(key)) {
        const slots = readAgain(key);
        for (const slot of Object.keys(after.storage ?? {})) slots.add(slot);
        continue;
      }
      const account: CheckpointAccount = state.accounts[key] ?? { nonce: "0x0", balance: "0x0" };
      if (after.balance !== undefined) account.balance = toQuantity(BigInt(after.balance));
      if (after.nonce !== undefined) account.nonce = toQuantity(BigInt(after.nonce));
      if (after.code !== undefined) setCode(account, after.code);
      for (const [slot, value] of Object.entries(after.storage ?? {})) {
        account.storage ??= {};
        if (ZERO_WORD.test(value)) delete account.storage[word(slot)];
        else account.storage[word(slot)] = word(value);
      }
      state.accounts[key] = account;
    }
  };
  // Asked a batch at a time: beside a busy chain, requests one after another would each wait their turn in the node.
  for (let first = fromHeight + 1; first <= toHeight; first += CAPTURE_BATCH) {
    const numbers = Array.from({ length: Math.min(CAPTURE_BATCH, toHeight - first + 1) }, (_, index) => first + index);
    const blocks = (await Promise.all(numbers.map((number) => node("eth_getBlockByNumber", [toQuantity(number), false])))) as Array<{
      miner: string;
      transactions: string[];
    } | null>;
    const hashes = blocks.flatMap((block) => {
      if (block === null) return [];
      readAgain(block.miner);
      return block.transactions;
    });
    const diffs = (await Promise.all(
      hashes.map((hash) => node("debug_traceTransaction", [hash, { tracer: "prestateTracer", tracerConfig: { diffMode: true } }])),
    )) as PrestateDiff[];
    for (const diff of diffs) apply(diff);
  }
  const at = toQuantity(toHeight);
  for (const [address, touchedSlots] of reread) {
    const [balance, nonce, code] = (await Promise.all([
      node("eth_getBalance", [address, at]),
      node("eth_getTransactionCount", [address, at]),
      node("eth_getCode", [address, at]),
    ])) as [string, string, string];
    const account: CheckpointAccount = {
      ...state.accounts[address],
      nonce: toQuantity(BigInt(nonce)),
      balance: toQuantity(BigInt(balance)),
    };
    setCode(account, code);
    const slots = [...new Set([...Object.keys(account.storage ?? {}), ...[...touchedSlots].map(word)])];
    const values = (await Promise.all(slots.map((slot) => node("eth_getStorageAt", [address, slot, at])))) as string[];
    const storage: Record<string, string> = {};
    slots.forEach((slot, index) => {
      if (!ZERO_WORD.test(values[index]!)) storage[slot] = word(values[index]!);
    });
    if (Object.keys(storage).length > 0) account.storage = storage;
    else delete account.storage;
    state.accounts[address] = account;
  }
  for (const [address, account] of Object.entries(state.accounts)) {
    if (account.storage !== undefined && Object.keys(account.storage).length === 0) delete account.storage;
    const empty =
      BigInt(account.nonce) === 0n && BigInt(account.balance) === 0n && account.codeHash === undefined && account.storage === undefined;
    if (empty) delete state.accounts[address];
  }
  // Codes no account uses any more (none, in practice: contracts are not destroyed after Cancun) are dropped.
  const used = new Set(Object.values(state.accounts).flatMap((account) => (account.codeHash === undefined ? [] : [account.codeHash])));
  for (const hash of Object.keys(state.codes)) if (!used.has(hash)) delete state.codes[hash];
}
