import type { TransactionLike } from "ethers";

import { ErrorCode, TokenServiceError, isTokenServiceError } from "../../../domain/errors.js";
import { ceilingOf, feeLadder, maxFeeOf, type FeeLadder, type Fees } from "../../../domain/fee-ladder.js";
import type { EvmChain } from "../chain.js";
import { translateProviderError } from "../provider-errors.js";
import { cancelGas, estimateAll, estimateError, gasLimitFor, nodeName } from "./estimates.js";
import { sendReadsOf, type SenderReading } from "./send-reads.js";
import { chargesL1DataFee, l1DataFee } from "./l1-fee.js";
import { fillerFees, fillReservationsBelow, heldBetween } from "./reservation-fillers.js";
import type { Handoff, Queued } from "./sender-batches.js";
import type { BroadcastHooks, SendRequest, SignedStep, SignedTransactionInfo } from "./send-types.js";
import { signSend, signTransaction, type SendToSign, type SignedSend } from "./sign-transaction.js";
import { signOffThread } from "./signing-thread.js";
import { fromStore, insufficientFunds, lowestFreeNonce, nodeOrStoreError, unsignedTransaction } from "./transaction-fields.js";

// One batch of one sender's key-in-body sends: planned with one read of nonce, fees and balance, signed, recorded and
// broadcast in nonce order (sender-batches.ts runs the batches one after another inside the sender lock).

export interface SendJob {
  request: SendRequest;
  hooks: BroadcastHooks;
}

export type Job = Queued<SendJob, SignedTransactionInfo>;

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

/** How a batch's broadcasts ended, for the batch after it: set when no later nonce of the sender can be mined. */
interface BatchEnd {
  /** Why: "(nonce n) was refused" or "(nonce n) could not be recorded". */
  gap?: string;
  /** Set when that was the service's own storage (a journal that could not be written): retrying is the fix, not the request. */
  storageGap?: TokenServiceError;
}

/** What a batch hands the next one in the same hold of the sender lock (sender-batches.ts): its broadcasts, going on. */
export interface BatchBroadcasts extends Handoff {
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
 * chain that takes them all at once gets them once all are recorded; elsewhere see `signInTurn` and `broadcastInTurn`.
 *
 * It resolves once every send is recorded (or answered): their nonces are then held in the store, so the next batch
 * (`before`'s successor) can plan beside this one's broadcasts, which follow `before`'s. What the sends not broadcast
 * yet may cost is counted spent by the next batch's funds check, and a nonce that never reached the node leaves the
 * next batch's sends unsent, as it does this batch's later ones.
 */
export async function sendBatch(chain: EvmChain, batch: Job[], before: BatchBroadcasts | undefined): Promise<BatchBroadcasts> {
  const node = nodeName(chain);
  const sender = batch[0]!.job.request.sender;
  const nothingSent: BatchBroadcasts = before ?? { finished: Promise.resolve({}), unanswered: () => 0n, nextNonce: 0 };
  // Every job's hook asks the same store about the same sender: one answer serves the batch.
  const heldNonces = batch.find((entry) => entry.job.hooks.heldNonces)?.job.hooks.heldNonces;
  // One cancel's gas serves the batch: every job cancels with the same zero-value transfer to the sender.
  const cancelling = batch.some((entry) => entry.job.request.feeRules?.signAhead);
  // Taken before the balance is asked: a send the node takes meanwhile is counted twice (refusing early), never missed.
  const spentBefore = nothingSent.unanswered();
  const reads = sendReadsOf(chain);
  let shared: [SenderReading, Fees, number[] | undefined, bigint | undefined];
  let estimates: Array<PromiseSettledResult<bigint>>;
  try {
    [shared, estimates] = await Promise.all([
      Promise.all([reads.sender(sender), reads.fees(), fromStore(heldNonces?.()), cancelling ? cancelGas(chain, sender) : undefined]),
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
  const [reading, fees, held = [], cancelGasLimit] = shared;
  // The node has not seen the sends the batch before is still broadcasting.
  let nonce = lowestFreeNonce(Math.max(reading.nonce, nothingSent.nextNonce), held);
  // A count takes every send planned before it as spent already; the node's answer only those it was sent.
  let available = reading.counted ? reading.funds : reading.funds - spentBefore;
  const price = maxFeeOf(fees);
  const l1Fees = chargesL1DataFee(chain) ? askL1Fees(chain, batch, estimates, nonce, held, fees) : undefined;
  // What a refusal for funds names as the sender's balance.
  let balance = reading.funds;
  if (reading.counted && available < (await batchCost(batch, estimates, price, l1Fees))) {
    // A count is a bound: before it refuses a send for funds, the node is asked (the sender may have been paid since).
    try {
      balance = await reads.freshFunds(sender);
    } catch (error) {
      for (const entry of batch) entry.reject(translateProviderError(error, node));
      return nothingSent;
    }
    available = balance - spentBefore;
  }

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
  reads.planned(sender, nonce, available);
  if (planned.length === 0) return nothingSent;
  try {
    await fillersBelow(chain, planned, held, Math.max(reading.nonce, nothingSent.nextNonce), fees, cancelGasLimit);
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
  const finished = broadcastInTurn(chain, planned, staged, nothingSent.finished, together, answered).then((end) => {
    // A nonce that did not reach the node: the funds it was counted to spend are asked again.
    if (end.gap !== undefined) reads.forget(sender);
    return end;
  });
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
  const sign = signerOf(request);
  if (passed.length === 0 || hooks.reservationFillers === undefined || sign === undefined) return;
  const gasLimit = cancelGasLimit ?? (await cancelGas(chain, request.sender));
  if (gasLimit === undefined) return;
  const send = { sender: request.sender, sign, fees: fillerFees(fees, request.feeRules?.cap), gasLimit };
  await fillReservationsBelow(chain, send, passed, hooks.reservationFillers);
}

/**
 * The most gas one group of broadcasts carries (half a 30 M-gas block: an ERC20 deployment's gas limit is about 1.1 M).
 * A node mining on send (anvil 1.7) mines what its pool holds ready into one block when a transaction comes, and leaves
 * what does not fit in that block waiting until the next transaction comes, which at the end of a burst never does: a
 * group's sends, and the unmined rest of the group before it, fit in one block.
 */
const GROUP_GAS = 15_000_000n;
/** The most sends one group of broadcasts carries (one JSON-RPC batch: providers cap them, often at 100). */
const GROUP_SENDS = 64;

/**
 * A batch's sends broadcast in nonce order, once the batch before it (`before`) is done, each once it is recorded; on a
 * chain that takes them all at once, `together` sends them. On a live node (`broadcastBatch`), the sends recorded by the
 * time the one before them was answered go together, as one JSON-RPC batch (up to GROUP_GAS and GROUP_SENDS), and each
 * is answered as the node answered it; elsewhere one by one, each once the node answered the one before. A nonce that
 * will never reach the node (refused, or not recorded), here or in the batch before, leaves the later ones unsent: those
 * already sent with it in a group are in the node's pool, above the refused nonce, which the tracker fills with that
 * send's pre-signed cancel (its record ends `failed`), or the sender's next send takes.
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
  // Which sends are signed and recorded already, read when a group is formed.
  const ready: Array<Staged | undefined> = planned.map(() => undefined);
  staged.forEach((stage, index) => void stage.then((done) => (ready[index] = done)).catch(() => undefined));
  // Set once a nonce will never reach the node: the later ones could never be mined, so they are not sent.
  let { gap, storageGap } = await before;
  const sentTogether = together === undefined ? [] : await together(gap !== undefined);
  const notSent = () =>
    storageGap ??
    new TokenServiceError(
      ErrorCode.TRANSACTION_REJECTED,
      `not sent: the transaction before it from ${sender} ${gap}, so this one could not be mined; send it again`,
    );
  /** Answers a send as the node answered its broadcast. */
  const settle = (send: Planned, info: SignedTransactionInfo, outcome: PromiseSettledResult<string>) => {
    if (outcome.status === "fulfilled") return send.entry.resolve(info);
    const error = translateProviderError(outcome.reason, node);
    send.entry.reject(error);
    if (outcomeUnknown(error)) return;
    gap ??= `(nonce ${info.nonce}) was refused`;
    if (error.code === ErrorCode.STORAGE_UNAVAILABLE) storageGap ??= error;
  };
  let index = 0;
  while (index < planned.length) {
    const send = planned[index]!;
    const { entry } = send;
    let info: SignedTransactionInfo, record: PromiseSettledResult<void>;
    try {
      ({ info, recorded: record } = await staged[index]!);
    } catch (error) {
      // Not signed (nothing recorded): neither are the later ones.
      entry.reject(error);
      answered(send);
      index++;
      continue;
    }
    if (record.status === "rejected") {
      entry.reject(record.reason);
      gap ??= `(nonce ${info.nonce}) could not be recorded`;
      // Storage that ran out refuses the later ones the same way: nothing of theirs was done, retry once there is room.
      if (isTokenServiceError(record.reason, ErrorCode.STORAGE_UNAVAILABLE)) storageGap ??= record.reason;
      answered(send);
      index++;
      continue;
    }
    const sentAtOnce = sentTogether[index];
    if (sentAtOnce !== undefined) {
      // Mined as it is accepted, a refused one is in no pool: after a refused nonce, the node refuses the later ones
      // ("nonce too high"), and they are not sent in effect.
      if (sentAtOnce.status === "rejected" && gap !== undefined) entry.reject(notSent());
      else settle(send, info, sentAtOnce);
      answered(send);
      index++;
      continue;
    }
    if (gap !== undefined) {
      // Its record is written: the caller's error ends it `failed`, and the next send reuses the nonce.
      entry.reject(notSent());
      answered(send);
      index++;
      continue;
    }
    // With it, the sends after it that are recorded by now, in nonce order: those committed with it settle a few
    // microtasks after it, so the group is formed once they have.
    if (chain.broadcastBatch !== undefined) await new Promise<void>((resolve) => setImmediate(resolve));
    const group: Array<{ send: Planned; info: SignedTransactionInfo }> = [{ send, info }];
    let gas = send.transaction.gasLimit as bigint;
    while (chain.broadcastBatch !== undefined && group.length < GROUP_SENDS) {
      const next = ready[index + group.length];
      if (next === undefined || next.recorded.status === "rejected") break;
      const nextSend = planned[index + group.length]!;
      gas += nextSend.transaction.gasLimit as bigint;
      if (gas > GROUP_GAS) break;
      group.push({ send: nextSend, info: next.info });
    }
    const outcomes =
      group.length === 1
        ? [
            await chain.broadcast(info.rawTransaction).then(
              (hash): PromiseSettledResult<string> => ({ status: "fulfilled", value: hash }),
              (reason: unknown): PromiseSettledResult<string> => ({ status: "rejected", reason }),
            ),
          ]
        : await chain.broadcastBatch!(group.map((member) => member.info.rawTransaction)).catch((reason: unknown) =>
            group.map((): PromiseSettledResult<string> => ({ status: "rejected", reason })),
          );
    // Each as the node answered it, those after a refused one included: they were sent, and the node may hold them.
    for (const [position, member] of group.entries()) {
      settle(member.send, member.info, outcomes[position]!);
      answered(member.send);
    }
    index += group.length;
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

/** How a send's transactions are signed: with the key in the request, or by the held wallet's signer; none for a prepare. */
function signerOf(request: SendRequest): ((transaction: TransactionLike) => Promise<{ raw: string }>) | undefined {
  if (request.signer !== undefined) return (transaction) => request.signer!.signTransaction(transaction);
  const key = request.privateKey;
  return key === undefined ? undefined : async (transaction) => signTransaction(transaction, key);
}

/**
 * Signs a planned send, and, for a key-in-body send on a chain where it can wait, its ladder and cancel: on the signing
 * thread for a send of a burst (`offThread`), here for a lone one (the thread would only add its round trip). A held
 * wallet's signer signs the send alone: its replacements are signed when they are needed.
 */
async function signPlanned(
  { entry, transaction, nonce, fees, cancelGasLimit }: Planned,
  chain: EvmChain,
  offThread: boolean,
): Promise<SignedTransactionInfo> {
  const { request } = entry.job;
  if (request.signer !== undefined) {
    const { raw, hash } = await request.signer.signTransaction(transaction);
    return { transactionHash: hash, nonce, rawTransaction: raw, fees };
  }
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
 * sends are broadcast in nonce order as they are recorded (`broadcastInTurn`): the first leaves after one signature and
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
 * The most a batch's sends may cost together (gas, L1 data fees, the value they send), those the node will not
 * estimate left out: what a counted balance must cover before a send is refused on its word.
 */
async function batchCost(
  batch: Job[],
  estimates: Array<PromiseSettledResult<bigint>>,
  price: bigint,
  l1Fees: Array<{ nonce: number; fee: Promise<bigint> }> | undefined,
): Promise<bigint> {
  let total = 0n;
  for (const [index, entry] of batch.entries()) {
    const estimate = estimates[index]!;
    if (estimate.status === "rejected") continue;
    const l1Fee = l1Fees === undefined ? 0n : await l1Fees[index]!.fee.catch(() => 0n);
    total += gasLimitFor(estimate.value) * price + l1Fee + (entry.job.request.value ?? 0n);
  }
  return total;
}
