import type { ChainFault, RpcErrorKind } from "../../domain/faults.js";
import type { FaultLedger, FaultState, RpcErrors } from "./fault-states.js";
import { SimulatedNodeFailure } from "./provider-errors.js";

// The rpc-errors fault: a share of a simulated chain's calls fail as a live node's do (429, 503, or a timeout whose
// answer is lost), for as many calls or seconds as asked.

export class RpcErrorsFault {
  private state: RpcErrors | undefined;

  constructor(
    private readonly ledger: FaultLedger,
    private readonly options: { pair: string; requestTimeoutMs: number },
    /** Draws the dice; Math.random by default. */
    private readonly random: () => number = Math.random,
  ) {}

  /** Whether the rpc-errors fault fails the next call, and how: asked once per call (a batch of sends asks per send). */
  roll(): RpcErrorKind | undefined {
    const state = this.state;
    if (state === undefined) return undefined;
    state.effect.calls = (state.effect.calls as number) + 1;
    if (state.callsLeft !== undefined && --state.callsLeft <= 0) this.end(state, "ran its length");
    if (this.random() >= state.rate) return undefined;
    const kind = state.errors[Math.min(state.errors.length - 1, Math.floor(this.random() * state.errors.length))]!;
    const failed = state.effect.failed as Record<string, number>;
    failed[kind] = (failed[kind] ?? 0) + 1;
    return kind;
  }

  /** Fails a call as `roll` decided. */
  async fail<T>(kind: RpcErrorKind, run: () => Promise<T>): Promise<T> {
    if (kind !== "timeout") throw new SimulatedNodeFailure(kind, this.options.pair);
    // The node may well have done it (a send included): only its answer is lost, as when a live node's answer is late.
    await run().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, this.options.requestTimeoutMs).unref());
    throw new SimulatedNodeFailure("timeout", this.options.pair);
  }

  start(base: FaultState, fault: Extract<ChainFault, { fault: "rpc-errors" }>): void {
    if (this.state !== undefined) this.ledger.end(this.state, `replaced by ${base.id}`);
    const length = fault.length;
    const state = this.ledger.begin<RpcErrors>(base, {
      rate: fault.rate,
      errors: fault.errors,
      ...(length !== undefined && "calls" in length ? { callsLeft: length.calls } : {}),
      ...(length !== undefined && "seconds" in length ? { until: Date.now() + length.seconds * 1000 } : {}),
      effect: { calls: 0, failed: {} },
    });
    this.state = state;
    if (state.until !== undefined) state.timer = setTimeout(() => this.end(state, "ran its length"), state.until - Date.now()).unref();
  }

  end(state: RpcErrors, reason: string): void {
    if (this.state === state) this.state = undefined;
    this.ledger.end(state, reason);
  }

  /** Forgets `state` if it is this fault (the ledger ends it). */
  stop(state: FaultState): void {
    if (state === this.state) this.state = undefined;
  }
}
