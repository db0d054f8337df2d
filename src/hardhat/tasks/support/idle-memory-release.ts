import type { Server } from "node:http";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";

export interface IdleMemoryRelease {
  /** Collections run so far. */
  readonly releases: number;
  stop(): void;
}

type CollectGarbage = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

/**
 * V8's collector, as `--expose-gc` gives it to new contexts. The flag is set only long enough to make
 * one context, so no other code of the process sees a global `gc`.
 */
function collectGarbageFunction(): CollectGarbage {
  v8.setFlagsFromString("--expose-gc");
  try {
    return runInNewContext("gc") as CollectGarbage;
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
}

/**
 * Start-up allocates fast (thousands of modules, the store's migrations, a chain's first blocks), and V8
 * answers by growing its young generation to the maximum, 32 MiB per semi-space on 64-bit, then keeps
 * those pages committed for as long as the process lives: about 40 MiB of an idle service's RSS that
 * holds nothing. Browsers give such memory back when a page goes idle (V8's memory reducer); Node never
 * asks for it. `serve` owns its process, so it does the same itself: once per idle period, `idleMs`
 * after the last request finished, one memory-reducing collection (a pause of some tens of
 * milliseconds while nothing is being served).
 */
export function releaseMemoryWhenIdle(http: Server, idleMs: number): IdleMemoryRelease {
  const collectGarbage = collectGarbageFunction();
  let inFlight = 0;
  // The start-up burst itself counts as activity.
  let activeSinceRelease = true;
  let timer: NodeJS.Timeout | undefined;
  let releases = 0;

  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (inFlight > 0 || !activeSinceRelease) return;
      activeSinceRelease = false;
      collectGarbage({ type: "major", execution: "sync", flavor: "last-resort" });
      releases++;
    }, idleMs);
    timer.unref();
  };
  const onRequest = (_request: unknown, response: { once(event: "close", listener: () => void): void }) => {
    inFlight++;
    activeSinceRelease = true;
    clearTimeout(timer);
    response.once("close", () => {
      if (--inFlight === 0) arm();
    });
  };

  http.on("request", onRequest);
  arm();
  return {
    get releases() {
      return releases;
    },
    stop() {
      clearTimeout(timer);
      http.off("request", onRequest);
    },
  };
}
