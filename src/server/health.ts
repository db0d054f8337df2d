import type { ServerContext } from "./context.js";

export interface BackendHealth {
  ready: boolean;
  simulated?: boolean;
  detail: string;
}

const PROBE_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timed out")), PROBE_TIMEOUT_MS).unref())]);
}

/**
 * Liveness plus per-backend readiness. Simulated chains start on first use, so
 * an unopened one is ready by definition; live endpoints get a short probe.
 */
export async function checkHealth({ service, store }: ServerContext): Promise<{ status: "ok" | "degraded"; backends: Record<string, BackendHealth> }> {
  const backends: Record<string, BackendHealth> = {};
  const probes: Array<Promise<void>> = [
    withTimeout(store.ping()).then(
      () => void (backends.database = { ready: true, detail: `${store.kind} (${store.location})` }),
      () => void (backends.database = { ready: false, detail: `${store.kind} not answering` }),
    ),
  ];
  for (const pair of service.networks()) {
    const key = `${pair.chain}/${pair.network}`;
    if (pair.kind === "bitcoin") {
      if (pair.backend === "none") {
        backends[key] = { ready: false, detail: pair.endpoint };
        continue;
      }
      probes.push(
        withTimeout(service.pingBitcoin(pair.network)).then(
          (probe) => void (backends[key] = { ready: true, detail: `${pair.backend} at ${pair.endpoint}${probe === "not probed" ? " (not probed)" : ""}` }),
          () => void (backends[key] = { ready: false, detail: `${pair.backend} at ${pair.endpoint} not answering` }),
        ),
      );
      continue;
    }
    if (pair.backend === "none") continue;
    if (pair.simulated) {
      backends[key] = { ready: true, simulated: true, detail: "in-process EDR (started on first use)" };
      continue;
    }
    probes.push(
      withTimeout(service.evmChain(pair, "health check").then((chain) => chain.provider.getBlockNumber())).then(
        (block) => void (backends[key] = { ready: true, simulated: false, detail: `${pair.endpoint}, block ${block}` }),
        () => void (backends[key] = { ready: false, simulated: false, detail: `${pair.endpoint} not answering` }),
      ),
    );
  }
  await Promise.all(probes);
  const evmOrDatabaseDown = Object.entries(backends).some(([name, health]) => !health.ready && !name.startsWith("bitcoin/"));
  return { status: evmOrDatabaseDown ? "degraded" : "ok", backends };
}
