import { isTokenServiceError } from "../../domain/errors.js";
import type { EvmChain } from "../../chains/evm/chain.js";
import { isUnderpriced, translateProviderError } from "../../chains/evm/provider-errors.js";
import { refusalOf } from "../../chains/evm/node-refusals.js";
import { currentTransaction, type BroadcastOutcome, type Observation } from "./decide.js";
import type { PassReads } from "./pass-reads.js";
import { storedRawTransaction } from "./stored-transactions.js";
import type { LeasedOperation, OperationRecord, OperationStore } from "./types.js";

// What the tracker sends, and how a node's answer is typed: a record's transaction again from its raw form, a step of
// its fee ladder in its place, a faucet grant made again; each answered as an Observation for decide.

/** How many times the tracker sends a transaction that nodes answer "already known", looking for one that lacks it. */
const SENDS_WHILE_KNOWN = 3;

/**
 * Sends a raw transaction; how the node answered (a refusal typed, never with the node's own text). The tracker sends
 * what a read just said the node lacks (or a new step): "already known" then came from another node behind the same URL
 * (a load balancer whose nodes do not share a pool), and the one that lacks it, maybe the one producing blocks, gets it
 * only if asked. So it is sent again, a few times, until a node takes it; a later refusal keeps the "already known".
 */
export async function sendRaw(chain: EvmChain, rawTransaction: string): Promise<BroadcastOutcome> {
  const first = await sendOnce(chain, rawTransaction);
  for (let sends = 1; first.kind === "already-known" && sends < SENDS_WHILE_KNOWN; sends++) {
    const again = await sendOnce(chain, rawTransaction);
    if (again.kind === "accepted") return again;
    if (again.kind === "refused") break;
  }
  return first;
}

async function sendOnce(chain: EvmChain, rawTransaction: string): Promise<BroadcastOutcome> {
  try {
    await chain.broadcast(rawTransaction);
    return { kind: "accepted" };
  } catch (raw) {
    if (isAlreadyKnown(raw)) return { kind: "already-known" };
    // Only the typed message is stored: the node's own text may quote the endpoint with its credentials.
    const error = translateProviderError(raw, `the ${chain.info.chain}/${chain.info.network} node`);
    return {
      kind: "refused",
      error: { code: error.code, message: error.message },
      transient: isTransient(error),
      ...(isUnderpriced(raw) ? { underpriced: true } : {}),
      ...(refusalOf(raw) === "nonce-too-low" ? { nonceUsed: true } : {}),
    };
  }
}

/** Upstream trouble (down, slow, failing) says nothing about the transaction: try again later. */
export function isTransient(error: unknown): boolean {
  return isTokenServiceError(error, "UPSTREAM_UNAVAILABLE") || isTokenServiceError(error, "UPSTREAM_TIMEOUT");
}

/** The node already has this very transaction. Checked on the raw error, whose text is not stored. */
export const isAlreadyKnown = (error: unknown) => refusalOf(error) === "already-known";

/**
 * Sends a step of the record's ladder in place of the transaction it follows: written as sent first (so that a crash
 * after the broadcast still has its hash followed), then broadcast.
 */
export async function sendLadderStep(
  store: OperationStore,
  record: LeasedOperation,
  chain: EvmChain,
  hash: string,
  pass: PassReads,
  lost?: true,
): Promise<Observation> {
  const step = record.transactions.find((transaction) => transaction.transactionHash === hash.toLowerCase());
  if (step === undefined || record.nonce === null) throw new Error(`step ${hash} of ${record.id} is not stored`);
  const raw = await storedRawTransaction(store, record, step);
  const { broadcastAt: _sent, ...fields } = step;
  const written = await store.recordTransaction(record.id, {
    ...fields,
    nonce: record.nonce,
    rawTransaction: raw,
    signature: null,
    broadcast: true,
  });
  if (written !== undefined) record.transactions = written.transactions;
  const [outcome, head] = await Promise.all([sendRaw(chain, raw), pass.head(chain)]);
  return {
    kind: "replaced",
    transactionHash: step.transactionHash,
    outcome,
    pollMs: chain.pollingIntervalMs,
    head,
    ...(lost ? { lost } : {}),
  };
}

/** Sends the stored raw transaction again (the one the record follows); how the node answered. */
export async function broadcastAgain(
  store: OperationStore,
  replaceAfterBlocksOf: (record: OperationRecord) => number,
  record: LeasedOperation,
  chain: EvmChain,
  pass: PassReads,
  heldNowhere?: true,
  behindReservation = false,
): Promise<Observation> {
  const outcome = await sendRaw(chain, await rawOf(store, await following(store, record)));
  const replaceAfterBlocks = replaceAfterBlocksOf(record);
  // The pass's head, read when it observed the record (it is cached): where its replace-after blocks count from.
  const head = await pass.head(chain).catch(() => undefined);
  return {
    kind: "broadcast",
    outcome,
    pollMs: chain.pollingIntervalMs,
    ...(head !== undefined ? { head } : {}),
    ...(Number.isFinite(replaceAfterBlocks) ? { replaceAfterBlocks } : {}),
    ...(heldNowhere ? { heldNowhere } : {}),
    ...(behindReservation ? { behindReservation: true as const } : {}),
  };
}

/** A faucet grant recorded before a crash and not in the chain's journal: made now, under the same name. */
export async function grantAgain(record: LeasedOperation, chain: EvmChain): Promise<Observation> {
  const { address, amount } = record.params as { address: string; amount: string };
  return { kind: "granted", balance: await chain.fund!(address, BigInt(amount), record.id) };
}

/**
 * The record as the store holds it now when a replacement (a speed-up or cancel, which the caller's request sends without
 * the tracker's lease) moved it on since the pass leased it: sent again, the leased copy's transaction would put a
 * superseded one back in the node's pool, which the next block may mine in place of the one the record follows. Read
 * only when resending, which the node's loss of a transaction makes rare.
 */
async function following(
  store: OperationStore,
  record: LeasedOperation,
): Promise<Pick<LeasedOperation, "transactions" | "transactionHash" | "rawTransaction" | "id">> {
  const now = await store.getOperation(record.id).catch(() => undefined);
  return now === undefined || now.transactionHash === record.transactionHash ? record : now;
}

/** The raw form of the transaction the record follows: its first one's, or a replacement's as stored with it. */
async function rawOf(
  store: OperationStore,
  record: Pick<LeasedOperation, "transactions" | "transactionHash" | "rawTransaction" | "id">,
): Promise<string> {
  const current = currentTransaction(record);
  if (record.rawTransaction !== null && (current === undefined || current.role === "original")) return record.rawTransaction;
  if (current === undefined) throw new Error(`no raw form stored for ${record.transactionHash}`);
  return storedRawTransaction(store, record, current);
}
