import { JsonRpcApiProvider, toQuantity, type FeeData, type Transaction, type TransactionLike } from "ethers";

import { ErrorCode, TokenServiceError, isTokenServiceError } from "../../../domain/errors.js";
import { ceilingOf, feeLadder, maxFeeOf, type FeeLadder, type Fees } from "../../../domain/fee-ladder.js";
import { amountPair } from "../../../domain/units.js";
import type { EvmChain } from "../chain.js";
import { isUnansweredCall, translateProviderError } from "../provider-errors.js";
import { decodeRevert, describeRevert, revertDataOf } from "../revert-reasons.js";
import { knownGas, learnGas } from "./gas-shapes.js";
import { chargesL1DataFee, l1DataFee } from "./l1-fee.js";
import { SenderBatches, type Handoff, type Queued } from "./sender-batches.js";
import { senderLockKey, type SenderLock } from "../sender-lock.js";
import { signSend, type SendToSign, type SignedSend } from "./sign-transaction.js";
import { signOffThread } from "./signing-thread.js";
import { parseSignedTransaction } from "./signed-transaction.js";
import { fillerFees, fillReservationsBelow, heldBetween, type ReservationFillerHooks } from "./reservation-fillers.js";
import type { PreparedTransaction } from "../../../core/operations/types.js";

export interface SignedTransactionInfo {
  transactionHash: string;
  nonce: number;
  /** Public once broadcast; stored so that a lost transaction can be sent again. */
  rawTransaction: string;
  /** The fees it was signed with. */
  fees: Fees;
  /**
   * Its replacements and its cancel, signed ahead with the same key and nonce (a key-in-body send on a chain where a
   * transaction can wait): stored with the record before the broadcast, sent only if it is not included.
   */
  ahead?: SignedStep[];
}

/**
 * A transaction signed ahead for a send: one step of its fee ladder, kept as its signature (it differs from the send's
 * own transaction only in its fees: `resignedTransaction` rebuilds it), or its cancel, kept whole (it is small).
 */
export type SignedStep = { rung: number; fees: Fees; transactionHash: string } & (
  { role: "replacement"; signature: string } | { role: "cancel"; rawTransaction: string }
);

/** A pair's fee rules, as a send applies them. */
export interface FeeRules {
  /** Throws (FEE_CAP_EXCEEDED) when fees a send would sign are over the pair's ceiling; runs before anything is signed. */
  check(fees: Fees): void;
  /** The pair's configured ceiling; undefined: the default multiple of the first max fee. */
  cap: bigint | undefined;
  /** Sign the fee ladder and the cancel ahead, with the key at hand. */
  signAhead: boolean;
}

/** The recorder port: how the operation pipeline takes part in a send, each call inside the sender lock. */
export interface BroadcastHooks {
  /** Runs after signing and before broadcasting, inside the sender lock: the place to write a durable record. */
  beforeBroadcast?(info: SignedTransactionInfo): Promise<void>;
  /**
   * The nonces this send may not take, inside the sender lock: the store's unfinished records may hold nonces the node
   * has not seen yet (signed before a crash, not yet re-broadcast), and prepared transactions hold theirs until signed.
   */
  heldNonces?(): Promise<number[]>;
  /** A caller-signed transaction (already checked against the request): refuses it unless it is the prepared one, inside the sender lock. */
  acceptSigned?(transaction: Transaction): Promise<void>;
  /** Where a key-in-body send keeps the fillers it signs for the reservations below it (reservation-fillers.ts). */
  reservationFillers?: ReservationFillerHooks;
}

/** What the transaction does; who signs it is the caller's `privateKey`, a `signedTransaction`, or nobody yet (prepare). */
export interface TransactionIntent {
  sender: string;
  to?: string;
  data: string;
  /** Native currency sent with it, in smallest units (a NATIVE transfer's amount); default 0. */
  value?: bigint;
  /**
   * Sends of one shape need the same gas but for their calldata, and revert only if every send of the shape reverts
   * (deployments of one contract with checked arguments: see gas-shapes.ts); the node is asked once per shape and chain
   * (again after a while). Sends without a shape are estimated by the node every time.
   */
  gasShape?: string;
  /** The pair's fee ceiling and whether to sign the ladder ahead; none: no ceiling, nothing ahead. */
  feeRules?: FeeRules;
}

export interface SendRequest extends TransactionIntent {
  /** Already checked to derive `sender`. */
  privateKey?: string;
  /** Signed by the caller; parsed and checked here. */
  signedTransaction?: string;
}

/**
 * The node's gas estimate. A JSON-RPC provider is asked directly with the request as it already stands (hex data):
 * ethers' own estimateGas copies and re-encodes a deployment's 5 KB on every call. Errors keep ethers' typing.
 */
async function estimateGas(chain: EvmChain, request: TransactionIntent): Promise<bigint> {
  const call = callOf(request);
  if (!(chain.provider instanceof JsonRpcApiProvider)) return chain.provider.estimateGas(call);
  return BigInt((await chain.provider.send("eth_estimateGas", [call])) as string);
}

/**
 * The request as a JSON-RPC call object: the sender, the target (none for a deployment), the data, and the native
 * currency it sends (a NATIVE transfer's amount) as a quantity, left out when none.
 */
function callOf(request: TransactionIntent): { from: string; to?: string; data: string; value?: string } {
  const value = request.value ?? 0n;
  return {
    from: request.sender,
    ...(request.to ? { to: request.to } : {}),
    data: request.data,
    ...(value > 0n ? { value: toQuantity(value) } : {}),
  };
}

/** The node's estimates of `requests`: one JSON-RPC batch on a node over the network (serialized once), else each at once. */
async function nodeEstimates(chain: EvmChain, requests: TransactionIntent[]): Promise<Array<PromiseSettledResult<bigint>>> {
  if (requests.length === 0) return [];
  if (chain.requestAll === undefined) return Promise.allSettled(requests.map((request) => estimateGas(chain, request)));
  const answers = await chain.requestAll(requests.map((request) => ({ method: "eth_estimateGas", params: [callOf(request)] })));
  return answers.map((answer) => (answer.status === "fulfilled" ? { status: "fulfilled", value: BigInt(answer.value as string) } : answer));
}

/**
 * Each request's gas: from what its shape is known to need on this chain (gas-shapes.ts), or from the node, asked for
 * every request without a shape and for the first request of each shape not known yet; the others of that shape follow
 * it, or are estimated on their own if it failed. A request the node refuses to estimate is never sent (its refusal
 * is the caller's answer, WOULD_REVERT when it would revert), and nothing is learnt from it.
 */
async function estimateAll(chain: EvmChain, requests: TransactionIntent[]): Promise<Array<PromiseSettledResult<bigint>>> {
  const settled: Array<PromiseSettledResult<bigint> | undefined> = requests.map((request) => {
    const gas = request.gasShape === undefined ? undefined : knownGas(chain, request.gasShape, request.data);
    return gas === undefined ? undefined : { status: "fulfilled", value: gas };
  });
  const asked: number[] = [];
  const followers: number[] = [];
  const shapesAsked = new Set<string>();
  for (const [index, request] of requests.entries()) {
    if (settled[index] !== undefined) continue;
    const shape = request.gasShape;
    if (shape !== undefined && shapesAsked.has(shape)) followers.push(index);
    else {
      if (shape !== undefined) shapesAsked.add(shape);
      asked.push(index);
    }
  }
  const ask = async (indices: number[]) => {
    const answers = await nodeEstimates(
      chain,
      indices.map((index) => requests[index]!),
    );
    for (const [position, index] of indices.entries()) {
      const answer = answers[position]!;
      const { gasShape, data } = requests[index]!;
      if (answer.status === "fulfilled" && gasShape !== undefined) learnGas(chain, gasShape, data, answer.value);
      settled[index] = answer;
    }
  };
  await ask(asked);
  const unknown = followers.filter((index) => {
    const gas = knownGas(chain, requests[index]!.gasShape!, requests[index]!.data);
    if (gas !== undefined) settled[index] = { status: "fulfilled", value: gas };
    return gas === undefined;
  });
  await ask(unknown);
  return settled as Array<PromiseSettledResult<bigint>>;
}

/** Estimates leave headroom: a block may move the base fee or the gas a call needs between estimate and inclusion. */
const GAS_HEADROOM_PERCENT = 120n;

/**
 * The most gas one transaction may use where EIP-7825 holds (Osaka; Ethereum since Fusaka, and the simulated chains): a
 * node refuses a larger limit, or keeps it unmined. A large batch mint's estimate comes near it.
 */
export const TRANSACTION_GAS_CAP = 16_777_216n;

/** The estimate with its headroom, which stops at the cap for a transaction estimated within it. */
export function gasLimitFor(estimate: bigint): bigint {
  const limit = (estimate * GAS_HEADROOM_PERCENT) / 100n;
  return estimate <= TRANSACTION_GAS_CAP && limit > TRANSACTION_GAS_CAP ? TRANSACTION_GAS_CAP : limit;
}

/** The lowest nonce from the node's next one that nothing holds: a reservation that expired unused is taken again. */
export function lowestFreeNonce(next: number, held: readonly number[]): number {
  let nonce = next;
  for (const taken of held) {
    if (taken < nonce) continue;
    if (taken > nonce) break;
    nonce++;
  }
  return nonce;
}

/** The transaction to sign with this nonce, gas limit and fees. */
function unsignedTransaction(
  chain: EvmChain,
  request: Pick<TransactionIntent, "to" | "data" | "value">,
  nonce: number,
  gasLimit: bigint,
  fees: Fees,
): TransactionLike {
  return {
    chainId: chain.info.chainId,
    nonce,
    gasLimit,
    data: request.data,
    value: request.value ?? 0n,
    to: request.to ?? null,
    ...feeFields(fees),
  };
}

/** Fees as a transaction's fields. */
export function feeFields(fees: Fees): Pick<TransactionLike, "type" | "maxFeePerGas" | "maxPriorityFeePerGas" | "gasPrice"> {
  return fees.type === 2
    ? { type: 2, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
    : { type: 0, gasPrice: fees.gasPrice };
}

/** The fees the node's fee data says a transaction takes now: EIP-1559 where the chain has a base fee, else a gas price. */
export function feesOfFeeData(feeData: FeeData): Fees {
  if (feeData.maxFeePerGas !== null && feeData.maxPriorityFeePerGas !== null) {
    return { type: 2, maxFeePerGas: feeData.maxFeePerGas, maxPriorityFeePerGas: feeData.maxPriorityFeePerGas };
  }
  return { type: 0, gasPrice: feeData.gasPrice ?? 0n };
}

/** The fees a signed transaction carries. */
export function feesOfTransaction(transaction: Pick<Transaction, "type" | "maxFeePerGas" | "maxPriorityFeePerGas" | "gasPrice">): Fees {
  return transaction.type === 2
    ? { type: 2, maxFeePerGas: transaction.maxFeePerGas ?? 0n, maxPriorityFeePerGas: transaction.maxPriorityFeePerGas ?? 0n }
    : { type: 0, gasPrice: transaction.gasPrice ?? 0n };
}

/** A zero-value transfer to the sender costs this gas on a chain without extra rules (the in-process simulated ones). */
export const PLAIN_TRANSFER_GAS = 21_000n;

/**
 * The gas of a cancel (a zero-value transfer from the sender to itself): a plain transfer's 21,000, but on an Arbitrum
 * chain, whose gas counts the transaction's L1 part: asked of the node there, with the usual headroom, and undefined
 * when it will not estimate it (no cancel is signed then). Everywhere else a send's estimates stay the only ones asked.
 */
export async function cancelGas(chain: EvmChain, sender: string): Promise<bigint | undefined> {
  if (chain.simulated || chain.info.rollup !== "arbitrum") return PLAIN_TRANSFER_GAS;
  try {
    const gas = await estimateGas(chain, { sender, to: sender, data: "0x" });
    return gas === PLAIN_TRANSFER_GAS ? gas : (gas * GAS_HEADROOM_PERCENT) / 100n;
  } catch {
    return undefined;
  }
}

/**
 * What a key-in-body send signs ahead: the same call at the same nonce on each replacement step of its fee ladder, and a
 * zero-value transfer to the sender on the top step (the cancel).
 */
function aheadPlan(
  chain: EvmChain,
  request: SendRequest,
  nonce: number,
  fees: Fees,
  cancelGasLimit: bigint | undefined,
): { ladder: FeeLadder; cancel: TransactionLike | undefined } {
  const ladder = feeLadder(fees, ceilingOf(fees, request.feeRules!.cap));
  const cancel =
    ladder.cancel !== undefined && cancelGasLimit !== undefined
      ? unsignedTransaction(chain, { to: request.sender, data: "0x" }, nonce, cancelGasLimit, ladder.cancel.fees)
      : undefined;
  return { ladder, cancel };
}

/** The steps signed ahead, as the send keeps them: the replacements as signatures, the cancel whole. */
function stepsOf(ladder: FeeLadder, signed: SignedSend): SignedStep[] {
  const steps: SignedStep[] = ladder.replacements.map(({ rung, fees }, index) => ({
    role: "replacement",
    rung,
    fees,
    transactionHash: signed.resigned[index]!.hash,
    signature: signed.resigned[index]!.signature,
  }));
  if (ladder.cancel !== undefined && signed.cancel !== undefined) {
    const { raw, hash } = signed.cancel;
    steps.push({ role: "cancel", rung: ladder.cancel.rung, fees: ladder.cancel.fees, transactionHash: hash, rawTransaction: raw });
  }
  return steps;
}

/** A failure of the store's, asked beside the node: passed on as it is (a database outage is a 503, not the node's 502). */
class StoreFailure {
  constructor(readonly error: unknown) {}
}

function fromStore<T>(promise: Promise<T> | undefined): Promise<T> | undefined {
  return promise?.catch((error: unknown) => Promise.reject(new StoreFailure(error)));
}

/** What a failed read beside the node means: the store's own error, or the node's, translated. */
function nodeOrStoreError(error: unknown, node: string): unknown {
  return error instanceof StoreFailure ? error.error : translateProviderError(error, node);
}

/** Nonce, gas and fees for `request`, refused when the sender cannot pay the estimated fee. Runs inside the sender lock. */
async function buildTransaction(chain: EvmChain, request: TransactionIntent, hooks: BroadcastHooks): Promise<TransactionLike> {
  const node = nodeName(chain);
  let nextNonce: number, estimates: Array<PromiseSettledResult<bigint>>, feeData: FeeData, available: bigint, held: number[] | undefined;
  try {
    [nextNonce, estimates, feeData, available, held] = await Promise.all([
      chain.provider.getTransactionCount(request.sender, "pending"),
      estimateAll(chain, [request]),
      chain.provider.getFeeData(),
      chain.provider.getBalance(request.sender, "pending"),
      fromStore(hooks.heldNonces?.()),
    ]);
  } catch (error) {
    throw nodeOrStoreError(error, node);
  }
  const estimate = estimates[0]!;
  if (estimate.status === "rejected") throw await estimateError(chain, request, estimate.reason);
  const fees = feesOfFeeData(feeData);
  request.feeRules?.check(fees);
  const gasLimit = gasLimitFor(estimate.value);
  const transaction = unsignedTransaction(chain, request, lowestFreeNonce(nextNonce, held ?? []), gasLimit, fees);
  let l1Fee: bigint;
  try {
    l1Fee = await l1DataFee(chain, transaction);
  } catch (error) {
    throw translateProviderError(error, node);
  }
  const gasCost = gasLimit * maxFeeOf(fees);
  // What it sends counts: the node refuses a transaction whose value and fees together exceed the balance.
  const value = request.value ?? 0n;
  if (available < gasCost + l1Fee + value) throw insufficientFunds(chain, request.sender, available, available, gasCost, l1Fee, value);
  return transaction;
}

/** The transaction as the caller should sign it, with its nonce reserved by `reserve` (which answers when that expires). */
export async function prepareTransaction(
  chain: EvmChain,
  lock: SenderLock,
  request: TransactionIntent,
  hooks: Pick<BroadcastHooks, "heldNonces"> & { reserve(transaction: TransactionLike): Promise<string | undefined> },
): Promise<{ transaction: TransactionLike; expiresAt: string }> {
  return lock.withLock(senderLockKey(chain.info.chainId, request.sender), async () => {
    // Another process on the embedded store may reserve between our read and our insert: the next read sees its nonce.
    for (let attempt = 0; attempt < 5; attempt++) {
      const transaction = await buildTransaction(chain, request, hooks);
      const expiresAt = await hooks.reserve(transaction);
      if (expiresAt !== undefined) return { transaction, expiresAt };
    }
    throw new TokenServiceError(
      ErrorCode.NONCE_TAKEN,
      `could not reserve a nonce for ${request.sender}: other prepares keep taking them; retry`,
      {
        field: "sender",
      },
    );
  });
}

/** The caller's signed transaction, checked to carry exactly what `request` asks, on this chain. */
function acceptedSigned(chain: EvmChain, request: SendRequest): Transaction {
  const transaction = parseSignedTransaction(request.signedTransaction, request.sender);
  const expected: Pick<PreparedTransaction, "chainId" | "to" | "data" | "value"> = {
    chainId: chain.info.chainId,
    to: request.to ?? null,
    data: request.data,
    value: (request.value ?? 0n).toString(),
  };
  const mismatch = (["chainId", "to", "value", "data"] as const).find(
    (field) => String(transaction[field] ?? null).toLowerCase() !== String(expected[field]).toLowerCase(),
  );
  if (mismatch !== undefined) {
    throw new TokenServiceError(
      ErrorCode.TRANSACTION_MISMATCH,
      mismatch === "chainId"
        ? `signedTransaction is for chain id ${transaction.chainId}, not ${chain.info.chain}/${chain.info.network} (${chain.info.chainId})`
        : `signedTransaction's ${mismatch} is not what this request's body ${request.to ? "sends" : "deploys"}: sign the transaction prepared for this body, and submit it with the same body`,
      { field: "signedTransaction", details: { property: mismatch } },
    );
  }
  return transaction;
}

interface SendJob {
  request: SendRequest;
  hooks: BroadcastHooks;
}

type Job = Queued<SendJob, SignedTransactionInfo>;

const batchesByLock = new WeakMap<SenderLock, SenderBatches<SendJob, SignedTransactionInfo, BatchBroadcasts>>();

/**
 * Signs (or takes the caller's signed transaction) and broadcasts one transaction from `sender`. Sends from one chain and
 * sender run one batch at a time inside the sender lock, so nonces never collide; a send is refused before signing when
 * the sender cannot pay the estimated fee.
 */
export async function sendTransaction(
  chain: EvmChain,
  lock: SenderLock,
  request: SendRequest,
  hooks: BroadcastHooks = {},
): Promise<SignedTransactionInfo> {
  if (request.signedTransaction !== undefined) return sendSigned(chain, lock, request, hooks);
  let batches = batchesByLock.get(lock);
  if (batches === undefined) batchesByLock.set(lock, (batches = new SenderBatches(lock, sendBatch)));
  return batches.submit(chain, request.sender, { request, hooks });
}

/** A caller-signed transaction carries its own (reserved) nonce: it is checked and sent alone, inside the sender lock. */
async function sendSigned(chain: EvmChain, lock: SenderLock, request: SendRequest, hooks: BroadcastHooks): Promise<SignedTransactionInfo> {
  return lock.withLock(senderLockKey(chain.info.chainId, request.sender), async () => {
    const transaction = acceptedSigned(chain, request);
    await hooks.acceptSigned?.(transaction);
    const info: SignedTransactionInfo = {
      transactionHash: transaction.hash!,
      nonce: transaction.nonce,
      rawTransaction: transaction.serialized,
      fees: feesOfTransaction(transaction),
    };
    await hooks.beforeBroadcast?.(info);
    try {
      await chain.broadcast(info.rawTransaction);
    } catch (error) {
      throw translateProviderError(error, nodeName(chain));
    }
    return info;
  });
}

/** How many sends from `sender` on `chain` wait for its next batch under `lock`. */
export function waitingSends(chain: EvmChain, lock: SenderLock, sender: string): number {
  return batchesByLock.get(lock)?.waiting(chain, sender) ?? 0;
}

function nodeName(chain: EvmChain): string {
  return `the ${chain.info.chain}/${chain.info.network} node`;
}

/**
 * A call the node judged and refused. Ethers names every failed eth_call and eth_estimateGas a CALL_EXCEPTION, a rate
 * limit or an outage included: those were never judged, so they are no revert (translated as the node's failure).
 */
const isCallException = (error: unknown) => (error as { code?: string })?.code === "CALL_EXCEPTION" && !isUnansweredCall(error);

/**
 * A node's refusal to estimate because the call needs more gas than it may give one transaction: EDR's "Transaction ran
 * out of gas", geth's and anvil's "gas required exceeds allowance", "out of gas". It carries no revert data.
 */
function ranOutOfGas(error: unknown): boolean {
  const nodeMessage = (error as { info?: { error?: { message?: unknown } } })?.info?.error?.message;
  return typeof nodeMessage === "string" && /out of gas|gas required exceeds/i.test(nodeMessage);
}

/** `eth_call` of the request as it would be sent, at the latest block: resolves if it would not revert. */
async function dryRun(chain: EvmChain, request: TransactionIntent): Promise<void> {
  const call = callOf(request);
  if (chain.provider instanceof JsonRpcApiProvider) await chain.provider.send("eth_call", [call, "latest"]);
  else await chain.provider.call(call);
}

/**
 * Why the node would not estimate a send. A revert is WOULD_REVERT, named: eth_estimateGas carries the revert data on
 * most nodes; where it does not, eth_call with the same sender, target and data does. Nothing has been signed yet.
 */
async function estimateError(chain: EvmChain, request: TransactionIntent, error: unknown): Promise<TokenServiceError> {
  const node = nodeName(chain);
  if (!isCallException(error)) return translateProviderError(error, node);
  let data = revertDataOf(error);
  if (data === undefined) {
    try {
      await dryRun(chain, request);
      return new TokenServiceError(
        ErrorCode.TRANSACTION_REJECTED,
        `${node} could not estimate the transaction's gas, though a dry run does not revert`,
        {
          cause: error,
        },
      );
    } catch (callError) {
      if (!isCallException(callError)) return translateProviderError(callError, node);
      data = revertDataOf(callError) ?? "0x";
    }
  }
  if ((data === "0x" || data === undefined) && ranOutOfGas(error)) {
    return new TokenServiceError(
      ErrorCode.WOULD_REVERT,
      `${node} reports that the transaction would run out of gas: it needs more than one transaction may use (${TRANSACTION_GAS_CAP} gas where EIP-7825 holds, else the block's gas limit); nothing was signed or sent`,
      { details: { error: null, args: {}, data: "0x", outOfGas: true }, cause: error },
    );
  }
  const revert = decodeRevert(data);
  return new TokenServiceError(
    ErrorCode.WOULD_REVERT,
    `${node} reports that the transaction would revert with ${describeRevert(revert)}: nothing was signed or sent`,
    { details: { error: revert.error, args: revert.args, ...(revert.error === null ? { data: revert.data } : {}) }, cause: error },
  );
}

/** How a batch's broadcasts ended, for the batch after it: set when no later nonce of the sender can be mined. */
interface BatchEnd {
  /** Why: "(nonce n) was refused" or "(nonce n) could not be recorded". */
  gap?: string;
  /** Set when that was the service's own storage (a journal that could not be written): retrying is the fix, not the request. */
  storageGap?: TokenServiceError;
}

/** What a batch hands the next one in the same hold of the sender lock (sender-batches.ts): its broadcasts, going on. */
interface BatchBroadcasts extends Handoff {
  finished: Promise<BatchEnd>;
  /** What its sends (and those of the batches before it) not answered yet may still cost: the next batch counts it spent. */
  unanswered(): bigint;
  /** The nonce after its last send's (0: none): the next batch's are higher, whether or not the store holds them. */
  nextNonce: number;
}

/**
 * One batch of one sender's sends, inside its lock: the nonce, fees and balance are read once, each job is estimated,
 * checked against what the jobs before it may spend, and given the next nonce; each is signed and recorded
 * (`beforeBroadcast`, concurrent ones committed by the store as one group) before it is broadcast, in nonce order. A
 * chain that takes them all at once gets them once all are recorded; elsewhere see `signInTurn`.
 *
 * It resolves once every send is recorded (or answered): their nonces are then held in the store, so the next batch
 * (`before`'s successor) can plan beside this one's broadcasts, which follow `before`'s. What the sends not broadcast
 * yet may cost is counted spent by the next batch's funds check, and a nonce that never reached the node leaves the
 * next batch's sends unsent, as it does this batch's later ones.
 */
async function sendBatch(chain: EvmChain, batch: Job[], before: BatchBroadcasts | undefined): Promise<BatchBroadcasts> {
  const node = nodeName(chain);
  const sender = batch[0]!.job.request.sender;
  const nothingSent: BatchBroadcasts = before ?? { finished: Promise.resolve({}), unanswered: () => 0n, nextNonce: 0 };
  // Every job's hook asks the same store about the same sender: one answer serves the batch.
  const heldNonces = batch.find((entry) => entry.job.hooks.heldNonces)?.job.hooks.heldNonces;
  // One cancel's gas serves the batch: every job cancels with the same zero-value transfer to the sender.
  const cancelling = batch.some((entry) => entry.job.request.feeRules?.signAhead);
  // Taken before the balance is asked: a send the node takes meanwhile is counted twice (refusing early), never missed.
  const spentBefore = nothingSent.unanswered();
  let shared: [number, FeeData, bigint, number[] | undefined, bigint | undefined];
  let estimates: Array<PromiseSettledResult<bigint>>;
  try {
    [shared, estimates] = await Promise.all([
      Promise.all([
        chain.provider.getTransactionCount(sender, "pending"),
        chain.provider.getFeeData(),
        chain.provider.getBalance(sender, "pending"),
        fromStore(heldNonces?.()),
        cancelling ? cancelGas(chain, sender) : undefined,
      ]),
      estimateAll(
        chain,
        batch.map((entry) => entry.job.request),
      ),
    ]);
  } catch (error) {
    const failure = nodeOrStoreError(error, node);
    for (const entry of batch) entry.reject(failure);
    return nothingSent;
  }
  const [pendingNonce, feeData, balance, held = [], cancelGasLimit] = shared;
  // The node has not seen the sends the batch before is still broadcasting.
  let nonce = lowestFreeNonce(Math.max(pendingNonce, nothingSent.nextNonce), held);
  let available = balance - spentBefore;
  const fees = feesOfFeeData(feeData);
  const price = maxFeeOf(fees);
  const l1Fees = chargesL1DataFee(chain) ? askL1Fees(chain, batch, estimates, nonce, held, fees) : undefined;

  // What a refused estimate means, asked of the node for each at once (a dry run where the estimate carried no revert data).
  const refusals = await Promise.all(
    estimates.map((estimate, index) =>
      estimate.status === "rejected" ? estimateError(chain, batch[index]!.job.request, estimate.reason) : undefined,
    ),
  );
  const planned: Planned[] = [];
  for (const [index, entry] of batch.entries()) {
    const refusal = refusals[index];
    const estimate = estimates[index]!;
    if (refusal !== undefined || estimate.status === "rejected") {
      entry.reject(refusal!);
      continue;
    }
    const { request } = entry.job;
    try {
      request.feeRules?.check(fees);
    } catch (error) {
      entry.reject(error);
      continue;
    }
    const gasLimit = gasLimitFor(estimate.value);
    const transaction = unsignedTransaction(chain, request, nonce, gasLimit, fees);
    let l1Fee = 0n;
    if (l1Fees !== undefined) {
      try {
        // Asked with the nonce it was expected to take; asked again if a send before it was refused and it took another.
        const asked = l1Fees[index]!;
        l1Fee = asked.nonce === nonce ? await asked.fee : await l1DataFee(chain, transaction);
      } catch (error) {
        entry.reject(translateProviderError(error, node));
        continue;
      }
    }
    const gasCost = gasLimit * price;
    const value = request.value ?? 0n;
    if (available < gasCost + l1Fee + value) {
      entry.reject(insufficientFunds(chain, sender, balance, available, gasCost, l1Fee, value));
      continue;
    }
    // What the sends before it in the batch may cost at most is spoken for: the node checks each against what is left.
    available -= gasCost + l1Fee + value;
    planned.push({ entry, transaction, nonce, fees, cancelGasLimit, cost: gasCost + l1Fee + value });
    nonce = lowestFreeNonce(nonce + 1, held);
  }
  if (planned.length === 0) return nothingSent;
  try {
    await fillersBelow(chain, planned, held, Math.max(pendingNonce, nothingSent.nextNonce), fees, cancelGasLimit);
  } catch (error) {
    // Kept before any send is recorded: without them, a reservation abandoned below would strand the sends.
    for (const { entry } of planned) entry.reject(error);
    return nothingSent;
  }

  let unansweredCost = planned.reduce((sum, send) => sum + send.cost, 0n);
  const answered = (send: Planned) => void (unansweredCost -= send.cost);
  let staged: Array<Promise<Staged>>;
  let together: ((gapBefore: boolean) => Promise<Array<PromiseSettledResult<string>>>) | undefined;
  if (chain.broadcastAll !== undefined) {
    // Sent all at once: signed and recorded all at once (one commit), and the ones before the first unrecorded nonce go together.
    const broadcastAll = chain.broadcastAll;
    const infos = await Promise.all(planned.map((send) => signPlanned(send, chain, false)));
    const recorded = await Promise.allSettled(planned.map(({ entry }, index) => entry.job.hooks.beforeBroadcast?.(infos[index]!)));
    staged = infos.map((info, index) => Promise.resolve({ info, recorded: recorded[index]! }));
    const firstUnrecorded = recorded.findIndex((record) => record.status === "rejected");
    const atOnce = infos.slice(0, firstUnrecorded === -1 ? infos.length : firstUnrecorded);
    together = async (gapBefore) =>
      gapBefore || atOnce.length === 0
        ? []
        : broadcastAll(atOnce.map((info) => info.rawTransaction)).catch((error: unknown) =>
            atOnce.map((): PromiseSettledResult<string> => ({ status: "rejected", reason: error })),
          );
  } else {
    staged = signInTurn(chain, planned);
  }
  const finished = broadcastInTurn(chain, planned, staged, nothingSent.finished, together, answered);
  // Its outcome is read by the hold once this batch is handed off, not before: meanwhile it must not count as unhandled.
  finished.catch(() => undefined);
  // Resolved once every send holds its nonce in the store (recorded) or will never be sent.
  await Promise.allSettled(staged);
  return { finished, unanswered: () => unansweredCost + nothingSent.unanswered(), nextNonce: nonce };
}

/**
 * The fillers of the live reservations between the node's next nonce (`from`) and the batch's last send, signed with the
 * batch's key and kept before its sends are recorded (reservation-fillers.ts). Nothing is asked unless a nonce in that
 * range is held.
 */
async function fillersBelow(
  chain: EvmChain,
  planned: Planned[],
  held: readonly number[],
  from: number,
  fees: Fees,
  cancelGasLimit: bigint | undefined,
): Promise<void> {
  const { request, hooks } = planned[0]!.entry.job;
  const passed = heldBetween(held, from, planned.at(-1)!.nonce);
  if (passed.length === 0 || hooks.reservationFillers === undefined || request.privateKey === undefined) return;
  const gasLimit = cancelGasLimit ?? (await cancelGas(chain, request.sender));
  if (gasLimit === undefined) return;
  const send = { sender: request.sender, privateKey: request.privateKey, fees: fillerFees(fees, request.feeRules?.cap), gasLimit };
  await fillReservationsBelow(chain, send, passed, hooks.reservationFillers);
}

/**
 * A batch's sends broadcast in nonce order, once the batch before it (`before`) is done, each once it is recorded and
 * the node answered the one before; on a chain that takes them all at once, `together` sends them. A nonce that will
 * never reach the node (refused, or not recorded), here or in the batch before, leaves the later ones unsent.
 */
async function broadcastInTurn(
  chain: EvmChain,
  planned: Planned[],
  staged: Array<Promise<Staged>>,
  before: Promise<BatchEnd>,
  together: ((gapBefore: boolean) => Promise<Array<PromiseSettledResult<string>>>) | undefined,
  answered: (send: Planned) => void,
): Promise<BatchEnd> {
  const node = nodeName(chain);
  const sender = planned[0]!.entry.job.request.sender;
  // Set once a nonce will never reach the node: the later ones could never be mined, so they are not sent.
  let { gap, storageGap } = await before;
  const sentTogether = together === undefined ? [] : await together(gap !== undefined);
  const notSent = () =>
    storageGap ??
    new TokenServiceError(
      ErrorCode.TRANSACTION_REJECTED,
      `not sent: the transaction before it from ${sender} ${gap}, so this one could not be mined; send it again`,
    );
  const refusedBy = (error: TokenServiceError, nonce: number) => {
    gap = `(nonce ${nonce}) was refused`;
    if (error.code === ErrorCode.STORAGE_UNAVAILABLE) storageGap = error;
  };
  for (const [index, send] of planned.entries()) {
    const { entry } = send;
    try {
      let info: SignedTransactionInfo, record: PromiseSettledResult<void>;
      try {
        ({ info, recorded: record } = await staged[index]!);
      } catch (error) {
        // Not signed (nothing recorded): neither are the later ones.
        entry.reject(error);
        continue;
      }
      if (record.status === "rejected") {
        entry.reject(record.reason);
        gap ??= `(nonce ${info.nonce}) could not be recorded`;
        // Storage that ran out refuses the later ones the same way: nothing of theirs was done, retry once there is room.
        if (isTokenServiceError(record.reason, ErrorCode.STORAGE_UNAVAILABLE)) storageGap ??= record.reason;
        continue;
      }
      const sentAtOnce = sentTogether[index];
      if (sentAtOnce !== undefined) {
        if (sentAtOnce.status === "fulfilled") {
          entry.resolve(info);
          continue;
        }
        // Mined as it is accepted, a refused one is in no pool: after a refused nonce, the node refuses the later ones
        // ("nonce too high"), and they are not sent in effect.
        if (gap !== undefined) {
          entry.reject(notSent());
          continue;
        }
        const error = translateProviderError(sentAtOnce.reason, node);
        entry.reject(error);
        if (!outcomeUnknown(error)) refusedBy(error, info.nonce);
        continue;
      }
      if (gap !== undefined) {
        // Its record is written: the caller's error ends it `failed`, and the next send reuses the nonce.
        entry.reject(notSent());
        continue;
      }
      try {
        await chain.broadcast(info.rawTransaction);
        entry.resolve(info);
      } catch (raw) {
        const error = translateProviderError(raw, node);
        entry.reject(error);
        if (!outcomeUnknown(error)) refusedBy(error, info.nonce);
      }
    } finally {
      answered(send);
    }
  }
  return { ...(gap !== undefined ? { gap } : {}), ...(storageGap !== undefined ? { storageGap } : {}) };
}

/** A send of a batch with its nonce, checked and ready to sign (with what its ladder signed ahead needs). */
interface Planned {
  entry: Job;
  transaction: TransactionLike;
  nonce: number;
  fees: Fees;
  /** The batch's cancel gas; undefined: no cancel is signed. */
  cancelGasLimit: bigint | undefined;
  /** What it may cost at most: gas, L1 data fee and the value it sends. */
  cost: bigint;
}

/** A planned send signed, and whether its record was written. */
interface Staged {
  info: SignedTransactionInfo;
  recorded: PromiseSettledResult<void>;
}

/**
 * Signs a planned send, and, for a key-in-body send on a chain where it can wait, its ladder and cancel: on the signing
 * thread for a send of a burst (`offThread`), here for a lone one (the thread would only add its round trip).
 */
async function signPlanned(
  { entry, transaction, nonce, fees, cancelGasLimit }: Planned,
  chain: EvmChain,
  offThread: boolean,
): Promise<SignedTransactionInfo> {
  const { request } = entry.job;
  const plan = request.feeRules?.signAhead ? aheadPlan(chain, request, nonce, fees, cancelGasLimit) : undefined;
  const send: SendToSign = {
    transaction,
    ladder: plan?.ladder.replacements.map((step) => step.fees) ?? [],
    ...(plan?.cancel !== undefined ? { cancel: plan.cancel } : {}),
    privateKey: request.privateKey!,
  };
  const signed = offThread && plan !== undefined ? await signOffThread(send) : signSend(send);
  const { raw, hash } = signed.signed;
  return { transactionHash: hash, nonce, rawTransaction: raw, fees, ...(plan ? { ahead: stepsOf(plan.ladder, signed) } : {}) };
}

/**
 * Signs a batch's sends in nonce order and writes their records in groups that double (1, 2, 4, …), one commit each. The
 * sends are broadcast one by one, each once the node answered the one before: the first leaves after one signature and
 * one commit, and the later ones are signed and recorded while the node takes the earlier ones, instead of every
 * broadcast waiting for the last signature. A burst's sends are signed on the signing thread, beside the records and
 * broadcasts here; a group is recorded once all its sends are signed, after the groups before it.
 */
function signInTurn(chain: EvmChain, planned: Planned[]): Array<Promise<Staged>> {
  const settlers: Array<{ resolve(staged: Staged): void; reject(error: unknown): void }> = [];
  const staged = planned.map(() => new Promise<Staged>((resolve, reject) => void settlers.push({ resolve, reject })));
  // Read in order by the batch's loop: a later one refused meanwhile must not count as unhandled.
  for (const promise of staged) promise.catch(() => undefined);
  const offThread = planned.length > 1;
  // The first send that could not be signed: neither it nor a later one is recorded (their nonces would follow a gap).
  let failure: { error: unknown } | undefined;
  let recordedBefore = Promise.resolve();
  const record = (group: Array<{ index: number; info: Promise<SignedTransactionInfo> }>) => {
    const signing = Promise.allSettled(group.map(({ info }) => info));
    recordedBefore = recordedBefore.then(async () => {
      const signed = await signing;
      // Added in one macrotask: the store commits them together.
      for (const [position, { index }] of group.entries()) {
        const outcome = signed[position]!;
        if (outcome.status === "rejected") failure ??= { error: outcome.reason };
        if (failure !== undefined) {
          settlers[index]!.reject(failure.error);
          continue;
        }
        const info = (outcome as PromiseFulfilledResult<SignedTransactionInfo>).value;
        void Promise.allSettled([planned[index]!.entry.job.hooks.beforeBroadcast?.(info)]).then(([recorded]) =>
          settlers[index]!.resolve({ info, recorded: recorded! }),
        );
      }
    });
  };
  void (async () => {
    let group: Array<{ index: number; info: Promise<SignedTransactionInfo> }> = [];
    let groupSize = 1;
    for (const [index, send] of planned.entries()) {
      // The node's answers (and the records) are let in between two sends signed here.
      if (index > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      group.push({ index, info: signPlanned(send, chain, offThread) });
      if (group.length < groupSize && index < planned.length - 1) continue;
      record(group);
      group = [];
      groupSize *= 2;
    }
  })();
  return staged;
}

/**
 * Each job's L1 data fee, asked all at once (one round trip, not one per job), for the transaction it will sign if every
 * send before it goes through: the same nonce, gas limit and fees.
 */
function askL1Fees(
  chain: EvmChain,
  batch: Job[],
  estimates: Array<PromiseSettledResult<bigint>>,
  firstNonce: number,
  held: readonly number[],
  fees: Fees,
): Array<{ nonce: number; fee: Promise<bigint> }> {
  let nonce = firstNonce;
  return batch.map((entry, index) => {
    const estimate = estimates[index]!;
    if (estimate.status === "rejected") return { nonce: -1, fee: Promise.resolve(0n) };
    const gasLimit = gasLimitFor(estimate.value);
    const fee = l1DataFee(chain, unsignedTransaction(chain, entry.job.request, nonce, gasLimit, fees));
    // Read in order by the batch's loop; a job that fails first must not leave its answer unhandled.
    fee.catch(() => undefined);
    const asked = { nonce, fee };
    nonce = lowestFreeNonce(nonce + 1, held);
    return asked;
  });
}

/**
 * The node may or may not have it (down, slow, or a failure after it answered): the record stays signed and the tracker
 * finds out and sends it if needed; a node that has the later nonces holds them until then.
 */
function outcomeUnknown(error: TokenServiceError): boolean {
  return error.code === ErrorCode.UPSTREAM_UNAVAILABLE || error.code === ErrorCode.UPSTREAM_TIMEOUT;
}

/**
 * `gasCost`: what its gas may cost at most; `l1Fee`: an OP Stack chain's L1 data fee, paid besides (0 elsewhere);
 * `value`: the native currency it sends (a NATIVE transfer's amount).
 */
function insufficientFunds(
  chain: EvmChain,
  sender: string,
  balance: bigint,
  available: bigint,
  gasCost: bigint,
  l1Fee = 0n,
  value = 0n,
): TokenServiceError {
  const decimals = chain.info.nativeDecimals;
  const symbol = chain.info.nativeSymbol;
  const amount = (wei: bigint) => `${amountPair(wei, decimals).uiBalance} ${symbol}`;
  const left = available === balance ? "" : `, ${amount(available)} of it left after the sends queued before this one,`;
  const needed = gasCost + l1Fee + value;
  const parts = [
    ...(value > 0n ? [`the ${amount(value)} it sends`] : []),
    ...(l1Fee > 0n || value > 0n ? [`gas up to ${amount(gasCost)}`] : []),
    ...(l1Fee > 0n ? [`an L1 data fee of ${amount(l1Fee)}`] : []),
  ];
  const split = parts.length === 0 ? "" : ` (${parts.join(" plus ")})`;
  return new TokenServiceError(
    ErrorCode.INSUFFICIENT_FUNDS,
    `sender ${sender} holds ${amount(balance)}${left} but the transaction may cost up to ${amount(needed)}${split}`,
    {
      field: "sender",
      details: {
        needed: needed.toString(),
        available: available.toString(),
        symbol,
        ...(l1Fee === 0n ? {} : { l1DataFee: l1Fee.toString() }),
      },
    },
  );
}
