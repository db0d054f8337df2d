import { randomUUID } from "node:crypto";

import type { Transaction } from "ethers";

import { ErrorCode, RecordErrorCode, TokenServiceError } from "../../domain/errors.js";
import { neverHeld } from "../../domain/lifecycle.js";
import type { EvmChain } from "../../chains/evm/chain.js";
import { translateProviderError } from "../../chains/evm/provider-errors.js";
import type { SignedTransactionInfo } from "../../chains/evm/write/send-types.js";
import { policedWrite, type HeldWallets } from "./held-writes.js";
import { BitcoinSends, type BitcoinSendOutcome, type BitcoinSendRequest } from "./bitcoin-sends.js";
import { faucetRecord, transactionsOf } from "./record-rows.js";
import { addressOfPrivateKey } from "../../chains/evm/wallet-keys.js";
import { assertSameAsPrepared, toPreparedTransaction, type PreparedTransaction } from "../../chains/evm/write/signed-transaction.js";
import type {
  FaucetRequest,
  FaucetResult,
  LaunchRequest,
  LaunchResult,
  MintResult,
  MintRequest,
  PrepareHooks,
  PreparedTransactionResult,
  SigningFields,
  Unsigned,
} from "../../domain/requests.js";
import type { BurnResult, OwnershipResult, PauseResult, RoleResult } from "../../domain/admin-requests.js";
import type { ChainWrites, WriteSigning } from "./chain-writes.js";
import { amountPair } from "../../domain/units.js";
import { belowOneGwei, recordedSupplyEcho, withWarnings } from "../../domain/amount-echo.js";
import { parseSigning, type EvmPair } from "../../domain/commands.js";
import { echoed, type WriteIntent } from "./intents.js";
import {
  WRITE_COMMANDS,
  type AnswerOf,
  type RequestOf,
  type UnsignedRequestOf,
  type WriteCommand,
  type WriteCommandName,
} from "./write-commands.js";
import type { ApproveRequest, ApproveResult, TransferRequest, TransferResult } from "../../domain/transfer-requests.js";
import { decideGrant, decideSent } from "./decide.js";
import { OperationTracker, type TrackerHealing } from "./tracker.js";
import { isTransient } from "./tracker-sends.js";
import type { TrackerSettings } from "./tracker-settings.js";
import { Replacements, type ReplacementOutcome, type ReplacementRequest } from "./replacements.js";
import { ReservationFillers, SignedCancels } from "./signed-cancels.js";
import { FINAL_STATUSES, type OperationRecord, type OperationStatus, type OperationStore } from "./types.js";

export interface OperationContext {
  /** Whose record it is (the HTTP service's API key id). */
  apiKeyId?: string | null;
  /** The record's id, when the caller chose it beforehand (an idempotency claim names it). */
  id?: string;
}

type Settled = { status: OperationStatus; blockNumber: number | null };
/** A write as answered: what the node's acceptance answered, with its record's id and state. */
export type Outcome<Answer> = Omit<Answer, "status"> & Settled & { id: string };
export type LaunchOutcome = Outcome<LaunchResult>;
export type MintOutcome = Outcome<MintResult>;
export type TransferOutcome = Outcome<TransferResult>;
export type ApproveOutcome = Outcome<ApproveResult>;
export type BurnOutcome = Outcome<BurnResult>;
export type PauseOutcome = Outcome<PauseResult>;
export type RoleOutcome = Outcome<RoleResult>;
export type OwnershipOutcome = Outcome<OwnershipResult>;
export type FaucetOutcome = FaucetResult & { id: string };
/** A launch, mint, transfer or approval prepared for the caller to sign: submit it signed, with the same body, before `expiresAt`. */
export type PreparedOutcome = Omit<PreparedTransactionResult, "transaction"> & { unsignedTransaction: PreparedTransaction };

/** How long a prepared transaction's nonce stays reserved by default: time to sign, a hardware wallet's confirmation included. */
export const DEFAULT_NONCE_RESERVATION_MS = 120_000;

type Where = { apiKeyId: string | null; chain: string; network: string; sender: string };

/** The request waits this long before the tracker takes a `signed` record over: the request may still be broadcasting it. */
const SIGNED_GRACE_MS = 15_000;
/**
 * How soon after the node accepted a launch or mint the tracker first looks (and writes it `pending`), whatever the
 * chain's polling interval: on a chain that mines at once (a dev node, a fast L2) the receipt is there already, and on
 * a slow one the look costs one receipt query before the usual cadence. Kicks within it coalesce, so a burst of
 * broadcasts is taken by a few passes: each pass commits to the store, and passes much closer together slowed the
 * burst's own sends more than they saved.
 */
const FIRST_LOOK_MS = 100;
/** Likewise for a faucet grant in progress; a grant takes milliseconds. */
const GRANT_GRACE_MS = 5_000;

/**
 * Launch, mint and faucet as durable operations: each is recorded (with its signed raw transaction)
 * before it is broadcast, then followed by the tracker to mined, failed or dropped. Every front
 * door calls these and formats the result; none of them waits for mining on its own.
 */
export class Operations {
  readonly tracker: OperationTracker;
  private readonly replacements: Replacements;
  private readonly bitcoinSends: BitcoinSends;

  constructor(
    private readonly writes: ChainWrites,
    readonly store: OperationStore,
    settings: TrackerSettings,
    private readonly nonceReservationMs = DEFAULT_NONCE_RESERVATION_MS,
    healing: Omit<TrackerHealing, "withSenderLock"> = {},
    /** The wallets the service holds (core/custody): their signers, for a write that carries no key, and policies. */
    private readonly held?: HeldWallets,
  ) {
    this.tracker = new OperationTracker(
      store,
      (record) => this.chainOf(record),
      settings,
      {
        ...healing,
        // The fillers it was given (a caller's own), then the cancels its key-in-body sends signed ahead, and the
        // transfers they signed ahead for the reservations below them.
        fillers: [...(healing.fillers ?? []), new SignedCancels(store), new ReservationFillers(store)],
        withSenderLock: (chain, sender, work) => writes.withSenderLock(chain, sender, work),
        // A held wallet's replacement, signed now (nothing was signed ahead for it); any other record stays stuck.
        observeBitcoin: (record) => this.bitcoinSends.observe(record),
        replaceHeld: async (record) =>
          record.sender !== null &&
          (await this.held?.signerFor("operator", record.chain, record.network, record.sender)) !== undefined &&
          "sent" in (await this.replacements.replace(record.id, "speed-up")),
      },
      Date.now,
      (record) => this.writes.feePolicy.replaceAfterBlocksOf(record),
    );
    this.bitcoinSends = new BitcoinSends(store, writes.chains, writes.bitcoinBackends, writes.senderLock, held, (id) => {
      this.tracker.follow(id);
      this.tracker.kick(FIRST_LOOK_MS);
    });
    this.replacements = new Replacements(
      store,
      writes.feePolicy,
      (record) => this.chainOf(record),
      (id) => {
        this.start();
        this.tracker.follow(id);
        this.tracker.kick(FIRST_LOOK_MS);
      },
      // The write was allowed to use the wallet; its replacements sign for the same record.
      async (record) =>
        record.sender === null ? undefined : this.held?.signerFor("operator", record.chain, record.network, record.sender),
      (record, kind, feeRate) => this.bitcoinSends.replace(record, kind, feeRate),
    );
  }

  /** Sends Bitcoin from a held wallet (docs/custody.md), recorded before it is broadcast and followed as any write. */
  sendBitcoin(request: BitcoinSendRequest, context: OperationContext = {}): Promise<BitcoinSendOutcome> {
    this.start();
    return this.bitcoinSends.send(request, context);
  }

  /** Any write by its command's name (write-commands.ts), recorded before it is broadcast and followed to a final state. */
  async write<N extends WriteCommandName>(name: N, request: RequestOf<N>, context: OperationContext = {}): Promise<Outcome<AnswerOf<N>>> {
    const intent = await this.intentOf(name, request);
    const signing = await this.signingOf(request, intent.command, context);
    if (!("signer" in signing) || this.held === undefined) {
      return (await this.recorded(context, intent, signing)) as unknown as Outcome<AnswerOf<N>>;
    }
    // A held wallet's write passes its policy first: nothing is signed, and no nonce taken, for one it refuses.
    const id = context.id ?? randomUUID();
    const outcome = await this.held.admit(
      { ...policedWrite(intent), sender: intent.command.sender, operationId: id },
      () => this.recorded({ ...context, id }, intent, signing),
      async () => {
        const record = await this.store.getOperation(id).catch(() => undefined);
        return record !== undefined && !neverHeld(record);
      },
    );
    return outcome as unknown as Outcome<AnswerOf<N>>;
  }

  /**
   * Who signs: the request's key or signed transaction; without either, the held wallet the sender is, if the caller
   * may use it (an HTTP request's API key its own; the programmatic API and the tasks any). Otherwise a key is required.
   */
  private async signingOf(
    request: SigningFields,
    command: { pair: { chain: string; network: string }; sender: string },
    context: OperationContext,
  ): Promise<WriteSigning> {
    if (request.privateKey === undefined && request.signedTransaction === undefined && this.held !== undefined) {
      const scope = context.apiKeyId === undefined ? "operator" : { apiKeyId: context.apiKeyId };
      const signer = await this.held.signerFor(scope, command.pair.chain, command.pair.network, command.sender);
      if (signer !== undefined) return { signer };
    }
    return parseSigning(request, command.sender, addressOfPrivateKey);
  }

  /** The transaction `write` would send, unsigned, its nonce reserved for the sender until `expiresAt` (no record yet). */
  async prepare<N extends WriteCommandName>(name: N, request: UnsignedRequestOf<N>): Promise<PreparedOutcome> {
    const intent = await this.intentOf(name, request);
    return presentPrepared(await this.writes.prepare(intent, this.reservations(intent.command)));
  }

  /** The table pairs each name with its request and answer types; indexed by a type parameter, it is seen as their union. */
  private async intentOf(name: WriteCommandName, request: object): Promise<WriteIntent<{ transactionHash: string; status: "pending" }>> {
    const command = WRITE_COMMANDS[name] as WriteCommand<object, { transactionHash: string; status: "pending" }>;
    return command.intent(request, this.writes.chains, { variants: this.writes.variants });
  }

  launch(request: LaunchRequest, context: OperationContext = {}): Promise<LaunchOutcome> {
    return this.write("launch", request, context);
  }

  mint(request: MintRequest, context: OperationContext = {}): Promise<MintOutcome> {
    return this.write("mint", request, context);
  }

  /** The launch `launch` would send, unsigned, its nonce reserved for the sender until `expiresAt` (no record yet). */
  prepareLaunch(request: Unsigned<LaunchRequest>): Promise<PreparedOutcome> {
    return this.prepare("launch", request);
  }

  /** The mint `mint` would send, unsigned, its nonce reserved for the sender until `expiresAt` (no record yet). */
  prepareMint(request: Unsigned<MintRequest>): Promise<PreparedOutcome> {
    return this.prepare("mint", request);
  }

  /** Moves native currency or a token from the sender, as a recorded operation like `launch`. */
  transfer(request: TransferRequest, context: OperationContext = {}): Promise<TransferOutcome> {
    return this.write("transfer", request, context);
  }

  /** Approves a spender of the sender's tokens, as a recorded operation like `launch`. */
  approve(request: ApproveRequest, context: OperationContext = {}): Promise<ApproveOutcome> {
    return this.write("approve", request, context);
  }

  /** The transfer `transfer` would send, unsigned, its nonce reserved for the sender until `expiresAt` (no record yet). */
  prepareTransfer(request: Unsigned<TransferRequest>): Promise<PreparedOutcome> {
    return this.prepare("transfer", request);
  }

  /** The approval `approve` would send, unsigned, its nonce reserved for the sender until `expiresAt` (no record yet). */
  prepareApprove(request: Unsigned<ApproveRequest>): Promise<PreparedOutcome> {
    return this.prepare("approve", request);
  }

  /**
   * Replaces an unfinished operation's transaction with the same call at higher fees. A key-in-body send has its next
   * step signed ahead: it is sent (`sent`, the record as it stands). Otherwise (a caller-signed send, or a ladder used
   * up) the replacement is prepared for the caller to sign (`prepared`), and sent when given back as
   * `signedTransaction`. OPERATION_FINAL when it is mined, failed, dropped or cancelled; FEE_CAP_EXCEEDED when the
   * replacement would pay more than the operation's ceiling.
   */
  speedUp(id: string, request: ReplacementRequest = {}): Promise<ReplacementOutcome> {
    return this.replacements.replace(id, "speed-up", request);
  }

  /**
   * Sends, in place of an unfinished operation's transaction, a zero-value transfer to its sender at the same nonce with
   * higher fees (signed ahead for a key-in-body send, else prepared and submitted as `speedUp`). The operation ends
   * `cancelled` when the cancel is mined, or `mined` when its own transaction won the race.
   */
  cancel(id: string, request: ReplacementRequest = {}): Promise<ReplacementOutcome> {
    return this.replacements.replace(id, "cancel", request);
  }

  /**
   * A simulated chain's grant is recorded `signed` (the intent, with the address and amount) before the balance changes
   * and `mined` once it did; the chain's journal names each grant by the record's id, so the tracker finishes a grant a
   * crash interrupted, exactly once. A bitcoin regtest transfer is recorded once bitcoind has made it.
   */
  async faucet(request: FaucetRequest, context: OperationContext = {}): Promise<FaucetOutcome> {
    const id = context.id ?? randomUUID();
    const apiKeyId = context.apiKeyId ?? null;
    let recorded = false;
    let result: FaucetResult;
    try {
      result = await this.writes.faucet(request, {
        grantId: id,
        beforeGrant: async (grant) => {
          this.start();
          await this.store.insertOperation({
            ...faucetRecord(id, apiKeyId, grant),
            status: "signed",
            reason: "grant recorded",
            checkInMs: GRANT_GRACE_MS,
            lease: { owner: this.tracker.owner, ms: GRANT_GRACE_MS },
          });
          recorded = true;
        },
      });
    } catch (error) {
      // Not granted, and the caller is told so: the tracker must never make the grant after all (it would, from a record
      // left `signed` because the same full disk refused this write too).
      if (recorded) await this.tracker.writeRefusal(id, () => this.store.changeOperation(id, decideGrant({ error: errorOf(error) })));
      throw error;
    }
    if (recorded) {
      // Granted: the answer says so even when the store cannot take `mined` now; the tracker finds the grant in the
      // chain's journal, by the record's id, and writes it then.
      await this.store.changeOperation(id, decideGrant({ balance: BigInt(result.balance.balance) })).catch(() => this.tracker.kick());
    } else {
      await this.store.insertOperation({
        ...faucetRecord(id, apiKeyId, { ...result, amount: result.amount.balance }),
        transactionHash: result.transactionHash ?? null,
        status: "mined",
        reason: "granted",
        result: { balance: result.balance.balance },
      });
    }
    return { id, ...result };
  }

  /**
   * What an operation answered, for an idempotent retry whose first request died with its process: undefined when
   * nothing was recorded (the retry runs it). A faucet grant the crash interrupted is finished first.
   */
  async recover(id: string, timeoutMs: number): Promise<Record<string, unknown> | undefined> {
    let record = await this.store.getOperation(id);
    if (record === undefined) return undefined;
    if (record.kind === "faucet" && record.status === "signed") {
      this.start();
      this.tracker.kick();
      record = await this.wait(id, timeoutMs);
    }
    return this.outcomeOf(record);
  }

  /** The record once it is final, or as it stands when `timeoutMs` runs out. */
  async wait(id: string, timeoutMs: number): Promise<OperationRecord> {
    const deadline = Date.now() + timeoutMs;
    // A record this process sent and its tracker has not looked at yet cannot be final: its first change is awaited
    // without reading it (the wait after a launch's answer).
    let record = this.tracker.notLookedAt(id)
      ? ((await this.tracker.changed(id, Math.min(timeoutMs, 1_000))) ?? (await this.store.getOperation(id)))
      : await this.store.getOperation(id);
    for (;;) {
      if (record === undefined) throw new Error(`no operation ${id}`);
      const remaining = deadline - Date.now();
      if (FINAL_STATUSES.includes(record.status) || remaining <= 0) return record;
      // Woken by this process's tracker with the record as it wrote it (no read needed); another replica's tracker is
      // seen by the next read.
      record = (await this.tracker.changed(id, Math.min(remaining, 1_000))) ?? (await this.store.getOperation(id));
    }
  }

  /** The outcome with the status its record reached (final, or as it stands after `timeoutMs`), and an ERC721 mint's token ids. */
  async settle<T extends { id: string; status: OperationStatus; blockNumber: number | null }>(
    outcome: T,
    timeoutMs: number,
  ): Promise<T & { tokenId?: string; tokenIds?: string[] }> {
    // The transaction is sent: a store that cannot be read now (a database outage) leaves the answer as it stood.
    const record = await this.wait(outcome.id, timeoutMs).catch(() => undefined);
    if (record === undefined) return outcome;
    return { ...outcome, status: record.status, blockNumber: record.blockNumber, ...mintedIds(record) };
  }

  /** Whether a refused send's `failed` is still to be written (the store refused it too): its key waits for it. */
  refusalPending(id: string): boolean {
    return this.tracker.refusalPending(id);
  }

  /**
   * Whether the record is of a request refused for storage (it answered 503: nothing was done), whose `failed` may not
   * be written yet: an idempotent retry must not take it for the answer, but run anew once the key is free.
   */
  refusedForStorage(record: OperationRecord): boolean {
    if (this.refusalPending(record.id)) return true;
    return record.status === "failed" && record.error?.code === ErrorCode.STORAGE_UNAVAILABLE;
  }

  /** What a write answered, rebuilt from its record (an idempotent retry after a crash gets it). */
  outcomeOf(record: OperationRecord): Record<string, unknown> {
    const pair = this.writes.chains.resolve(record.chain, record.network);
    const common = {
      id: record.id,
      transactionHash: record.transactionHash,
      status: record.status,
      chain: record.chain,
      network: record.network,
      // A write to any token that has the function (a pause, a role) names no standard.
      ...(record.tokenType !== null ? { type: record.tokenType } : {}),
    };
    const simulated = this.writes.isSimulated(pair);
    if (record.kind === "faucet") {
      const decimals = pair.nativeDecimals;
      const { address, amount } = record.params as { address: string; amount: string };
      const balance = record.result?.balance;
      return {
        id: record.id,
        chain: record.chain,
        network: record.network,
        address,
        amount: amountPair(BigInt(amount), decimals),
        decimals,
        ...(balance !== undefined ? { balance: amountPair(BigInt(String(balance)), decimals) } : {}),
        simulated: pair.kind === "evm" && simulated,
        ...(record.transactionHash ? { transactionHash: record.transactionHash } : {}),
        ...withWarnings({}, [pair.kind === "evm" ? belowOneGwei(BigInt(amount), decimals, "amount", pair.nativeSymbol) : undefined]),
      };
    }
    if (record.kind === "launch") {
      return {
        ...common,
        contractAddress: record.contractAddress,
        sender: record.sender,
        nonce: record.nonce,
        simulated,
        blockNumber: record.blockNumber,
        ...(record.tokenType === "ERC20" ? recordedSupplyEcho(record.params) : {}),
      };
    }
    if (record.kind !== "mint") {
      // The record's params are the answer's own fields (the intents of transfers, approvals and the token calls write them so).
      return echoed(
        { ...common, sender: record.sender, ...record.params, nonce: record.nonce, simulated, blockNumber: record.blockNumber },
        pair.nativeSymbol,
      );
    }
    // A mint's record keeps its fields as its answer has them (mintIntent writes them so), and a single mint's URI.
    const { contractAddress: _contract, uri: _uri, ...minted } = record.params as Record<string, unknown>;
    const outcome = {
      ...common,
      contractAddress: record.contractAddress,
      ...minted,
      ...(minted.tokenId !== undefined ? { tokenId: String(minted.tokenId) } : {}),
      ...(minted.amount !== undefined ? { amount: String(minted.amount) } : {}),
      ...mintedIds(record),
      simulated,
      blockNumber: record.blockNumber,
    };
    return echoed(outcome, pair.nativeSymbol);
  }

  start(): void {
    this.tracker.start();
  }

  private reservations({ pair, sender }: { pair: EvmPair; sender: string }): PrepareHooks {
    return {
      heldNonces: () => this.store.heldNonces(pair.chain, pair.network, sender),
      reserve: (transaction) =>
        this.store.reserveNonce({
          chain: pair.chain,
          network: pair.network,
          sender,
          nonce: Number(transaction.nonce),
          transaction: toPreparedTransaction(transaction),
          ttlMs: this.nonceReservationMs,
        }),
    };
  }

  /**
   * A caller-signed transaction is sent only if it is exactly one this service prepared for the sender, not sent
   * before, and its nonce is still the sender's to use: reserved, or, after its reservation expired, taken by nothing
   * since. Runs inside the sender lock, so no prepare or send takes the nonce meanwhile.
   */
  private async acceptSigned(where: Where, transaction: Transaction): Promise<void> {
    const field = "signedTransaction";
    const pair = `${where.chain}/${where.network}`;
    const existing = await this.store.findByTransactionHash(where.chain, where.network, transaction.hash!);
    // A submit refused before any node held it (a 503 on a full disk, a node's refusal) told the caller nothing was done.
    if (existing !== undefined && !neverHeld(existing) && !this.refusalPending(existing.id)) {
      throw new TokenServiceError(ErrorCode.ALREADY_SUBMITTED, `signedTransaction was already submitted, as operation ${existing.id}`, {
        field,
        details: { operationId: existing.id, status: existing.status },
      });
    }
    const reservation = await this.store.getNonceReservation(where.chain, where.network, where.sender, transaction.nonce);
    if (reservation === undefined) {
      throw new TokenServiceError(
        ErrorCode.TRANSACTION_NOT_PREPARED,
        `signedTransaction's nonce ${transaction.nonce} was not prepared for ${where.sender} on ${pair}: prepare first (the same body without privateKey), then sign the answer's unsignedTransaction unchanged`,
        { field, details: { nonce: transaction.nonce } },
      );
    }
    assertSameAsPrepared(transaction, reservation.transaction);
    const chain = await this.chainOf(where);
    const [next, held] = await Promise.all([
      chain.provider
        .getTransactionCount(where.sender, "pending")
        .catch((error: unknown) => Promise.reject(translateProviderError(error, `the ${pair} node`))),
      reservation.live ? Promise.resolve([]) : this.store.heldNonces(where.chain, where.network, where.sender),
    ]);
    if (transaction.nonce < next) {
      // An expired reservation's nonce may have been used by the zero-value transfer a send above it signed ahead.
      const expired = reservation.live
        ? ""
        : `: the prepared transaction expired at ${reservation.expiresAt}, and a transaction of the sender's (another send, or the zero-value transfer that takes an abandoned nonce so that later sends are mined) used the nonce since`;
      throw new TokenServiceError(
        ErrorCode.NONCE_TAKEN,
        `nonce ${transaction.nonce} is already used on ${pair} (the sender's next is ${next})${expired}: prepare again`,
        { field, details: { nonce: transaction.nonce, next, ...(reservation.live ? {} : { expiresAt: reservation.expiresAt }) } },
      );
    }
    if (held.includes(transaction.nonce)) {
      throw new TokenServiceError(
        ErrorCode.NONCE_TAKEN,
        `the prepared transaction expired at ${reservation.expiresAt} and nonce ${transaction.nonce} has been taken since: prepare again`,
        { field, details: { nonce: transaction.nonce, expiresAt: reservation.expiresAt } },
      );
    }
  }

  stop(): Promise<void> {
    return this.tracker.stop();
  }

  private chainOf(pair: { chain: string; network: string }): Promise<EvmChain> {
    return this.writes.evmChain(this.writes.chains.resolve(pair.chain, pair.network), "tracking");
  }

  /**
   * Writes the `signed` record (raw transaction included) before the broadcast: the one store write on a
   * launch's or mint's path. The tracker writes `pending` at its first look (the node has it), or the
   * broadcast's refusal is written as `failed`; a failure before signing leaves no record.
   */
  private async recorded<R extends { transactionHash: string; status: "pending" }>(
    context: OperationContext,
    intent: WriteIntent<R>,
    signing: WriteSigning,
  ): Promise<Outcome<R>> {
    const id = context.id ?? randomUUID();
    const { pair, sender } = intent.command;
    const where: Where = { apiKeyId: context.apiKeyId ?? null, chain: pair.chain, network: pair.network, sender };
    this.start();
    // Known once signed: the chain is open by then.
    let signedAs: { info: SignedTransactionInfo; chain: EvmChain } | undefined;
    try {
      const result = await this.tracker.whileBroadcasting(id, () =>
        this.writes.send(intent, signing, {
          beforeBroadcast: async (signed) => {
            const chain = await this.chainOf(where);
            await this.store.insertOperation({
              id,
              ...where,
              kind: intent.kind,
              ...intent.record(signed.nonce),
              transactionHash: signed.transactionHash,
              nonce: signed.nonce,
              rawTransaction: signed.rawTransaction,
              transactions: transactionsOf(signed),
              status: "signed",
              error: null,
              reason: "signed",
              checkInMs: Math.min(chain.pollingIntervalMs, FIRST_LOOK_MS),
              // Other processes' trackers keep off while this one may still be broadcasting it; if it dies, they take over.
              lease: { owner: this.tracker.owner, ms: SIGNED_GRACE_MS },
            });
            signedAs = { info: signed, chain };
          },
          heldNonces: () => this.store.heldNonces(where.chain, where.network, where.sender),
          acceptSigned: (transaction) => this.acceptSigned(where, transaction),
          reservationFillers: {
            unfilled: () => this.store.unfilledReservations(where.chain, where.network, where.sender),
            keep: (fillers) => this.store.keepReservationFillers(where.chain, where.network, where.sender, fillers),
          },
        }),
      );
      this.tracker.lookSoon(Math.min(signedAs?.chain.pollingIntervalMs ?? 0, FIRST_LOOK_MS));
      return { ...result, id, status: "pending" as const, blockNumber: null };
    } catch (error) {
      if (signedAs === undefined) throw error;
      // The node may or may not have it when it did not answer: the record stays signed, the tracker finds out and sends
      // it if needed, and the caller is answered with the operation as it stands, never told to retry (a retry would
      // launch twice). A refusal is final.
      const transient = isTransient(error);
      const change = decideSent({ ...errorOf(error), transient }, signedAs.chain.pollingIntervalMs);
      if (!transient) {
        // The caller is told nothing was done: the record must never be sent after all, even when the store cannot
        // write `failed` yet (a full disk refuses both the journal and the store).
        await this.tracker.writeRefusal(id, () => this.store.changeOperation(id, change));
        throw error;
      }
      // The record may be unreachable now (a database outage); it is `signed` either way, and the tracker settles it.
      const written = this.store.changeOperation(id, change).catch(() => undefined);
      this.tracker.follow(id);
      void written;
      return { ...intent.answer(signedAs.info, signedAs.chain), id, status: "signed", blockNumber: null };
    }
  }
}

/** The ERC721 ids a mined mint produced, as its answer carries them: one mint's `tokenId`, a batch's `tokenIds`. */
function mintedIds(record: OperationRecord): { tokenId?: string; tokenIds?: string[] } {
  const { tokenId, tokenIds } = record.result ?? {};
  if (Array.isArray(tokenIds)) return { tokenIds: tokenIds.map(String) };
  return tokenId !== undefined ? { tokenId: String(tokenId) } : {};
}

/** What a failure is, as a record stores it: a typed error's code and message, or nothing of an unexpected one's text. */
function errorOf(error: unknown): { code: string; message: string } {
  return error instanceof TokenServiceError
    ? { code: error.code, message: error.message }
    : { code: RecordErrorCode.INTERNAL, message: "unexpected failure" };
}

function presentPrepared(prepared: PreparedTransactionResult): PreparedOutcome {
  const { transaction, ...rest } = prepared;
  return { unsignedTransaction: toPreparedTransaction(transaction), ...rest };
}
