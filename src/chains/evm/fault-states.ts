import type { ChainFault, ChainFaultKind, ChainFaultRequest, ChainFaultView, RpcErrorKind } from "../../domain/faults.js";

// The faults of a simulated chain as it keeps them (each kind's state, what it did so far) and as it answers them (a
// ChainFaultView): the bookkeeping of faults.ts, apart from how they act on the chain.

export interface FaultState {
  id: string;
  fault: ChainFaultKind;
  request: ChainFaultRequest;
  startedAt: Date;
  endedAt?: Date;
  endReason?: string;
  effect: Record<string, unknown>;
  timer?: NodeJS.Timeout;
}

export interface Spike extends FaultState {
  fee: bigint;
  /** The base fee before the spike: what the block after it gets. */
  baseline: bigint;
  blocksLeft: number;
}

/** A stall, or a drop with a length: the chain mines nothing until it ends; a drop then forgets what it held. */
export interface Hold extends FaultState {
  drop: boolean;
  blocksLeft?: number;
  until?: number;
}

export interface RpcErrors extends FaultState {
  rate: number;
  errors: RpcErrorKind[];
  callsLeft?: number;
  until?: number;
}

/** The request a fault was made from, as checked (its lengths as given). */
export function requestOf(fault: ChainFault): ChainFaultRequest {
  switch (fault.fault) {
    case "fee-spike":
      return fault.multiplier !== undefined
        ? { fault: fault.fault, multiplier: fault.multiplier, blocks: fault.blocks }
        : { fault: fault.fault, baseFeePerGas: fault.baseFeePerGas.toString(), blocks: fault.blocks };
    case "stall":
    case "drop":
      return { fault: fault.fault, ...fault.length };
    case "reorg":
      return { fault: fault.fault, blocks: fault.blocks };
    case "rpc-errors":
      return { fault: fault.fault, rate: fault.rate, errors: fault.errors, ...fault.length };
  }
}

const secondsLeft = (until: number) => Math.max(0, Math.round((until - Date.now()) / 100) / 10);

/** How a fault stands, as the service answers it; `held`: what a stall or a drop holds now (it counts what waits). */
export function viewOf(state: FaultState, pair: string, held?: number): ChainFaultView {
  const [chain, network] = pair.split("/") as [string, string];
  let remaining: ChainFaultView["remaining"] = null;
  if (state.endedAt === undefined) {
    const { blocksLeft, until, callsLeft } = state as Partial<Spike & Hold & RpcErrors>;
    if (blocksLeft !== undefined) remaining = { blocks: blocksLeft };
    else if (callsLeft !== undefined) remaining = { calls: callsLeft };
    else if (until !== undefined) remaining = { seconds: secondsLeft(until) };
  }
  return {
    id: state.id,
    fault: state.fault,
    chain,
    network,
    status: state.endedAt === undefined ? "active" : "ended",
    startedAt: state.startedAt.toISOString(),
    endedAt: state.endedAt?.toISOString() ?? null,
    endReason: state.endReason ?? null,
    request: state.request,
    remaining,
    effect: held === undefined ? structuredClone(state.effect) : { ...structuredClone(state.effect), held },
  };
}

/** The faults of one chain that are active; each ends once, whatever ends it first (its length, a clear, a new one). */
export class FaultLedger {
  private readonly active = new Map<string, FaultState>();

  /** Makes `base` (the state `inject` answers from) the fault it is, and active. */
  begin<S extends FaultState>(base: FaultState, fields: Omit<S, keyof FaultState> & { effect: Record<string, unknown> }): S {
    const state = Object.assign(base, fields) as S;
    this.active.set(state.id, state);
    return state;
  }

  end(state: FaultState, reason: string): void {
    clearTimeout(state.timer);
    if (state.endedAt !== undefined) return;
    state.endedAt = new Date();
    state.endReason = reason;
    this.active.delete(state.id);
  }

  get(id: string): FaultState | undefined {
    return this.active.get(id);
  }

  /** The active faults, oldest first. */
  all(): FaultState[] {
    return [...this.active.values()];
  }
}
