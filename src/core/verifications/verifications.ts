import { randomUUID } from "node:crypto";

import { readVariable } from "../../config/environment.js";
import type { EvmNetworkInfo } from "../../chains/evm/chain.js";
import type { ExplorerAnswer, ExplorerClient } from "../../chains/evm/verification/explorer-client.js";
import { requireEvm, rpcEnvironmentVariable, type ChainRegistry, type NetworkInfo } from "../../domain/chains.js";
import { ErrorCode, TokenServiceError, isTokenServiceError } from "../../domain/errors.js";
import { PollingLoop } from "../../domain/polling-loop.js";
import type { OperationRecord } from "../../domain/lifecycle.js";
import { launchedTokenVerification } from "../token-verification.js";
import type { FirstUseCompiler } from "../../chains/evm/variants/first-use-compiler.js";
import { explorerClient, parseExplorer } from "./explorers.js";
import type { VerificationRecord, VerificationStep, VerificationStore } from "./types.js";

// Verification of launched tokens on explorers (docs/tokens.md#verifying-a-token, docs/decisions/0061): a request writes
// a pending record; a worker in every process leases due records (one replica at a time per record), submits each once
// and keeps the explorer's reference before anything else, then asks the explorer with it until the answer is final or
// the record has been pending for TOKEN_SERVICE_VERIFY_TIMEOUT_SECONDS.

export interface VerificationRequest {
  chain: string;
  network: string;
  address: string;
  explorer: unknown;
}

export interface VerificationsOptions {
  chains: ChainRegistry;
  /** Whether the pair is served by a live node (an explorer can see its contracts). */
  isLive(info: NetworkInfo): boolean;
  /** The launch a record names, by its id. */
  getOperation(id: string): Promise<OperationRecord | undefined>;
  /** The variants compiled on first use, whose launches' inputs are theirs. */
  variants: FirstUseCompiler;
  env: NodeJS.ProcessEnv;
  /** Told when a step failed (the store unreachable, a bug); the record is tried again. */
  onError?: (error: unknown) => void;
}

/** Records one worker advances at once. */
const BATCH = 8;

export class Verifications {
  readonly owner = `verifications-${randomUUID()}`;
  /** Between two questions to an explorer about one record. */
  readonly pollMs: number;
  /** How long a record may stay pending before it is failed. */
  readonly timeoutMs: number;
  /** One store look per poll interval while idle: a record is due no sooner (its next check is pollMs away). */
  private readonly loop = new PollingLoop(
    async () => (await this.runOnce()) === BATCH,
    () => this.pollMs,
    (error) => this.options.onError?.(error),
  );

  constructor(
    readonly store: VerificationStore,
    private readonly options: VerificationsOptions,
  ) {
    this.pollMs = readVariable(options.env, "TOKEN_SERVICE_VERIFY_POLL_SECONDS");
    this.timeoutMs = readVariable(options.env, "TOKEN_SERVICE_VERIFY_TIMEOUT_SECONDS");
  }

  private explorer(record: Pick<VerificationRecord, "explorer">, info: NetworkInfo): ExplorerClient {
    return explorerClient(parseExplorer(record.explorer), info, this.options.env);
  }

  /**
   * Checks the request (a live pair, a configured explorer, a launch of this key with a known input) and writes the
   * pending record the worker submits; a pending one of the key for the same contract and explorer is answered instead.
   */
  async request(
    apiKeyId: string | null,
    request: VerificationRequest,
    /** The key's launch of the contract on the pair (as resolved: `testnet` is a network's alias). */
    findLaunch: (chain: string, network: string, contractAddress: string) => Promise<OperationRecord | undefined>,
  ): Promise<VerificationRecord> {
    const info = requireEvm(this.options.chains.resolve(request.chain, request.network), "token verification") as EvmNetworkInfo;
    const explorer = parseExplorer(request.explorer);
    if (!this.options.isLive(info)) {
      throw new TokenServiceError(
        ErrorCode.SIMULATED_NETWORK_VERIFICATION,
        `${info.chain}/${info.network} is simulated in this process: no explorer can see its contracts (a live node is set with ${rpcEnvironmentVariable(info.chain, info.network)})`,
        { field: "network" },
      );
    }
    this.explorer({ explorer }, info);
    const launched = await launchedTokenVerification(
      (contractAddress) => findLaunch(info.chain, info.network, contractAddress),
      info,
      request.address,
      this.options.variants,
    );
    const { record, created } = await this.store.createVerification({
      id: randomUUID(),
      apiKeyId,
      explorer,
      chain: info.chain,
      network: info.network,
      address: launched.address,
      operationId: launched.launch.operationId,
    });
    if (created) this.kick();
    return record;
  }

  async get(apiKeyId: string | null, id: string): Promise<VerificationRecord> {
    const record = /^[0-9a-f-]{36}$/.test(id) ? await this.store.getVerification(id, apiKeyId) : undefined;
    if (record === undefined) {
      throw new TokenServiceError(ErrorCode.VERIFICATION_NOT_FOUND, "no verification with this id for your API key", { field: "id" });
    }
    return record;
  }

  /** The record once final, or as it stands after `timeoutMs`. */
  async wait(apiKeyId: string | null, id: string, timeoutMs: number): Promise<VerificationRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = await this.get(apiKeyId, id);
      if (record.status !== "pending" || Date.now() >= deadline) return record;
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.pollMs, 500, Math.max(1, deadline - Date.now()))));
    }
  }

  /** Asks the explorer about one leased record and writes what follows. */
  private async advance(record: VerificationRecord): Promise<void> {
    const step = await this.nextStep(record).catch((error: unknown): VerificationStep | undefined => {
      // A refusal is final (the explorer unconfigured since, the launch gone); anything else is tried again.
      if (isTokenServiceError(error)) return { kind: "final", status: "failed", message: error.message, url: null };
      this.options.onError?.(error);
      return undefined;
    });
    if (step !== undefined) await this.store.stepVerification(record.id, this.owner, step);
  }

  private async nextStep(record: VerificationRecord): Promise<VerificationStep> {
    const info = requireEvm(this.options.chains.resolve(record.chain, record.network), "token verification") as EvmNetworkInfo;
    const client = this.explorer(record, info);
    const target = { chainId: info.chainId, address: record.address };
    let answer: ExplorerAnswer;
    if (record.explorerReference === null) {
      const launch = await this.options.getOperation(record.operationId);
      const verification = await launchedTokenVerification(async () => launch, info, record.address, this.options.variants);
      answer = await client.submit({ ...target, verification, creationTransactionHash: launch?.transactionHash ?? null });
    } else answer = await client.check(record.explorerReference, target);
    switch (answer.outcome) {
      case "accepted":
        return { kind: "accepted", reference: answer.reference, message: answer.words, nextInMs: this.pollMs };
      case "verified":
      case "failed":
        return { kind: "final", status: answer.outcome, message: answer.words, url: client.contractUrl(info.chainId, record.address) };
      case "pending": {
        const waited = Date.now() - Date.parse(record.createdAt);
        if (waited < this.timeoutMs) return { kind: "again", message: answer.words, nextInMs: this.pollMs };
        return {
          kind: "final",
          status: "failed",
          message: `still not verified by ${client.label} after ${Math.round(waited / 1000)} s (TOKEN_SERVICE_VERIFY_TIMEOUT_SECONDS); its last answer: ${answer.words}`,
          url: client.contractUrl(info.chainId, record.address),
        };
      }
    }
  }

  /** Leases what is due and advances each; answers how many it took. */
  async runOnce(): Promise<number> {
    // Longer than a submission can take (two explorer requests' timeouts and the input's rebuild).
    const leaseMs = 2 * 30_000 + 10_000;
    const due = await this.store.leaseDueVerifications(this.owner, leaseMs, BATCH);
    await Promise.all(due.map((record) => this.advance(record)));
    return due.length;
  }

  start(): void {
    this.loop.start();
  }

  /** A submission in this process is looked at at once; another replica's waits at most one poll interval. */
  kick(): void {
    this.loop.kick();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.store.releaseVerificationLeases(this.owner).catch(() => undefined);
  }
}
